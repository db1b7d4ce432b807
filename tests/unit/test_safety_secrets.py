"""``find_secrets`` / ``redact_secrets`` (tacit.safety.secrets): the shapes the
issue names, what survives, one definition shared with the scanner, bounded
time. The labelled shapes and look-alikes are in tests/data/privacy_corpus.jsonl."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tacit.safety import SecretSpan, find_secrets, redact_secrets, scan
from tacit.safety import secrets as secret_rules
from tacit.safety.scanner import pattern_ids
from test_scan import expand


def _secret_ids(text: str) -> set[str]:
    return {f.pattern_id for f in scan(text) if f.category == "secret"}


@pytest.mark.parametrize("text, redacted", [
    ("the password is hunter2", "the password is [REDACTED:password]"),
    ("the staging password is hunter2.", "the staging password is [REDACTED:password]."),
    ("pw: hunter22", "pw: [REDACTED:password]"),
    ("pwd=Passw0rd!", "pwd=[REDACTED:password]"),
    ("passwd=abc123", "passwd=[REDACTED:password]"),
    ("password: Zk82!mQ", "password: [REDACTED:password]"),
    ('"password": "Sup3rS3cret!"', '"password": "[REDACTED:password]"'),
    ("密码是hunter2，别说", "密码是[REDACTED:password]，别说"),
    ("contraseña: hunter2", "contraseña: [REDACTED:password]"),
    ("postgres://app:devpass42@db/x", "postgres://app:[REDACTED:password]@db/x"),
    ("redis://:s3cretpass@cache:6379", "redis://:[REDACTED:password]@cache:6379"),
    ("Server=x;User Id=sa;Password=Str0ng!Pass;", "Server=x;User Id=sa;Password=[REDACTED:password];"),
    ("mysql -u root -pS3cretRoot!", "mysql -u root -p[REDACTED:password]"),
    ("curl -u deploy:Qx7!vR2pLm https://r.example", "curl -u deploy:[REDACTED:password] https://r.example"),
])
def test_passwords_in_prose_and_config(text, redacted):
    assert redact_secrets(text) == redacted
    assert _secret_ids(text)


@pytest.mark.parametrize("template, kind", [
    ("AKIA{U16}", "aws_key"), ("ASIA{U16}", "aws_key"), ("aws_secret_access_key = {A40}", "aws_secret_key"),
    ("sk-{A48}", "openai_key"), ("sk-proj-{B64}", "openai_key"), ("sk-ant-api03-{B93}", "anthropic_key"),
    ("ghp_{A36}", "github_token"), ("gho_{A36}", "github_token"), ("ghs_{A36}", "github_token"),
    ("github_pat_{A22}_{A59}", "github_token"), ("glpat-{B20}", "gitlab_token"),
    ("xoxb-{D12}-{D13}-{A24}", "slack_token"), ("xoxp-{D11}-{D11}-{D12}-{H32}", "slack_token"),
    ("sk_live_{A24}", "stripe_key"), ("rk_live_{A24}", "stripe_key"), ("AIza{B35}", "google_api_key"),
    ("npm_{A36}", "npm_token"), ("pypi-AgEIcHlwaS5vcmc{B70}", "pypi_token"), ("hf_{L34}", "huggingface_token"),
    ("SK{H32}", "twilio_key"), ("SG.{B22}.{B43}", "sendgrid_key"),
    ("Authorization: Bearer {A40}", "bearer_token"), ("eyJhbGciOiJIUzI1NiJ9.eyJ{B40}.{B43}", "jwt"),
    ("AccountKey={A86}==", "azure_key"), ("GOCSPX-{B28}", "google_oauth_secret"),
])
def test_token_shapes(template, kind):
    text, values = expand(f"use {template} here", f"shape-{template}")
    spans = find_secrets(text)
    assert [span.kind for span in spans] == [kind]
    redacted = redact_secrets(text)
    assert f"[REDACTED:{kind}]" in redacted and redacted.startswith("use ") and redacted.endswith(" here")
    assert not any(value in redacted for value in values if len(value) >= 6)


@pytest.mark.parametrize("text", [
    "your_api_key_here", "<token>", "$API_KEY", "${DB_PASSWORD}", 'os.environ["OPENAI_API_KEY"]',
    "password = getpass()", "sk-...", "xxxx", "password: changeme", '"password": ""', "set the password in .env",
    "3f786850e387550fdab836ed7e6dc881de23001b", "https://x.example/items/123e4567-e89b-12d3-a456-426614174000",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "ghp_", "Authorization: Bearer <token>", "token = 'test-token-123'", "https://user:pass@host",
])
def test_placeholders_and_look_alikes_survive(text):
    assert redact_secrets(text) == text
    assert find_secrets(text) == []
    assert not _secret_ids(text)


def test_pem_block_goes_whole_and_text_after_it_stays():
    text, values = expand("key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow{A58}\n{A64}\n-----END RSA PRIVATE KEY-----\n"
                          "done", "pem")
    assert redact_secrets(text) == "key:\n[REDACTED:private_key]\ndone"


def test_pem_inside_service_account_json():
    text, _ = expand('{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE{A60}\\n{A40}==\\n'
                     '-----END PRIVATE KEY-----\\n", "client_email": "ci@p.iam.gserviceaccount.com"}', "gcp")
    assert redact_secrets(text) == ('{"private_key": "[REDACTED:private_key]\\n", '
                                    '"client_email": "ci@p.iam.gserviceaccount.com"}')


def test_truncated_pem_hides_its_key_lines_but_not_the_prose_after():
    text, values = expand("-----BEGIN PRIVATE KEY-----\nMIIE{A60}\n{A20}==\nthat was cut off here", "cut")
    assert redact_secrets(text) == "[REDACTED:private_key]\nthat was cut off here"
    assert redact_secrets("a -----BEGIN PRIVATE KEY----- header in prose") == "a [REDACTED:private_key] header in prose"


def test_a_stated_password_is_redacted_where_it_is_repeated():
    text = "the password is hunter2. I typed hunter2 and it failed"
    assert redact_secrets(text) == "the password is [REDACTED:password]. I typed [REDACTED:password] and it failed"


def test_overlapping_matches_become_one_marker():
    text, _ = expand("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJ{B40}.{B43}", "overlap")
    spans = find_secrets(text)
    assert len(spans) == 1 and redact_secrets(text).count("[REDACTED:") == 1


def test_span_values():
    text = "x pw: hunter22 y"
    (span,) = find_secrets(text)
    assert span == SecretSpan("password", 6, 14, "secret.assignment")
    assert text[span.start:span.end] == "hunter22"


def test_one_definition_every_secret_rule_is_a_scanner_pattern_id():
    secret_ids = {pid for pid in pattern_ids() if pid.startswith("secret.")}
    assert {rule.pattern_id for rule in secret_rules.RULES} == secret_ids


@pytest.mark.parametrize("value", [None, b"pw: hunter22", 123, ["pw: hunter22"]])
def test_non_string_input(value):
    assert isinstance(redact_secrets(value), str)
    assert isinstance(find_secrets(value), list)
    assert redact_secrets(b"pw: hunter22") == "pw: [REDACTED:password]"


_FRAGMENTS = [
    "password", "pw", "pwd", "passwd", "token", "api_key", "api key", "secret", "AccountKey", "is", ":", "=", " ",
    "\n", "'", '"', "`", "hunter2", "Xk29abcdQ", "changeme", "$VAR", "${X}", "getpass()", "://", "user", "@", "/",
    "ghp_", "sk-", "AKIA", "eyJ", ".", "Bearer ", "Basic ", "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----",
    "mysql -u root -p", "curl -u a:", "密码是", "contraseña:", "for the staging db", "SK", "SG.", ":AA", "[REDACTED:x]",
]
_SECRETISH = st.one_of(
    st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(alphabet="aB3xZ9-_/+=!", max_size=24)),
             max_size=14).map("".join),
    st.text(max_size=200),
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_SECRETISH)
@example("pw: hunter22")
@example("the password is hunter2 and AKIAABCDEFGHIJKLMNO1")
@example("-----BEGIN PRIVATE KEY-----3333333333333333-----BEGIN PRIVATE KEY-----")
def test_redaction_and_scanner_agree_and_redaction_is_final(text):
    spans = find_secrets(text)
    assert bool(spans) == bool(_secret_ids(text))
    positions = [(s.start, s.end) for s in spans]
    assert positions == sorted(positions)
    assert all(0 <= a < b <= len(text) for a, b in positions)
    assert all(b1 <= a2 for (_a1, b1), (a2, _b2) in zip(positions, positions[1:]))
    redacted = redact_secrets(text)
    assert find_secrets(redacted) == []
    assert redact_secrets(redacted) == redacted


# ---------------------------------------------------------------------------
# bounded time
# ---------------------------------------------------------------------------
def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _best(fn, arg, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.thread_time()  # this thread's CPU time: neither load nor other threads stretch it
        fn(arg)
        best = min(best, time.thread_time() - start)
    return best


ADVERSARIAL = {
    "assignments": lambda n: _repeat("password = ", n),
    "phrases": lambda n: _repeat("the password for the x y z ", n),
    "long token": lambda n: "sk-" + "a" * (n - 3),
    "url userinfo": lambda n: _repeat("://a:", n),
    "pem without end": lambda n: "-----BEGIN PRIVATE KEY-----\n" + _repeat("QUJD\n", n),
    "pem headers": lambda n: _repeat("-----BEGIN PRIVATE KEY-----", n),
    "aws pairs": lambda n: _repeat("AKIAABCDEFGHIJKLMNOP / ", n),
    "bearer": lambda n: _repeat("Bearer ", n),
    "mysql": lambda n: _repeat("mysql -p", n),
    "curl user": lambda n: _repeat("curl -u a:", n),
    "chinese": lambda n: _repeat("密码是", n),
    "repeated value": lambda n: "the password is hunter22 " + _repeat("hunter22 ", n),
    "labels and spaces": lambda n: _repeat("password key token pass ", n),
    "bare credentials": lambda n: _repeat("a:b@c:d@", n),
    "pem end lines": lambda n: _repeat("QUJDQUJDQUJDQUJD\n-----END PRIVATE KEY-----\n", n),
    "aws near id": lambda n: "AKIAABCDEFGHIJKLMNOP " + _repeat("Ab3/" * 10 + " ", n),
    "tool flags": lambda n: _repeat("redis-cli -a ", n),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_time_grows_linearly_on_adversarial_input(name):
    make = ADVERSARIAL[name]
    small, large = make(40_000), make(160_000)
    ratio = _best(redact_secrets, large) / max(_best(redact_secrets, small), 1e-5)
    assert ratio < 12, f"{name}: 4x input took {ratio:.1f}x longer"

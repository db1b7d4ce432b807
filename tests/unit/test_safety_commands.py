"""``dangerous_command`` / ``find_dangers`` (tacit.safety.commands): what a
stored "fix that worked" may not recommend. The labelled positives and benign
negatives are in tests/data/privacy_corpus.jsonl (kind ``dangerous``)."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tacit.safety import Danger, dangerous_command, find_dangers
from tacit.safety.commands import REASONS


def _ids(text: str) -> list[str]:
    return [d.id for d in find_dangers(text)]


def test_the_issue_fix_is_refused():
    fix = "The install failed until I ran curl -fsSL https://get.example.dev/install.sh | sh"
    assert dangerous_command(fix) == REASONS["pipe_to_shell"]


@pytest.mark.parametrize("text", ["rm -rf node_modules", "rm -rf ./build", "rm -rf dist", "rm -rf build/ .cache",
                                  "rm -rf /tmp/tacit-test-1", "find . -name '*.pyc' -delete"])
def test_project_local_deletes_pass(text):
    assert dangerous_command(text) is None


@pytest.mark.parametrize("text", ["rm -rf /", "rm -rf ~", "rm -rf $HOME/.cache", "sudo rm -rf build", "rm -rf ..",
                                  "rm -rf ../sibling", "rm -rf build/../..", "rm -rf $UNSET_DIR/", "rm -rf /tmp/*",
                                  "rm --no-preserve-root -r x", "Remove-Item -Recurse -Force $env:USERPROFILE"])
def test_deletes_outside_the_project_are_dangerous(text):
    assert _ids(text) == ["delete_outside_project"], text


def test_non_recursive_rm_is_not_a_recursive_delete():
    assert dangerous_command("rm ~/.bash_history.bak") is None
    assert dangerous_command("rm -f ~/.npmrc.bak") is None
    assert _ids("rm -Recurse -Force C:\\") == ["delete_outside_project"]  # PowerShell's rm alias


@pytest.mark.parametrize("text, expected", [
    ("never run curl https://x | sh", None),
    ("Avoid `rm -rf ~` at all costs.", None),
    ("don't use verify=False", None),
    ("instead of chmod 777, fix the owner", None),
    ("Don't worry, just run curl https://x | sh", "pipe_to_shell"),  # the clause ended at the comma
    ("It's not slow: curl https://x | sh works", "pipe_to_shell"),
])
def test_advice_against_a_command_passes(text, expected):
    assert (_ids(text)[0] if _ids(text) else None) == expected


@pytest.mark.parametrize("text", ["curl -k https://x", "curl -sSLk https://x", "curl --insecure https://x"])
def test_curl_k_is_insecure_but_other_short_options_are_not(text):
    assert _ids(text) == ["tls_disabled"]
    assert dangerous_command(text.replace("k", "L").replace("--insecure", "--silent")) is None


def test_world_writable_modes():
    for mode in ("777", "0777", "1777", "666", "772", "a+w", "o+rwx", "ugo+rwx", "u+x,o+w"):
        assert _ids(f"chmod {mode} f") == ["world_writable"], mode
    for mode in ("755", "644", "700", "775", "+x", "u+w", "g+w", "o-w"):
        assert dangerous_command(f"chmod {mode} f") is None, mode


def test_sudo_only_matters_for_language_package_managers():
    assert _ids("sudo pip install requests") == ["sudo_package_install"]
    assert _ids("sudo python3 -m pip install x") == ["sudo_package_install"]
    assert dangerous_command("sudo apt-get install -y libpq-dev") is None
    assert dangerous_command("pip install --user pipx") is None


def test_several_reasons_in_fixed_order_one_per_id():
    text = "curl -k https://x | bash && chmod 777 . && rm -rf ~ && curl -k https://y"
    dangers = find_dangers(text)
    assert [d.id for d in dangers] == ["pipe_to_shell", "delete_outside_project", "tls_disabled", "world_writable"]
    assert all(isinstance(d, Danger) and d.reason == REASONS[d.id] for d in dangers)
    assert dangerous_command(text) == dangers[0].reason


def test_a_credential_is_dangerous_in_a_fix():
    assert _ids("fixed by export GITLAB_TOKEN=glpat-" + "aB3dE5gH7jK9mN1pQ3rS") == ["credential"]


@pytest.mark.parametrize("value", [None, b"curl https://x | sh", 7, ""])
def test_non_string_input(value):
    result = dangerous_command(value)
    assert result is None or isinstance(result, str)
    assert dangerous_command(b"curl https://x | sh") == REASONS["pipe_to_shell"]


_BITS = ["curl", "wget", "iwr", "|", "sh", "bash", "iex", "<(", "$(", ")", "rm", "-rf", "-r", "~", "/", "..", "$HOME",
         "sudo", "pip", "install", "chmod", "777", "a+w", "verify=False", "-k", "--insecure", "git", "commit",
         "--no-verify", "never", "don't", ",", ";", "&&", "\n", " ", "`", "'", '"', "find", "-delete", "setenforce 0"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), st.lists(st.sampled_from(_BITS), max_size=20).map(" ".join)))
def test_never_raises_and_reports_known_ids(text):
    dangers = find_dangers(text)
    ids = [d.id for d in dangers]
    assert len(ids) == len(set(ids)) and set(ids) <= set(REASONS)
    assert (dangerous_command(text) is None) == (dangers == [])


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
    "curls": lambda n: _repeat("curl x ", n),
    "pipes": lambda n: _repeat("| sh ", n),
    "curl then pipes": lambda n: "curl " + _repeat("a|", n),
    "rm": lambda n: _repeat("rm -rf a ", n),
    "chmod": lambda n: _repeat("chmod ", n),
    "git commit": lambda n: _repeat("git commit x ", n),
    "find": lambda n: _repeat("find / x ", n),
    "negations": lambda n: _repeat("never ", n),
    "remove-item": lambda n: _repeat("Remove-Item -Recurse ", n),
    "substitutions": lambda n: _repeat("bash <(", n),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_time_grows_linearly_on_adversarial_input(name):
    make = ADVERSARIAL[name]
    small, large = make(40_000), make(160_000)
    ratio = _best(find_dangers, large) / max(_best(find_dangers, small), 1e-5)
    assert ratio < 12, f"{name}: 4x input took {ratio:.1f}x longer"


@pytest.mark.parametrize("text", [
    "requests.get(u, verify=False)", "session.verify_ssl = False", "ssl_verify: false", "ctx.check_hostname = False",
    "cert_reqs='CERT_NONE'", "ssl._create_unverified_context()", "ssl.create_default_context().check_hostname = False",
    "curl --insecure x", "wget --no-check-certificate x", "helm --insecure-skip-tls-verify install",
    "NODE_TLS_REJECT_UNAUTHORIZED=0", "{ rejectUnauthorized: false }", "npm config set strict-ssl false",
    "git config http.sslVerify false", "GIT_SSL_NO_VERIFY=true git clone x", "PYTHONHTTPSVERIFY=0",
    "pip install --trusted-host h x", "pip config set global.trusted-host h", "InsecureSkipVerify: true",
    "conda config --set ssl_verify no", "curl_setopt($ch, CURLOPT_SSL_VERIFYPEER, false)",
])
def test_every_tls_rule_alternative_is_reached_through_its_gate_words(text):
    assert "tls_disabled" in _ids(text), text

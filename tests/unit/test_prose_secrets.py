"""Secrets in prose (issue 21): a corpus written after the rules, none may pass.

``tests/data/prose_secrets.jsonl``: 109 messages in the shapes people write
secrets in — a label in running text ("the staging pw is hunter2", "with
password S3cr3t!", "secret <value>"), credentials on command lines
(``mysql -pX``, ``--password=``, ``PGPASSWORD=``, ``user:pass@host``), an AWS
key id with its secret a few words away, prefixed tokens, and private keys
whole or in halves. Generated values are placeholders (``test_scan.expand``);
people's passwords are literals listed with the row. False redactions on real
messages are measured in tests/benchmarks/prose_secrets.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tacit.safety import redact_secrets, scan
from test_scan import expand

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "prose_secrets.jsonl"


def load() -> list[dict]:
    rows = []
    for lineno, line in enumerate(CORPUS.read_text(encoding="utf-8").splitlines(), 1):
        row = json.loads(line)
        row["lineno"] = lineno
        row["text"], values = expand(row["text"], f"prose-secrets-{lineno}")
        row["secrets"] = values + row["literals"]
        rows.append(row)
    return rows


ROWS = load()


def leaks(row: dict) -> list[str]:
    """The secrets of ``row`` still in its redacted text."""
    redacted = redact_secrets(row["text"])
    return [value for value in row["secrets"] if value in redacted]


def test_corpus_size_and_shapes():
    assert len(ROWS) >= 100
    assert {r["shape"] for r in ROWS} == {"label", "command", "key_id", "token", "private_key", "mixed"}
    assert all(r["secrets"] for r in ROWS)


def test_no_secret_of_the_corpus_gets_through():
    through = [(r["lineno"], r["text"], leaks(r)) for r in ROWS if leaks(r)]
    assert through == [], f"{len(through)}/{len(ROWS)} messages leak: {through[:5]}"


@pytest.mark.parametrize("row", [r for r in ROWS if r["shape"] != "private_key"], ids=lambda r: f"line{r['lineno']}")
def test_the_scanner_calls_each_a_secret(row):
    assert any(f.pattern_id.startswith("secret.") for f in scan(row["text"]))


@pytest.mark.parametrize("text", [
    "the password field is validated on submit",
    "class Foo:\n    pass\n\ndef bar():\n    pass",
    "keep the token budget under 4k per call",
    "pass arg2 to the helper, then pass self.value",
    "the password reset flow sends an email",
    "key user_id_123 is the primary key",
    "secret sauce is the caching layer",
    "token count: 1234",
    "ssh git@github.com:org/repo.git",
    "mailto:someone@corp.com",
    "the API key header is X-Api-Key",
    "password must be at least 12 characters",
    "pass --verbose to see more",
    "key config.yaml holds the defaults",
    "## **Key Improvements:**\n- **Key Dependencies:** `@fhevm/solidity`",
    "the auth token TTL is 3600 seconds",
    "secret rotation runs nightly via cron",
])
def test_ordinary_prose_and_code_are_left_alone(text):
    assert redact_secrets(text) == text

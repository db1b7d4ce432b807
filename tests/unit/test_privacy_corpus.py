"""The labelled privacy corpus (tests/data/privacy_corpus.jsonl) through every
pure function of tacit.safety.

Row kinds:
- ``dont_keep``: ``label`` says whether ``asks_not_to_keep`` must be True;
  the negatives are look-alikes ("don't save the file yet").
- ``private``: ``strip_private(text) == expect``.
- ``secret``: ``redact_secrets`` must remove every generated value and every
  listed literal, say exactly the ``expect`` kinds, and the scanner must
  report a ``secret.*`` finding.
- ``benign``: a secret look-alike (placeholder, variable, hash, UUID …) that
  redaction must leave unchanged and the scanner must not call a secret.
- ``dangerous``: ``label`` says whether ``find_dangers`` must report ``expect``.

Secret values are stored as placeholders (``{A36}`` = 36 random letters and
digits, see ``test_scan.expand``), so the repository holds no token-shaped
string; ``load`` expands them deterministically.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tacit.safety import (
    asks_not_to_keep, find_dangers, find_secrets, redact_secrets, scan, strip_private,
)
from test_scan import expand

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "privacy_corpus.jsonl"


def load(path: Path = CORPUS) -> list[dict]:
    """The corpus rows, placeholders expanded; ``values`` holds the generated secrets."""
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        row["lineno"] = lineno
        row["text"], row["values"] = expand(row["text"], f"privacy-corpus-{lineno}")
        rows.append(row)
    return rows


ROWS = load()


def of(kind: str, label=None) -> list[dict]:
    return [r for r in ROWS if r["kind"] == kind and (label is None or r.get("label") is label)]


def test_corpus_shape_and_size():
    assert {r["kind"] for r in ROWS} == {"dont_keep", "private", "secret", "benign", "dangerous"}
    assert len(of("dont_keep", True)) >= 120 and len(of("dont_keep", False)) >= 100
    assert len(of("secret")) >= 80 and len(of("benign")) >= 100
    assert len(of("dangerous", True)) >= 60 and len(of("dangerous", False)) >= 50
    assert len(of("private")) >= 20
    keys = [(r["kind"], r["text"]) for r in ROWS]
    assert len(keys) == len(set(keys)), "duplicate rows"
    langs = {r["lang"] for r in of("dont_keep", True)}
    assert {"en", "zh", "de", "fr", "es"} <= langs


def test_dont_keep_zero_misses_and_zero_false_positives():
    misses = [(r["lineno"], r["text"]) for r in of("dont_keep", True) if not asks_not_to_keep(r["text"])]
    false_positives = [(r["lineno"], r["text"]) for r in of("dont_keep", False) if asks_not_to_keep(r["text"])]
    assert misses == [], f"{len(misses)}/{len(of('dont_keep', True))} misses"
    assert false_positives == [], f"{len(false_positives)}/{len(of('dont_keep', False))} false positives"


@pytest.mark.parametrize("row", of("private"), ids=lambda r: f"line{r['lineno']}")
def test_private_spans(row):
    assert strip_private(row["text"]) == row["expect"]


def test_secrets_are_all_redacted_with_their_kinds():
    problems = []
    for row in of("secret"):
        text = row["text"]
        redacted = redact_secrets(text)
        must_vanish = [v for v in row["values"] if len(v) >= 6] + row["literals"]
        leaks = [v for v in must_vanish if v in redacted]
        kinds = sorted({span.kind for span in find_secrets(text)})
        markers = sorted(set(re.findall(r"\[REDACTED:(\w+)\]", redacted)))
        scanner_secret = any(f.category == "secret" for f in scan(text))
        if leaks or kinds != sorted(set(row["expect"])) or markers != kinds or not scanner_secret:
            problems.append((row["lineno"], text[:60], leaks, kinds, row["expect"], scanner_secret))
    assert problems == []
    assert sum(len(r["values"]) + len(r["literals"]) for r in of("secret")) >= 90


def test_benign_look_alikes_survive_and_are_not_secrets():
    changed = [(r["lineno"], r["text"], redact_secrets(r["text"])) for r in of("benign")
               if redact_secrets(r["text"]) != r["text"]]
    flagged = [(r["lineno"], r["text"], [f.pattern_id for f in scan(r["text"]) if f.category == "secret"])
               for r in of("benign") if any(f.category == "secret" for f in scan(r["text"]))]
    assert changed == []
    assert flagged == []
    assert not any(find_secrets(r["text"]) for r in of("benign"))


def test_redacting_twice_changes_nothing_and_leaves_no_secret():
    for row in of("secret"):
        once = redact_secrets(row["text"])
        assert redact_secrets(once) == once, row["lineno"]
        assert find_secrets(once) == [], row["lineno"]
        assert not any(f.category == "secret" for f in scan(once)), (row["lineno"], once)


def test_dangerous_commands_zero_misses_and_zero_false_positives():
    misses = [(r["lineno"], r["text"], r["expect"], [d.id for d in find_dangers(r["text"])])
              for r in of("dangerous", True) if r["expect"] not in {d.id for d in find_dangers(r["text"])}]
    false_positives = [(r["lineno"], r["text"], [d.id for d in find_dangers(r["text"])])
                       for r in of("dangerous", False) if find_dangers(r["text"])]
    assert misses == []
    assert false_positives == []


def test_dangerous_corpus_covers_every_danger_id():
    from tacit.safety.commands import REASONS

    assert {r["expect"] for r in of("dangerous", True)} == set(REASONS)


def test_private_then_redact_leaves_nothing_of_either():
    """The host boundary's order: private spans first, then secrets."""
    secret_rows = of("secret")
    for i, private in enumerate(of("private")[:5]):
        secret = secret_rows[i]
        text = f"{private['text']}\n{secret['text']}\n<private>{secret['text']}</private>"
        cleaned = redact_secrets(strip_private(text))
        for value in secret["values"] + secret["literals"]:
            if len(value) >= 6:
                assert value not in cleaned

"""The real-conversation data set and its fixed split by repository.

Shared by ``quality.py`` (the benchmark), ``train_detectors.py`` (the
training script) and the unit test that keeps the check-split figures above a
floor.

Design decisions, and why
- **Split by repository, never by row**: messages of one repository share
  phrasing and topics, so a row-level split leaks.
- **A seeded rule, written down in a committed file**: a repository is in the
  tune part when ``sha256("tacit-real-split-v1:" + repo)`` read as a number in
  [0, 1) is below 0.6. ``tests/data/real_split.json`` lists the outcome for
  every repository of ``user.jsonl`` and ``assistant.jsonl``; the file is the
  source of truth (a repository missing from it — e.g. a new data drop — falls
  back to the rule).
- **The data folder is found, never copied**: ``<repo>/../shared/data/real``
  (or the nearest ancestor's ``shared/data/real``), overridable with
  ``TACIT_REAL_DATA``; absent → callers skip.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPLIT_FILE = ROOT / "tests" / "data" / "real_split.json"
SALT = "tacit-real-split-v1:"
TUNE_SHARE = 0.6


def data_dir() -> Path:
    """``TACIT_REAL_DATA``, else ``<repo>/../shared/data/real`` (a git worktree
    nested deeper, e.g. ``/work/wt/x``, finds it one level further up)."""
    env = os.environ.get("TACIT_REAL_DATA")
    if env:
        return Path(env)
    for base in ROOT.parents:
        folder = base / "shared" / "data" / "real"
        if folder.is_dir():
            return folder
    return ROOT.parent / "shared" / "data" / "real"


def available() -> bool:
    folder = data_dir()
    return (folder / "user.jsonl").is_file() and (folder / "assistant.jsonl").is_file()


def rule_part(repo: str) -> str:
    digest = hashlib.sha256((SALT + repo).encode("utf-8")).hexdigest()
    return "tune" if int(digest[:12], 16) / float(16 ** 12) < TUNE_SHARE else "check"


_SPLIT: dict[str, str] | None = None


def part_of(repo: str) -> str:
    """"tune" or "check" for a repository."""
    global _SPLIT
    if _SPLIT is None:
        _SPLIT = {}
        if SPLIT_FILE.is_file():
            data = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))
            for name in data.get("tune", []):
                _SPLIT[name] = "tune"
            for name in data.get("check", []):
                _SPLIT[name] = "check"
    return _SPLIT.get(repo) or rule_part(repo)


def _read(name: str) -> list[dict]:
    path = data_dir() / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def user_rows(part: str | None = None, labelled: bool = True) -> list[dict]:
    """User messages; ``part`` "tune" / "check" / None (all)."""
    rows = _read("user.jsonl")
    if labelled:
        rows = [r for r in rows if r.get("correction_class") is not None]
    return [r for r in rows if part is None or part_of(r["repo"]) == part]


def assistant_rows(part: str | None = None, labelled: bool = True) -> list[dict]:
    """Agent replies; ``part`` "tune" / "check" / None (all)."""
    rows = _read("assistant.jsonl")
    if labelled:
        rows = [r for r in rows if r.get("fix") is not None]
    return [r for r in rows if part is None or part_of(r["repo"]) == part]


def sessions() -> list[dict]:
    return _read("sessions.jsonl")


def write_split_file() -> dict:
    """(Re)write tests/data/real_split.json from the rule; run once."""
    repos = sorted({r["repo"] for r in _read("user.jsonl")} | {r["repo"] for r in _read("assistant.jsonl")})
    split = {
        "rule": f"tune when int(sha256('{SALT}' + repo).hexdigest()[:12], 16) / 16**12 < {TUNE_SHARE}",
        "tune": [r for r in repos if rule_part(r) == "tune"],
        "check": [r for r in repos if rule_part(r) == "check"],
    }
    SPLIT_FILE.write_text(json.dumps(split, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return split


if __name__ == "__main__":
    if not available():
        print(f"no data at {data_dir()}")
    else:
        split = write_split_file()
        print(f"wrote {SPLIT_FILE}: {len(split['tune'])} tune, {len(split['check'])} check repositories")

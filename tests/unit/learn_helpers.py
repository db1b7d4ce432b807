"""What the learner tests share: reading the notice queue without taking it,
recording habit actions the way the tool-call learner does, and a transcript to
learn from with a scripted child agent."""

from __future__ import annotations

import sys
from pathlib import Path

from tacit.learn.observe import record_action

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "claude-code-session.jsonl"


def pending_notices(ledger) -> list[str]:
    """Undelivered notices, oldest first (not marked delivered)."""
    with ledger.read() as conn:
        return [r[0] for r in conn.execute("SELECT text FROM notices WHERE delivered_at IS NULL ORDER BY id")]


def record_actions(ledger, cfg, rows) -> None:
    """``(session_id, action, ts)`` rows, in order, in one transaction."""
    with ledger.write() as conn:
        for session_id, action, ts in rows:
            record_action(conn, cfg, session_id, action, ts)


def transcript_with_an_agent(cfg, web, tmp_path, child_source: str) -> str:
    """docs/examples' Claude Code transcript, moved into ``web``, and ``child_source`` (a Python
    script given the prompt file) as every child agent (``child_command``): the transcript's path."""
    child = tmp_path / "child.py"
    child.write_text(child_source, encoding="utf-8")
    cfg.config_file.write_text(f'child_command = "{sys.executable} {child} {{prompt_file}}"\n', encoding="utf-8")
    session = tmp_path / "invoicely.jsonl"
    session.write_text(EXAMPLE.read_text(encoding="utf-8").replace("/home/maya/code/invoicely", str(web)),
                       encoding="utf-8")
    return str(session)

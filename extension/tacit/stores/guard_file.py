"""Guards made by hand, kept outside the ledger too: ``<state>/guards.json``.

Design notes: docs/design/stores.md#tacitstoresguard_file"""

from __future__ import annotations

import json
import os
import time

from pathlib import Path

from tacit.fsutil import atomic_write_text, read_json_or_none

FILE = "guards.json"
_FIELDS = ("key", "scope", "project", "project_root", "lesson", "spec", "action", "status", "created_at")


def path(cfg) -> str:
    return os.path.join(cfg.state_dir_str, FILE)


def export(cfg, conn) -> None:
    """Rewrite the file from the table's hand-made rows, keeping saved rows the table lacks (a fresh
    ledger not restored yet); OSError when it cannot be written."""
    rows = conn.execute(f"SELECT {', '.join(_FIELDS)} FROM guards WHERE origin = 'user' ORDER BY id").fetchall()
    guards = [dict(zip(_FIELDS, row)) for row in rows]
    have = {g["key"] for g in guards}
    data = {"version": 1, "guards": [r for r in saved(cfg) if r["key"] not in have] + guards}
    atomic_write_text(Path(path(cfg)), json.dumps(data, ensure_ascii=False, indent=1))


def saved(cfg) -> list[dict]:
    """The hand-made guards the file holds ([] when there is none or it is unreadable)."""
    rows = (read_json_or_none(path(cfg)) or {}).get("guards")
    return [r for r in rows or [] if isinstance(r, dict) and all(isinstance(r.get(f), str) for f in _FIELDS[:-1])]


def problem(cfg) -> str | None:
    """What is wrong with the file, for ``tacit doctor`` (None: absent or sound)."""
    target = path(cfg)
    if not os.path.lexists(target):
        return None
    try:
        with open(target, encoding="utf-8") as handle:
            data = json.load(handle)
        if isinstance(data, dict) and isinstance(data.get("guards"), list):
            return None
        why = "not a guard list"
    except (OSError, ValueError, RecursionError) as exc:
        why = f"unreadable: {exc.strerror if isinstance(exc, OSError) and exc.strerror else exc}"
    return (f"{target} is {why}: the guards you added by hand are not kept outside the ledger; "
            "move it away (the next change to a guard writes it again)")


def restore(cfg, conn) -> list[str]:
    """Insert the saved hand-made guards the table lacks; their keys."""
    rows = saved(cfg)
    if not rows:
        return []
    have = {key for (key,) in conn.execute("SELECT key FROM guards WHERE origin = 'user'")}
    now = time.time()
    restored = []
    for row in (r for r in rows if r["key"] not in have):
        cur = conn.execute(
            "INSERT OR IGNORE INTO guards (key, origin, scope, project, project_root, memory_scope, lesson, spec, "
            "action, status, lesson_at, by_user, created_at, updated_at) "
            "VALUES (?, 'user', ?, ?, ?, '', ?, ?, ?, ?, ?, 1, ?, ?)",
            (row["key"], row["scope"], row["project"], row["project_root"], row["lesson"], row["spec"],
             row["action"], row["status"], row.get("created_at") or now, row.get("created_at") or now, now))
        if cur.rowcount:
            restored.append(row["key"])
    return restored

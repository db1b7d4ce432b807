"""A child run that empties a memory scope is suspicious, whatever it recorded.

Design notes: docs/design/children.md#tacitchildrensuspicious
"""

from __future__ import annotations

from pathlib import Path

from tacit.children.reconcile import parse_memory
from tacit.stores import history, notices
from tacit.stores.ledger import Ledger

MIN_ENTRIES = 2


def emptied_scopes(snap) -> list[str]:
    """The memory scopes of ``snap`` that held entries before the run and hold none now."""
    emptied = []
    for copy in snap.memory:
        before, problem = parse_memory(copy.file.data, copy.limit)
        if problem or len(before) < MIN_ENTRIES:
            continue
        try:
            now = Path(copy.file.path).read_bytes()
        except FileNotFoundError:
            now = None
        except OSError:
            continue
        after, problem = parse_memory(now, copy.limit)
        if not problem and not after:
            emptied.append(f"{copy.scope} ({len(before)} entries, {copy.file.path})")
    return emptied


def tell(cfg, job: dict, emptied: list[str]) -> None:
    """Queue the notice: what was emptied and how to undo it. Never raises."""
    try:
        with Ledger(cfg) as ledger:
            rows = history.group_of(ledger, f"job:{job.get('id', '')}")
            undo = f" Undo it with `tacit memory undo {rows[0].id}`." if rows else ""
            text = (f"A background tacit run ({job.get('kind')}) removed every entry of your "
                    f"{' and '.join(emptied)} memory; it was recorded as suspicious.{undo}")
            with ledger.write() as conn:
                notices.add(conn, text)
    except Exception:  # noqa: BLE001
        from tacit.log import log_exception

        log_exception(cfg, f"telling the suspicious run of job {job.get('id')}")

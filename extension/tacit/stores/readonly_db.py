"""Reading another program's SQLite file, read-only (a host's own session store).

Design notes: docs/design/stores.md#tacitstoresreadonly_db"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager

Error = sqlite3.Error


@contextmanager
def opened(path: str, timeout: float = 2.0):
    """A read-only connection to ``path``; ``rows(sql, args)`` on it."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout)
    try:
        conn.execute("PRAGMA query_only = 1")
        yield lambda sql, args=(): conn.execute(sql, args).fetchall()
    finally:
        conn.close()

"""Reading another program's SQLite file, read-only (a host's own session store).

Design notes: docs/design/stores.md#tacitstoresreadonly_db"""

from __future__ import annotations

import sqlite3
from contextlib import closing, contextmanager

Error = sqlite3.Error


@contextmanager
def opened(path: str, timeout: float = 2.0):
    """A read-only connection to ``path``; ``rows(sql, args)`` on it. A text value that is not UTF-8
    costs its bad bytes (U+FFFD), not the query: one such row would fail every read of the file."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout)) as conn:
        conn.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
        conn.execute("PRAGMA query_only = 1")
        yield lambda sql, args=(): conn.execute(sql, args).fetchall()

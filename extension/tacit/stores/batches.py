"""Deleting many rows without holding the ledger's writer.

Design notes: docs/design/stores.md#tacitstoresbatches"""

from __future__ import annotations

import time

BATCH = 200  # rows per write transaction
SCAN = 5000  # rowids found per read transaction
PAUSE = 0.002  # seconds between batches: a waiting writer goes first


def delete_where(ledger, table: str, where: str, params: tuple = (), *, key: tuple = ("rowid",),
                 batch: int = BATCH, pause: float = PAUSE) -> int:
    """Delete the rows of ``table`` matching ``where`` (bound to ``params``), found by their ``key``
    columns; how many went. ``table``, ``where`` and ``key`` never come from input."""
    columns = ", ".join(key)
    one = "(" + ",".join("?" * len(key)) + ")"
    total = 0
    while True:
        with ledger.read() as conn:
            keys = conn.execute(f"SELECT {columns} FROM {table} WHERE {where} LIMIT ?", (*params, SCAN)).fetchall()
        if not keys:
            return total
        for start in range(0, len(keys), batch):
            chunk = keys[start:start + batch]
            values = ",".join([one] * len(chunk))
            flat = tuple(v for row in chunk for v in row)
            started = time.monotonic()
            with ledger.write() as conn:  # re-checked: a row that changed meanwhile stays
                total += conn.execute(f"DELETE FROM {table} WHERE ({columns}) IN (VALUES {values}) "
                                      f"AND ({where})", (*flat, *params)).rowcount
            if pause:  # at least as long as the batch held the writer: others get half the time
                time.sleep(max(pause, time.monotonic() - started))
        if len(keys) < SCAN:
            return total

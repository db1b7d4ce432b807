"""A fresh ledger opened by many connections at once: none fails with
"database is locked" (the engine's background worker and a slash command
open it at the same moment)."""

from __future__ import annotations

import threading

from tacit.stores.ledger import Ledger


def test_concurrent_first_opens_all_succeed(cfg):
    for round_ in range(15):
        path = cfg.state_dir / f"race-{round_}.db"
        errors, ledgers = [], []
        start = threading.Barrier(8)

        def open_one():
            led = Ledger(cfg, path=str(path), busy_timeout=5)
            ledgers.append(led)
            start.wait()
            try:
                led.connection().execute("SELECT count(*) FROM schema_migrations").fetchone()
            except Exception as exc:  # noqa: BLE001 — collected and asserted below
                errors.append(repr(exc))

        threads = [threading.Thread(target=open_one) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for led in ledgers:
            led.close()
        assert errors == [], errors

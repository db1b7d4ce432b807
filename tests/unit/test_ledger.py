"""Ledger store: WAL, schema and named migrations, permissions, a corrupt file
moved aside and recreated, a locked file waited for then skipped, threads."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from tacit.learn.observe import record_observation
from tacit.stores import ledger as ledger_mod
from tacit.stores.ledger import (
    Ledger,
    LedgerUnavailable,
    is_corruption,
    split_statements,
)

REAL_MIGRATIONS = [name for name, _ in ledger_mod.MIGRATIONS]


def applied(led) -> list[str]:
    """The migrations recorded in ``led``'s file, by name."""
    return [r[0] for r in led.connection().execute("SELECT name FROM schema_migrations ORDER BY name")]


def test_new_ledger_is_wal_private_and_migrated(cfg):
    led = Ledger(cfg)
    conn = led.connection()
    assert led.path == str(cfg.ledger_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert stat.S_IMODE(os.stat(led.path).st_mode) == 0o600
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"observations", "memories", "memory_evidence", "adaptations", "notices",
            "action_events", "habit_patterns", "habit_days", "habit_sessions", "action_sessions",
            "observed_sequences", "ledger_meta", "schema_migrations"} <= tables
    assert "habits" not in tables  # the re-mined table of the first version is gone
    assert applied(led) == REAL_MIGRATIONS
    led.close()
    # reopening applies nothing twice
    again = Ledger(cfg)
    assert applied(again) == REAL_MIGRATIONS
    again.close()


def test_a_later_migration_is_applied_once_in_order(cfg, monkeypatch):
    Ledger(cfg).connection()
    extra = ("9002_test_fixes", """
        CREATE TABLE example_fixes (id INTEGER PRIMARY KEY, memory_id INTEGER REFERENCES memories (id),
                                   problem TEXT NOT NULL);
        CREATE TRIGGER example_fixes_touch AFTER INSERT ON example_fixes BEGIN
            UPDATE memories SET updated_at = updated_at WHERE id = NEW.memory_id;
        END;
    """)
    calls = []
    monkeypatch.setattr(ledger_mod, "MIGRATIONS", ledger_mod.MIGRATIONS + [
        extra, ("9003_callable", lambda conn: calls.append(conn.execute("SELECT 1").fetchone()))])
    for _ in range(2):
        led = Ledger(cfg)
        assert applied(led) == [*REAL_MIGRATIONS, "9002_test_fixes", "9003_callable"]
        led.connection().execute("INSERT INTO example_fixes (problem) VALUES ('x')")
        led.close()
    assert calls == [(1,)]


def test_a_failing_migration_rolls_back_and_reports(cfg, monkeypatch):
    monkeypatch.setattr(ledger_mod, "MIGRATIONS", ledger_mod.MIGRATIONS + [
        ("9002_half", "CREATE TABLE half (x INTEGER);\nTHIS IS NOT SQL;")])
    with pytest.raises(LedgerUnavailable):
        Ledger(cfg).connection()
    conn = sqlite3.connect(cfg.ledger_path)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "half" not in names  # the whole migration rolled back
    assert [r[0] for r in conn.execute("SELECT name FROM schema_migrations")] == REAL_MIGRATIONS
    conn.close()


def test_split_statements_keeps_triggers_whole():
    parts = split_statements("CREATE TABLE a (x);\nCREATE TRIGGER t AFTER INSERT ON a BEGIN\n"
                             "  SELECT 1;\n  SELECT 2;\nEND;\n-- trailing comment\n")
    assert len(parts) == 2 and parts[1].endswith("END;")
    with pytest.raises(ValueError):
        split_statements("CREATE TABLE b (x")


def test_garbage_ledger_is_moved_aside_and_recreated(cfg):
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    garbage = os.urandom(3000) + b"definitely not sqlite"
    cfg.ledger_path.write_bytes(garbage)
    led = Ledger(cfg)
    result = record_observation(led, cfg, "P01", "triage", {"company": "Acme"})
    assert result["observation_id"] == 1
    moved = [p for p in cfg.state_dir.iterdir() if p.name.startswith("ledger.db.corrupt-")]
    assert len(moved) == 1 and moved[0].read_bytes() == garbage
    assert led.recovered == [str(moved[0])]
    assert "was corrupt" in cfg.log_file.read_text()
    assert led.connection().execute("SELECT count(*) FROM observations").fetchone()[0] == 1
    led.close()


def test_corruption_found_mid_life_is_recovered_on_the_spot(cfg):
    led = Ledger(cfg)
    with led.write() as conn:  # bulk rows so the observations table spans many pages
        conn.executemany("INSERT INTO observations (plugin, action, context, observed_at) "
                         "VALUES ('P01', 'triage', ?, 0)", [("x" * 300,)] * 2000)
    led.connection().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    led.close()
    size = os.path.getsize(cfg.ledger_path)
    with open(cfg.ledger_path, "r+b") as handle:  # schema pages intact, table pages smashed
        handle.seek(size // 2)
        handle.write(b"\xde\xad\xbe\xef" * ((size - size // 2) // 4))
    led = Ledger(cfg)
    led.connection()  # opens fine: the damage is only found when those pages are read
    with pytest.raises(LedgerUnavailable):
        with led.read() as conn:
            conn.execute("SELECT count(*), max(length(context)) FROM observations").fetchone()
    assert any(p.name.startswith("ledger.db.corrupt-") for p in cfg.state_dir.iterdir())
    # the very next piece of work gets a fresh ledger
    assert record_observation(led, cfg, "P01", "triage", {})["observation_id"] == 1
    led.close()


def test_is_corruption_never_confuses_locked_with_corrupt():
    locked = sqlite3.OperationalError("database is locked")
    locked.sqlite_errorname = "SQLITE_BUSY"
    assert not is_corruption(locked)
    bad = sqlite3.DatabaseError("file is not a database")
    bad.sqlite_errorname = "SQLITE_NOTADB"
    assert is_corruption(bad)
    assert not is_corruption(ValueError("malformed"))


_HOLD_LOCK = textwrap.dedent("""
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    conn.execute("INSERT INTO ledger_meta (key, value) VALUES ('holder', 'x')")
    print("locked", flush=True)
    sys.stdin.read()          # hold until the test closes our stdin
    conn.execute("ROLLBACK")
""")


@pytest.fixture
def lock_holder(cfg):
    Ledger(cfg).connection()  # create the file and schema first
    proc = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(cfg.ledger_path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    yield proc
    if proc.poll() is None:
        proc.stdin.close()
        proc.wait(timeout=10)


def test_locked_ledger_waits_busy_timeout_then_skips(cfg, lock_holder):
    led = Ledger(cfg, busy_timeout=0.3)
    started = time.monotonic()
    with pytest.raises(LedgerUnavailable, match="locked"):
        record_observation(led, cfg, "P01", "triage", {"company": "Acme"})
    waited = time.monotonic() - started
    assert 0.25 <= waited < 3.0
    # readers are not blocked by a writer in WAL mode
    with led.read() as conn:
        assert conn.execute("SELECT count(*) FROM observations").fetchone()[0] == 0
    # nothing was moved aside: locked is not corrupt
    assert not any(p.name.startswith("ledger.db.corrupt-") for p in cfg.state_dir.iterdir())
    lock_holder.stdin.close()
    lock_holder.wait(timeout=10)
    assert record_observation(led, cfg, "P01", "triage", {})["observation_id"] == 1
    led.close()


def test_concurrent_processes_open_a_fresh_ledger_and_write(cfg, tacit_env):
    script = textwrap.dedent("""
        import sys
        from tacit.config import load_config
        from tacit.stores.ledger import Ledger
        from tacit.learn.observe import record_observation
        cfg = load_config()
        led = Ledger(cfg, busy_timeout=20)
        for i in range(25):
            record_observation(led, cfg, "P" + sys.argv[1], "run", {"company": "Acme"},
                               session_id="s" + sys.argv[1])
        led.close()
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(n)], env=tacit_env,
                              stderr=subprocess.PIPE, text=True) for n in range(4)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    led = Ledger(cfg)
    with led.read() as conn:
        assert conn.execute("SELECT count(*) FROM observations").fetchone()[0] == 100
        assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(REAL_MIGRATIONS)
        # every plugin's own entity fact exists once, reinforced by its own runs only
        rows = conn.execute("SELECT key, times_confirmed FROM memories WHERE key = 'entity-acme'").fetchall()
    assert len(rows) == 1 and rows[0][1] == 24
    led.close()


def test_one_ledger_shared_by_threads(cfg):
    led = Ledger(cfg)
    errors = []

    def work(n):
        try:
            for i in range(30):
                record_observation(led, cfg, f"T{n}", "run", {"entity_value": f"e{n}-{i}"})
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with led.read() as conn:
        assert conn.execute("SELECT count(*) FROM observations").fetchone()[0] == 120
    led.close()


def test_a_second_writer_of_the_process_waits_its_turn(cfg, monkeypatch):
    """Writers on other threads, each on its own connection (as ``Tacit`` keeps
    them), wait behind a write transaction that outlasts the busy timeout:
    no row is lost and none of them fails ("database is locked")."""
    monkeypatch.setattr(ledger_mod, "DEFAULT_BUSY_TIMEOUT", 0.3)
    Ledger(cfg).connection()  # created and migrated before the race
    holding, errors, waited = threading.Event(), [], []

    def long_writer():
        try:
            with Ledger(cfg) as led, led.write():
                for i in range(5):
                    record_observation(led, cfg, "long", "run", {"entity_value": f"long-{i}"})
                holding.set()
                time.sleep(1.5)  # five busy timeouts
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
            holding.set()

    def writer(n):
        holding.wait(10)
        start = time.monotonic()
        try:
            with Ledger(cfg) as led:
                for i in range(10):
                    record_observation(led, cfg, f"T{n}", "run", {"entity_value": f"e{n}-{i}"})
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        waited.append(time.monotonic() - start)

    threads = [threading.Thread(target=long_writer)] + [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    assert min(waited) > 1.0  # they did wait for the long transaction, past the busy timeout
    with Ledger(cfg) as led, led.read() as conn:
        assert conn.execute("SELECT count(*) FROM observations").fetchone()[0] == 5 + 4 * 10
    assert "database is locked" not in (cfg.log_file.read_text() if cfg.log_file.exists() else "")


def test_meta_roundtrip(cfg):
    led = Ledger(cfg)
    with led.write() as conn:
        Ledger.meta_set(conn, "k", "v1")
        Ledger.meta_set(conn, "k", "v2")
    with led.read() as conn:
        assert Ledger.meta_get(conn, "k") == "v2"
        assert Ledger.meta_get(conn, "missing", "d") == "d"
    led.close()


def test_the_learners_migration_counts_the_habits_already_recorded(cfg, monkeypatch):
    """A ledger from before 0005 keeps its action events: the migration counts
    them into the new habit counters (default 30 s window)."""
    monkeypatch.setattr(ledger_mod, "MIGRATIONS", [m for m in ledger_mod.MIGRATIONS if m[0] != "0005_learners"])
    led = Ledger(cfg)
    t = 1_750_000_000.0
    with led.write() as conn:
        for session in ("s1", "s2", "s3"):
            for i, action in enumerate(("Read", "Edit", "Bash:pytest")):
                conn.execute("INSERT INTO action_events (session_id, action, ts) VALUES (?, ?, ?)",
                             (session, action, t + i * 5))
        conn.execute("INSERT INTO action_events (session_id, action, ts) VALUES ('s3', 'Grep', ?)", (t + 500,))
    led.close()
    monkeypatch.undo()
    led = Ledger(cfg)
    assert applied(led) == REAL_MIGRATIONS
    with led.read() as conn:
        rows = dict(((p, (c, s)) for p, c, s in conn.execute(
            "SELECT p.pattern, p.count, (SELECT count(*) FROM habit_sessions s WHERE s.pattern = p.pattern) "
            "FROM habit_patterns p")))
        considered = dict(conn.execute("SELECT action, count(*) FROM action_sessions GROUP BY action").fetchall())
    assert rows == {"Read → Edit": (3, 3), "Edit → Bash:pytest": (3, 3), "Read → Edit → Bash:pytest": (3, 3)}
    assert considered == {"Read": 3, "Edit": 3, "Bash:pytest": 3, "Grep": 1}
    led.close()

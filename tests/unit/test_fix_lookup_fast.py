"""The fix-pattern lookup's fast path gives the answers the full path gives.

The hook-path lookup (``tacit.learn.fixes.lookup_for_prompt``) reads the
ledger through a lean reader (``Ledger(reader=True)``: no pragmas, no
migrations, ``_sqlite3`` without the ``sqlite3`` package, no ``threading``),
gets its IDF values from SQLite's ``ln()`` instead of importing ``math``, and
tokenises with ``tacit.detect.fix_tokens`` (no ``re``). Checked here:

* ``ln()`` and ``math.log`` agree bit for bit, and ``find_patterns`` returns
  the same patterns with the same similarity (exact floats) either way;
* ``query_terms`` is still ``index_terms`` deduplicated and cut, however
  long the message;
* the lean reader creates, migrates and writes nothing; where it cannot
  answer (no file, an older schema, a corrupt file) the full open decides as
  before; a locked ledger is waited for once, not twice.
"""

from __future__ import annotations

import math
import random
import sqlite3
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.detect.fix import detect_fix
from tacit.learn import fixes
from tacit.stores import ledger as ledger_mod
from tacit.stores.ledger import Ledger, LedgerUnavailable

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
PORT_REPLY = ("Found it: the config loader reads `PORT` before `.env` is loaded, so I moved "
              "`load_dotenv()` to the top of main.py. The server now starts on 8080.")
PORT_TITLE = "the server ignores the PORT I put in .env"
PORT_AGAIN = "why is PORT from my .env file ignored when I start main.py?"


@pytest.fixture(autouse=True)
def _fresh_readers():
    fixes._READERS.clear()
    yield
    for ledger in fixes._READERS.values():
        ledger.close()
    fixes._READERS.clear()


def forge_port(cfg):
    with Ledger(cfg) as led:
        assert fixes.forge(led, cfg, detect_fix(PORT_REPLY), title=PORT_TITLE)["action"] == "created"


# ---------------------------------------------------------------------------
# IDF from SQLite's ln()
# ---------------------------------------------------------------------------
def test_sqlite_ln_gives_math_log_bit_for_bit():
    conn = sqlite3.connect(":memory:")
    for n_docs in (1, 2, 3, 10, 104, 1_000, 10_001, 250_000):
        dfs = sorted({1, n_docs, *range(1, min(n_docs, 400) + 1), *random.Random(n_docs).sample(
            range(1, n_docs + 1), min(n_docs, 200))})
        got = fixes.sqlite_idfs(conn, dfs, n_docs)
        assert got == {df: fixes.idf(df, n_docs) for df in dfs}, n_docs
    assert fixes.sqlite_idfs(conn, [], 5) == {}
    many = list(range(1, 5_001))  # more than SQLite's 2,000 result columns
    assert fixes.sqlite_idfs(conn, many, 10_000) == {df: fixes.idf(df, 10_000) for df in many}


@settings(max_examples=300, deadline=None)
@given(n_docs=st.integers(1, 50_000), data=st.data())
def test_similarity_is_the_same_with_precomputed_idfs(n_docs, data):
    terms = [f"t{i}" for i in range(data.draw(st.integers(1, 12)))]
    doc_freq = {t: data.draw(st.integers(0, n_docs + 3)) for t in terms if data.draw(st.booleans())}
    shared = set(data.draw(st.lists(st.sampled_from(terms), min_size=1)))
    conn = sqlite3.connect(":memory:")
    idfs = fixes.sqlite_idfs(conn, [1, *(max(1, min(n_docs, doc_freq.get(t, 1))) for t in terms)], n_docs)
    assert fixes.similarity(shared, doc_freq, n_docs, idfs=idfs) == fixes.similarity(shared, doc_freq, n_docs)


def test_without_math_functions_in_sqlite_similarity_uses_math(cfg):
    forge_port(cfg)
    with Ledger(cfg) as led, led.read() as conn:
        with_ln = [(m.id, m.similarity) for m in fixes.find_patterns(conn, PORT_AGAIN, cfg)]

        class NoLn:  # a connection of an SQLite built without math functions
            def execute(self, sql, params=()):
                if "ln(" in sql:
                    raise ledger_mod.sqlite_core().OperationalError("no such function: ln")
                return conn.execute(sql, params)

        assert fixes.sqlite_idfs(NoLn(), [1, 2], 10) == {}
        without = [(m.id, m.similarity) for m in fixes.find_patterns(NoLn(), PORT_AGAIN, cfg)]
    assert with_ln == without and with_ln and with_ln[0][1] >= cfg.similarity


def test_find_patterns_is_unchanged_over_a_store_of_2000(cfg, monkeypatch):
    """Every labelled and synthetic query: the same patterns, similarity
    equal to the last bit, with IDFs from ln() and from math.log."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from patterns import build_store, load_jsonl, synthetic_fix
    finally:
        sys.path.remove(str(BENCHMARKS))
    rng = random.Random(3)
    led, vocab, _ = build_store(cfg, 2_000, rng)
    texts = [q["text"] for q in load_jsonl("retrieval.jsonl") if q["kind"] == "query"]
    for n in range(150):
        fix, title = synthetic_fix(rng, vocab, n)
        words = f"{fix.problem} {title}".split()
        rng.shuffle(words)
        texts.append(" ".join(words[: rng.randint(4, 30)]))
    seen = 0
    with led.read() as conn:
        for text in texts:
            fast = [(m.id, m.similarity, m.bm25) for m in fixes.find_patterns(conn, text, cfg, threshold=0.0)]
            with monkeypatch.context() as patch:
                patch.setattr(fixes, "sqlite_idfs", lambda *a: {})
                slow = [(m.id, m.similarity, m.bm25) for m in fixes.find_patterns(conn, text, cfg, threshold=0.0)]
            assert fast == slow, text
            seen += len(fast)
    led.close()
    assert seen > len(texts) * 3  # most queries rank several candidates


# ---------------------------------------------------------------------------
# Query terms: a stream, cut at MAX_QUERY_TERMS
# ---------------------------------------------------------------------------
_WORDS = st.sampled_from(["loadDotenv", "main.py", "~/.cache/pip", "v2.1", "ECONNREFUSED", "the", "fails",
                          "loading", "登录失败", "C++", "a\\b", "x", "tests/test_parser.py", "HTTPServer"])


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORDS | st.text(max_size=12), max_size=120).map(" ".join))
def test_query_terms_are_index_terms_deduplicated_and_cut(text):
    assert fixes.query_terms(text) == list(dict.fromkeys(fixes.index_terms(text)))[:fixes.MAX_QUERY_TERMS]


def test_a_long_message_is_tokenised_only_as_far_as_needed():
    head = " ".join(f"word{i}x" for i in range(200))
    expected = list(dict.fromkeys(fixes.index_terms(head)))
    assert len(expected) > fixes.MAX_QUERY_TERMS
    text = head + " tail" * 200_000  # ~1 MB after enough distinct terms
    started = time.perf_counter()
    terms = fixes.query_terms(text)
    elapsed = time.perf_counter() - started
    assert terms == expected[:fixes.MAX_QUERY_TERMS]
    assert elapsed < 0.5, elapsed  # str.translate over the whole text, then a few tokens


# ---------------------------------------------------------------------------
# The lean reader
# ---------------------------------------------------------------------------
def test_the_lean_reader_reads_and_changes_nothing(cfg):
    forge_port(cfg)
    before = {p.name: p.stat().st_mtime_ns for p in cfg.state_dir.glob("ledger.db*")}
    reader = Ledger(cfg, busy_timeout=0.5, reader=True)
    with reader.read() as conn:
        assert [m.title for m in fixes.find_patterns(conn, PORT_AGAIN, cfg)] == [PORT_TITLE]
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 0  # no pragma was set
    with pytest.raises(ValueError):
        reader.write()
    reader.close()
    after = {p.name: p.stat().st_mtime_ns for p in cfg.state_dir.glob("ledger.db*") if p.name in before}
    assert after == before


def test_the_lean_reader_never_creates_a_ledger(cfg):
    reader = Ledger(cfg, reader=True)
    with pytest.raises(LedgerUnavailable):
        with reader.read():
            pass
    assert not cfg.ledger_path.exists() and not list(cfg.state_dir.glob("ledger.db*"))


def test_no_ledger_file_but_a_marker_the_full_open_decides(cfg):
    fixes.write_marker(cfg, 2)  # a stale marker: the ledger was deleted by hand
    matches, _ = fixes.lookup_for_prompt(cfg, PORT_AGAIN, time.time())
    assert matches == [] and not fixes.has_patterns(cfg)
    assert cfg.ledger_path.exists()  # created and migrated by the fallback, as before


def test_an_older_schema_still_answers_and_is_migrated_by_the_next_full_open(cfg):
    forge_port(cfg)
    fixes._READERS.clear()
    conn = sqlite3.connect(cfg.ledger_path, isolation_level=None)
    conn.execute("DELETE FROM schema_migrations WHERE name = '0003_importance'")
    for table in ("importance_reviews", "importance_decisions", "importance_forgotten"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("DROP INDEX idx_memories_source")
    conn.close()
    matches, _ = fixes.lookup_for_prompt(cfg, PORT_AGAIN, time.time())
    assert [m.title for m in matches] == [PORT_TITLE]  # the lean reader needs only the fix tables
    with Ledger(cfg) as led:
        assert "0003_importance" in led.migrations_applied()  # migrated when next opened in full


def test_missing_fix_tables_fall_back_to_the_full_open(cfg):
    forge_port(cfg)
    conn = sqlite3.connect(cfg.ledger_path, isolation_level=None)
    conn.execute("DROP TABLE fix_patterns_vocab")
    conn.close()
    matches, _ = fixes.lookup_for_prompt(cfg, PORT_AGAIN, time.time())
    assert matches == []  # the lean read failed; the full open (applied migrations) fails alike
    log = cfg.log_file.read_text(encoding="utf-8") if cfg.log_file.exists() else ""
    assert "lookup skipped" in log  # logged, never raised


def test_a_locked_ledger_is_waited_for_once(cfg):
    """A ledger not in WAL mode, held by an exclusive writer: the lean reader
    waits its 0.5 s and gives up; no second wait in the full open."""
    forge_port(cfg)
    conn = sqlite3.connect(cfg.ledger_path, isolation_level=None)
    assert conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0] == "delete"
    conn.execute("BEGIN EXCLUSIVE")
    try:
        started = time.perf_counter()
        matches, _ = fixes.lookup_for_prompt(cfg, PORT_AGAIN, time.time())
        elapsed = time.perf_counter() - started
    finally:
        conn.execute("ROLLBACK")
        conn.close()
    assert matches == [] and 0.4 < elapsed < 0.9, elapsed
    assert fixes.has_patterns(cfg)  # a busy ledger says nothing about the marker
    matches, _ = fixes.lookup_for_prompt(cfg, PORT_AGAIN, time.time())
    assert [m.title for m in matches] == [PORT_TITLE]


def test_a_path_with_uri_characters(tacit_env, tmp_path):
    from tacit.config import load_config

    odd = tmp_path / "data ?#%20 folder"
    odd.mkdir()
    cfg = load_config(env={**tacit_env, "TACIT_HOME": str(odd)})
    forge_port(cfg)
    # mode=rw never creates a file: reading the patterns proves the URI named this one
    with Ledger(cfg, reader=True) as reader, reader.read() as conn:
        assert [m.title for m in fixes.find_patterns(conn, PORT_AGAIN, cfg)] == [PORT_TITLE]


def test_the_lock_is_what_threading_would_give():
    import threading

    assert type(Ledger(None, path="/nonexistent/ledger.db", reader=True)._lock) is type(threading.RLock())


def test_math_and_the_log_module_are_the_same_function_on_this_build():
    # documents the premise of sqlite_idfs on the machine the tests run on
    conn = sqlite3.connect(":memory:")
    values = [1.0 + i / 7.0 for i in range(1, 3000)] + [1e-300, 2.0 ** 0.5, 1e300]
    for start in range(0, len(values), 500):
        chunk = values[start:start + 500]
        got = conn.execute("SELECT " + ", ".join(["ln(?)"] * len(chunk)), chunk).fetchone()
        assert list(got) == [math.log(v) for v in chunk]

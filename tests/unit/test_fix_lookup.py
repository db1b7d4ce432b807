"""The fix-pattern lookup's two cheap paths, checked against the full answer:
document frequencies kept per connection follow every write to the index
(this connection's, another connection's, a rolled-back one), and FTS5's
ranking read a batch at a time still yields the best ``limit`` patterns the
injection filters let through. Real SQLite with FTS5."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tacit.detect.fix import FixStatement, lookup_text
from tacit.learn import fix_patterns as model
from tacit.learn import fixes
from tacit.stores import fix_patterns as store
from tacit.stores.ledger import Ledger


def add(conn, problem: str, solution: str, title: str, now: float) -> int:
    fix = FixStatement(problem, solution, "test", 0.9)
    lookup = lookup_text(fix)
    return store.insert(conn, key=model.pattern_key(problem, solution), title=title, fix=fix, lookup=lookup,
                        terms=model.stored_terms(title, lookup), tags=[], session_id="s", now=now)


def count(conn, term: str) -> int:
    return store.doc_freqs(conn, [term, "zzznotaterm"]).get(term, 0)


@pytest.fixture
def ledger(cfg):
    led = Ledger(cfg)
    yield led
    led.close()


def test_counts_follow_this_connections_writes_inside_and_across_transactions(ledger):
    now = time.time()
    with ledger.write() as conn:
        first = add(conn, "the frobnicator crashes on empty input", "guard the loop in frob()", "frob crash", now)
        assert count(conn, "frobnicator") == 1
        second = add(conn, "frobnicator hangs on a pipe", "set the pipe non-blocking", "frob hang", now)
        assert count(conn, "frobnicator") == 2  # same transaction, asked again after the insert
    with ledger.read() as conn:
        assert count(conn, "frobnicator") == 2
        assert store.doc_freqs(conn, ["zzznotaterm"]) == {}
    with ledger.write() as conn:
        assert store.retire(conn, first, "test", now)
        assert count(conn, "frobnicator") == 1
        assert store.delete(conn, second)
        assert count(conn, "frobnicator") == 0
    with pytest.raises(RuntimeError), ledger.write() as conn:
        add(conn, "frobnicator leaks memory", "close the handle", "frob leak", now)
        assert count(conn, "frobnicator") == 1
        raise RuntimeError("roll back")
    with ledger.read() as conn:
        assert count(conn, "frobnicator") == 0  # the rolled-back insert is not counted


def test_counts_see_what_another_connection_committed(cfg, ledger):
    now = time.time()
    with ledger.write() as conn:
        add(conn, "the widget loader times out behind the proxy", "set HTTPS_PROXY for the loader", "widget", now)
    with ledger.read() as conn:
        assert count(conn, "widget") == 1
    with Ledger(cfg) as other, other.write() as conn:  # another process, as far as the index can tell
        add(conn, "widget tests fail on CI only", "pin the widget fixture's timezone", "widget ci", now)
    with ledger.read() as conn:
        assert count(conn, "widget") == 2
        found = fixes.find_patterns(conn, "widget tests fail on CI", cfg,
                                    threshold=0.0, filters=False)
        assert found and found[0].title == "widget ci"


def test_ranking_read_in_batches_keeps_the_best_the_filters_let_through(cfg, ledger):
    """60 patterns share a term; the 45 best ranked have failed too often to
    be injected: the 10 returned are the next 10 in bm25 order."""
    now = time.time()
    with ledger.write() as conn:
        ids = [add(conn, "quuxbuild fails " + " ".join(f"w{i}x{j}" for j in range(i % 20)),
                   f"fix number {i} for quuxbuild", f"quux {i}", now) for i in range(60)]
        full = store.match(conn, ["quuxbuild"], cfg, now, filters=False, limit=1000)
        assert sorted(c.id for c in full) == sorted(ids)
        assert [c.bm25 for c in full] == sorted(c.bm25 for c in full)
        for c in full[:45]:
            for n in range(store.RATE_MIN_USES):
                store.record_outcome(conn, c.id, "failure", session_id="s", at=now + n, now=now)
        expected = [c.id for c in full[45:55]]
        got = store.match(conn, ["quuxbuild"], cfg, now, filters=True, limit=10)
        assert [c.id for c in got] == expected
        assert store.match(conn, ["quuxbuild"], cfg, now, filters=True, limit=100) == \
            [c for c in store.match(conn, ["quuxbuild"], cfg, now, filters=False, limit=1000)
             if c.id not in {f.id for f in full[:45]}]
        assert store.match(conn, ["quuxbuild"], cfg, now, filters=True, limit=0) == []


def test_a_lookup_never_imports_the_fix_detector(cfg, ledger):
    """The detector's 73 patterns are compiled when a fix is stored, not on
    a service's start or an in-process hook's lookup."""
    with ledger.write() as conn:
        add(conn, "the gizmo daemon exits on SIGHUP", "handle SIGHUP in gizmod.py", "gizmo exits", time.time())
    code = ("import sys\nfrom tacit.config import load_config\nfrom tacit.learn import fixes\n"
            "from tacit.stores.ledger import Ledger\ncfg = load_config(env={'TACIT_HOME': sys.argv[1]})\n"
            "found = fixes.find_patterns(Ledger(cfg).connection(), 'gizmo daemon exits on SIGHUP', cfg, threshold=0.0)\n"
            "print(len(found), 'tacit.detect.fix' in sys.modules, 'tacit.detect.fix_parse' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, cfg.state_dir_str], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "False", "False"], out.stderr

"""Fix patterns end to end: forge from a reply → inject on a similar message →
outcome from the next message → retire; read-only mode; the marker fast path
(no sqlite3 on the hook path when nothing is stored); hook-mode journal
replay; the index, similarity, CLI and metrics. Real engine, real SQLite,
real subprocesses."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from tacit.detect.fix import FixStatement, detect_fix
from tacit.engine import Engine
from tacit.events import InjectContext, MessageEnd, ToolCallRecord, TurnEnd
from tacit.learn import fixes
from tacit.stores.ledger import Ledger

PORT_REPLY = ("Found it: the config loader reads `PORT` before `.env` is loaded, so I moved "
              "`load_dotenv()` to the top of main.py. The server now starts on 8080.")
PORT_TITLE = "the server ignores the PORT I put in .env"
PORT_AGAIN = "why is PORT from my .env file ignored when I start main.py?"


class Session:
    """Drives an inline engine with tacit's built-in plugins, one turn at a time."""

    def __init__(self, cfg, sid="s1", start=None):
        self.cfg = cfg
        self.engine = Engine(cfg, background="inline").load_builtins()
        self.sid = sid
        self.t = time.time() - 3600 if start is None else start

    def user(self, text):
        self.t += 5
        return self.engine.dispatch(MessageEnd(session_id=self.sid, role="user", text=text, ts=self.t))

    def reply(self, text, tool_calls=None):
        self.t += 5
        self.engine.dispatch(MessageEnd(session_id=self.sid, role="assistant", text=text, ts=self.t))
        return self.engine.dispatch(TurnEnd(session_id=self.sid, assistant_text=text, ts=self.t + 1,
                                            tool_calls=tool_calls))

    def injected(self, effects):
        return [e for e in effects if isinstance(e, InjectContext) and e.source == "fixes.inject"]


def patterns(cfg, include_retired=True):
    with Ledger(cfg) as led:
        return fixes.list_patterns(led, include_retired=include_retired)


def metrics(cfg, name):
    with Ledger(cfg) as led, led.read() as conn:
        return [r[0] for r in conn.execute("SELECT value FROM turn_metrics WHERE name = ? ORDER BY turn_at",
                                           (name,))]


# ---------------------------------------------------------------------------
# The whole loop
# ---------------------------------------------------------------------------
def test_forge_inject_outcome_then_retire(cfg):
    cfg = cfg.with_settings(min_success_rate=0.0)  # let a failing pattern keep being tried
    s = Session(cfg)
    assert not fixes.has_patterns(cfg)
    s.user(PORT_TITLE)
    s.reply(PORT_REPLY)
    stored = patterns(cfg)
    assert len(stored) == 1 and fixes.has_patterns(cfg)
    p = stored[0]
    assert p["title"] == PORT_TITLE
    assert p["problem"] == "the config loader reads PORT before .env is loaded"
    assert p["solution"] == "moved load_dotenv() to the top of main.py"  # not cut at "main.py"
    assert "main.py" in p["tags"]
    assert metrics(cfg, "patterns.forged") == [1.0]

    # the problem comes back: the pattern is injected next to the prompt
    effects = s.injected(s.user(PORT_AGAIN))
    assert len(effects) == 1 and effects[0].scope == "prompt"
    block = effects[0].text
    assert block.startswith("<learned-patterns>") and block.endswith("</learned-patterns>")
    assert "load_dotenv()" in block and "not yet confirmed" in block
    s.reply("I moved it again.")
    # the next message decides: a thank-you is a success
    s.user("thanks, that worked!")
    p = patterns(cfg)[0]
    assert (p["times_injected"], p["successes"], p["failures"]) == (1, 1, 0)

    # nine failures later (1 success / 10 uses = 10% < 30%) it is retired
    for n in range(9):
        assert s.injected(s.user(PORT_AGAIN)), f"not injected on round {n}"
        s.reply("Try that again.")
        s.user("No, it's still failing with the same error.")
    p = patterns(cfg)[0]
    assert (p["successes"], p["failures"], p["status"]) == (1, 9, "retired")
    assert "1/10" in p["retired_reason"]
    assert not fixes.has_patterns(cfg)  # the marker went with the last active pattern
    assert not s.injected(s.user(PORT_AGAIN))
    assert patterns(cfg, include_retired=False) == []


def test_default_filters_stop_a_failing_pattern_before_retirement(cfg):
    s = Session(cfg)
    s.user(PORT_TITLE)
    s.reply(PORT_REPLY)
    for answer in ("thanks, works now", "still failing", "that didn't work either"):
        assert s.injected(s.user(PORT_AGAIN))
        s.reply("Changed it.")
        s.user(answer)
    p = patterns(cfg)[0]
    assert (p["successes"], p["failures"], p["status"]) == (1, 2, "active")
    # 1/3 < min_success_rate 0.6 once rated (3 outcomes): no longer injected
    assert not s.injected(s.user(PORT_AGAIN))


def test_a_neutral_follow_up_is_not_an_outcome(cfg):
    s = Session(cfg)
    s.user(PORT_TITLE)
    s.reply(PORT_REPLY)
    assert s.injected(s.user(PORT_AGAIN))
    s.reply("Done.")
    s.user("Now add a health check endpoint.")
    p = patterns(cfg)[0]
    assert (p["times_injected"], p["successes"], p["failures"]) == (1, 0, 0)


def test_read_only_mode_injects_but_never_forges(cfg):
    s = Session(cfg)
    s.user(PORT_TITLE)
    s.reply(PORT_REPLY)
    ro = Session(cfg.with_settings(forge_on_success=False), sid="s2")
    ro.user("the 404 comes back on /api/users/")
    ro.reply("The 404 comes from the trailing slash in the route; I removed it and added a redirect.")
    assert len(patterns(cfg)) == 1  # nothing new forged
    assert ro.injected(ro.user(PORT_AGAIN))  # what exists is still used
    assert metrics(cfg, "patterns.forged")[-1] == 0.0


def test_no_forge_when_the_turn_ended_on_a_failed_tool_call(cfg):
    s = Session(cfg)
    s.user(PORT_TITLE)
    s.reply(PORT_REPLY, tool_calls=(ToolCallRecord(name="Bash", ok=True), ToolCallRecord(name="Bash", ok=False)))
    assert patterns(cfg) == []


def test_learning_disabled_records_nothing(cfg):
    s = Session(cfg.with_settings(learning_enabled=False))
    s.user(PORT_TITLE)
    s.reply(PORT_REPLY)
    assert not cfg.ledger_path.exists() or patterns(cfg) == []


def test_the_same_fix_twice_is_merged(cfg):
    s = Session(cfg)
    for _ in range(2):
        s.user(PORT_TITLE)
        s.reply(PORT_REPLY)
    stored = patterns(cfg)
    assert len(stored) == 1 and stored[0]["times_forged"] == 2
    assert metrics(cfg, "patterns.forged") == [1.0, 0.0]


def test_a_secret_is_never_stored(cfg):
    s = Session(cfg)
    s.user("the client gets 401 from the API")
    s.reply("The 401 comes from a missing key: the client reads API_KEY before the config loads, so I set "
            "`API_KEY=8f3a9c2b7d1e4f6a9b0c3d5e7f8a1b2c` in settings.py.")
    assert patterns(cfg) == []
    assert not fixes.has_patterns(cfg)
    log = cfg.log_file.read_text()
    assert "fix pattern not stored" in log and "8f3a9c2b" not in log


def test_old_patterns_are_not_injected(cfg):
    long_ago = time.time() - 120 * 86400
    s = Session(cfg, start=long_ago)
    s.user(PORT_TITLE)
    s.reply(PORT_REPLY)
    later = Session(cfg, sid="s2")
    assert not later.injected(later.user(PORT_AGAIN))  # older than decay_after_days (90)
    assert later.injected(Session(cfg.with_settings(decay_after_days=365), sid="s3").user(PORT_AGAIN))


def test_max_injected_caps_the_block(cfg):
    led = Ledger(cfg)
    words = ["orders", "billing", "mailer", "search", "upload", "report", "auth", "cache"]
    for w in words:  # eight different problems, each with its own three identifiers
        fixes.forge(led, cfg, FixStatement(f"{w}_worker crashes with {w.capitalize()}Timeout in {w}_client.py",
                                           f"raised {w}_timeout in settings.py", "t", 0.9), title=f"{w} crash")
    assert len(patterns(cfg)) == 8
    message = " ".join(f"{w}_worker {w.capitalize()}Timeout {w}_client.py" for w in words)
    s = Session(cfg.with_settings(max_injected=3))
    block = s.injected(s.user(message))[0].text
    assert block.count("   Fix: ") == 3
    off = Session(cfg.with_settings(max_injected=0), sid="x")
    assert not off.injected(off.user(message))


# ---------------------------------------------------------------------------
# Outcomes
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("thanks, that worked!", "success"),
    ("Perfect, works now", "success"),
    ("that did the trick", "success"),
    ("tests pass now, thank you", "success"),
    ("好了，谢谢", "success"),
    ("still failing", "failure"),
    ("No, it's still getting the same error", "failure"),
    ("thanks, but it still fails on CI", "failure"),
    ("that didn't work", "failure"),
    ("还是报错", "failure"),
    ("No, that's wrong — the port comes from config.toml, not .env", "failure"),
    ("Now add a health check endpoint", None),
    ("", None),
])
def test_outcome_classification(text, expected):
    assert fixes.classify_outcome(text, "I moved load_dotenv() to the top of main.py.") == expected


# ---------------------------------------------------------------------------
# Index and similarity
# ---------------------------------------------------------------------------
def test_the_ledger_sqlite_has_fts5_and_terms_stay_whole(cfg):
    led = Ledger(cfg)
    fix = FixStatement("ECONNREFUSED 127.0.0.1:5432 because ~/.cache/pip and setup.py pin v2.1",
                       "set DATABASE_HOST=db in docker-compose.yml", "t", 0.9)
    fixes.forge(led, cfg, fix, title="db refused")
    with led.read() as conn:
        assert Ledger.meta_get(conn, "fix_patterns.index") == "fts5"
        vocab = {r[0] for r in conn.execute("SELECT term FROM fix_patterns_vocab")}
        # plain words are stemmed the same way in patterns and queries ("econnrefus")
        assert {"econnrefus", "127.0.0.1:5432", "~/.cache/pip", "setup.py", "v2.1",
                "docker-compose.yml"} <= vocab
        # bm25 ranks through the same tokenizer the terms were stored with
        hits = conn.execute("SELECT rowid FROM fix_patterns_fts WHERE fix_patterns_fts MATCH ?",
                            ('"127.0.0.1:5432"',)).fetchall()
        assert hits == [(1,)]
    found = fixes.find_patterns(led.connection(), "psql: ECONNREFUSED 127.0.0.1:5432 from docker", cfg,
                                threshold=0.0)
    assert [m.id for m in found] == [1] and "127.0.0.1:5432" in found[0].shared


def test_similarity_means_distinctive_shared_terms():
    df = {"rare1": 1, "rare2": 1, "rare3": 1, "common": 100}
    assert fixes.similarity(["rare1", "rare2", "rare3"], df, 100) == pytest.approx(1 - 0.7 ** 3)
    assert fixes.similarity(["rare1", "rare2"], df, 100) < 0.6 <= fixes.similarity(["rare1", "rare2", "rare3"], df, 100)
    assert fixes.similarity(["common"], df, 100) < 0.01  # a word in every pattern says nothing
    assert fixes.similarity(["rare1", "rare1"], df, 100) == fixes.similarity(["rare1"], df, 100)
    assert 0.0 <= fixes.similarity(list(df) * 20, df, 100) < 1.0


def test_index_terms_are_code_aware_and_stemmed():
    terms = fixes.index_terms("loadDotenv() failed loading ~/.cache/pip; a\\b and C++ caused crashes")
    assert {"loaddotenv", "load", "dotenv", "fail", "~/.cache/pip", "caus", "crash"} <= set(terms)
    assert all(all(c.isalnum() or c in fixes.TOKEN_CHARS for c in t) for t in terms)


def test_lookup_without_fts5_falls_back_to_python(cfg, monkeypatch):
    from tacit.stores import ledger as ledger_mod

    monkeypatch.setattr(ledger_mod, "_FIX_PATTERNS_FTS",
                        ledger_mod._FIX_PATTERNS_FTS.replace("USING fts5(", "USING fts5_missing("))
    led = Ledger(cfg)
    fixes.forge(led, cfg, detect_fix(PORT_REPLY), title=PORT_TITLE)
    with led.read() as conn:
        assert Ledger.meta_get(conn, "fix_patterns.index") == "table"
        assert [m.id for m in fixes.find_patterns(conn, PORT_AGAIN, cfg)] == [1]
    assert fixes.retire_pattern(led, cfg, 1)["success"] and not fixes.has_patterns(cfg)


def test_a_stale_marker_is_removed_by_the_first_lookup(cfg):
    led = Ledger(cfg)
    led.connection()
    fixes.write_marker(cfg, 3)  # says 3, ledger has none
    s = Session(cfg)
    assert not s.injected(s.user(PORT_AGAIN))
    assert not fixes.has_patterns(cfg)


# ---------------------------------------------------------------------------
# The hook path: one stat when there is nothing to inject
# ---------------------------------------------------------------------------
HOOK_PROBE = textwrap.dedent("""
    import json, sys
    from tacit.config import load_config
    from tacit.hosts.claude_code.hook import handle
    cfg = load_config(host="claude-code")
    out = handle(cfg, "UserPromptSubmit", json.dumps(
        {"session_id": "s1", "prompt": sys.argv[1], "cwd": "/tmp"}).encode())
    print(json.dumps({"sqlite3": "sqlite3" in sys.modules or "_sqlite3" in sys.modules,
                      "detectors": sorted(m for m in sys.modules if m.startswith("tacit.detect.fix")
                                          or m.startswith("tacit.detect.importance")),
                      "out": out}))
""")


def probe(env, prompt):
    proc = subprocess.run([sys.executable, "-P", "-c", HOOK_PROBE, prompt], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_no_sqlite_on_the_hook_path_when_no_pattern_exists(cfg, tacit_env):
    first = probe(tacit_env, PORT_AGAIN)
    assert first == {"sqlite3": False, "detectors": [], "out": ""}
    # the ledger exists and holds other things, but no fix pattern: still no sqlite3
    Session(cfg).user("We decided to use Postgres 16 for the new service.")
    assert cfg.ledger_path.exists()
    assert probe(tacit_env, PORT_AGAIN)["sqlite3"] is False
    # with a pattern stored, the same hook looks it up and injects it
    fixes.forge(Ledger(cfg), cfg, detect_fix(PORT_REPLY), title=PORT_TITLE)
    hit = probe(tacit_env, PORT_AGAIN)
    assert hit["sqlite3"] is True
    context = json.loads(hit["out"])["hookSpecificOutput"]["additionalContext"]
    assert "<learned-patterns>" in context and "load_dotenv()" in context


def test_hook_mode_outcome_travels_through_state_file_and_journal(cfg):
    """Claude Code: one process per event; the injection is remembered in the
    session file and the outcome is decided by the drain replaying the journal."""
    from tacit.background import drain
    from tacit.hosts.runtime import build_engine

    fixes.forge(Ledger(cfg), cfg, detect_fix(PORT_REPLY), title=PORT_TITLE)
    t = time.time() - 100
    hook = lambda: build_engine(cfg, "hook", children=False)  # noqa: E731 — a fresh "process" per event
    effects = hook().dispatch(MessageEnd(session_id="h1", role="user", text=PORT_AGAIN, ts=t))
    assert any(isinstance(e, InjectContext) and "<learned-patterns>" in e.text for e in effects)
    hook().dispatch(MessageEnd(session_id="h1", role="assistant", text="Moved it.", ts=t + 1))
    hook().dispatch(TurnEnd(session_id="h1", assistant_text="Moved it.", ts=t + 2))
    hook().dispatch(MessageEnd(session_id="h1", role="user", text="that fixed it, thanks", ts=t + 3))
    drainer = build_engine(cfg, "drain", children=False)
    assert drain(cfg, drainer) >= 4
    assert drain(cfg, drainer) == 0
    p = patterns(cfg)[0]
    assert (p["times_injected"], p["successes"]) == (1, 1)
    # replaying the same events again changes nothing
    from tacit.events import MessageEnd as M

    for ts, text in ((t, PORT_AGAIN), (t + 3, "that fixed it, thanks")):
        drainer.run_background_now(M(session_id="h1", role="user", text=text, ts=ts))
    p = patterns(cfg)[0]
    assert (p["times_injected"], p["successes"]) == (1, 1)
    assert metrics(cfg, "patterns.injected")[:2] == [1.0, 0.0]
    assert len(metrics(cfg, "patterns.lookup_ms")) == 2


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------
def tacit(env, *args):
    proc = subprocess.run([sys.executable, "-m", "tacit.cli", *args], env=env, capture_output=True, text=True,
                          timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def test_patterns_and_stats_commands(cfg, tacit_env):
    s = Session(cfg)
    s.user(PORT_TITLE)
    s.reply(PORT_REPLY)
    s.user(PORT_AGAIN)
    s.reply("Moved it.")
    s.user("thanks, works now")

    code, out, _ = tacit(tacit_env, "patterns", "list")
    listing = json.loads(out)
    assert code == 0 and listing["count"] == 1 and listing["patterns"][0]["success_rate"] == 1.0
    code, out, _ = tacit(tacit_env, "patterns", "show", "1")
    assert code == 0 and json.loads(out)["pattern"]["title"] == PORT_TITLE
    code, out, _ = tacit(tacit_env, "patterns", "show", "99")
    assert code == 1 and "no fix pattern" in json.loads(out)["error"]
    code, out, _ = tacit(tacit_env, "patterns", "find", PORT_AGAIN)
    assert code == 0 and json.loads(out)["matches"][0]["id"] == 1

    code, out, _ = tacit(tacit_env, "stats", "--json")
    data = json.loads(out)
    assert code == 0 and data["turns"] == 3
    assert data["patterns.injected"]["total"] == 1 and data["patterns.forged"]["total"] == 1
    assert data["patterns.lookup_ms"]["lookups"] == 2 and data["patterns.lookup_ms"]["median"] > 0
    code, out, _ = tacit(tacit_env, "stats")
    assert code == 0 and "patterns.lookup_ms: median" in out and "1 active" in out

    code, out, _ = tacit(tacit_env, "patterns", "retire", "1", "--reason", "obsolete")
    assert code == 0 and json.loads(out)["success"] and not fixes.has_patterns(cfg)
    code, out, _ = tacit(tacit_env, "patterns", "list")
    assert json.loads(out)["count"] == 0
    code, out, _ = tacit(tacit_env, "patterns", "list", "--all", "--text")
    assert code == 0 and "retired: obsolete" in out
    code, out, _ = tacit(tacit_env, "patterns", "delete", "1")
    assert code == 0 and json.loads(out)["success"]
    code, out, _ = tacit(tacit_env, "patterns", "delete", "1")
    assert code == 1
    code, out, _ = tacit(tacit_env, "patterns", "show", "x")
    assert code == 2 and json.loads(out)["success"] is False


def test_metrics_are_pruned_daily(cfg):
    led = Ledger(cfg)
    now = time.time()
    with led.write() as conn:
        fixes.record_metric(conn, "s", now - 400 * 86400, "patterns.injected", 1)
        fixes.record_metric(conn, "s", now, "patterns.injected", 0)
        fixes.prune_metrics(conn, cfg, now)
        assert conn.execute("SELECT count(*) FROM turn_metrics").fetchone()[0] == 1


def test_a_writer_holding_the_ledger_never_delays_the_injection(cfg):
    """WAL: the foreground lookup reads while a drain or CLI holds the write lock."""
    from tacit.hosts.runtime import build_engine

    fixes.forge(Ledger(cfg), cfg, detect_fix(PORT_REPLY), title=PORT_TITLE)
    blocker = sqlite3.connect(cfg.ledger_path, timeout=0.1, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    blocker.execute("UPDATE fix_patterns SET updated_at = updated_at")
    try:
        fixes._READERS.clear()
        started = time.perf_counter()
        effects = build_engine(cfg, "hook", children=False).dispatch(
            MessageEnd(session_id="w", role="user", text=PORT_AGAIN))
        elapsed = time.perf_counter() - started
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
        fixes._READERS.clear()
    assert any(isinstance(e, InjectContext) and "<learned-patterns>" in e.text for e in effects)
    assert elapsed < 1.0


def test_a_corrupt_ledger_is_survived_and_the_marker_cleared(cfg):
    fixes.forge(Ledger(cfg), cfg, detect_fix(PORT_REPLY), title=PORT_TITLE)
    fixes._READERS.clear()
    for suffix in ("-wal", "-shm"):
        if os.path.exists(str(cfg.ledger_path) + suffix):
            os.unlink(str(cfg.ledger_path) + suffix)
    cfg.ledger_path.write_bytes(os.urandom(4096))
    s = Session(cfg)
    assert not s.injected(s.user(PORT_AGAIN))  # no exception reaches the host
    assert not fixes.has_patterns(cfg)  # the fresh ledger is empty: marker removed
    assert list(cfg.state_dir.glob("ledger.db.corrupt-*"))
    fixes._READERS.clear()

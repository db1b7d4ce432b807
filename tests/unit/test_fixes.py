"""Fix patterns end to end: forge from a reply → inject on a similar message →
outcome from the next message → retire; read-only mode; exactly once per
event id; the index, similarity, CLI and metrics. Real engine, real SQLite,
real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.detect.analysis import analyse
from tacit.detect.fix import FixStatement, detect_fix
from tacit.engine import Engine
from tacit.events import MessageEnd, ToolCallRecord, TurnEnd
from tacit.learn import fix_patterns as model
from tacit.learn import fixes
from tacit.stores import fix_patterns as store
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

    @staticmethod
    def injected(result):
        return [i for i in getattr(result, "context", ()) if i.source == "fixes.inject"]


def patterns(cfg, include_retired=True):
    with Ledger(cfg) as led, led.read() as conn:
        return store.listing(conn, include_retired=include_retired)


def active(cfg) -> int:
    with Ledger(cfg) as led, led.read() as conn:
        return store.active_count(conn)


def forge(cfg, fix, title, **kwargs):
    with Ledger(cfg) as led, led.write() as conn:
        return fixes.forge(conn, cfg, fix, title=title, **kwargs)


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
    s.user(PORT_TITLE)
    assert active(cfg) == 0
    s.reply(PORT_REPLY)
    stored = patterns(cfg)
    assert len(stored) == 1 and active(cfg) == 1
    p = stored[0]
    assert p["title"] == PORT_TITLE
    assert p["problem"] == "the config loader reads PORT before .env is loaded"
    assert p["solution"] == "moved load_dotenv() to the top of main.py"  # not cut at "main.py"
    assert "main.py" in p["tags"]
    assert metrics(cfg, "patterns.forged") == [1.0]

    # the problem comes back: the pattern is injected next to the prompt
    effects = s.injected(s.user(PORT_AGAIN))
    assert len(effects) == 1 and effects[0].priority == fixes.INJECTION_PRIORITY
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
    assert active(cfg) == 0
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
    assert patterns(cfg) == [] and metrics(cfg, "patterns.forged") == []


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
    assert patterns(cfg) == [] and active(cfg) == 0
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
    words = ["orders", "billing", "mailer", "search", "upload", "report", "auth", "cache"]
    for w in words:  # eight different problems, each with its own three identifiers
        forge(cfg, FixStatement(f"{w}_worker crashes with {w.capitalize()}Timeout in {w}_client.py",
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
    verdict = analyse(text, prev_assistant="I moved load_dotenv() to the top of main.py.")
    assert model.classify_outcome(text, verdict.is_correction) == expected


def test_a_correction_verdict_is_a_failure_whatever_the_words():
    assert model.classify_outcome("use the other config file", is_correction=True) == "failure"
    assert model.classify_outcome("use the other config file", is_correction=False) is None
    assert model.classify_outcome(None) is None and model.classify_outcome("x" * 100_000) is None


# ---------------------------------------------------------------------------
# Index and similarity
# ---------------------------------------------------------------------------
def test_the_ledger_sqlite_has_fts5_and_terms_stay_whole(cfg):
    fix = FixStatement("ECONNREFUSED 127.0.0.1:5432 because ~/.cache/pip and setup.py pin v2.1",
                       "set DATABASE_HOST=db in docker-compose.yml", "t", 0.9)
    forge(cfg, fix, title="db refused")
    led = Ledger(cfg)
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
    led.close()


def test_similarity_means_distinctive_shared_terms():
    df = {"rare1": 1, "rare2": 1, "rare3": 1, "common": 100}
    assert model.similarity(["rare1", "rare2", "rare3"], df, 100) == pytest.approx(1 - 0.7 ** 3)
    assert model.similarity(["rare1", "rare2"], df, 100) < 0.6 <= model.similarity(["rare1", "rare2", "rare3"], df, 100)
    assert model.similarity(["common"], df, 100) < 0.01  # a word in every pattern says nothing
    assert model.similarity(["rare1", "rare1"], df, 100) == model.similarity(["rare1"], df, 100)
    assert 0.0 <= model.similarity(list(df) * 20, df, 100) < 1.0


def test_index_terms_are_code_aware_and_stemmed():
    terms = model.index_terms("loadDotenv() failed loading ~/.cache/pip; a\\b and C++ caused crashes")
    assert {"loaddotenv", "load", "dotenv", "fail", "~/.cache/pip", "caus", "crash"} <= set(terms)
    assert all(all(c.isalnum() or c in model.TOKEN_CHARS for c in t) for t in terms)


_WORDS = st.sampled_from(["loadDotenv", "main.py", "~/.cache/pip", "v2.1", "ECONNREFUSED", "the", "fails",
                          "loading", "登录失败", "C++", "a\\b", "x", "tests/test_parser.py", "HTTPServer"])


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORDS | st.text(max_size=12), max_size=120).map(" ".join))
def test_query_terms_are_always_index_terms_deduplicated_and_cut(text):
    assert model.query_terms(text) == list(dict.fromkeys(model.index_terms(text)))[:model.MAX_QUERY_TERMS]


def test_a_huge_message_is_looked_up_by_its_head(cfg):
    forge(cfg, detect_fix(PORT_REPLY), title=PORT_TITLE)
    text = PORT_AGAIN + " " + " ".join(f"word{i}x" for i in range(200)) + " tail" * 200_000
    assert len(model.query_terms(text)) == model.MAX_QUERY_TERMS
    with Ledger(cfg) as led, led.read() as conn:
        assert [m.id for m in fixes.find_patterns(conn, text, cfg)] == [1]


def test_query_terms_are_index_terms_deduplicated_and_cut():
    text = " ".join(f"word{n} Error{n % 7}" for n in range(500))
    distinct = list(dict.fromkeys(model.index_terms(text)))
    assert model.query_terms(text) == distinct[:model.MAX_QUERY_TERMS]
    assert model.query_terms("") == [] and model.query_terms(None) == [] and model.index_terms(42) == []


def test_lookup_without_fts5_falls_back_to_python(cfg, monkeypatch):
    from tacit.stores import schema

    monkeypatch.setattr(schema, "_FIX_PATTERNS_FTS", schema._FIX_PATTERNS_FTS.replace("USING fts5(", "USING fts5_missing("))
    forge(cfg, detect_fix(PORT_REPLY), title=PORT_TITLE)
    with Ledger(cfg) as led:
        with led.read() as conn:
            assert Ledger.meta_get(conn, "fix_patterns.index") == "table"
            assert [m.id for m in fixes.find_patterns(conn, PORT_AGAIN, cfg)] == [1]
        with led.write() as conn:
            assert fixes.retire_pattern(conn, 1)["success"]
    assert active(cfg) == 0


# ---------------------------------------------------------------------------
# Exactly once
# ---------------------------------------------------------------------------
def test_the_same_events_twice_forge_and_count_once(cfg):
    """Every event carries an id; a host retrying one after a crash gets the
    stored answer and nothing is applied twice."""
    engine = Engine(cfg, background="inline").load_builtins()
    t = time.time() - 100
    turn = [MessageEnd(session_id="x", id="u1", role="user", text=PORT_TITLE, ts=t),
            MessageEnd(session_id="x", id="a1", role="assistant", text=PORT_REPLY, ts=t + 1),
            TurnEnd(session_id="x", id="t1", assistant_text=PORT_REPLY, ts=t + 2)]
    again = MessageEnd(session_id="x", id="u2", role="user", text=PORT_AGAIN, ts=t + 3)
    for event in [*turn, *turn]:
        engine.dispatch(event)
    first = engine.dispatch(again)
    second = engine.dispatch(again)
    [p] = patterns(cfg)
    assert p["times_forged"] == 1 and p["times_injected"] == 1
    assert Session.injected(first) and Session.injected(second)  # the same answer, stored
    assert Session.injected(second)[0].text == Session.injected(first)[0].text
    assert metrics(cfg, "patterns.forged") == [1.0] and metrics(cfg, "patterns.injected") == [0.0, 1.0]


def test_a_forge_replayed_after_a_crash_is_applied_once(cfg, monkeypatch):
    """The process dies after the forge committed but before the event was
    marked done; the next process runs the pending event again: the
    applied-once marker (same transaction as the forge) skips it."""
    crashed = Engine(cfg, background="inline").load_builtins()
    t = time.time() - 100
    crashed.dispatch(MessageEnd(session_id="c", id="cu", role="user", text=PORT_TITLE, ts=t))

    def die(self, seq):
        raise RuntimeError("killed before the event was marked done")

    monkeypatch.setattr(Engine, "_finish", die)
    crashed.dispatch(TurnEnd(session_id="c", id="ct", assistant_text=PORT_REPLY, ts=t + 1))
    monkeypatch.undo()
    assert len(patterns(cfg)) == 1  # forged and committed with its marker ...
    with Ledger(cfg) as led, led.read() as conn:  # ... but the event still waits
        assert conn.execute("SELECT kind FROM events WHERE background = 1").fetchall() == [("turn_end",)]
    restarted = Engine(cfg, background="inline").load_builtins()
    assert restarted.run_pending_background() == 1
    [p] = patterns(cfg)
    assert p["times_forged"] == 1 and metrics(cfg, "patterns.forged") == [1.0]


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

    code, out, _ = tacit(tacit_env, "patterns", "list", "--json")
    listing = json.loads(out)
    assert code == 0 and listing["count"] == 1 and listing["patterns"][0]["success_rate"] == 1.0
    code, out, _ = tacit(tacit_env, "patterns", "show", "1", "--json")
    assert code == 0 and json.loads(out)["pattern"]["title"] == PORT_TITLE
    code, out, _ = tacit(tacit_env, "patterns", "show", "99", "--json")
    assert code == 1 and "no fix pattern" in json.loads(out)["error"]
    code, out, _ = tacit(tacit_env, "patterns", "find", PORT_AGAIN, "--json")
    assert code == 0 and json.loads(out)["matches"][0]["id"] == 1

    code, out, _ = tacit(tacit_env, "stats", "--json")
    data = json.loads(out)
    assert code == 0 and data["turns"] == 3
    assert data["patterns.injected"]["total"] == 1 and data["patterns.forged"]["total"] == 1
    assert data["patterns.lookup_ms"]["lookups"] == 2 and data["patterns.lookup_ms"]["median"] > 0
    code, out, _ = tacit(tacit_env, "stats")
    assert code == 0 and "patterns.lookup_ms: median" in out and "1 active" in out

    code, out, _ = tacit(tacit_env, "patterns", "retire", "1", "--reason", "obsolete", "--json")
    assert code == 0 and json.loads(out)["success"] and active(cfg) == 0
    code, out, _ = tacit(tacit_env, "patterns", "list", "--json")
    assert json.loads(out)["count"] == 0
    code, out, _ = tacit(tacit_env, "patterns", "list", "--all")  # text by default
    assert code == 0 and "retired: obsolete" in out
    code, out, _ = tacit(tacit_env, "patterns", "list", "--all", "--text")  # the old flag still works
    assert code == 0 and "retired: obsolete" in out
    code, out, _ = tacit(tacit_env, "patterns", "delete", "1", "--json")
    assert code == 0 and json.loads(out)["success"]
    code, out, _ = tacit(tacit_env, "patterns", "delete", "1", "--json")
    assert code == 1
    code, out, _ = tacit(tacit_env, "patterns", "show", "x", "--json")
    assert code == 2 and json.loads(out)["success"] is False


def test_a_corrupt_ledger_is_survived(cfg):
    forge(cfg, detect_fix(PORT_REPLY), title=PORT_TITLE)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(str(cfg.ledger_path) + suffix):
            os.unlink(str(cfg.ledger_path) + suffix)
    cfg.ledger_path.write_bytes(os.urandom(4096))
    s = Session(cfg)
    assert not s.injected(s.user(PORT_AGAIN))  # no exception reaches the host
    assert list(cfg.state_dir.glob("ledger.db.corrupt-*"))
    assert active(cfg) == 0  # the fresh ledger is empty


# ---------------------------------------------------------------------------
# What is worth storing (short quotes from real agent replies)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("problem,solution", [
    ("The issue is that RESEND_FROM contains special characters that need to be quoted", "Let me fix this"),
    ("Checking for lint errors", "Made these changes to the layout file"),
    ("5. Updated summary text", "Added description of the green cube marker"),
    ("Issues", "Added a comment clarifying that search paths must be set first"),
    ("The issue is likely an exception during route execution", "Adding error handling and checking the logs"),
    ("Let me fix the normalization function", "The _normalize_metrics function now handles the old format"),
    ("I need to update the model in utils.py", "Updated the ProviderResult model in utils.py to accept either"),
    ("The meson test returned non-zero due to UNEXPECTEDPASS results",
     "Let me fix that — UNEXPECTEDPASS is not a real failure"),
    ("This error usually means that Tailwind CSS is not installed in your project yet",
     "To fix this, follow these steps"),
    ("I’m adding focused tests for the new MAE path now", "caught one subtle issue while wiring the loaders"),
    ("The error shows it's looking for .lib/users/flake.nix (note the extra dot)",
     "The error shows it's looking for .lib/users/flake.nix (note the extra dot)"),
])
def test_a_fix_statement_that_says_nothing_usable_is_not_stored(cfg, problem, solution):
    assert model.unfit(problem, solution)
    result = forge(cfg, FixStatement(problem, solution, "t", 0.9), title="a turn")
    assert result.action == "skipped" and result.reason and patterns(cfg) == []


@pytest.mark.parametrize("problem,solution", [
    ("test_new.html was missing the centralized-button-manager.js script dependency",
     "Added it to the script loading order"),
    ("Tabulator requires frozen on the parent column group, not on individual columns",
     "moved the frozen property from individual column definitions to the groupDefinition object"),
    ("Fixing mobile Process layout: the timeline spine overlaps content because the stack has no gutter",
     "Updated the Process section mobile layout in Process.css only"),
    ("In your shortest.config.ts, you have a typo in the configuration property",
     "Change baseURL to baseUrl (note the lowercase 'u')"),
])
def test_a_real_cause_and_fix_is_still_stored(cfg, problem, solution):
    assert model.unfit(problem, solution) is None
    assert forge(cfg, FixStatement(problem, solution, "t", 0.9), title="a turn").action == "created"


@pytest.mark.parametrize("first_line", ["yes, proceed", "PROCEED", "error:", "@uv (807-821)",
                                        "root@ubuntu:/var/www/app# python3 -m py_compile app/main.py",
                                        '"metrics": ['])
def test_a_title_that_names_nothing_gives_way_to_the_problem(first_line):
    # real turns started with these; the injected block showed "1. yes, proceed (not yet confirmed …)"
    problem = "the config loader reads PORT before .env is loaded"
    assert model.title_from(f"{first_line}\nmore text", problem) == problem
    assert model.title_from("the server ignores the PORT I put in .env", problem) == (
        "the server ignores the PORT I put in .env")
    assert model.title_from("配置resend", problem) == "配置resend"

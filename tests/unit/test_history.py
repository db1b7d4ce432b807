"""History: every change to memory and skills recorded with who made it and
why; ``tacit memory log | why | undo`` over it. Real files, the real ledger,
the real CLI in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from tacit import changes
from tacit.app import Tacit
from tacit.consolidation import add_entry
from tacit.stores import history
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore, join_entries
from tacit.stores.skills import SkillStore


def tacit(env, *args, cwd=None, extra_env=None):
    proc = subprocess.run([sys.executable, "-P", "-m", "tacit", *args], env={**env, **(extra_env or {})},
                          cwd=cwd, capture_output=True, text=True, timeout=60)
    return proc


def tacit_json(env, *args, **kw):
    proc = tacit(env, *args, "--json", **kw)
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def log_of(cfg):
    with Ledger(cfg) as ledger:
        return history.changes(ledger)


def test_every_cli_write_is_recorded_with_before_after_and_the_user_as_actor(tacit_env, cfg):
    tacit_json(tacit_env, "memory", "add", "--target", "user", "Prefers pnpm over npm")
    tacit_json(tacit_env, "memory", "add", "--scope", "global", "Deploy on Tuesdays")
    code, out = tacit_json(tacit_env, "memory", "replace", "--scope", "global", "Tuesdays", "Deploy on Wednesdays")
    assert code == 0 and isinstance(out["change_id"], int)
    code, log = tacit_json(tacit_env, "memory", "log")
    assert code == 0
    rows = log["changes"]
    assert [r["action"] for r in rows] == ["replace", "add", "add"]
    for row in rows:
        assert {"id", "time", "action", "target", "text", "actor"} <= row.keys()
        assert row["actor"] == "you (tacit CLI)"
    assert rows[0]["id"] == out["change_id"]
    assert rows[0]["before"] == ["Deploy on Tuesdays"] and rows[0]["after"] == ["Deploy on Wednesdays"]
    assert rows[0]["text"] == "Deploy on Tuesdays → Deploy on Wednesdays"
    assert rows[2]["scope"] == "user" and rows[2]["target"] == str(cfg.user_file)
    # the text form is for a person: one line per change, newest first
    text = tacit(tacit_env, "memory", "log").stdout
    assert text.index("replace") < text.index("Prefers pnpm")
    assert "{" not in text


def test_log_since_takes_dates_and_ages(tacit_env, cfg):
    store = MemoryStore(cfg)
    store.add("global", "old one")
    with Ledger(cfg) as ledger, ledger.write() as conn:  # make it two days old
        conn.execute("UPDATE history SET at = at - 2 * 86400")
    store.add("global", "new one")
    code, out = tacit_json(tacit_env, "memory", "log", "--since", "1d")
    assert code == 0 and [r["text"] for r in out["changes"]] == ["new one"]
    yesterday_iso = time.strftime("%Y-%m-%d", time.localtime(time.time() - 3 * 86400))
    code, out = tacit_json(tacit_env, "memory", "log", "--since", yesterday_iso)
    assert [r["text"] for r in out["changes"]] == ["new one", "old one"]
    code, out = tacit_json(tacit_env, "memory", "log", "--since", "last tuesday")
    assert code == 2 and out["success"] is False and "--since" in out["error"]


def test_a_child_change_carries_its_kind_session_host_and_cause(tacit_env, cfg):
    actor = history.Actor(kind="child", name="correction", session_id="sess-1234567890", host="claude-code",
                          cause="no, use pnpm not npm", group="job:abc")
    proc = tacit(tacit_env, "memory", "add", "--target", "user", "Use pnpm, never npm",
                 extra_env={"TACIT_ACTOR": actor.to_env()})
    assert proc.returncode == 0, proc.stderr
    (row,) = log_of(cfg)
    assert (row.actor.kind, row.actor.name, row.actor.session_id, row.actor.host) == \
        ("child", "correction", "sess-1234567890", "claude-code")
    assert row.group == "job:abc" and row.actor.cause == "no, use pnpm not npm"
    assert row.as_dict()["actor"] == "a correction child agent for session sess-1234567 on claude-code"
    code, why = tacit_json(tacit_env, "memory", "why", "pnpm")
    assert code == 0
    (entry,) = why["entries"]
    assert entry["scope"] == "user" and entry["origin"]["cause"] == "no, use pnpm not npm"
    assert "because: no, use pnpm not npm" in tacit(tacit_env, "memory", "why", "pnpm").stdout


def test_undo_reverts_one_change_and_is_itself_undoable(tacit_env, cfg):
    store = MemoryStore(cfg)
    store.add("global", "a")
    store.add("global", "b")
    removed = store.remove("global", "a")
    store.add("global", "c")
    code, out = tacit_json(tacit_env, "memory", "undo", str(removed["change_id"]))
    assert code == 0 and out["restored"] == ["a"]
    assert store.entries("global") == ["a", "b", "c"]  # back where it was, later work kept
    code, again = tacit_json(tacit_env, "memory", "undo", str(removed["change_id"]))
    assert code == 1 and "already undone" in again["error"]
    code, redo = tacit_json(tacit_env, "memory", "undo", str(out["change_id"]))
    assert code == 0 and store.entries("global") == ["b", "c"]
    code, missing = tacit_json(tacit_env, "memory", "undo", "9999")
    assert code == 1 and "no change #9999" in missing["error"]


def test_undo_of_a_change_overtaken_says_what_overtook_it(cfg, you):
    store = MemoryStore(cfg)
    added = store.add("global", "Deploy on Tuesdays")
    replaced = store.replace("global", "Tuesdays", "Deploy on Wednesdays")
    result = changes.undo(you, added["change_id"])
    assert result["success"] is False and f"#{replaced['change_id']}" in result["error"]
    assert store.entries("global") == ["Deploy on Wednesdays"]


def test_a_consolidation_is_one_change_undone_whole(cfg, you):
    store = MemoryStore(cfg)
    for text in ("Use pnpm", "use pnpm", "Tests go in tests/unit", "tests go in tests/unit."):
        store.add("global", text)
    before = store.entries("global")
    result = store.rewrite("global", lambda entries: ["Use pnpm.", "Tests go in tests/unit."])
    rows = [c for c in log_of(cfg) if c.action == "consolidate"]
    assert len(rows) == 1 and rows[0].id == result["change_id"]
    assert changes.undo(you, result["change_id"])["success"]
    assert store.entries("global") == before


def test_a_childs_changes_are_one_group_undone_together(tacit_env, cfg, you):
    MemoryStore(cfg).add("global", "keep me")
    actor = history.Actor(kind="child", name="review", session_id="s", host="codex", group="job:xyz").to_env()
    for args in (["add", "--scope", "global", "one"], ["add", "--target", "user", "two"],
                 ["remove", "--scope", "global", "keep me"]):
        assert tacit(tacit_env, "memory", *args, extra_env={"TACIT_ACTOR": actor}).returncode == 0
    middle = [c for c in log_of(cfg) if c.group == "job:xyz"][1]
    result = changes.undo(you, middle.id)
    assert result["success"] and len(result["undone"]) == 3
    store = MemoryStore(cfg)
    assert store.entries("global") == ["keep me"] and store.entries("user") == []


def test_a_hand_edit_is_noticed_on_load_and_before_a_write(cfg, you):
    store = MemoryStore(cfg)
    store.add("global", "first")
    cfg.memory_file.write_text(join_entries(["first", "added by hand"]))
    MemoryStore(cfg).snapshot()  # a session starts: the edit is noticed
    MemoryStore(cfg).snapshot()  # and only once
    edits = [c for c in log_of(cfg) if c.action == "edit"]
    assert len(edits) == 1 and edits[0].actor.kind == "hand" and edits[0].added() == ["added by hand"]
    cfg.memory_file.write_text(join_entries(["first", "added by hand", "second by hand"]))
    added = store.add("global", "from tacit")
    rows = log_of(cfg)
    assert [c.action for c in rows[:2]] == ["add", "edit"] and rows[1].added() == ["second by hand"]
    # undoing tacit's add leaves the hand's work alone
    assert changes.undo(you, added["change_id"])["success"]
    assert store.entries("global") == ["first", "added by hand", "second by hand"]


def test_skills_are_in_the_history_and_undo_restores_them(cfg, you):
    skills = SkillStore(cfg)
    created = skills.create("deploy-app", "Deploy the app to staging", "## Steps\n1. build\n2. ship\n")
    patched = skills.patch("deploy-app", "Steps", "1. build\n2. test\n3. ship")
    path = created["path"]
    first_text = open(path, encoding="utf-8").read()
    assert changes.undo(you, patched["change_id"])["success"]
    assert "2. test" not in open(path, encoding="utf-8").read()
    deleted = skills.delete("deploy-app")
    assert changes.undo(you, deleted["change_id"])["success"]
    assert "1. build" in open(path, encoding="utf-8").read()
    actions = [c.action for c in log_of(cfg)]
    assert actions == ["skill_undo", "skill_delete", "skill_undo", "skill_patch", "skill_create"]
    # a skill edited since is not overwritten by an undo
    open(path, "a", encoding="utf-8").write("\nhand note\n")
    result = changes.undo(you, created["change_id"])
    assert result["success"] is False and "changed after" in result["error"]
    assert first_text.splitlines()[0] == "---"


def test_writes_inside_an_engine_handler_are_the_handlers_and_join_its_transaction(cfg):
    from tacit.engine import Engine
    from tacit.events import MessageEnd

    engine = Engine(cfg)

    def saver(event, ctx):
        add_entry(Tacit(ctx.cfg, actor=history.declared()), "global", "Always run ruff before committing")

    engine.on("message_end", saver, name="test.saver")
    engine.dispatch(MessageEnd(session_id="sess-9", host="pi", cwd=str(cfg.home), role="user",
                               text="always run ruff before committing"))
    (row,) = log_of(cfg)
    assert (row.actor.kind, row.actor.name, row.actor.session_id, row.actor.host) == \
        ("learner", "test.saver", "sess-9", "pi")
    assert row.actor.cause == "always run ruff before committing"


def test_a_background_save_reaches_the_user_once_at_the_next_message_of_its_session(tacit_env, cfg):
    from tacit.engine import Engine
    from tacit.events import MessageEnd

    actor = history.Actor(kind="child", name="correction", session_id="sess-A", host="claude-code",
                          group="job:1").to_env()
    out = json.loads(tacit(tacit_env, "memory", "add", "--target", "user", "Use pnpm, never npm", "--json",
                           extra_env={"TACIT_ACTOR": actor}).stdout)
    engine = Engine(cfg).load_builtins()
    other = engine.dispatch(MessageEnd(session_id="sess-B", host="claude-code", role="user", text="hi"))
    assert other.notices == []  # another session's news stays with it
    first = engine.dispatch(MessageEnd(session_id="sess-A", host="claude-code", role="user", text="next"))
    assert first.notices == [f'tacit saved to your user profile: "Use pnpm, never npm" — undo: '
                             f'tacit memory undo {out["change_id"]}']
    again = engine.dispatch(MessageEnd(session_id="sess-A", host="claude-code", role="user", text="more"))
    assert again.notices == []
    engine.close()


def test_session_start_says_what_changed_since_the_previous_session(tacit_env, cfg):
    from tacit.engine import Engine
    from tacit.events import BeforeAgentStart, MessageEnd, SessionStart

    engine = Engine(cfg).load_builtins()
    engine.dispatch(MessageEnd(session_id="sess-1", host="pi", role="user", text="hello"))
    time.sleep(0.05)
    actor = history.Actor(kind="child", name="review", session_id="sess-1", host="pi", group="job:2").to_env()
    for text in ("Tests go in tests/unit", "Deploy on Tuesdays"):
        tacit(tacit_env, "memory", "add", "--scope", "global", text, extra_env={"TACIT_ACTOR": actor})
    engine.dispatch(SessionStart(session_id="sess-2", host="pi", source="startup"))
    start = engine.dispatch(BeforeAgentStart(session_id="sess-2", host="pi", prompt="hi"))
    (line,) = start.notices
    assert line.startswith("Since your last session, tacit saved 2 entries to global memory — see: tacit memory log")
    # the ended session's notices were told by that line, not again
    later = engine.dispatch(MessageEnd(session_id="sess-1", host="pi", role="user", text="back"))
    assert later.notices == []
    engine.close()


def test_a_childs_save_with_the_hosts_own_tool_is_told_as_a_save_not_an_edit(tacit_env, cfg):
    """Walking Hermes 0.19.0: the correction child saves with Hermes's memory tool, so its change is
    recorded as an "edit" by the child; the next session was told "tacit noticed 1 edit to global
    memory", as if you had edited the file by hand."""
    from tacit.engine import Engine
    from tacit.events import BeforeAgentStart, MessageEnd, SessionStart
    from tacit.handlers.notices import summarise as notice_summary

    engine = Engine(cfg).load_builtins()
    engine.dispatch(MessageEnd(session_id="sess-1", host="hermes", role="user", text="hello"))
    time.sleep(0.05)
    # what tacit's check records after such a child: the file as the child left it, an edit by the child
    cfg.memory_file.parent.mkdir(parents=True, exist_ok=True)
    cfg.memory_file.write_text("Use pnpm, not npm.")
    child = history.Actor(kind="child", name="correction", session_id="sess-1", host="hermes", group="job:4")
    history.record(cfg, action="edit", scope="global", target=str(cfg.memory_file), before=[],
                   after=["Use pnpm, not npm."], actor=child)
    engine.dispatch(SessionStart(session_id="sess-2", host="hermes", source="startup"))
    (line,) = engine.dispatch(BeforeAgentStart(session_id="sess-2", host="hermes", prompt="hi")).notices
    assert line.startswith("Since your last session, tacit saved 1 entry to global memory — see:"), line
    # an edit by hand is still told as one
    assert notice_summary([history.Change(id=1, at=0.0, action="edit", scope="user", target="USER.md",
                                          before=["a"], after=["a", "b"], actor=history.Actor(kind="hand"))]) \
        == "noticed 1 edit to your user profile"
    engine.close()


def test_a_save_that_landed_as_its_session_ended_is_told_at_the_next_session(tacit_env, cfg):
    from tacit.engine import Engine
    from tacit.events import BeforeAgentStart, MessageEnd, SessionStart

    engine = Engine(cfg).load_builtins()
    engine.dispatch(MessageEnd(session_id="sess-1", host="claude-code", role="user", text="hello"))
    actor = history.Actor(kind="child", name="correction", session_id="sess-1", host="claude-code",
                          group="job:9").to_env()
    tacit(tacit_env, "memory", "add", "--target", "user", "Use pnpm, never npm.", extra_env={"TACIT_ACTOR": actor})
    time.sleep(0.05)
    # the child's running mark is cleared after its save: the session row is touched later
    with engine.sessions.updating("sess-1") as state:
        state.marks["touched"] = True
    engine.dispatch(SessionStart(session_id="sess-2", host="claude-code", source="startup"))
    (line,) = engine.dispatch(BeforeAgentStart(session_id="sess-2", host="claude-code", prompt="hi")).notices
    assert line.startswith("Since your last session, tacit saved 1 entry to your user profile")
    engine.close()


# ---------------------------------------------------------------------------
# One lesson, one entry
# ---------------------------------------------------------------------------
def test_a_correction_saved_by_its_child_settles_the_captures_of_the_same_message(cfg):
    from tacit.children.launch import finish
    from tacit.learn import importance
    from tacit.learn.captures import Assessment
    from tacit.learn.review import settle_past_days

    said = "no, use pnpm instead of npm"
    t0 = time.time() - 2 * 86400  # two days ago: the next day's defaults have come
    with Ledger(cfg) as led, led.write() as conn:
        importance.capture(conn, cfg, Assessment("capture", category="correction", importance=0.95,
                                                 content="Use pnpm, not npm.", phrased=True),
                           session_id="s1", now=t0, text=said)
    # the correction child of that message saves its own wording (recorded as the job's change)
    job = {"id": "job-c1", "kind": "correction", "session_id": "s1", "variables": {"correction": said}}
    child = history.Actor(kind="child", name="correction", session_id="s1", group="job:job-c1")
    with history.acting(child):
        assert MemoryStore(cfg).add("user", "Use pnpm, never npm, in this project.")["success"]
    with Ledger(cfg) as led:
        finish(cfg, job, {"ok": True}, ledger=led)
        with led.read() as conn:
            status, applied = conn.execute("SELECT status, applied_text FROM memories").fetchone()
        assert (status, applied) == ("applied", "Use pnpm, never npm, in this project.")
        with led.write() as conn:
            settle_past_days(conn, cfg, time.time())
    assert MemoryStore(cfg).entries("user") == ["Use pnpm, never npm, in this project."]  # not a second copy


def test_promoting_a_candidate_that_the_memory_already_says_adds_no_copy(cfg):
    from tacit.learn import lifecycle
    from tacit.stores import candidates

    MemoryStore(cfg).add("global", "Tests live in tests/unit.")
    now = time.time()
    with Ledger(cfg) as led, led.write() as conn:
        memory_id = candidates.insert(conn, key="k1", kind="fact", source="patterns", content="tests live in  tests/unit",
                                      target="memory", status="confirmed", confidence=90, plugin=None, entity=None,
                                      adaptation=None, data={}, now=now, expires_at=None)
        assert lifecycle.apply(conn, cfg, [memory_id], now) == []  # nothing new to announce
        assert candidates.by_id(conn, memory_id).status == "applied"
        assert candidates.by_id(conn, memory_id).applied_text == "Tests live in tests/unit."
    assert MemoryStore(cfg).entries("global") == ["Tests live in tests/unit."]

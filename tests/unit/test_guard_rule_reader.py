"""Instruction-file lines tacit cannot read, phrased by a child: which lines
are unread, ``tacit guard add --line`` (grounded in the line or refused), the
guard living while its line reads the same, the ``rules`` child asked once per
line (not for a host with no tool-less child command, not when switched off), and
the whole path with a real child subprocess (the scripted fake agent), which
proposes in its reply (``GUARD WHERE PATTERN``) and tacit applies."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from engine_helpers import Recorder, write_config
from guard_helpers import Session, engine_for, git_repo

from tacit.children.runner import run_job
from tacit.config import load_config
from tacit.events import TurnEnd
from tacit.guards.instructions import read_text
from tacit.projects import project_for
from tacit.stores import history
from tacit.stores.guard_files import add_for_line, unasked
from tacit.stores.guards import GuardStore
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fake_agent" / "fake_agent.py"
AGENTS = """# Rules
- Please refrain from touching the lockfile `pnpm-lock.yaml` yourself.
- Never run `git push --force`; ask a maintainer first.
- Avoid editing `dist/` unless you rebuild it.
- Be kind to reviewers.

```bash
# we don't do `make deploy` from laptops
```
"""
_SESSIONS = itertools.count()
LOCK_LINE = "Please refrain from touching the lockfile `pnpm-lock.yaml` yourself."


@pytest.fixture
def repo(tmp_path):
    root = git_repo(tmp_path / "repo")
    (root / "AGENTS.md").write_text(AGENTS, encoding="utf-8")
    return root


def add(cfg, repo, where: str, pattern: str) -> dict:
    with Ledger(cfg) as ledger:
        return add_for_line(GuardStore(cfg, ledger), where, pattern, project_for(str(repo)))


def asks(cfg, repo, command=None, **call) -> bool:
    engine = engine_for(cfg)
    try:
        return bool(Session(engine, repo, sid=f"check-{next(_SESSIONS)}").call(command, **call).ask)
    finally:
        engine.close()


def edit_of(repo, rel: str) -> dict:
    return {"name": "Edit", "args": {"file_path": str(repo / rel), "old_string": "a", "new_string": "b"}}


def test_unread_lines_are_refusals_naming_a_thing_that_no_reading_turned_into_a_guard():
    rules, unread = read_text(AGENTS)
    assert [r.line for r in rules] == [3]  # the force push is read
    assert [(u.line, u.text) for u in unread] == [(2, LOCK_LINE)]
    # an exception stays a memory, prose without a refusal is no rule, a code block is an example
    assert read_text("- Don't touch `pnpm-lock.yaml` unless asked.")[1] == []
    assert read_text("- Keep `pnpm-lock.yaml` sorted.")[1] == []
    assert read_text("- Do not be rude.")[1] == []
    # a command listed for use is no refusal ("lint" and "development" end in "nt", which is no "n't")
    assert read_text("Lint: `mise exec -- make lint`\nUse `make work` for development.")[1] == []
    # a negation that forbids nothing
    assert read_text("No need to run `npm install` again.\nDon't hesitate to use `pnpm dlx`.")[1] == []


def test_a_grounded_phrasing_is_a_guard_that_asks_and_names_its_line(cfg, repo):
    result = add(cfg, repo, "AGENTS.md:2", "path:pnpm-lock.yaml")
    assert result["success"] and result["created"], result
    assert result["guard"]["action"] == "ask" and result["guard"]["source"] == "AGENTS.md:2"
    assert result["guard"]["because"] == LOCK_LINE
    assert asks(cfg, repo, **edit_of(repo, "pnpm-lock.yaml"))
    assert asks(cfg, repo, "echo '{}' > pnpm-lock.yaml")
    assert not asks(cfg, repo, "cat pnpm-lock.yaml")  # reading stays allowed
    assert not asks(cfg, repo, **edit_of(repo, "package.json"))
    with Ledger(cfg) as ledger:
        change = history.changes(ledger, limit=1)[0]
    assert change.action == "guard_add" and change.target == f"guard {result['guard']['id']}"
    again = add(cfg, repo, "AGENTS.md:2", "path:pnpm-lock.yaml")
    assert again["success"] and not again["created"]
    with Ledger(cfg) as ledger:
        assert len(history.changes(ledger, limit=10)) == 1  # one row for one change


def test_a_phrasing_with_a_word_the_line_does_not_say_is_refused(cfg, repo):
    result = add(cfg, repo, "AGENTS.md:2", "npm")
    assert not result["success"] and result["refused"]
    assert "'npm'" in result["error"] and "stays unread" in result["error"]
    with Ledger(cfg) as ledger:
        assert GuardStore(cfg, ledger).applying(project_for(str(repo))) == []
    assert not add(cfg, repo, "AGENTS.md:2", "path:../outside.lock")["success"]


@pytest.mark.parametrize("where, said", [
    ("AGENTS.md:3", "a guard already"),
    ("AGENTS.md:4", "not an unread rule line"),  # "unless": an exception, never a guard
    ("AGENTS.md:5", "not an unread rule line"),
    ("AGENTS.md:99", "not an unread rule line"),
    ("../AGENTS.md:2", "not an unread rule line"),
    ("AGENTS.md", "FILE:LINE"),
])
def test_only_an_unread_line_of_this_project_takes_a_phrasing(cfg, repo, where, said):
    result = add(cfg, repo, where, "path:dist/")
    assert not result["success"] and said in result["error"]


def test_the_guard_follows_its_line_and_leaves_with_it(cfg, repo):
    gid = add(cfg, repo, "AGENTS.md:2", "path:pnpm-lock.yaml")["guard"]["id"]
    agents = repo / "AGENTS.md"
    agents.write_text("# Intro\n\n" + AGENTS, encoding="utf-8")
    assert asks(cfg, repo, **edit_of(repo, "pnpm-lock.yaml"))
    with Ledger(cfg) as ledger:
        assert GuardStore(cfg, ledger).get(gid).file == "AGENTS.md:4"
    agents.write_text(AGENTS.replace("Please refrain", "Kindly refrain"), encoding="utf-8")
    assert not asks(cfg, repo, **edit_of(repo, "pnpm-lock.yaml"))  # another line now: unread again
    with Ledger(cfg) as ledger:
        assert GuardStore(cfg, ledger).get(gid).status == "gone"
    agents.write_text(AGENTS, encoding="utf-8")
    assert asks(cfg, repo, **edit_of(repo, "pnpm-lock.yaml"))


def test_the_cli_answers_a_refusal_as_one_json_object(tacit_env, repo):
    run = lambda *a: subprocess.run([sys.executable, "-m", "tacit", "guard", "add", *a, "--json"],  # noqa: E731
                                    env=tacit_env, cwd=repo, capture_output=True, text=True)
    refused = run("--line", "AGENTS.md:2", "git push")
    assert refused.returncode == 1 and refused.stderr == ""
    assert json.loads(refused.stdout)["success"] is False
    ok = run("--line", "AGENTS.md:2", "path:pnpm-lock.yaml")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["guard"]["source"] == "AGENTS.md:2"


def turn(cfg, repo, sid: str, host: str = "claude-code") -> Recorder:
    engine = engine_for(cfg, host=host)
    engine.launcher = recorder = Recorder()
    try:
        Session(engine, repo, sid=sid, host=host).user("add a changelog entry")
        engine.dispatch(TurnEnd(session_id=sid, host=host, cwd=str(repo)))
        engine.dispatch(TurnEnd(session_id=sid, host=host, cwd=str(repo)))
    finally:
        engine.close()
    return recorder


def test_each_unread_line_is_put_to_a_child_once_while_it_reads_the_same(cfg, repo):
    first = turn(cfg, repo, "s1")
    assert first.kinds().count("rules") == 1
    assert first.of("rules")[0]["variables"]["lines"] == [{"where": "AGENTS.md:2", "text": LOCK_LINE}]
    assert turn(cfg, repo, "s2").of("rules") == []  # asked already
    (repo / "AGENTS.md").write_text(AGENTS.replace("Please refrain", "Kindly refrain"), encoding="utf-8")
    again = turn(cfg, repo, "s3").of("rules")
    assert [line["where"] for line in again[0]["variables"]["lines"]] == ["AGENTS.md:2"]


def test_no_rule_reader_when_switched_off_or_when_the_host_has_no_tool_less_child(tacit_home, tacit_env, repo):
    write_config(tacit_home, rule_reader=False)
    assert turn(load_config(env=tacit_env), repo, "s1").of("rules") == []
    write_config(tacit_home)
    cfg = load_config(env=tacit_env)
    assert turn(cfg, repo, "s2", host="hermes").of("rules") == []  # no child_reply_command in its spec
    with Ledger(cfg) as ledger:
        assert len(unasked(ledger, cfg, project_for(str(repo)))) == 1  # still unread, still unasked


def test_a_real_child_phrases_the_line_and_the_next_edit_of_the_lockfile_asks(tacit_home, tacit_env, repo, tmp_path):
    command = " ".join([sys.executable, str(FAKE_AGENT), "--mode", "save", "--log", str(tmp_path / "calls.jsonl"),
                        "{prompt_file}"])
    write_config(tacit_home, child_command=command)
    cfg = load_config(env=tacit_env)
    job = turn(cfg, repo, "s1").of("rules")[0]
    record = run_job(cfg, {**job, "id": "rules-1", "cwd": str(repo), "host": "claude-code"}, agent=True)
    assert record["ok"], record
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert [c["kind"] for c in calls] == ["rules"]
    assert [(a["where"], a["pattern"]) for a in record["proposals"]["accepted"]] == [
        ("AGENTS.md:2", "path:pnpm-lock.yaml")], record["proposals"]
    assert asks(cfg, repo, **edit_of(repo, "pnpm-lock.yaml"))
    with Ledger(cfg) as ledger:
        change = history.changes(ledger, limit=1)[0]
    assert change.action == "guard_add" and change.actor.kind == "child" and change.actor.name == "rules"


def test_lines_no_agent_read_are_shown_again_and_an_engine_without_children_marks_none(tacit_home, tacit_env, repo):
    from tacit.children.launch import finish
    write_config(tacit_home, child_command="/no/such/agent -p {prompt_file}")
    cfg = load_config(env=tacit_env)
    engine = engine_for(cfg)  # no launcher: a replay or a test engine starts no child
    try:
        Session(engine, repo, sid="s0").user("hello")
        engine.dispatch(TurnEnd(session_id="s0", host="claude-code", cwd=str(repo)))
    finally:
        engine.close()
    job = turn(cfg, repo, "s1").of("rules")[0]  # so the lines were still unshown
    record = run_job(cfg, {**job, "cwd": str(repo)})
    assert record["mode"] == "deterministic" and not record["ok"]
    with Ledger(cfg) as ledger:
        assert unasked(ledger, cfg, project_for(str(repo))) == []
        finish(cfg, {**job, "cwd": str(repo)}, record, ledger=ledger)
        assert [one["where"] for one in unasked(ledger, cfg, project_for(str(repo)))] == ["AGENTS.md:2"]
    assert turn(cfg, repo, "s2").kinds().count("rules") == 1


TERRAFORM = "We do not want anyone kicking off `terraform apply` by themselves."


def test_a_saved_lesson_tacit_cannot_read_is_shown_once_and_a_real_child_phrases_it(
        tacit_home, tacit_env, repo, tmp_path):
    command = " ".join([sys.executable, str(FAKE_AGENT), "--mode", "save", "--log", str(tmp_path / "calls.jsonl"),
                        "{prompt_file}"])
    write_config(tacit_home, child_command=command)
    cfg = load_config(env=tacit_env)
    store = MemoryStore(cfg, project_for(str(repo)))
    assert store.add("project", TERRAFORM)["success"]
    assert store.add("project", "Never run `terraform destroy`.")["success"]  # read: a guard already
    assert store.add("user", "Avoid `rm -rf` unless asked.")["success"]  # an exception: stays a memory
    job = turn(cfg, repo, "s1").of("rules")[0]
    lessons = job["variables"]["lessons"]
    assert [one["text"] for one in lessons] == [TERRAFORM]
    with Ledger(cfg) as ledger:
        saved = history.get(ledger, lessons[0]["change"])
    assert TERRAFORM in saved.added()
    assert turn(cfg, repo, "s2").of("rules") == []  # shown already
    assert not asks(cfg, repo, "terraform apply")
    record = run_job(cfg, {**job, "id": "rules-2", "cwd": str(repo), "host": "claude-code"}, agent=True)
    assert record["ok"], record
    assert [(a["where"], a["pattern"]) for a in record["proposals"]["accepted"]] == [
        ("AGENTS.md:2", "path:pnpm-lock.yaml"), (f"lesson:{lessons[0]['change']}", "terraform apply")], record["proposals"]
    assert asks(cfg, repo, "terraform apply -auto-approve")
    assert not asks(cfg, repo, "terraform plan")
    with Ledger(cfg) as ledger:
        change = history.changes(ledger, limit=1)[0]
    assert change.action == "guard_add" and change.actor.kind == "child" and change.actor.name == "rules"


def test_guard_why_says_when_the_rule_reader_is_shown_a_lesson(tacit_env):
    def why(text):
        proc = subprocess.run([sys.executable, "-m", "tacit", "guard", "why", text, "--json"], env=tacit_env,
                              capture_output=True, text=True)
        return json.loads(proc.stdout)
    assert why(TERRAFORM)["reader"] is True
    assert why("Avoid `rm -rf` unless asked.")["reader"] is False  # an exception: stays a memory
    assert why("Never run `terraform destroy`.")["reader"] is False  # a guard already


def test_a_phrasing_of_a_lifted_guard_does_not_bring_it_back(cfg, repo):
    gid = add(cfg, repo, "AGENTS.md:2", "path:pnpm-lock.yaml")["guard"]["id"]
    with Ledger(cfg) as ledger:
        assert GuardStore(cfg, ledger).remove(gid)["success"]
    again = add(cfg, repo, "AGENTS.md:2", "path:pnpm-lock.yaml")
    assert not again["success"] and again["lifted"] == gid and f"tacit guard restore {gid}" in again["error"]
    assert not asks(cfg, repo, **edit_of(repo, "pnpm-lock.yaml"))


def test_a_phrasing_must_be_grounded_in_what_the_line_forbids_not_in_what_it_recommends(cfg, tmp_path):
    root = git_repo(tmp_path / "proto-repo")
    (root / "AGENTS.md").write_text("# Rules\n- We don't want the generated `gen/` stubs touched by anyone \u2014 edit "
                                    "`proto/api.proto` and run `make build_proto`.\n", encoding="utf-8")
    assert [u.line for u in read_text((root / "AGENTS.md").read_text())[1]] == [2]
    refused = add(cfg, root, "AGENTS.md:2", "path:proto/api.proto")
    assert not refused["success"] and "what AGENTS.md:2 forbids" in refused["error"]
    assert not add(cfg, root, "AGENTS.md:2", "make build_proto")["success"]
    assert add(cfg, root, "AGENTS.md:2", "path:gen/")["success"]

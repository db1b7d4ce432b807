"""`tacit guard why TEXT` and a child's grounded proposal `tacit guard add --lesson N`."""

from __future__ import annotations

import shutil

import pytest
from guard_helpers import git_repo

from tacit.guards.patterns import spec_from_pattern
from tacit.guards.why import explain, ungrounded
from tacit.projects import project_for
from tacit.stores import history
from tacit.stores.guards import GuardStore
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.mark.parametrize("text, guard, says", [
    ("Use pnpm, not npm \u2014 npm breaks the workspace lockfile", True, 'the rule is "Use pnpm, not npm"'),
    ("never push to main", True, 'the rule is "never push to main"'),
    ("Use pnpm, not npm, unless CI needs it", False, '"unless"'),
    ("we usually use pnpm, not npm", False, '"usually"'),
    ("keep answers short", False, "states nothing to stop"),
    ("never run the migrations", False, "no clause names an exact thing to stop"),
    ("", False, "no text"),
])
def test_explain(text, guard, says):
    result = explain(text)
    assert result["guard"] is guard and says in result["why"], result


def test_ungrounded():
    lesson = "Never force-push: ask a maintainer first."
    assert ungrounded(spec_from_pattern("force-push", lesson), lesson) == []
    assert ungrounded(spec_from_pattern("force-push:main", lesson), lesson) == ["main"]
    assert ungrounded(spec_from_pattern("force-push:main", lesson), lesson, "don't force push to main!") == []
    assert ungrounded(spec_from_pattern("rm -rf", "x"), "never rm -rf the build") == []
    assert ungrounded(spec_from_pattern("npm publish", "x"), "never publish by hand") == ["npm"]


def test_add_for_lesson(cfg, tmp_path):
    repo = git_repo(tmp_path / "repo")
    project = project_for(str(repo))
    actor = history.Actor(kind="child", name="correction", cause="no! don't ever run docker compose down -v here")
    with history.acting(actor):
        assert MemoryStore(cfg, project).add("project", "Never wipe the dev database volumes.")["success"]
    with Ledger(cfg) as ledger:
        change = history.changes(ledger, limit=1)[0]
        store = GuardStore(cfg, ledger)
        ok = store.add_for_lesson(change.id, "docker compose down -v", scope="project", project=project)
        assert ok["success"] and ok["guard"]["action"] == "ask"
        assert ok["guard"]["because"] == "Never wipe the dev database volumes."
        refused = store.add_for_lesson(change.id, "docker system prune", scope="project", project=project)
        assert not refused["success"] and "'system'" in refused["error"] and "'prune'" in refused["error"]
        assert not store.add_for_lesson(999, "npm", scope="project", project=project)["success"]


def test_add_for_lesson_of_a_lesson_that_is_a_guard_already(cfg, tmp_path):
    """`tacit guard add npm --lesson N` for "never npm" made a second guard beside the one the lesson
    already was: both fired on `npm i`, each with its own strikes. Now it names the existing one."""
    repo = git_repo(tmp_path / "repo")
    project = project_for(str(repo))
    assert MemoryStore(cfg, project).add("project", "Use pnpm in this repository, never npm.")["success"]
    with Ledger(cfg) as ledger:
        change = history.changes(ledger, limit=1)[0]
        store = GuardStore(cfg, ledger)
        store.sync(project)
        derived = [r.id for r in store.applying(project)]
        assert len(derived) == 1
        same = store.add_for_lesson(change.id, "npm", scope="project", project=project)
        assert same["success"] and same["already"] and not same["created"] and same["guard"]["id"] == derived[0]
        assert [r.id for r in store.applying(project)] == derived
        other = store.add_for_lesson(change.id, "pnpm", scope="project", project=project)  # another shape: added
        assert other["success"] and other["created"] and len(store.applying(project)) == 2


@pytest.mark.parametrize("kind", ["correction", "review"])
@pytest.mark.parametrize("host, proposes", [("claude-code", True), ("codex", True), ("pi", False), ("hermes", False)])
def test_the_child_prompts_show_the_exact_shapes(cfg, tmp_path, kind, host, proposes):
    from tacit.children.prompts import render_job_prompt
    repo = git_repo(tmp_path / "repo")
    text = render_job_prompt(cfg, {"kind": kind, "host": host, "cwd": str(repo),
                                   "variables": {"correction": "no, never run docker compose down -v"}})
    assert "## Rules tacit enforces" in text
    assert 'Never run `git push --force`.' in text and "Use pnpm, not npm \u2014 npm breaks" in text
    assert ("guard add --lesson" in text) is proposes


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_explain_and_file_rules_never_raise(text):
    from tacit.guards.instructions import BadFile, rules_in
    assert isinstance(explain(text)["why"], str)
    try:
        rules = rules_in(text, "AGENTS.md")
    except BadFile:  # binary content (a NUL) is refused by name, never a crash
        assert "\0" in text
        return
    assert all(r.spec.action == "ask" and r.line >= 1 for r in rules)

"""An undo of a group that stops half way: each row it reverted is marked undone at once, so the
history says exactly what was done and a repeat undo reverts only the rows left."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tacit.stores import history
from tacit.stores.history import Actor
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore

CHILD = Actor(kind="child", name="review", session_id="sess-123456789", host="codex", group="job:job-7")


def _group_of_three(cfg) -> list[int]:
    """A child's run of three changes across two scopes: global, user, global (oldest first)."""
    store = MemoryStore(cfg, actor=CHILD)
    with history.acting(CHILD):
        for scope, text in (("global", "Use pnpm."), ("user", "Prefers short answers."), ("global", "Run ruff.")):
            assert store.add(scope, text)["success"]
    with Ledger(cfg) as ledger:
        rows = history.group_of(ledger, "job:job-7")
    assert [r.scope for r in rows] == ["global", "user", "global"]
    return [r.id for r in rows]  # newest first


def _undone_by(cfg) -> dict[int, int | None]:
    with Ledger(cfg) as ledger:
        return {r.id: r.undone_by for r in history.group_of(ledger, "job:job-7")}


def test_a_group_undo_stopped_by_a_link_marks_what_it_reverted_and_a_repeat_finishes(run, cfg, tmp_path):
    newest, middle, oldest = _group_of_three(cfg)
    real = tmp_path / "USER.real.md"
    real.write_text(cfg.user_file.read_text(encoding="utf-8"), encoding="utf-8")
    cfg.user_file.unlink()
    os.symlink(real, cfg.user_file)  # a file tacit refuses to rewrite

    code, out, _ = run("memory", "undo", str(newest), "--json")
    failed = json.loads(out)
    assert code == 1 and failed["success"] is False and failed["undone"] == [newest], failed
    assert f"#{middle} not undone" in failed["error"] and f"#{newest} of the same group was undone" in failed["error"]
    assert f"`tacit memory undo {newest}` again undoes the rest" in failed["error"], failed["error"]
    (first_undo,) = failed["change_ids"]
    assert cfg.memory_file.read_text(encoding="utf-8") == "Use pnpm.", "the newest row reverted"
    assert _undone_by(cfg) == {newest: first_undo, middle: None, oldest: None}, "the history says exactly that"

    code, out, _ = run("memory", "log")
    assert code == 0 and f"(undone by #{first_undo})" in out, out
    assert sum("undone by" in line for line in out.splitlines()) == 1, out

    cfg.user_file.unlink()
    real.rename(cfg.user_file)  # writable again
    code, out, _ = run("memory", "undo", str(newest), "--json")
    done = json.loads(out)
    assert code == 0 and done["success"] is True, done
    assert done["undone"] == [middle, oldest] and done["undone_before"] == [newest], done
    assert f"the rest of job:job-7 (2 of 3 changes; #{newest} was undone before)" in done["message"], done["message"]
    assert cfg.memory_file.read_text(encoding="utf-8") == "", "Run ruff. taken out once, no double revert"
    assert cfg.user_file.read_text(encoding="utf-8") == ""
    marks = _undone_by(cfg)
    assert marks[newest] == first_undo and marks[middle] in done["change_ids"] and marks[oldest] in done["change_ids"]
    with Ledger(cfg) as ledger:
        undos = [c for c in history.changes(ledger, limit=50) if c.action == "undo"]
    assert len(undos) == 3, [(c.id, c.group, c.target) for c in undos]

    code, out, err = run("memory", "undo", str(middle), "--json")
    again = json.loads(out)
    assert code == 1 and again["error"] == f"change #{middle} was already undone by #{marks[middle]} " \
                                           f"(undo #{marks[middle]} to redo it)", again


BODY = "## When to Use\nWhen deploying.\n\n## Procedure\n1. Build.\n2. Ship.\n\n## Pitfalls\nNone.\n\n## Verification\nLive.\n"


def test_a_group_undo_stopped_by_a_hand_edited_skill_finishes_once_the_edit_is_gone(run, cfg):
    """A child's run: an entry in the global notes, a skill edit, an entry in the user profile. The
    skill edited by hand since stops the undo after the profile entry; its mark is in the history."""
    from tacit.stores.skills import SkillStore

    path = Path(SkillStore(cfg).create("deploy-app", "Deploy the web app.", BODY)["path"])
    child = Actor(kind="child", name="review", session_id="sess-1", host="codex", group="job:job-8")
    with history.acting(child):
        assert MemoryStore(cfg, actor=child).add("global", "Use pnpm.")["success"]
        assert SkillStore(cfg, actor=child).edit("deploy-app", body=BODY.replace("Ship.", "Tag, then ship."))["success"]
        assert MemoryStore(cfg, actor=child).add("user", "Prefers short answers.")["success"]
    with Ledger(cfg) as ledger:
        user_add, skill_edit, global_add = [r.id for r in history.group_of(ledger, "job:job-8")]
    by_child = path.read_text(encoding="utf-8")
    path.write_text(by_child + "\nA note by hand.\n", encoding="utf-8")

    code, out, err = run("memory", "undo", str(global_add), "--json")
    failed = json.loads(out)
    assert code == 1 and failed["undone"] == [user_add] and "Traceback" not in err, (failed, err)
    assert f"#{skill_edit} not undone" in failed["error"] and "was changed after" in failed["error"], failed
    assert cfg.user_file.read_text(encoding="utf-8") == "" and cfg.memory_file.read_text(encoding="utf-8") == "Use pnpm."
    with Ledger(cfg) as ledger:
        marks = {r.id: r.undone_by for r in history.group_of(ledger, "job:job-8")}
    assert marks == {user_add: failed["change_ids"][0], skill_edit: None, global_add: None}, marks

    path.write_text(by_child, encoding="utf-8")  # the hand note taken out again
    code, out, _ = run("memory", "undo", str(global_add), "--json")
    done = json.loads(out)
    assert code == 0 and done["undone"] == [skill_edit, global_add] and done["undone_before"] == [user_add], done
    assert "2. Ship." in path.read_text(encoding="utf-8") and cfg.memory_file.read_text(encoding="utf-8") == ""
    code, out, _ = run("memory", "log", "--json")
    rows = {c["id"]: c for c in json.loads(out)["changes"]}
    assert all(rows[i]["undone_by"] for i in (user_add, skill_edit, global_add)), rows
    assert sum(c["action"] in ("undo", "skill_undo") for c in rows.values()) == 3, "each row reverted once"


def test_a_stopped_group_undo_put_back_leaves_the_whole_group_live_and_undone_whole_next(run, cfg, tmp_path):
    """The stopped undo's own advice: `tacit memory undo <its undo>` puts the reverted row back; that
    row is live again, so the next undo of the group reverts all three, not two."""
    newest, middle, oldest = _group_of_three(cfg)
    real = tmp_path / "USER.real.md"
    real.write_text(cfg.user_file.read_text(encoding="utf-8"), encoding="utf-8")
    cfg.user_file.unlink()
    os.symlink(real, cfg.user_file)
    code, out, _ = run("memory", "undo", str(newest), "--json")
    (first_undo,) = json.loads(out)["change_ids"]

    code, out, _ = run("memory", "undo", str(first_undo), "--json")
    assert code == 0 and json.loads(out)["undone"] == [first_undo], out
    assert cfg.memory_file.read_text(encoding="utf-8") == "Use pnpm.\n§\nRun ruff."
    assert _undone_by(cfg) == {newest: None, middle: None, oldest: None}, "put back: the group is live"

    cfg.user_file.unlink()
    real.rename(cfg.user_file)
    code, out, _ = run("memory", "undo", str(middle), "--json")
    done = json.loads(out)
    assert code == 0 and done["undone"] == [newest, middle, oldest] and done["undone_before"] == [], done
    assert cfg.memory_file.read_text(encoding="utf-8") == cfg.user_file.read_text(encoding="utf-8") == ""
    assert set(_undone_by(cfg).values()) == set(done["change_ids"])

"""A redo is the undo of an undo: the change it puts back is live again (in ``memory log``, the
page's history and ``memory undo``), and undoing the redo takes it out again. Real files, the real
ledger, the CLI in-process."""

from __future__ import annotations

import json

from tacit.app import USER, Tacit
from tacit.stores import history
from tacit.stores.history import Actor
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore
from tacit.ui import pages


def _json(run, *args) -> dict:
    code, out, err = run(*args, "--json")
    answer = json.loads(out)
    assert (code == 0) == answer["success"] and "Traceback" not in err, (code, answer, err)
    return answer


def _marks(run) -> dict[int, int | None]:
    return {c["id"]: c["undone_by"] for c in _json(run, "memory", "log")["changes"]}


def _undo(run, change_id: int) -> dict:
    answer = _json(run, "memory", "undo", str(change_id))
    assert answer["success"], answer
    return answer


def test_a_redone_change_is_live_again_and_undone_a_second_time(run, cfg):
    added = _json(run, "memory", "add", "--scope", "global", "Use pnpm.")["change_id"]
    undo = _undo(run, added)["change_id"]
    redo = _undo(run, undo)["change_id"]
    assert cfg.memory_file.read_text(encoding="utf-8") == "Use pnpm."
    assert _marks(run) == {added: None, undo: redo, redo: None}, "the redo put #added back: live"
    code, out, _ = run("memory", "log")
    assert code == 0 and [line for line in out.splitlines() if "undone by" in line] == \
        [line for line in out.splitlines() if line.startswith(f"#{undo} ")], out
    assert f"(undone by #{redo})" in out
    with Tacit(cfg).as_actor(USER) as front:
        rows = {r["id"]: r for r in pages.history(front)["changes"]}
    assert rows[added]["undoable"] and rows[added]["undone_by"] is None, "the page offers its undo again"
    assert not rows[undo]["undoable"] and rows[undo]["undone_by"] == redo

    again = _undo(run, added)  # a second undo of the same change: a new undo row
    assert again["change_id"] not in (undo, redo) and again["removed"] == ["Use pnpm."], again
    assert cfg.memory_file.read_text(encoding="utf-8") == ""
    assert _marks(run)[added] == again["change_id"]
    code, out, _ = run("memory", "undo", str(added), "--json")
    assert code == 1 and json.loads(out)["error"] == (f"change #{added} was already undone by #{again['change_id']} "
                                                      f"(undo #{again['change_id']} to redo it)"), out


def test_undoing_the_redo_takes_the_change_out_again(run, cfg):
    _json(run, "memory", "add", "--scope", "global", "Run ruff.")
    added = _json(run, "memory", "add", "--scope", "global", "Use pnpm.")["change_id"]
    undo = _undo(run, added)["change_id"]
    redo = _undo(run, undo)["change_id"]
    undo_of_redo = _undo(run, redo)["change_id"]
    assert cfg.memory_file.read_text(encoding="utf-8") == "Run ruff."
    marks = _marks(run)
    assert (marks[added], marks[undo], marks[redo], marks[undo_of_redo]) == (undo, None, undo_of_redo, None), marks
    code, out, _ = run("memory", "undo", str(added), "--json")
    assert code == 1 and f"already undone by #{undo} (undo #{undo} to redo it)" in json.loads(out)["error"], out

    redo_again = _undo(run, undo)["change_id"]  # the undo that stands, undone: the change is back
    assert "Use pnpm." in cfg.memory_file.read_text(encoding="utf-8")
    marks = _marks(run)
    assert marks[added] is None and marks[undo] == redo_again, marks


CHILD = Actor(kind="child", name="review", session_id="sess-42", host="codex", group="job:job-42")


def test_a_group_undo_and_its_redo_and_the_group_undone_again(run, cfg):
    with history.acting(CHILD):
        assert MemoryStore(cfg, actor=CHILD).add("global", "Use pnpm.")["success"]
        assert MemoryStore(cfg, actor=CHILD).add("user", "Prefers short answers.")["success"]
    with Ledger(cfg) as ledger:
        job = [r.id for r in history.group_of(ledger, "job:job-42")]
    undone = _undo(run, job[-1])
    assert undone["undone"] == job and len(undone["change_ids"]) == 2, undone
    assert cfg.memory_file.read_text(encoding="utf-8") == cfg.user_file.read_text(encoding="utf-8") == ""

    redone = _undo(run, undone["change_ids"][-1])  # one undo row: the whole undo of the group
    assert sorted(redone["undone"]) == sorted(undone["change_ids"]), redone
    assert cfg.memory_file.read_text(encoding="utf-8") == "Use pnpm."
    assert cfg.user_file.read_text(encoding="utf-8") == "Prefers short answers."
    marks = _marks(run)
    assert [marks[i] for i in job] == [None, None], marks
    assert all(marks[i] in redone["change_ids"] for i in undone["change_ids"]), marks

    again = _undo(run, job[0])
    assert again["undone"] == job and again["undone_before"] == [], again
    assert f"({len(job)} changes of job:job-42)" in again["message"], again
    assert cfg.memory_file.read_text(encoding="utf-8") == cfg.user_file.read_text(encoding="utf-8") == ""
    assert {_marks(run)[i] for i in job} == set(again["change_ids"])

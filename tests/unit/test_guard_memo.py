"""Derived guards kept across processes (tacit.stores.file_memo.DerivedMemo).

A new process (the service after an idle exit) derives no memory entry and
no instruction file it derived before, and checks the same calls; an edited
rule — in memory or in AGENTS.md, even one that keeps the file's size and
mtime — is derived again, so a kept result never stands for another text;
a corrupt or forged memo is ignored and derived again, never trusted."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from guard_helpers import LESSON, Session, engine_for, git_repo, remember

from tacit.guards import derive_guards
from tacit.guards.instructions import rules_in
from tacit.projects import project_for
from tacit.stores import file_memo, guard_files
from tacit.stores import guards as guard_store
from tacit.stores.memory import MemoryStore

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

AGENTS = "# Rules\n\n- Never run `git push --force`; ask a maintainer first.\n- Write tests.\n"


@pytest.fixture
def repo(tmp_path):
    return git_repo(tmp_path / "repo")


@pytest.fixture
def derivations(monkeypatch):
    """Every text derived in this process (memory entries and instruction files)."""
    seen: list[str] = []
    real_derive, real_rules = guard_store.derive_guards, guard_files.read_text
    monkeypatch.setattr(guard_store, "derive_guards", lambda text: seen.append(text) or real_derive(text))
    monkeypatch.setattr(guard_files, "read_text",
                        lambda text, name, **kw: seen.append(name) or real_rules(text, name, **kw))
    return seen


def new_process() -> None:
    """What a new process starts with: nothing derived or kept in memory."""
    file_memo._MEMOS.clear()
    guard_store.derived.cache_clear()


def asked(cfg, repo, command: str, sid: str) -> bool:
    engine = engine_for(cfg)
    try:
        return bool(Session(engine, repo, sid=sid).call(command).ask)
    finally:
        engine.close()


def memo_files(cfg) -> list[str]:
    folder = os.path.join(cfg.state_dir_str, "run", "memo")
    return [os.path.join(folder, n) for n in os.listdir(folder) if n.startswith("guard")]


def test_a_new_process_derives_nothing_it_derived_before(cfg, repo, derivations):
    remember(cfg, repo, LESSON)
    (repo / "AGENTS.md").write_text(AGENTS, encoding="utf-8")
    new_process()
    assert asked(cfg, repo, "npm install left-pad", "s1") and asked(cfg, repo, "git push --force", "s2")
    assert LESSON in derivations and "AGENTS.md" in derivations
    derivations.clear()
    new_process()
    assert asked(cfg, repo, "npm install left-pad", "s3") and asked(cfg, repo, "git push --force", "s4")
    assert not asked(cfg, repo, "pnpm install left-pad", "s5")
    assert derivations == []  # every guard came from the memo
    assert all(oct(os.stat(p).st_mode & 0o777) == "0o600" for p in memo_files(cfg))


def test_an_edited_rule_is_derived_again_even_when_size_and_mtime_stay(cfg, repo, derivations):
    remember(cfg, repo, LESSON)
    (repo / "AGENTS.md").write_text(AGENTS, encoding="utf-8")
    new_process()
    assert asked(cfg, repo, "npm install left-pad", "s1") and asked(cfg, repo, "git push --force", "s2")
    memory = MemoryStore(cfg, project_for(str(repo))).path_for("project")
    for path, old, new in ((memory, LESSON, "we use uv here, never pip!!"),
                           (repo / "AGENTS.md", "git push --force", "git clean -fdx  ")):
        before = os.stat(path)
        text = open(path, encoding="utf-8").read()
        assert len(old) == len(new) and old in text
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text.replace(old, new))
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # as if edited within the same tick
        assert (os.stat(path).st_size, os.stat(path).st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    derivations.clear()
    new_process()
    assert asked(cfg, repo, "pip install requests", "s3") and not asked(cfg, repo, "npm install left-pad", "s4")
    assert asked(cfg, repo, "git clean -fdx", "s5") and not asked(cfg, repo, "git push --force", "s6")
    assert "we use uv here, never pip!!" in derivations and "AGENTS.md" in derivations


@pytest.mark.parametrize("damage", ["garbage", "truncated", "emptied", "forged"])
def test_a_damaged_memo_is_derived_again_never_trusted(cfg, repo, derivations, damage):
    remember(cfg, repo, LESSON)
    (repo / "AGENTS.md").write_text(AGENTS, encoding="utf-8")
    new_process()
    assert asked(cfg, repo, "npm install left-pad", "s1") and asked(cfg, repo, "git push --force", "s2")
    for path in memo_files(cfg):
        raw = open(path, "rb").read()
        if damage == "garbage":
            raw = os.urandom(len(raw))
        elif damage == "truncated":
            raw = raw[: len(raw) // 2]
        else:  # valid JSON whose kept guards are gone (emptied) or are others (forged), checksum left as it was
            data = json.loads(raw)
            for value in data["entries"].values():
                items = value[1]["items"]
                for i, item in enumerate(items):
                    if damage == "emptied":
                        items.clear()
                        break
                    spec = item[2] if isinstance(item, list) else item
                    spec["match"]["programs"] = ["true"]
                    items[i] = item
            raw = json.dumps(data).encode()
        with open(path, "wb") as handle:
            handle.write(raw)
    derivations.clear()
    new_process()
    assert asked(cfg, repo, "npm install left-pad", "s3") and asked(cfg, repo, "git push --force", "s4")
    assert not asked(cfg, repo, "true", "s5")
    assert LESSON in derivations and "AGENTS.md" in derivations


def test_kept_guards_equal_derived_ones_for_every_labelled_lesson(cfg, tmp_path):
    """Real lessons (tests/data/guard_lessons.jsonl) and rule files: what a new
    process reads back from the memo is what deriving gives."""
    data = os.path.join(os.path.dirname(__file__), "..", "data", "guard_lessons.jsonl")
    lessons = [json.loads(line)["text"] for line in open(data, encoding="utf-8") if line.strip()]
    assert len(lessons) >= 25
    memo = guard_store.DerivedMemo(cfg, "guards", "")
    first = [memo.kept(t, lambda t=t: derive_guards(t), guard_store.GuardSpec.to_dict, guard_store._spec_of)
             for t in lessons]
    memo.save()
    new_process()
    memo = guard_store.DerivedMemo(cfg, "guards", "")
    again = [memo.kept(t, lambda: pytest.fail("derived again"), guard_store.GuardSpec.to_dict,
                       guard_store._spec_of) for t in lessons]
    assert again == first == [list(derive_guards(t)) for t in lessons]
    assert sum(len(specs) for specs in again) >= 20
    lines = "\n".join(f"- {t}" for t in lessons)
    root = git_repo(tmp_path / "lessons")
    (root / "AGENTS.md").write_text(lines, encoding="utf-8")
    read_first = guard_files.read(str(root), cfg=cfg).rules
    new_process()
    assert guard_files.read(str(root), cfg=cfg).rules == read_first == guard_files.read(str(root)).rules
    assert [r.line for _, r in read_first] == [r.line for r in rules_in(lines, "AGENTS.md")]

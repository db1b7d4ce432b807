"""The memory store's answers to odd input, the modes of what it creates,
and ``rewrite`` (the deterministic merge's way in)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tacit.fsutil import ensure_private_dir
from tacit.stores.memory import ENTRY_DELIMITER, MemoryStore


@pytest.fixture
def store(cfg) -> MemoryStore:
    return MemoryStore(cfg)


def mode_of(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("call", [
    lambda s: s.add("memory", None),
    lambda s: s.add("memory", 42),
    lambda s: s.add("memory", b"bytes"),
    lambda s: s.replace("memory", None, "x"),
    lambda s: s.replace("memory", "x", ["list"]),
    lambda s: s.remove("memory", 3.5),
    lambda s: s.batch("not a list"),
    lambda s: s.batch([1, 2]),
    lambda s: s.batch([{"action": "replace", "target": "memory", "old_text": "", "content": "x"}]),
])
def test_values_that_are_not_text_are_refused(store, cfg, call):
    store.add("memory", "An entry.")
    before = cfg.memory_file.read_bytes()
    result = call(store)
    assert result["success"] is False and result["error"], result
    assert cfg.memory_file.read_bytes() == before


def test_lone_surrogates_are_refused_not_raised(store, cfg):
    for result in (store.add("memory", "broken \ud800 text"),
                   store.batch([{"action": "add", "target": "user", "content": "x\udfff"}])):
        assert result["success"] is False and "surrogate" in result["error"]
    assert store.add("memory", "fine").get("success")
    assert store.replace("memory", "fine", "still \udc80 broken")["success"] is False
    assert store.entries("memory") == ["fine"]


def test_an_entry_larger_than_the_whole_limit_is_refused_by_the_limit(cfg):
    store = MemoryStore(cfg.with_settings(memory_char_limit=100))
    result = store.add("memory", "word " * 200_000)  # 1 MB: refused without being scanned
    assert result["success"] is False and result["over_limit"] and result["current_entries"] == []


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(max_size=200), st.none(), st.integers(), st.binary(max_size=20)))
def test_add_never_raises(store, value):
    result = store.add("memory", value)
    assert isinstance(result, dict) and isinstance(result["success"], bool)


def test_what_the_memory_store_creates_is_private(store, cfg):
    assert not cfg.memories_dir.exists()
    store.add("memory", "Private fact.")
    assert mode_of(cfg.memories_dir) == 0o700
    assert mode_of(cfg.memory_file) == 0o600
    assert mode_of(str(cfg.memory_file) + ".lock") == 0o600
    # a drift backup holds what a person wrote: as private as the file
    cfg.memory_file.write_text("free text appended by hand" + "x" * 3000, encoding="utf-8")
    result = store.remove("memory", "free text")
    assert result["success"] is False and mode_of(result["drift_backup"]) == 0o600


def test_ensure_private_dir_makes_every_missing_parent_private(tmp_path: Path):
    target = tmp_path / "a" / "b" / "c"
    ensure_private_dir(target)
    assert [mode_of(p) for p in (tmp_path / "a", tmp_path / "a" / "b", target)] == [0o700] * 3
    os.chmod(tmp_path / "a", 0o755)  # an existing folder keeps its mode
    ensure_private_dir(target)
    ensure_private_dir(tmp_path / "a" / "d")
    assert mode_of(tmp_path / "a") == 0o755 and mode_of(tmp_path / "a" / "d") == 0o700
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError, match="a file stands where a folder should be"):
        ensure_private_dir(tmp_path / "file")


def test_rewrite_applies_a_change_under_the_lock(store, cfg):
    for entry in ("one", "two", "three"):
        store.add("memory", entry)
    result = store.rewrite("memory", lambda entries: [e for e in entries if e != "two"])
    assert result["success"] and result["entries"] == ["one", "three"] and result["entry_count"] == 2
    assert cfg.memory_file.read_text(encoding="utf-8") == ENTRY_DELIMITER.join(["one", "three"])
    mtime = cfg.memory_file.stat().st_mtime_ns
    unchanged = store.rewrite("memory", lambda entries: entries)
    assert unchanged["success"] and unchanged["message"] == "Nothing changed."
    assert cfg.memory_file.stat().st_mtime_ns == mtime  # nothing written


def test_rewrite_refuses_a_file_that_drifted(store, cfg):
    store.add("memory", "one")
    cfg.memory_file.write_text("one\n§\n" + "y" * 5000, encoding="utf-8")
    result = store.rewrite("memory", lambda entries: entries[:1])
    assert result["success"] is False and "drift_backup" in result
    assert cfg.memory_file.read_text(encoding="utf-8").endswith("y" * 5000)

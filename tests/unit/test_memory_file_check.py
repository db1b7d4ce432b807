"""stores.entries.check_file: the one memory-file validity check, and the three places that use it
(the store's drift guard, the children's integrity check, ``tacit doctor``/health)."""

from __future__ import annotations

import pytest

from tacit.children.reconcile import parse_memory
from tacit.commands.health import memory_files
from tacit.stores.entries import ENTRY_TOO_BIG, NOT_ENTRIES, NOT_UTF8, check_file
from tacit.stores.memory import MemoryStore

CASES = {  # name: (bytes, problem)
    "clean": ("one\n§\ntwo".encode(), None),
    "empty": (b"  \n", None),
    "bom": ("\ufeffone\n§\ntwo".encode(), None),
    "binary": (b"caf\xe9\n\xc2\xa7\nok", NOT_UTF8),
    "sloppy": ("one\n§\n\n\n§\nhand-added".encode(), NOT_ENTRIES),
    "huge entry": (b"x" * 101, ENTRY_TOO_BIG),
}


@pytest.mark.parametrize("name", CASES)
def test_check_file(name):
    data, problem = CASES[name]
    check = check_file(data, 100)
    assert check.problem == problem
    if problem == NOT_UTF8:
        assert check.entries == []
    if name in ("clean", "bom"):
        assert check.entries == ["one", "two"] and check.biggest == 3
    if problem == ENTRY_TOO_BIG:
        assert check.biggest == 101 and check_file(data).problem is None  # no limit: any size


def test_each_caller_words_the_same_verdict(cfg):
    store = MemoryStore(cfg)
    limit = store.limit_for("memory")
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    verdicts = {}
    for name, data in {"binary": CASES["binary"][0], "sloppy": CASES["sloppy"][0],
                       "huge entry": b"y" * (limit + 1), "clean": CASES["clean"][0]}.items():
        cfg.memory_file.write_bytes(data)
        refused = store.remove("memory", "one")
        verdicts[name] = (parse_memory(data, limit)[1], memory_files(cfg)["global"].get("problem"),
                          None if refused["success"] else refused["error"])
        assert cfg.memory_file.read_bytes() == data or name == "clean"  # a refused rewrite touches nothing
    assert verdicts["clean"] == (None, None, None)
    children, health, store_error = verdicts["binary"]
    assert children == "not valid UTF-8" and "is not valid UTF-8: tacit will not rewrite it" in health
    assert "the file is not valid UTF-8" in store_error
    children, health, store_error = verdicts["sloppy"]
    assert children == "no longer §-separated entries"
    assert "is not a clean list of §-separated entries" in health and "does not round-trip" in store_error
    children, health, store_error = verdicts["huge entry"]
    big = f"one entry ({limit + 1:,} chars)"
    assert children == f"{big} larger than the whole limit"
    assert f"has {big} larger than the whole limit: tacit will not rewrite it" in health
    assert f"{big} is larger than the whole limit" in store_error


def test_health_still_counts_the_entries_of_a_sloppy_file_and_not_of_a_binary_one(cfg):
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    cfg.memory_file.write_bytes(CASES["sloppy"][0])
    report = memory_files(cfg)["global"]
    assert report["entries"] == 2 and "%" in report["usage"]
    cfg.memory_file.write_bytes(CASES["binary"][0])
    report = memory_files(cfg)["global"]
    assert "entries" not in report and report["usage"] == "unreadable"


def test_every_writer_refuses_a_drifted_file_with_a_backup_and_touches_nothing(cfg):
    """The one drift refusal (``MemoryStore._load_for_write``) behind each of the store's five writers."""
    store = MemoryStore(cfg)
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    writers = {
        "add": lambda: store.add("global", "new"),  # add checks UTF-8 only
        "replace": lambda: store.replace("global", "one", "uno"),
        "remove": lambda: store.remove("global", "one"),
        "batch": lambda: store.batch([{"action": "remove", "target": "global", "old_text": "one"}]),
        "rewrite": lambda: store.rewrite("global", lambda entries: entries[:1]),
        "take_unrecorded": lambda: store.take_unrecorded("global", lambda entry: True),
    }
    for name, write in writers.items():
        data = CASES["binary"][0] if name == "add" else CASES["sloppy"][0]
        cfg.memory_file.write_bytes(data)
        result = write()
        assert result["success"] is False and result["target"] == "global", name
        assert result["error"].startswith(f"Refusing to rewrite {cfg.memory_file.name}: "), name
        assert open(result["drift_backup"], "rb").read() == data and "remediation" in result, name
        assert cfg.memory_file.read_bytes() == data, name

"""Memory full under Hermes: the middleware, the durable queue and its drain.

The over-limit result below is byte-for-byte what Hermes 0.19.0's
``tools/memory_tool.py`` returns; the e2e test drives the real tool.
"""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path

import pytest

from tacit.config import load_config
from tacit.hosts.hermes import overflow
from tacit.hosts.hermes.plugin import HermesAdapter
from tacit.stores.memory import MemoryStore

HERMES_OVER_LIMIT = json.dumps({
    "success": False,
    "error": ("Memory at 274/300 chars. Adding this entry (51 chars) would exceed the limit. Consolidate "
              "now: use 'replace' to merge overlapping entries into shorter ones or 'remove' stale or less "
              "important entries (see current_entries below), then retry this add — all in this turn."),
    "current_entries": ["a", "b"],
    "usage": "274/300",
})
ADD = {"action": "add", "target": "memory", "content": "NEW deploy with make ship"}


@pytest.fixture
def hermes_env(tmp_path: Path) -> dict:
    home = tmp_path / "hermes-home"
    home.mkdir()
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 0\n  memory_char_limit: 120\n"
                                      "skills:\n  creation_nudge_interval: 0\n")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    hermes = fake_bin / "hermes"
    hermes.write_text("#!/bin/sh\nexit 99\n")
    hermes.chmod(hermes.stat().st_mode | stat.S_IXUSR)
    return {"HOME": str(tmp_path), "HERMES_HOME": str(home), "PATH": f"{fake_bin}:/usr/bin:/bin"}


@pytest.fixture
def adapter(hermes_env, monkeypatch):
    adapter = HermesAdapter.create(load_config(env=hermes_env, host="hermes"), argv=["hermes"])
    adapter.runner_starts = []
    monkeypatch.setattr(overflow, "start_runner", lambda cfg, *args: adapter.runner_starts.append(1))
    return adapter


def test_detects_only_an_add_refused_for_the_limit():
    assert overflow.overflowed_add(ADD, HERMES_OVER_LIMIT) == ("memory", "NEW deploy with make ship")
    assert overflow.overflowed_add({**ADD, "target": "user"}, json.loads(HERMES_OVER_LIMIT))[0] == "user"
    assert overflow.overflowed_add(ADD, json.dumps({"success": True})) is None
    assert overflow.overflowed_add(ADD, json.dumps({"success": False, "error": "Blocked: secret"})) is None
    assert overflow.overflowed_add({**ADD, "action": "replace"}, HERMES_OVER_LIMIT) is None
    assert overflow.overflowed_add({**ADD, "operations": [{"action": "add"}]}, HERMES_OVER_LIMIT) is None
    assert overflow.overflowed_add({**ADD, "content": "  "}, HERMES_OVER_LIMIT) is None
    assert overflow.overflowed_add(ADD, "not json") is None


def test_middleware_passes_other_tools_through_untouched(adapter):
    seen = []

    def next_call(args):
        seen.append(args)
        return "RESULT"

    assert adapter.memory_middleware(tool_name="terminal", args={"command": "ls"}, next_call=next_call,
                                     session_id="s") == "RESULT"
    assert seen == [{"command": "ls"}]
    ok = json.dumps({"success": True, "message": "Entry added."})
    assert adapter.memory_middleware(tool_name="memory", args=ADD, next_call=lambda a: ok) == ok
    assert adapter.runner_starts == []


def test_middleware_queues_an_overflowing_add(adapter, hermes_env):
    result = adapter.memory_middleware(tool_name="memory", args=ADD, next_call=lambda a: HERMES_OVER_LIMIT,
                                       session_id="s9", tool_call_id="c1")
    data = json.loads(result)
    assert data["success"] is True and data["queued"] is True and "MEMORY.md is full" in data["message"]
    [path] = overflow.pending_paths(adapter.cfg)
    item = json.loads(Path(path).read_text())
    assert (item["target"], item["content"], item["session_id"]) == ("memory", ADD["content"], "s9")
    assert adapter.runner_starts == [1]


def test_the_tool_call_counts_as_ok_when_tacit_takes_it_over(adapter):
    events = []
    adapter.engine.on("tool_result", lambda e, c: events.append(e), name="test.rec")
    adapter.post_tool_call(tool_name="memory", args=ADD, result=HERMES_OVER_LIMIT, status="error", session_id="s")
    assert events[-1].ok is True and events[-1].error is None


def test_without_a_consolidation_child_hermes_keeps_its_error(hermes_env, monkeypatch):
    cfg = load_config(env={**hermes_env, "TACIT_CHILD_ENABLED": "0"}, host="hermes")
    adapter = HermesAdapter.create(cfg, argv=["hermes"])
    assert adapter.takes_overflow() is False
    result = adapter.memory_middleware(tool_name="memory", args=ADD, next_call=lambda a: HERMES_OVER_LIMIT)
    assert result == HERMES_OVER_LIMIT and overflow.pending_paths(cfg) == []


def test_a_tool_exception_is_not_swallowed(adapter):
    def broken(args):
        raise ValueError("tool bug")

    with pytest.raises(ValueError):
        adapter.memory_middleware(tool_name="memory", args=ADD, next_call=broken)


def test_a_middleware_bug_returns_hermes_result(adapter, monkeypatch):
    monkeypatch.setattr(overflow, "enqueue", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    assert adapter.memory_middleware(tool_name="memory", args=ADD,
                                     next_call=lambda a: HERMES_OVER_LIMIT) == HERMES_OVER_LIMIT


# ---------------------------------------------------------------------------
# the drain (runner side)
# ---------------------------------------------------------------------------

@pytest.fixture
def cfg(hermes_env):
    from tacit.hosts.hermes.settings import adapt_config

    return adapt_config(load_config(env=hermes_env, host="hermes"))  # memory limit 120 from Hermes


def write_memory(cfg, entries):
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    cfg.memory_file.write_text("\n§\n".join(entries))


def test_drain_consolidates_once_then_adds(cfg):
    cfg = cfg.with_settings(memory_char_limit=130)  # 103 chars now; +28 does not fit until merged
    write_memory(cfg, ["uses pnpm for all installs", "Uses pnpm for all installs.", "tabs not spaces",
                       "the api is in services/api"])
    overflow.enqueue(cfg, "memory", "NEW deploy with make ship")
    overflow.enqueue(cfg, "memory", "NEW2 tests: make test")
    report = overflow.drain(cfg, use_agent=False)
    assert [a["content"] for a in report["added"]] == ["NEW deploy with make ship", "NEW2 tests: make test"]
    assert len(report["consolidated"]) == 1 and report["consolidated"][0]["mode"] == "deterministic"
    assert MemoryStore(cfg).entries("memory") == ["uses pnpm for all installs", "tabs not spaces",
                                                  "the api is in services/api", "NEW deploy with make ship",
                                                  "NEW2 tests: make test"]
    assert overflow.pending_paths(cfg) == [] and report["failed"] == []


def test_what_still_does_not_fit_is_kept_and_told_once(cfg, hermes_env):
    write_memory(cfg, ["a distinct fact number one here", "another distinct fact number two",
                       "a third distinct fact, number three"])
    overflow.enqueue(cfg, "memory", "NEW a long entry that cannot fit anywhere in this tiny memory")
    report = overflow.drain(cfg, use_agent=False)
    assert report["added"] == [] and len(report["failed"]) == 1
    assert "NEW a long entry" not in cfg.memory_file.read_text()
    adapter = HermesAdapter.create(load_config(env=hermes_env, host="hermes"), argv=["hermes"])
    context = adapter.pre_llm_call(session_id="s", user_message="hi", is_first_turn=True)
    assert "tacit could not save these memory entries" in context["context"]
    assert "(MEMORY.md) NEW a long entry that cannot fit" in context["context"]
    assert overflow.take_failed(adapter.cfg) == []  # handed out once


def test_two_drains_at_once_add_each_entry_once(cfg):
    cfg = cfg.with_settings(memory_char_limit=20000)
    for i in range(30):
        overflow.enqueue(cfg, "memory", f"QUEUED-{i}")
    threads = [threading.Thread(target=overflow.drain, args=(cfg,), kwargs={"use_agent": False})
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert MemoryStore(cfg).entries("memory") == [f"QUEUED-{i}" for i in range(30)]
    assert overflow.pending_paths(cfg) == []


def test_an_unreadable_queue_file_is_set_aside(cfg):
    path = Path(overflow.enqueue(cfg, "memory", "x"))
    path.write_text("{not json")
    report = overflow.drain(cfg, use_agent=False)
    assert len(report["failed"]) == 1 and overflow.pending_paths(cfg) == []
    assert (Path(overflow.overflow_dir(cfg)) / "failed" / path.name).exists()

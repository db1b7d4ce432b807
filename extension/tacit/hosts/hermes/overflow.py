"""Memory full under Hermes: consolidate with a child instead of an error; the queue's detached
runner is ``python -m tacit.hosts.hermes.overflow overflow``.

Design notes: docs/design/hosts.md#tacithostshermesoverflow
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time

from tacit.children.env import process_env, spawn_detached
from tacit.config import load_config
from tacit.consolidation import consolidate_target
from tacit.fsutil import atomic_write_text, lock_for, read_json_or_none, unlink_quietly
from tacit.hosts.hermes.settings import adapt_config
from tacit.log import log, log_exception
from tacit.app import Actor, Tacit
from tacit.stores.memory import MemoryStore, consolidating_helps

RUNNER_MODULE = "tacit.hosts.hermes.overflow"
OVER_LIMIT_MARK = "would exceed the limit"  # tools/memory_tool.py, MemoryStore.add
LOCK_SECONDS = 1800.0  # how long a runner waits for another runner's pass
_SEQ = itertools.count(1)  # next() is atomic: Hermes may run tool calls on several threads


def overflow_dir(cfg) -> str:
    return os.path.join(cfg.state_dir_str, "overflow")


def parse_result(result):
    """A tool result as a dict when it is JSON (or already a dict), else None."""
    if isinstance(result, dict):
        return result
    if isinstance(result, (bytes, bytearray)):
        result = result.decode("utf-8", "replace")
    if not isinstance(result, str) or not result.strip().startswith("{"):
        return None
    try:
        data = json.loads(result)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def overflowed_add(args, result) -> tuple[str, str] | None:
    """``(target, content)`` when this ``memory`` call was an add refused for the limit; None for anything else."""
    if not isinstance(args, dict) or args.get("action") != "add" or args.get("operations"):
        return None
    target = args.get("target") or "memory"
    content = args.get("content")
    if target not in ("memory", "user") or not isinstance(content, str) or not content.strip():
        return None
    data = parse_result(result)
    if not data or data.get("success") is not False or OVER_LIMIT_MARK not in str(data.get("error", "")):
        return None
    return target, content.strip()


def enqueue(cfg, target: str, content: str, session_id: str = "") -> str:
    """Write one queued entry durably; returns its path."""
    name = f"{time.time_ns():x}-{os.getpid():x}-{next(_SEQ)}.json"
    path = os.path.join(overflow_dir(cfg), "pending", name)
    atomic_write_text(path, json.dumps({"target": target, "content": content, "session_id": session_id,
                                        "queued": time.time()}, ensure_ascii=False))
    return path


def queued_result(target: str) -> str:
    """What the agent sees instead of the over-limit error."""
    name = "USER.md" if target == "user" else "MEMORY.md"
    return json.dumps({"success": True, "done": True, "queued": True, "target": target,
                       "message": f"{name} is full, so tacit queued this entry: a background agent is consolidating "
                                  f"{name} now and will then add it. Nothing to retry or clean up — continue "
                                  "with your reply."}, ensure_ascii=False)


def pending_paths(cfg, queue: str = "pending") -> list[str]:
    """The entries of a queue (``pending``, or ``failed``), oldest first."""
    folder = os.path.join(overflow_dir(cfg), queue)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names]


def drain(cfg, *, use_agent: bool | None = None) -> dict:
    """Runner side: add every queued entry, consolidating a full target once
    per pass. Returns a report (also logged)."""
    os.makedirs(overflow_dir(cfg), exist_ok=True)
    report = {"added": [], "failed": [], "consolidated": []}

    with lock_for(os.path.join(overflow_dir(cfg), "overflow"), timeout=LOCK_SECONDS):
        consolidated: set[str] = set()
        while True:
            paths = pending_paths(cfg)
            if not paths:
                break
            for path in paths:
                try:
                    with open(path, encoding="utf-8") as handle:
                        item = json.load(handle)
                    target, content = item["target"], item["content"]
                except (OSError, ValueError, KeyError, TypeError) as exc:
                    _move_failed(cfg, path, {"error": f"unreadable queue file: {exc}"})
                    report["failed"].append({"path": path, "error": str(exc)})
                    continue
                # the agent's own add, deferred: recorded as the agent's, in its session
                agent = Actor(kind="agent", name="memory", session_id=str(item.get("session_id") or ""), host="hermes")
                result = MemoryStore(cfg, actor=agent).add(target, content)
                if not result.get("success") and consolidating_helps(result) and target not in consolidated:
                    consolidated.add(target)
                    learner = Actor(kind="learner", name="consolidate", session_id=agent.session_id, host=agent.host)
                    with Tacit(cfg).as_actor(learner) as tacit:
                        summary = consolidate_target(tacit, target, use_agent=use_agent)
                    report["consolidated"].append(summary)
                    log(cfg, "info", "hermes.overflow", f"consolidated {summary.get('summary')} "
                                                          f"({summary.get('mode')})")
                    result = MemoryStore(cfg, actor=agent).add(target, content)  # re-read: the child edited it
                if result.get("success"):
                    os.unlink(path)
                    report["added"].append({"target": target, "content": content})
                    continue
                error = result.get("error") or "refused"
                _move_failed(cfg, path, {"error": error})
                report["failed"].append({"target": target, "content": content, "error": error})
                log(cfg, "warning", "hermes.overflow", f"could not add to {target} even after "
                                                       f"consolidation: {content!r}: {error}")
    return report


def _move_failed(cfg, path: str, extra: dict) -> None:
    item = {**(read_json_or_none(path) or {}), **extra}
    target = os.path.join(overflow_dir(cfg), "failed", os.path.basename(path))
    atomic_write_text(target, json.dumps(item, ensure_ascii=False))
    unlink_quietly(path)


def take_failed(cfg) -> list[dict]:
    """Entries that could not be saved, handed out once (then deleted)."""
    items = []
    for path in pending_paths(cfg, "failed"):
        try:
            with open(path, encoding="utf-8") as handle:
                item = json.load(handle)
            os.unlink(path)
        except (OSError, ValueError):
            continue
        if isinstance(item, dict) and item.get("content"):
            items.append(item)
    return items


def failed_note(items: list[dict]) -> str:
    """The prompt-scope note for entries tacit could not save."""
    lines = ["tacit could not save these memory entries: memory stayed full even after "
             "consolidation. Make room with the memory tool (merge with 'replace', drop stale "
             "entries with 'remove') and add them, or ask the user what to drop:"]
    lines += [f"- ({'USER.md' if item.get('target') == 'user' else 'MEMORY.md'}) {item['content']}" for item in items]
    return "\n".join(lines)


def runner_argv(*args: str) -> list:
    return [sys.executable, "-P", "-m", RUNNER_MODULE, *args]


def start_runner(cfg, *args: str, on_exit=None) -> int:
    """Start the detached runner; a daemon thread reaps it and calls ``on_exit()`` when it ends. Returns its pid."""
    return spawn_detached(runner_argv(*args), process_env(cfg, "hermes"), on_exit=on_exit)


def main(argv: list[str] | None = None) -> int:
    """The detached runner: add the entries queued when memory was full (``drain``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    cfg = None
    try:
        cfg = adapt_config(load_config(host="hermes"))
        if argv == ["overflow"]:
            drain(cfg)
            return 0
        sys.stderr.write(f"usage: python -m {RUNNER_MODULE} overflow\n")
        return 2
    except BaseException as exc:  # noqa: BLE001 — a detached runner has no one to raise to
        log_exception(cfg, f"hermes job runner {' '.join(argv)}", exc)
        return 1


if __name__ == "__main__":  # pragma: no cover — exercised through subprocesses
    sys.exit(main())

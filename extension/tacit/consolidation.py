"""Consolidation: what happens when memory is full.

Design notes: docs/design/core.md#tacitconsolidation
"""

from __future__ import annotations

import os
import time

from tacit.app import Tacit
from tacit.children.commands import agent_available
from tacit.children.output import why_failed
from tacit.children.env import process_env, spawn_detached
from tacit.paths import python_argv
from tacit.stores import history
from tacit.stores.memory import MemoryStore, consolidating_helps, merge_duplicates


def add_entry(tacit: Tacit, target: str, text: str, *, use_agent: bool | None = None, project=None) -> dict:
    """Add an entry as ``tacit``'s actor; on overflow consolidate that scope and retry exactly once."""
    result = tacit.memory(project).add(target, text)
    if result["success"] or not consolidating_helps(result) or not tacit.cfg.auto_consolidate:
        return result
    report = consolidate_target(tacit, result.get("target", target), use_agent=use_agent, project=project)
    retry = tacit.memory(project).add(target, text)  # re-read from disk: a child may have edited it
    if retry["success"]:
        retry["consolidation"] = report
        retry["message"] = f"{retry['message']} (memory was consolidated first: {report['summary']})"
        return retry
    retry["consolidation"] = report  # the refusal as it stands now, and what the consolidation changed
    changed = report.get("before") != report.get("after")
    if retry.get("error") and report.get("over_budget"):
        retry["error"] += (f" (no background agent could consolidate it: today's budget is spent "
                           f"({report['over_budget']}); `tacit cost` shows the spend)")
    elif retry.get("error") and report.get("child_failed"):  # said even when what it left changed the file
        retry["error"] += (f" (tacit tried to consolidate it first, but the background agent failed: "
                           f"{report['child_failed']}; nothing was lost"
                           + (f", {report['summary']}: see tacit memory log)" if changed else
                              ", see logs/children.jsonl)"))
    elif retry.get("error") and changed:
        retry["error"] += f" (tacit consolidated it first, {report['summary']}: see tacit memory log)"
    return retry


def consolidate_target(tacit: Tacit, target: str, *, use_agent: bool | None = None, project=None,
                       session_id: str = "consolidate") -> dict:
    """Consolidate one scope (a child's run, else merged as ``tacit``'s actor); a report with before/after usage."""
    cfg, store = tacit.cfg, tacit.memory(project)
    target = store.resolve(target)
    before = store.usage(target)
    report: dict = {"target": target, "before": before["text"]}
    if not cfg.is_child and (agent_available(cfg, cfg.host) if use_agent is None else use_agent):
        from tacit.children.runner import run_job  # the runner (prompts, jinja2): only for a run here

        # a unique id: the run's changes are one group in the history, undone together
        job_id = f"consolidate-{target}-{int(time.time() * 1000):x}-{os.getpid():x}"
        record = run_job(cfg, {"id": job_id, "kind": "consolidate", "host": cfg.host,
                               "session_id": session_id or "consolidate",
                               "cwd": project.root if project is not None else None,
                               "variables": {"targets": [target]}},
                         agent=True)
        report.update(mode="agent", child_ok=bool(record.get("ok")))
        if record.get("over_budget"):  # no child started: today's budget is spent; the runner merged instead
            report.update(mode="deterministic", child_ok=False, over_budget=str(record["over_budget"]),
                          merge=(record.get("results") or {}).get(target) or {})
        elif not record.get("ok"):
            # the child failed (killed, crashed, non-zero): fall back, lose nothing
            report["merge"] = merge_duplicates(tacit.memory(project), target)
            report["mode"] = "agent-failed+deterministic"
            report["child_failed"] = why_failed(record)
    else:
        report["mode"] = "deterministic"
        report["merge"] = merge_duplicates(tacit.memory(project), target)
    after = tacit.memory(project).usage(target)
    report.update(after=after["text"], fits=after["current"] <= after["limit"],
                  summary=f"{target}: {before['text']} → {after['text']}")
    return report


NEAR_LIMIT = 0.8  # /memory-consolidate works on a scope this full (or fuller), unless forced


def _skipped(store: MemoryStore, target: str, force: bool) -> str | None:
    """Why ``consolidate_all`` leaves ``target`` as it is, or None."""
    if target == "team" or not store.entries(target):  # the team's file changes through review only
        return "empty" if target != "team" else "shared"
    usage = store.usage(target)
    if not force and usage["current"] < NEAR_LIMIT * usage["limit"]:
        return f"{usage['text']}, not near its limit"
    return None


def scopes_to_consolidate(cfg, *, project=None, force: bool = False) -> list[str]:
    """The scopes ``consolidate_all`` would work on (none: it starts no child)."""
    store = MemoryStore(cfg, project)
    return [target for target in store.targets() if _skipped(store, target, force) is None]


def consolidate_all(tacit: Tacit, *, use_agent: bool | None = None, project=None, force: bool = False,
                    session_id: str = "consolidate") -> dict:
    """``/memory-consolidate``: every scope of this project near its limit (``force``: non-empty)."""
    store = tacit.memory(project)
    reports = []
    for target in store.targets():
        skipped = _skipped(store, target, force)
        reports.append({"target": target, "skipped": skipped} if skipped else consolidate_target(
            tacit, target, use_agent=use_agent, project=project, session_id=session_id))
    lines = [r.get("summary") or f"{r['target']}: skipped ({r['skipped']})" for r in reports]
    return {"success": True, "reports": reports, "message": "\n".join(lines)}


def start_in_background(cfg, *, session_id: str, host: str, project=None, force: bool = False,
                        launched: dict | None = None) -> int:
    """``tacit consolidate`` detached, for a session's slash command (told at its next prompt); its pid.
    ``launched``: the environment that session's host was launched with, which its child starts from."""
    argv = python_argv("consolidate", "--session", session_id, *(["--force"] if force else []),
                       *(["--project", project.root] if project is not None else []))
    env = process_env(cfg, host, base=launched)
    # a deterministic merge is tacit's own change, announced like a learner's
    env["TACIT_ACTOR"] = history.Actor(kind="learner", name="consolidate", session_id=session_id,
                                       host=host).to_env()
    return spawn_detached(argv, env, cwd=cfg.home_str)

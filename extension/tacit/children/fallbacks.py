"""What a child job does when no agent can run (no host binary, children
disabled, over budget, or inside a child).

Design notes: docs/design/children.md#tacitchildrenfallbacks
"""

from __future__ import annotations

import re

from tacit.app import Actor, Tacit
from tacit.detect.analysis import analyse
from tacit.stores.memory import consolidating_helps, merge_duplicates

# "in this repo", "for this project", "here in the codebase": a convention of this project
_THIS_PROJECT = re.compile(r"\b(?:this|the|our)\s+(?:repo|repository|project|codebase|code\s*base|monorepo)\b"
                           r"|\bin\s+here\b", re.I)


def learner_of(job: dict) -> Actor:
    """The fallback as the learner of this job: its session, host, cause and undo group."""
    variables = job.get("variables") or {}
    cause = next((variables[k] for k in ("correction", "user_text", "text")
                  if isinstance(variables.get(k), str) and variables[k].strip()), "")
    return Actor(kind="learner", name=f"{job.get('kind', 'child')} fallback",
                 session_id=str(job.get("session_id") or ""), host=str(job.get("host") or ""),
                 cause=cause[:600], cause_event=str(variables.get("event_id") or ""),
                 group=f"job:{job['id']}" if job.get("id") else "")


def run_fallback(cfg, job: dict) -> dict:
    with Tacit(cfg).as_actor(learner_of(job)) as tacit, tacit.acting():
        return _run(tacit, job)


def save_job_rules(cfg, job: dict, texts: list[str]) -> dict:
    """The exact rules of some of a correction job's texts, saved as its learner."""
    with Tacit(cfg).as_actor(learner_of(job)) as tacit, tacit.acting():
        return save_exact_rules(tacit, texts, prev_assistant=(job.get("variables") or {}).get("prev_assistant")
                                or None, project=tacit.project(job["cwd"]) if job.get("cwd") else None)


def _run(tacit: Tacit, job: dict) -> dict:
    kind = job.get("kind")
    variables = job.get("variables", {})
    project = tacit.project(job["cwd"]) if job.get("cwd") else None  # the job's folder names the project
    if kind == "consolidate":
        targets = variables.get("targets", ["memory", "user"])
        return {"ok": True, "results": {t: merge_duplicates(tacit.memory(project), t) for t in targets
                                        if t not in ("project", "team") or project is not None}}
    if kind == "correction":
        return save_exact_rules(tacit, [*variables.get("earlier_corrections", []), variables.get("correction", "")],
                                prev_assistant=variables.get("prev_assistant") or None, project=project)
    return {"ok": False, "skipped": f"no agent available for {kind!r}"}


def scope_of(text: str, category: str, project) -> str:
    """Where a phrased rule belongs: a preference in the user profile, the project's in its memory
    (no project: the global notes)."""
    if project is not None and (_THIS_PROJECT.search(text) or category != "preference"):
        return "project"
    return "user" if category == "preference" else "global"


def save_exact_rules(tacit: Tacit, texts: list[str], *, prev_assistant: str | None = None,
                     project=None) -> dict:
    """Save the rule of each correction that has one, through ``tacit`` (its actor); report the rest."""
    store = tacit.memory(project)
    saved, left, refused = [], [], []
    for text in texts:
        if not isinstance(text, str) or not text.strip():
            continue
        found = analyse(text, prev_assistant=prev_assistant)
        result = _add(tacit, store, scope_of(text, found.category, project), found.rule) if found.rule else None
        if result is not None and result["success"]:
            saved.append(found.rule)
            continue
        left.append(text[:200])
        if result is not None:
            refused.append(f"{found.rule!r}: {result.get('error') or 'refused'}"[:400])
    return {"ok": True, "saved": saved, "left_for_review": left, **({"refused": refused} if refused else {})}


def _add(tacit: Tacit, store, scope: str, rule: str) -> dict:
    """``store.add``; when the file is full, its duplicates merged first and the add tried once more
    (the deterministic consolidation ``tacit.consolidation.add_entry`` does without an agent)."""
    result = store.add(scope, rule)
    if result["success"] or not consolidating_helps(result) or not tacit.cfg.auto_consolidate:
        return result
    if merge_duplicates(store, result.get("target", scope)).get("merged"):
        result = store.add(scope, rule)
    return result

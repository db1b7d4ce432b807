"""What a child job does when no agent can run (no host binary, children
disabled, over budget, or inside a child).

- ``consolidate``: the deterministic merge (``tacit.stores.memory_merge``).
- ``correction``: a rule tacit can phrase exactly from the correction
  ("Use pnpm, not npm.") is saved; anything else is left as a candidate for
  the next review (the importance capture keeps it) — never the user's words
  verbatim.
- ``review``, ``skill``, ``flush``: need a model to decide what matters;
  skipped and logged, never faked.
"""

from __future__ import annotations

from tacit.detect.analysis import analyse
from tacit.projects import project_for
from tacit.stores.memory import MemoryStore
from tacit.stores.memory_merge import merge_duplicates


def run_fallback(cfg, job: dict) -> dict:
    kind = job.get("kind")
    variables = job.get("variables", {})
    if kind == "consolidate":
        # the job's folder names the project: a project scope is merged in that project
        project = project_for(job.get("cwd"), home=cfg.env.get("HOME"))
        targets = variables.get("targets", ["memory", "user"])
        return {"ok": True, "results": {t: merge_duplicates(cfg, t, project) for t in targets
                                        if t not in ("project", "team") or project is not None}}
    if kind == "correction":
        return save_exact_rules(cfg, [*variables.get("earlier_corrections", []),
                                      variables.get("correction", "")],
                                prev_assistant=variables.get("prev_assistant") or None)
    return {"ok": False, "skipped": f"no agent available for {kind!r}"}


def save_exact_rules(cfg, texts: list[str], *, prev_assistant: str | None = None) -> dict:
    """Save the rule of each correction that has one; report the rest."""
    store = MemoryStore(cfg)
    saved, left = [], []
    for text in texts:
        if not isinstance(text, str) or not text.strip():
            continue
        rule = analyse(text, prev_assistant=prev_assistant).rule
        if not rule:
            left.append(text[:200])
            continue
        result = store.add("user", rule)
        if result["success"]:
            saved.append(rule)
        else:
            left.append(text[:200])
    return {"ok": True, "saved": saved, "left_for_review": left}

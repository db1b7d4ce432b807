"""The text of tacit's slash commands, shared by every host.

``/memory-consolidate`` and ``/memory-skills`` (and the learners' commands)
look the same in Claude Code, Hermes and pi: hosts call these functions and
show the returned text; the CLI prints the same text (or JSON with --json).
"""

from __future__ import annotations

from tacit.consolidation import consolidate_all
from tacit.stores.skills import SkillStore


def memory_consolidate(cfg, *, use_agent: bool | None = None, project=None, force: bool = False) -> dict:
    """Consolidate the scopes of this project near their limit (every
    non-empty one with ``force``); report before/after."""
    result = consolidate_all(cfg, use_agent=use_agent, project=project, force=force)
    if not any(not r.get("skipped") for r in result["reports"]):
        usage = ", ".join(f"{r['target']} {r['skipped']}" for r in result["reports"])
        result["text"] = (f"Nothing to consolidate: no memory is near its limit ({usage}). "
                          "tacit consolidates on its own when one is; `/memory-consolidate force` (or `tacit consolidate --force`) does it now.")
        return result
    lines = ["Memory consolidation:"]
    for report in result["reports"]:
        if report.get("skipped"):
            lines.append(f"- {report['target']}: skipped ({report['skipped']})")
            continue
        merged = report.get("merge", {}).get("merged")
        how = report["mode"] + (f", {merged} merged" if merged else "")
        lines.append(f"- {report['target']}: {report['before']} → {report['after']} ({how})")
        if not report.get("fits", True):
            lines.append("  still over the limit: remove or shorten entries with `tacit memory`")
    result["text"] = "\n".join(lines)
    return result


def wants_force(args) -> bool:
    """``/memory-consolidate force`` (or ``--force``, ``all``): every non-empty scope."""
    return isinstance(args, str) and args.strip().lstrip("-").lower() in ("force", "all")


def memory_skills(cfg) -> dict:
    """List skills: name, description, version, updated, and where the file is."""
    listing = SkillStore(cfg).list()
    skills = listing.get("skills", [])
    lines = [f"Skills in {cfg.skills_dir} ({len(skills)}):"]
    for s in skills:
        desc = s.get("description", "")
        if len(desc) > 100:
            desc = desc[:99] + "…"
        lines.append(f"- {s['name']} (v{s.get('version', '?')}, updated {s.get('updated', '?')}): {desc}")
        lines.append(f"  {s.get('path', '')}")
    for problem in listing.get("problems", []):
        lines.append(f"! skipped {problem.get('path')}: {problem.get('reason')}")
    if not skills:
        lines.append("(none yet — tacit creates skills after complex work, or run `tacit skill create`)")
    listing["text"] = "\n".join(lines)
    return listing

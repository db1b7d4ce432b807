"""tacit's slash commands, shared by every host.

Design notes: docs/design/core.md#tacitslash
"""

from __future__ import annotations

from tacit.app import Actor, Tacit
from tacit.consolidation import consolidate_all
from tacit.display import clip
from tacit.forget import forget
from tacit.learn import lifecycle
from tacit.learn.review import memory_review
from tacit.stores import candidates, tombstones
from tacit.stores.memory import MemoryStore
from tacit.stores.skill_scopes import TITLES, ScopedSkills
from tacit.stores.skills import SkillStore
from tacit.slash_table import COMMANDS

NAMES = tuple(COMMANDS)


def memory_consolidate(tacit: Tacit, *, use_agent: bool | None = None, project=None, force: bool = False,
                       session_id: str = "consolidate") -> dict:
    """Consolidate the scopes near their limit (``force``: every non-empty one); before/after."""
    result = consolidate_all(tacit, use_agent=use_agent, project=project, force=force, session_id=session_id)
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
        if report.get("child_failed"):
            lines.append(f"  the background agent failed ({report['child_failed']}): duplicates were merged instead")
        if report.get("over_budget"):
            lines.append(f"  no background agent: today's budget is spent ({report['over_budget']}, `tacit cost`): "
                         "duplicates were merged instead")
        if not report.get("fits", True):
            lines.append("  still over the limit: remove or shorten entries with `tacit memory`")
        if report.get("merge", {}).get("error"):  # refused (a file tacit will not rewrite): said, not hidden
            lines.append(f"  not changed: {report['merge']['error']}")
    failed = [r for r in result["reports"] if r.get("merge", {}).get("error")]
    if failed:
        result.update(success=False, error="; ".join(f"{r['target']}: {r['merge']['error']}" for r in failed))
    result["text"] = "\n".join(lines)
    return result


def wants_force(args) -> bool:
    """``/memory-consolidate force`` (or ``--force``, ``all``): every non-empty scope."""
    return isinstance(args, str) and args.strip().lstrip("-").lower() in ("force", "all")


def memory_skills(cfg, *, project=None) -> dict:
    """List skills (the global ones, then this project's and its team's) and where each file is."""
    scoped = ScopedSkills(cfg, project)
    listing = SkillStore(cfg).list()
    lines = _skill_lines(f"Skills in {cfg.skills_dir}", listing)
    if not listing.get("skills"):
        lines.append("(none yet — tacit creates skills after complex work, or run `tacit skill create`)")
    for scope in scoped.scopes():
        if scope == "global":
            continue
        store = scoped.store(scope)
        found = store.list()
        if found.get("skills") or found.get("problems"):
            lines += _skill_lines(f"{TITLES[scope]} in {store.skills_dir}", found)
            listing["skills"] = listing.get("skills", []) + [{**one, "scope": scope} for one in found["skills"]]
    listing["text"] = "\n".join(lines)
    return listing


def _skill_lines(title: str, listing: dict) -> list[str]:
    skills = listing.get("skills", [])
    lines = [f"{title} ({len(skills)}):"]
    for s in skills:
        desc = clip(s.get("description", ""), 100)
        lines.append(f"- {s['name']} (v{s.get('version') or '?'}, updated {s.get('updated') or '?'}): {desc}")
        lines.append(f"  {s.get('path', '')}")
    for problem in listing.get("problems", []):
        lines.append(f"! skipped {problem.get('path')}: {problem.get('reason')}")
    return lines


def render_scope(store: MemoryStore, shown: dict) -> str:
    """One scope as ``tacit memory show`` prints it: header, usage, file, entries."""
    lines = [f"{store.header(shown['target'])} — {shown['usage']}", f"  {shown['path']}"]
    lines += [f"  {n}. " + entry.replace("\n", "\n" + " " * (len(str(n)) + 4))  # later lines under the first
              for n, entry in enumerate(shown["entries"], 1)] or ["  (empty)"]
    return "\n".join(lines)


def memory_show(cfg, *, project=None) -> dict:
    """The memory the agent sees, per scope with usage; then the candidates."""
    store = MemoryStore(cfg, project)
    scopes = {t: store.show(t) for t in store.targets()}
    memory = "\n\n".join(render_scope(store, shown) for shown in scopes.values())
    learned = lifecycle.list_memories(cfg)
    entries = [e for shown in scopes.values() for e in shown.get("entries") or []]
    pending = [m for m in learned if m["status"] in ("candidate", "confirmed")]
    saved = [m for m in pending if _in_memory(m, entries)]  # a save already put it in a file
    waiting = [m for m in pending if m not in saved]
    head = f"Candidates — evidence not in memory yet ({len(waiting)}):" if waiting else \
        "Candidates — evidence not in memory yet: none."
    text = memory + "\n\n" + head
    if waiting:
        text += "\n" + lifecycle.render_memories(waiting)
    if saved:
        text += f"\n\nCandidates already in memory ({len(saved)}):\n" + "\n".join(
            f"  {m['key']}  {m['content']}" for m in saved)
    return {"success": True, "scopes": scopes, "candidates": waiting, "in_memory": saved, "text": text}


def _in_memory(candidate: dict, entries: list[str]) -> bool:
    """Does a memory entry say what the candidate says (its file entry, or a save in other words)?"""
    content = str(candidate.get("content") or "").strip()
    if candidate.get("applied_at"):
        return True  # written to USER.md / MEMORY.md when it was confirmed
    if not content:
        return False
    folded = " ".join(content.casefold().split()).rstrip(".")
    return any(folded in " ".join(e.casefold().split()) or tombstones.matches(content, e) for e in entries)


def memory_forget(tacit: Tacit, args: str, *, project=None) -> dict:
    """A candidate's key forgets that learned memory; other text, every entry saying it."""
    what = (args or "").strip().strip('"').strip("'")
    if not what:
        return {"success": False, "error": "say what to forget: /memory-forget we use pnpm",
                "text": "Say what to forget: /memory-forget we use pnpm (or a key from /memory-show)."}
    with tacit.ledger.read() as conn:
        is_key = candidates.by_key(conn, what) is not None
    result = lifecycle.forget(tacit, what) if is_key else forget(tacit, what, project=project)
    result["text"] = result.get("message") or result.get("error") or ""
    return result


def memory_teach(tacit: Tacit, args: str, *, project=None) -> dict:
    """``/memory-teach [--user] TEXT``: saved at once, in this project's memory (as ``tacit memory add``)."""
    raw, target = (args or "").strip(), "memory"
    for prefix in ("--user ", "--user=", "user:"):
        if raw.startswith(prefix):
            target, raw = "user", raw[len(prefix):].strip()
            break
    result = lifecycle.teach(tacit, raw, target=target, project=project)
    result["text"] = result.get("message") or result.get("error") or ""
    return result


def typed_by_you(cfg, name: str, *, session_id: str = "", host: str = "") -> Tacit:
    """The front door of a slash command the user typed: its writes are yours, for that session."""
    return Tacit(cfg).as_actor(Actor(kind="user", name=f"/{name}", session_id=session_id or "", host=host or ""))


_RUN = {  # name -> the command, given (tacit, args, project)
    "memory-consolidate": lambda tacit, args, project: memory_consolidate(tacit, project=project,
                                                                         force=wants_force(args)),
    "memory-skills": lambda tacit, args, project: memory_skills(tacit.cfg, project=project),
    "memory-show": lambda tacit, args, project: memory_show(tacit.cfg, project=project),
    "memory-forget": lambda tacit, args, project: memory_forget(tacit, args, project=project),
    "memory-teach": lambda tacit, args, project: memory_teach(tacit, args, project=project),
    "memory-review": lambda tacit, args, project: memory_review(tacit.cfg, trigger="command"),
}


def run(tacit: Tacit, name: str, args: str = "", *, project=None) -> dict:
    """One slash command (``name`` without the host's prefix) through ``tacit``: a result with ``text``."""
    with tacit.acting():
        if name not in _RUN:
            return {"success": False, "error": f"unknown command {name!r}", "text": f"tacit has no /{name}."}
        return _RUN[name](tacit, args if isinstance(args, str) else "", project)

"""The ``rules`` child proposes guards in its reply, with no tools: one ``GUARD WHERE PATTERN`` line
each (``GUARD AGENTS.md:5 path:pnpm-lock.yaml``, ``GUARD lesson:12 terraform apply``). tacit reads
them strictly — only a WHERE it was shown, at most ``CAP`` — and applies each through the store the
CLI uses (grounded in its line or lesson, a path inside the project, ``ask``), as the child's actor.

Design notes: docs/guards.md ("Lines tacit cannot read").
"""

from __future__ import annotations

from dataclasses import dataclass

from tacit.app import Tacit
from tacit.display import clip
from tacit.projects import project_for
from tacit.safety import redact_secrets
from tacit.stores.guard_files import add_for_line

CAP = 30  # proposals read from one reply; the rest are ignored (and counted)
PATTERN_CHARS = 500
LESSON = "lesson:"  # WHERE of a lesson: lesson:<change>


@dataclass(frozen=True, slots=True)
class Proposal:
    where: str  # a shown line's FILE:LINE, or lesson:<change>
    pattern: str


def shown(job: dict) -> list[str]:
    """The WHEREs the child was shown: its lines' FILE:LINE, then lesson:<change> of its lessons."""
    variables = job.get("variables") or {}
    wheres = [str(one.get("where")) for one in variables.get("lines") or [] if isinstance(one, dict)]
    wheres += [f"{LESSON}{one.get('change')}" for one in variables.get("lessons") or []
               if isinstance(one, dict) and str(one.get("change") or "").isdigit()]
    return [w for w in wheres if w and w != "None"]


def parse(reply: str, wheres: list[str]) -> tuple[list[Proposal], list[dict]]:
    """The proposals of ``reply`` and the ``GUARD`` lines refused while reading (unknown WHERE,
    no pattern, a duplicate, over the cap). Lines not starting with ``GUARD `` are not proposals."""
    found: list[Proposal] = []
    refused: list[dict] = []
    longest_first = sorted(set(wheres), key=len, reverse=True)
    for raw in (reply or "").splitlines():
        line = raw.strip()
        if not line.startswith("GUARD "):
            continue
        rest = line[len("GUARD "):].strip()
        where = next((w for w in longest_first if rest.startswith(w + " ")), None)
        if where is None:
            refused.append({"line": _kept(line), "reason": "not a line or lesson shown to this child"})
            continue
        pattern = _unquoted(rest[len(where):].strip())
        problem = ("no pattern" if not pattern else "pattern too long" if len(pattern) > PATTERN_CHARS
                   else "proposed twice" if Proposal(where, pattern) in found
                   else f"over the cap of {CAP} proposals" if len(found) >= CAP else None)
        if problem:
            refused.append({"line": _kept(line), "reason": problem})
            continue
        found.append(Proposal(where, pattern))
    return found, refused


def _kept(text: str) -> str:
    """What the job's record keeps of a reply's text: short, secrets redacted (like its stdout tail)."""
    return redact_secrets(clip(text, 200))


def _unquoted(pattern: str) -> str:
    """The pattern without one pair of surrounding backticks or double quotes."""
    if len(pattern) >= 2 and pattern[0] == pattern[-1] and pattern[0] in "`\"":
        return pattern[1:-1].strip()
    return pattern


def apply(cfg, job: dict, reply: str, actor) -> dict:
    """Apply the reply's proposals as ``actor``: ``{"accepted": [...], "refused": [...]}`` for the job's record."""
    proposals, refused = parse(reply, shown(job))
    accepted: list[dict] = []
    if not proposals:
        return {"accepted": accepted, "refused": refused}
    project = project_for(job.get("cwd"), home=cfg.env.get("HOME"))
    with Tacit(cfg).as_actor(actor) as front, front.acting():
        store = front.guards()
        for one in proposals:
            if one.where.startswith(LESSON):
                scope = "project" if project is not None else "global"
                result = store.add_for_lesson(int(one.where[len(LESSON):]), one.pattern, scope=scope, project=project)
            else:
                result = add_for_line(store, one.where, one.pattern, project)
            said = {"where": _kept(one.where), "pattern": _kept(one.pattern)}
            if result.get("success"):
                accepted.append({**said, "guard": result["guard"]["id"], "created": bool(result.get("created"))})
            else:
                refused.append({**said, "reason": redact_secrets(clip(str(result.get("error") or "refused"), 600))})
    return {"accepted": accepted, "refused": refused}

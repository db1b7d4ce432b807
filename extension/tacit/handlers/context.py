"""Session context: the frozen memory snapshot and the skill index, gated.

Design notes: docs/design/core.md#tacithandlerscontext
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import replace

from tacit.hookspecs import ContextResult, Injection
from tacit.safety.context_gate import (
    SKILL_BODY,
    SKILL_CATEGORY,
    SKILL_DESCRIPTION,
    SKILL_NAME,
    Block,
    GateResult,
    LeftOut,
    gate_context,
)
from tacit.stores import file_memo
from tacit.stores.memory import MemoryStore
from tacit.stores.skill_format import MAX_SKILL_BYTES
from tacit.stores.skill_scopes import ScopedSkills

GUIDANCE_CLI = """## tacit memory (persistent across sessions)
Save what will matter next time, without being asked: user preferences and corrections \
(`tacit memory add --target user "…"`), project conventions, commands and decisions \
(`tacit memory add "…"`). Keep entries short and factual; update with \
`tacit memory replace OLD NEW`, drop stale ones with `tacit memory remove OLD`. After complex \
work, save the procedure as a skill: `tacit skill create --name NAME --description "…" \
--body-file FILE`; load a skill with `tacit skill view NAME`. To find what was done in earlier \
sessions (a fix, a command, a decision), run `tacit search --json WORDS`."""

GUIDANCE_TOOLS = """## tacit memory (persistent across sessions)
Save what will matter next time, without being asked: call the `memory` tool (target "user" for \
preferences and corrections, "memory" for project conventions, commands and decisions). Keep \
entries short and factual. After complex work, save the procedure with the `skill` tool; load \
a skill's full text with it when its description matches the task. To find what was done in \
earlier sessions (a fix, a command, a decision), call the `search_sessions` tool."""

NOTICE_MARK = "context.left_out_told"  # state.marks: the session was told what was left out
_BODY_VERDICTS: OrderedDict[tuple, tuple] = OrderedDict()  # (path, mtime_ns) -> left-out items
_BODY_VERDICTS_MAX = 4096
MEMO_LIMIT = 20_000  # kept verdicts past this: only those of the last index stay


def register(engine) -> None:
    engine.on("before_agent_start", inject_session_context, name="context.session", priority=10)


def inject_session_context(event, ctx) -> ContextResult:
    features = ctx.host_features
    memory = ctx.memory
    # a host that shows USER.md and the global MEMORY.md itself (Hermes) still
    # needs this project's memory from tacit
    snapshot = memory.snapshot(("project", "team") if "memory_snapshot" in features else None)
    guidance = None
    if "memory_tool" not in features:
        guidance = GUIDANCE_TOOLS if "tacit_tools" in features else GUIDANCE_CLI
    gate = SkillGate(ctx.skills.cfg)  # called only when the session's index is first rendered (it is frozen)
    index = ctx.skills.snapshot(gate=gate, skip=_indexed_by_host(features)) if "skill_index" not in features else ""
    left_out = list(memory.gated_out) + gate.left_out
    result = _context(snapshot, guidance, index)
    if left_out and not ctx.state.marks.get(NOTICE_MARK):
        ctx.state.marks[NOTICE_MARK] = True
        result.notices.append(GateResult((), tuple(left_out)).notice())
    return result


def user_context(engine, event) -> ContextResult:
    """The context of a session in a project tacit is off for: the user's own
    memory (USER.md, the global MEMORY.md) and the global skills, gated; no
    project memory and no save guidance (``tacit.privacy.exclusion``)."""
    features = engine.features_for(event.host or engine.default_host)
    memory = MemoryStore(engine.cfg, None)
    snapshot = "" if "memory_snapshot" in features else memory.snapshot(("user", "global"))
    skills = ScopedSkills(engine.cfg, None)
    gate = SkillGate(engine.cfg)
    index = skills.snapshot(gate=gate, skip=_indexed_by_host(features)) if "skill_index" not in features else ""
    result = _context(snapshot, None, index)
    left_out = list(memory.gated_out) + list(gate.left_out)
    if left_out:
        result.notices.append(GateResult((), tuple(left_out)).notice())
    return result


def _indexed_by_host(features) -> tuple:
    """Skill scopes the host lists itself (Hermes indexes tacit's global skills through a link)."""
    return ("global",) if "global_skill_index" in features else ()


def _context(snapshot: str, guidance: str | None, index: str) -> ContextResult:
    context = []
    if snapshot:
        context.append(Injection(snapshot, priority=10))
    if guidance:
        context.append(Injection(guidance, priority=20))
    if index:
        context.append(Injection(index, priority=30))
    return ContextResult(context=context)


class SkillGate:
    """``gate(scope, skills)`` for ``ScopedSkills.index_text``: the records
    whose name, description, category folder name and body all pass, with
    their description cleaned; the refused pieces pile up in ``left_out``."""

    cache_key = "context-gate"  # tacit.stores.skills.SkillStore.kept_render: same catalog, same verdicts

    def __init__(self, cfg=None):
        self.left_out: list = []
        self.cfg = cfg  # where the verdicts are kept (tacit.stores.file_memo); None: not kept

    def __call__(self, scope: str, skills) -> list:
        kept = []
        memo = None
        for skill in skills:
            sig = file_memo.signature(skill.path)
            if sig is not None and sig[1] != skill.mtime_ns:
                sig = None  # changed since the catalog read it: gated here, not kept
            if memo is None and self.cfg is not None:
                memo = file_memo.memo_for(self.cfg, "skill-gate", "")
            verdict = _kept_verdict(memo.get(skill.path, sig)) if memo else None
            if verdict is None:
                verdict = _verdict(skill)
                if memo:
                    memo.put(skill.path, sig, [verdict[0], [[i.kind, i.label, i.shown, i.reason, i.pattern_id]
                                                            for i in verdict[1]]])
            description, left_out = verdict
            if left_out:
                self.left_out.extend(left_out)
                continue
            kept.append(replace(skill, description=description) if description != skill.description else skill)
        if memo:
            memo.save(limit=MEMO_LIMIT)
        return kept


def _kept_verdict(kept) -> tuple | None:
    try:
        description, items = kept
        left_out = tuple(LeftOut(*map(str, item)) for item in items)
    except (TypeError, ValueError):
        return None
    if not left_out and not isinstance(description, str):
        return None
    return (description if not left_out else None), left_out


def _verdict(skill) -> tuple:
    """(the description the index shows, what the gate refuses: name, description, category folder, body)."""
    blocks = [Block(SKILL_NAME, skill.name, skill.name, skill.path),
              Block(SKILL_DESCRIPTION, skill.name, skill.description, skill.path)]
    if skill.category is not None:
        blocks.append(Block(SKILL_CATEGORY, skill.category, skill.category, skill.path))
    gated = gate_context(blocks)
    left_out = tuple(gated.left_out) + tuple(_body_left_out(skill))
    if left_out:
        return None, left_out
    return next(b.text for b in gated.allowed if b.kind == SKILL_DESCRIPTION), ()


def _body_left_out(skill) -> tuple:
    """What the gate refuses in the skill's file (its body), cached by file version."""
    key = (skill.path, skill.mtime_ns)
    found = _BODY_VERDICTS.get(key)
    if found is None:
        text = _read_bounded(skill.path)
        found = () if text is None else gate_context([Block(SKILL_BODY, skill.name, text)]).left_out
        _BODY_VERDICTS[key] = found
        while len(_BODY_VERDICTS) > _BODY_VERDICTS_MAX:
            _BODY_VERDICTS.popitem(last=False)
    return found


def _read_bounded(path: str) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_SKILL_BYTES + 1)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")

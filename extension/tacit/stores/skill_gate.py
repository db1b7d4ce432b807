"""The skill index's gate: every skill's name, description, category folder and body through the
context gate, verdicts kept by file version.

Design notes: docs/design/core.md#tacithandlerscontext"""

from __future__ import annotations

import functools
import os
from dataclasses import replace

from tacit.safety.context_gate import (
    SKILL_BODY, SKILL_CATEGORY, SKILL_DESCRIPTION, SKILL_NAME, Block, LeftOut, gate_context,
)
from tacit.stores import file_memo
from tacit.stores.skill_format import MAX_SKILL_BYTES

MEMO_LIMIT = 20_000  # kept verdicts past this: only those of the last index stay


class SkillGate:
    """``gate(scope, skills)`` for ``ScopedSkills.index_text``: the records whose every part passes,
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
    left_out = tuple(gated.left_out) + tuple(_body_verdict(skill.path, skill.mtime_ns, skill.name))
    if left_out:
        return None, left_out
    return next(b.text for b in gated.allowed if b.kind == SKILL_DESCRIPTION), ()


@functools.lru_cache(maxsize=4096)
def _body_verdict(path: str, _mtime_ns: int, name: str) -> tuple:
    """What the gate refuses in the skill's file (its body), cached by file version."""
    text = _read_bounded(path)
    return () if text is None else gate_context([Block(SKILL_BODY, name, text)]).left_out


def _read_bounded(path: str) -> str | None:
    try:
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            data = handle.read(MAX_SKILL_BYTES + 1)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")

"""Correction detection: a correction is saved at once, not at the next review.

Design notes: docs/design/core.md#tacithandlerscorrections
"""

from __future__ import annotations

import hashlib

from tacit.display import clip
from tacit.handlers.review import no_agent, not_saved_yet
from tacit.hookspecs import ChildRequest, Result
from tacit.session import stale_after

MAX_EARLIER = 3  # older unsaved corrections carried along with the newest
TEXT_CHARS = 4000
NOTED = "corrections.noted"  # session mark: digests of the corrections already noted
MAX_NOTED = 50


def register(engine) -> None:
    engine.on("message_end", detect_on_user_message, name="corrections.detect", priority=20)
    engine.on("turn_end", save_pending_correction, name="corrections.save", priority=20)
    engine.on("before_compact", save_pending_correction, name="corrections.save_compact", priority=20)
    engine.on("session_shutdown", save_pending_correction, name="corrections.save_shutdown", priority=20)


def detect_on_user_message(event, ctx) -> Result | None:
    if event.role != "user" or not ctx.cfg.correction_detection or not event.text.strip():
        return None
    analysis = ctx.analysis
    if analysis is None or not analysis.is_correction:
        return None
    state = ctx.state
    said = hashlib.sha1(" ".join(event.text.lower().split()).encode("utf-8", "replace")).hexdigest()[:16]
    noted = [h for h in state.marks.get(NOTED) or [] if isinstance(h, str)]
    if said in noted:  # the same words again (a pasted template, a repeat): noted and saved once
        return None
    state.marks[NOTED] = (noted + [said])[-MAX_NOTED:]
    waiting = state.pending_correction
    earlier = []
    if waiting:  # not saved yet: keep it, the newer one goes first
        earlier = (list(waiting.get("earlier") or []) + [str(waiting.get("text", ""))[:1000]])[-MAX_EARLIER:]
    verdict = analysis.correction
    state.pending_correction = {
        "text": event.text[:TEXT_CHARS],
        "prev_assistant": state.previous_assistant()[:TEXT_CHARS],
        "turn": state.user_turns,
        "rule": verdict.rule,
        "matched": verdict.matched,
        "earlier": earlier,
        "event_id": event.id,
    }
    if ctx.cfg.silent or ctx.cfg.acknowledge_captures:  # the importance learner acks when asked to
        return None
    # told with the message (a headless run shows nothing later); the save is announced when done.
    # With no agent only a rule tacit can phrase itself is saved (children/fallbacks.py): say so.
    missing = "" if analysis.rule else no_agent(ctx, "correction")
    then = not_saved_yet(missing) if missing else "saving it to memory"
    return Result(notices=[f"Noted (correction): {clip(event.text, 100)} — {then}."])


def save_pending_correction(event, ctx) -> Result | None:
    """At a turn's end, within the rate limit; at a session's end or a compaction, now whatever it says."""
    state, cfg = ctx.state, ctx.cfg
    if not state.pending_correction or state.is_running("correction", stale_after(cfg, "correction")):
        return None  # nothing waits, or a save is in progress: don't double it
    last = state.last_correction_save_turn
    at_turn_end = event.kind == "turn_end"
    if at_turn_end and last is not None and state.user_turns - last < cfg.correction_save_every_turns:
        return None  # rate limit: keep it pending
    pending = state.pending_correction
    state.pending_correction = None
    state.last_correction_save_turn = state.user_turns
    return Result(children=[ChildRequest("correction", {
        "correction": pending.get("text", ""),
        "earlier_corrections": list(pending.get("earlier") or []),
        "prev_assistant": pending.get("prev_assistant", ""),
        "assistant_reply": (event.assistant_text or "")[:TEXT_CHARS] if at_turn_end else "",
        "rule": pending.get("rule"),
        "event_id": pending.get("event_id", ""),
    })])

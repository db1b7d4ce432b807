"""Correction detection: a correction is saved at once, not at the next review.

``message_end`` (user) runs the detector with the agent's previous reply as
context and, on a hit, marks a *pending* correction (the latest wins).
``turn_end`` then asks for the correction-save child with that correction and
the recent conversation — at most one save per ``correction_save_every_turns``
turns, and never while a save is still running (the pending correction then
waits for the next allowed turn rather than being lost). A newer correction
that arrives while one waits becomes the one shown first, and the older ones
ride along (``earlier_corrections``, at most three) so none is dropped. When
the session ends or is compacted with a correction still waiting, it is saved
then, rate limit or not: a pending correction must not die with the session.

Detection runs in the foreground because it is a handful of regexes; the
child runs detached. With the built-in pattern lists, a message that
``might_be_correction`` rules out (no rule of the detector can match it: most
messages) is settled without importing ``re`` or compiling anything — in a
one-process-per-event hook that is most of the cost. Configured lists are
arbitrary regexes, so with any of them set the detector always runs. Text
quoted inside a child's prompt never reaches here: children run with
``TACIT_CHILD=1`` and the engine is inert in them.
"""

from __future__ import annotations

from tacit.events import RunChild
from tacit.state import stale_after

_PATTERNS: dict = {}  # the pattern settings -> compiled patterns, once per process
MAX_EARLIER = 3  # older unsaved corrections carried along with the newest
PATTERN_SETTINGS = ("correction_strong_patterns", "correction_weak_patterns",
                    "correction_negative_patterns", "correction_directive_words")


def register(engine) -> None:
    engine.on("message_end", detect_on_user_message, name="corrections.detect", priority=20)
    engine.on("turn_end", save_pending_correction, name="corrections.save", priority=20)
    engine.on("before_compact", save_pending_at_end, name="corrections.save_compact", priority=20)
    engine.on("session_shutdown", save_pending_at_end, name="corrections.save_shutdown", priority=20)


def _patterns(cfg):
    # Keyed by the settings themselves, not id(cfg): a Config that was freed
    # can hand its id to a new one with other patterns.
    # The data folder is part of the key so each folder's log gets the report.
    key = (cfg.state_dir_str, *(tuple(cfg.settings.get(name) or ()) for name in PATTERN_SETTINGS))
    if key not in _PATTERNS:
        from tacit.detect.correction import patterns_from_config

        patterns = patterns_from_config(cfg)
        if patterns.problems:
            from tacit.log import log

            for problem in patterns.problems:
                log(cfg, "warning", "corrections", problem)
        _PATTERNS[key] = patterns
    return _PATTERNS[key]


def detect_on_user_message(event, ctx):
    if event.role != "user" or not ctx.cfg.correction_detection or not event.text.strip():
        return None
    from tacit.detect.correction import detect_correction, might_be_correction

    if not any(ctx.cfg.settings.get(name) for name in PATTERN_SETTINGS) and not might_be_correction(event.text):
        return None  # the built-in lists cannot call this a correction (the verdict would say no)

    # the previous reply: remembered before this message opened the turn
    recent = ctx.state["recent"]
    prev = next((m["text"] for m in reversed(recent[:-1]) if m["role"] == "assistant"), None)
    verdict = detect_correction(event.text, prev_assistant=prev, patterns=_patterns(ctx.cfg))
    if verdict.is_correction:
        waiting = ctx.state["pending_correction"]
        earlier = []
        if waiting:  # not saved yet: keep it, the newer one goes first
            earlier = (list(waiting.get("earlier") or []) + [waiting["text"][:1000]])[-MAX_EARLIER:]
        ctx.state["pending_correction"] = {
            "text": event.text[:4000],
            "prev_assistant": (prev or "")[:4000],
            "turn": ctx.state["user_turns"],
            "rule": verdict.rule,
            "matched": verdict.matched,
            "earlier": earlier,
        }
    return None


def save_pending_correction(event, ctx):
    pending = ctx.state["pending_correction"]
    if not pending:
        return None
    state, cfg = ctx.state, ctx.cfg
    last = state["last_correction_save_turn"]
    if last is not None and state["user_turns"] - last < cfg.correction_save_every_turns:
        return None  # rate limit: keep it pending
    if state.is_running("correction", stale_after(cfg, "correction")):
        return None  # a save is in progress: don't double it
    return _start_save(state, pending, event.assistant_text)


def save_pending_at_end(event, ctx):
    """Session end / compaction: a waiting correction is saved now, whatever
    the rate limit says (there may be no next turn)."""
    pending = ctx.state["pending_correction"]
    if not pending or ctx.state.is_running("correction", stale_after(ctx.cfg, "correction")):
        return None
    return _start_save(ctx.state, pending, "")


def _start_save(state, pending: dict, assistant_reply: str) -> RunChild:
    state["pending_correction"] = None
    state["last_correction_save_turn"] = state["user_turns"]
    return RunChild(kind="correction", variables={
        "correction": pending["text"],
        "earlier_corrections": list(pending.get("earlier") or []),
        "prev_assistant": pending["prev_assistant"],
        "assistant_reply": (assistant_reply or "")[:4000],
    })

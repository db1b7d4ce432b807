"""Background review: what the user said today is in memory by the next session.

Design notes: docs/design/core.md#tacithandlersreview
"""

from __future__ import annotations

from tacit.children.commands import why_no_agent
from tacit.display import clip
from tacit.hookspecs import ChildRequest, Result
from tacit.learn.captures import picks_an_option
from tacit.session import stale_after

MARK = "review.highlights"  # session mark: the highlighted messages not covered by a save yet
DEFERRED = "review.deferred"  # session mark: the session ended while its review ran (the rest waits for it)
#: at a session's end, the uncovered highlights start a review when their lesson scores add up to
#: this: any highlight (issue 22). Out of fold on the tune split (oof_trigger.py, budget 1.0) 0 /
#: 0.2 / 0.4 gave 28.2 / 22.9 / 18.3 children per 100 user messages and 76 / 74 / 67 % of the
#: labelled lessons reaching a save or a review; the daily budget bounds the cost (docs/learning.md)
END_BUDGET = 0.0
MAX_HIGHLIGHTS = 40  # a long day of highlights; beyond it the lowest-scored give way
HIGHLIGHT_CHARS = 1000  # per message, kept in the session state (written through on every event)


def register(engine) -> None:
    engine.on("message_end", note_highlight, name="review.highlight", priority=25)
    engine.on("turn_end", maybe_review, name="review.nudge", priority=40)
    engine.on("session_shutdown", review_at_end, name="review.end", priority=40)
    engine.on("before_compact", review_at_end, name="review.compact", priority=40)


def _durable_now(analysis, text: str) -> bool:
    """A statement worth saving today: a rule tacit can phrase, or a confident durable statement ("option
    B" is neither: a pick among the agent's choices means nothing on its own)."""
    if analysis.category == "none" or picks_an_option(text):
        return False
    from tacit.detect.model import model  # the detectors: imported at the first user message

    durable = model("user_model.json", "durable")
    confident = float(getattr(durable, "confident", None) or durable.threshold)
    return analysis.rule is not None or analysis.durable_score >= confident


def note_highlight(event, ctx) -> Result | None:
    """Keep every highlighted user message (not a correction: that one has its own save)."""
    cfg, analysis = ctx.cfg, ctx.analysis
    if event.role != "user" or analysis is None or not cfg.review_enabled or not analysis.highlight:
        return None
    if analysis.is_correction and cfg.correction_detection:
        return None
    durable = _durable_now(analysis, event.text)
    item = {"text": event.text[:HIGHLIGHT_CHARS], "score": analysis.lesson_score, "category": analysis.category,
            "rule": analysis.rule, "durable": durable, "turn": ctx.state.user_turns}
    kept = [h for h in highlights(ctx.state) if h.get("text") != item["text"]]
    kept.append(item)
    if len(kept) > MAX_HIGHLIGHTS:
        kept.remove(min(kept, key=lambda h: float(h.get("score") or 0.0)))
    ctx.state.marks[MARK] = kept
    if durable and not cfg.silent and not cfg.acknowledge_captures:  # the importance learner acks when asked to
        # told with the message (every host shows it by the reply's end, a headless run too)
        shown = clip(analysis.rule or event.text, 100)
        missing = no_agent(ctx, "review")  # no child: no review saves it (its fallback skips)
        then = not_saved_yet(missing) if missing else "this session's memory review saves it"
        return Result(notices=[f"Noted ({analysis.category}): {shown} — {then}."])
    return None


def no_agent(ctx, kind: str) -> str:
    """Why no child of ``kind`` can run for this session ("" when one can), looked for on the PATH
    the session's host has."""
    return why_no_agent(ctx.cfg.for_session(ctx.host, ctx.engine.launch_env(ctx.session_id)), ctx.host, kind)


def not_saved_yet(missing: str) -> str:
    return f"not saved yet: no background agent can run ({missing}); `tacit review` shows what tacit noted"


def highlights(state) -> list[dict]:
    return [h for h in state.marks.get(MARK) or [] if isinstance(h, dict)]


def _why(state, cfg) -> str | None:
    """Why a review is due at this turn's end, or None."""
    from tacit.detect.analysis import review_due

    waiting = highlights(state)
    if waiting and review_due([float(h.get("score") or 0) for h in waiting]):
        return f"{len(waiting)} highlighted message{'s' if len(waiting) != 1 else ''}"
    if any(h.get("durable") for h in waiting):
        return "a durable statement"
    if state.user_turns < cfg.review_min_user_turns:
        return None
    if state.turns_since_review >= cfg.nudge_interval > 0:
        return f"{state.turns_since_review} turns"
    if state.tool_calls_since_review >= cfg.nudge_tool_calls > 0:
        return f"{state.tool_calls_since_review} tool calls"
    return None


def maybe_review(event, ctx) -> Result | None:
    cfg, state = ctx.cfg, ctx.state
    if not cfg.review_enabled:
        return None
    reason = _why(state, cfg)
    if reason is None or state.is_running("review", stale_after(cfg, "review")):
        return None
    return _start(state, reason)


def review_at_end(event, ctx) -> Result | None:
    """Session end / compaction: uncovered highlights are reviewed now."""
    cfg, state = ctx.cfg, ctx.state
    waiting = highlights(state)
    if not cfg.review_enabled or not waiting or sum(float(h.get("score") or 0.0) for h in waiting) < END_BUDGET:
        return None
    reason = "the session's end" if event.kind == "session_shutdown" else "a compaction"
    if state.is_running("review", stale_after(cfg, "review")):
        state.marks[DEFERRED] = reason  # one child per session: the service starts it after this one
        return None
    return _start(state, reason)


def deferred_review(state, cfg) -> ChildRequest | None:
    """The review a session's end deferred while another ran, once that one is done (housekeeping)."""
    reason = state.marks.get(DEFERRED)
    if not reason or state.is_running("review", stale_after(cfg, "review")):
        return None
    state.marks.pop(DEFERRED, None)
    if not cfg.review_enabled or not highlights(state):
        return None
    return _start(state, str(reason)).children[0]


def _start(state, reason: str) -> Result:
    waiting = highlights(state)
    state.marks.pop(MARK, None)
    state.turns_since_review = 0
    state.tool_calls_since_review = 0
    return Result(children=[ChildRequest("review", {"reason": reason, "highlighted": waiting})])

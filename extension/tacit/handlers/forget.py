""""Forget that …" typed in a session: forgotten at once, everywhere
(``tacit.forget``), the user told exactly what was removed, and the agent
told not to rely on it for the rest of the session (its snapshot is frozen)."""

from __future__ import annotations

from tacit.app import Tacit
from tacit.forget import forget
from tacit.hookspecs import ContextResult, Injection
from tacit.stores import history


def register(engine) -> None:
    engine.on("message_end", forget_when_asked, name="forget", priority=15)


def forget_when_asked(event, ctx) -> ContextResult | None:
    analysis = ctx.analysis
    if analysis is None or not analysis.forget:
        return None
    # the user's own request: theirs in the history, and told here (not again as a background notice)
    actor = history.Actor(kind="user", name="in session", session_id=event.session_id, host=event.host,
                          cause=event.text, cause_event=event.id)
    with Tacit(ctx.cfg).as_actor(actor) as tacit:
        result = forget(tacit, analysis.forget, project=ctx.project)
    if result.get("removed") or result.get("candidates"):
        note = (f"The user asked tacit to forget \"{result.get('text')}\"; it was removed from memory. Do not rely "
                "on it for the rest of this session.")
    elif result.get("unclear"):  # only mentions: the user picks; nothing is gone yet
        note = (f"The user asked tacit to forget \"{result.get('text')}\"; nothing was removed: some memory entries "
                "only mention it and tacit asked the user which to forget. Do not say it was forgotten.")
    elif not result.get("success"):
        why = result.get("error") or "; ".join(e.rstrip(".") for e in result.get("errors") or []) or "unknown"
        note = f"The user asked tacit to forget \"{result.get('text')}\"; it failed: {why}."
    else:  # nothing said it: the agent must not claim a removal
        note = (f"The user asked tacit to forget \"{result.get('text')}\"; no memory entry said it, so nothing "
                "was removed. Do not say it was forgotten.")
    return ContextResult(notices=[result.get("message") or result.get("error", "")], context=[Injection(note, source="tacit.forget")])

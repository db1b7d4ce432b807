"""The host boundary: what every event's text goes through before tacit keeps it.

Design notes: docs/design/core.md#tacitboundary
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields, replace

from tacit.events import Event
from tacit.hookspecs import ContextResult, Result, ToolCallResult
from tacit.safety import asks_not_to_keep, gate_context, redact_secrets, strip_private
from tacit.safety.context_gate import FIX_PATTERN, NOTICE, Block, GateResult
from tacit.safety.private_keys import key_open, material_prefix
from tacit.safety.secrets import REDACTED

TEXT_CHARS = 100_000  # of one text field: the head and the tail are kept
_HEAD = 60_000
_TAIL = TEXT_CHARS - _HEAD
CUT_MARK = "\n[…]\n"
MAX_DEPTH = 8  # nested containers in a tool's arguments
MAX_STRINGS = 2_000  # strings cleaned in one event's nested values
WITHHELD = ""  # what a withheld message's text becomes
TURN_MARK = "privacy.withheld_turn"  # state.marks: the turn number the user asked not to keep
KEY_MARK = "privacy.key_open"  # state.marks: the user's last message ended inside a private key
KEY_SEEN = "privacy.key_rest"  # state.marks: a digest of the last text redacted as the rest of a key
WITHHELD_REASON = "Stopped by a tacit guard (its reason is not shown: it failed tacit's context gate)."
GATED_SOURCES = frozenset({"context.session"})  # handlers that gate their own injections
_FIX_SOURCES = ("fixes.",)  # injections of fix patterns ("<learned-patterns>")


def clean_text(text: str) -> str:
    """``text`` storable as UTF-8: a split surrogate pair is joined, a lone half becomes U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def bounded(text: str) -> str:
    """At most ``TEXT_CHARS`` characters: the head and the tail, marked where cut."""
    if len(text) <= TEXT_CHARS:
        return text
    return text[:_HEAD] + CUT_MARK + text[-_TAIL:]


def scrub(text) -> str:
    """One text as tacit may keep it: valid, private spans out, bounded, secrets redacted. Non-str input gives ""."""
    if not isinstance(text, str) or not text:
        return ""
    return redact_secrets(bounded(strip_private(clean_text(text))))


@dataclass(slots=True)
class _Budget:
    left: int  # strings that may still be cleaned


def clean_value(value, *, _depth: int = 0, _budget: _Budget | None = None):
    """A nested value with every string scrubbed (past ``MAX_DEPTH`` or ``MAX_STRINGS``: dropped)."""
    budget = _budget or _Budget(MAX_STRINGS)
    if isinstance(value, str):
        if budget.left <= 0:
            return ""
        budget.left -= 1
        return scrub(value)
    if isinstance(value, dict):
        if _depth >= MAX_DEPTH:
            return {}
        out = {}
        for key, item in value.items():
            if budget.left <= 0:
                break
            name = clean_value(str(key), _depth=_depth + 1, _budget=budget)  # the key first: it is kept
            out[name] = clean_value(item, _depth=_depth + 1, _budget=budget)
        return out
    if isinstance(value, (list, tuple)):
        if _depth >= MAX_DEPTH:
            return type(value)()
        items = []
        for item in value:
            if budget.left <= 0:
                break
            items.append(clean_value(item, _depth=_depth + 1, _budget=budget))
        return type(value)(items)
    return value


def clean_event(event: Event) -> Event:
    """``event`` with every text field cleaned (nothing to clean: the event itself)."""
    changes = {}
    budget = _Budget(MAX_STRINGS)
    for f in fields(event):
        if f.name in ("session_id", "host", "id", "cwd"):
            continue  # identifiers, not text anyone wrote
        value = getattr(event, f.name)
        if isinstance(value, (str, dict, list)):
            cleaned = clean_value(value, _budget=budget)
            if cleaned != value:
                changes[f.name] = cleaned
    if isinstance(event.cwd, str):
        cwd = clean_text(event.cwd)
        if cwd != event.cwd:
            changes["cwd"] = cwd
    return replace(event, **changes) if changes else event


# Turns the user asked not to keep
def withheld_turn(state) -> bool:
    """Is the session's current turn one the user asked not to keep?"""
    return state.marks.get(TURN_MARK) == state.user_turns and state.user_turns > 0


# A private key pasted over several messages
_USER_TEXT = {"message_end": "text", "before_agent_start": "prompt", "turn_end": "user_text"}


def _user_text(event: Event) -> str | None:
    name = _USER_TEXT.get(event.kind)
    if name is None or (event.kind == "message_end" and event.role != "user"):
        return None
    value = getattr(event, name, None)
    return value if isinstance(value, str) else None


def opens_key(event: Event) -> bool:
    """Does the user's text of ``event`` (before cleaning) end inside a private key?"""
    text = _user_text(event)
    return bool(text) and key_open(text)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]


def _rest_of_key(event: Event, state, opened: bool) -> Event:
    """After a message that ended inside a private key, the key lines the next user message starts
    with are redacted too (the same text seen again: the same way)."""
    text = _user_text(event)
    if text is None:
        return event
    pending = state.marks.get(KEY_MARK) or state.marks.get(KEY_SEEN) == _digest(text)
    if pending and event.kind != "turn_end":
        state.marks.pop(KEY_MARK, None)
    if pending and (cut := material_prefix(text)):
        state.marks[KEY_SEEN] = _digest(text)
        if not text[cut:].strip():  # the whole message was key: more may follow
            state.marks[KEY_MARK] = True
        event = replace(event, **{_USER_TEXT[event.kind]: REDACTED.format(kind="private_key") + text[cut:]})
    if opened:
        state.marks[KEY_MARK] = True
    return event


def admit(event: Event, state, opened_key: bool = False) -> Event:
    """``event`` as the session may keep it: a message that asks not to be kept is emptied and its
    turn's texts withheld; the rest of a private key pasted over messages is redacted."""
    event = _rest_of_key(event, state, opened_key)
    kind = event.kind
    if kind == "message_end" and event.role == "user":
        if asks_not_to_keep(event.text):
            state.marks[TURN_MARK] = state.user_turns + 1  # the turn this message opens
            return replace(event, text=WITHHELD)
        state.marks.pop(TURN_MARK, None)
        return event
    if kind == "before_agent_start":
        return replace(event, prompt=WITHHELD) if asks_not_to_keep(event.prompt) else event
    if kind == "command":
        return replace(event, args=WITHHELD) if asks_not_to_keep(event.args) else event
    if kind == "turn_end":
        if withheld_turn(state) or asks_not_to_keep(event.user_text):
            return replace(event, user_text=WITHHELD, assistant_text=WITHHELD)
        return event
    if not withheld_turn(state):
        return event
    if kind == "message_end":  # the agent's reply to a withheld message
        return replace(event, text=WITHHELD)
    if kind == "tool_result":
        return replace(event, args={}, error=None if event.error is None else WITHHELD)
    return event


def gate_outgoing(result: Result) -> Result:
    """``result`` with its context and notices gated (what fails: dropped, told in one notice)."""
    context = result.context if isinstance(result, ContextResult) else []
    # what a stopped tool call tells the agent is injected text too
    if isinstance(result, ToolCallResult) and result.reason and \
            gate_context([Block(NOTICE, "reason", result.reason)]).left_out:
        result.reason = WITHHELD_REASON
    if not context and not result.notices:
        return result
    blocks = [Block(FIX_PATTERN if injection.source.startswith(_FIX_SOURCES) else NOTICE,
                    injection.source or f"injection {n}", injection.text, f"context-{n}")
              for n, injection in enumerate(context) if injection.source not in GATED_SOURCES]
    blocks += [Block(NOTICE, "notice", notice, f"notice-{n}") for n, notice in enumerate(result.notices)]
    if not blocks:
        return result
    gated = gate_context(blocks)
    allowed = {block.group: block.text for block in gated.allowed}
    if isinstance(result, ContextResult):
        result.context = [
            injection if injection.source in GATED_SOURCES else replace(injection, text=allowed[f"context-{n}"])
            for n, injection in enumerate(context)
            if injection.source in GATED_SOURCES or f"context-{n}" in allowed]
    result.notices = [allowed[f"notice-{n}"] for n in range(len(result.notices)) if f"notice-{n}" in allowed]
    if gated.left_out:
        result.notices.append(GateResult((), gated.left_out).notice())
    return result

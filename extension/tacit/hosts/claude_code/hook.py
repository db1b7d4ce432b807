"""Claude Code hooks → tacit events → hook output.

``tacit hook claude-code <Event>`` (see ``tacit.hosts.hook_entry``) calls
``handle(cfg, event_name, payload_bytes)`` once per hook process and prints
what it returns.

Design decisions, and why
- **One translation table.** Each Claude Code hook maps to the host-neutral
  events of ``tacit.events``:

  ===================== ===============================================
  SessionStart          session_start + before_agent_start (inject)
  UserPromptSubmit      message_end(user) (+ scope="prompt" injections)
  UserPromptExpansion   command (a slash command expanded)
  PostToolUse(Failure)  tool_call (ok / not ok)
  Stop                  message_end(assistant) + turn_end
  PreCompact            before_compact
  SessionEnd            session_shutdown
  ===================== ===============================================

  Every other hook (PreToolUse, PostToolBatch, MessageDisplay, …) is ignored
  before the engine is even built: nothing to do, nothing to pay for.
- **Never alter the turn.** The only output is ``additionalContext`` (text the
  model reads) and ``systemMessage`` (a notice for the user). Never
  ``decision: "block"``, never ``continue: false``, never exit 2 — a memory
  extension that blocks a prompt or forces a Stop continuation is worse than
  none. A Stop with ``stop_hook_active`` (another hook forced a continuation)
  is ignored: that is not the end of a user turn.
- **The 10,000-character cap is handled here, deliberately.** Claude Code
  replaces longer ``additionalContext`` with a file path and a 2 KB preview
  (observed on 2.1.197), which would hide the memory block. Injections are
  kept in ``priority`` order (lower first: memory snapshot 10, save guidance
  20, skill index 30); the first one that does not fit is cut at a line
  boundary with a note saying how to see the rest, and everything after it is
  dropped. See ``fit_context``.
- **Fast path.** This module imports nothing heavy at top level: the JSON
  payload is parsed with ``tacit.fastjson`` (the C scanner without ``re``),
  and the engine is built only for hooks that map to events.
- **Shared with Codex CLI.** Codex sends the same payloads for the hooks it
  has and reads the same output (same 10,000-character cap), so
  ``tacit.hosts.codex.hook`` calls ``handle`` with ``host="codex"``.
"""

from __future__ import annotations

HOST = "claude-code"
CONTEXT_CAP = 10_000  # characters of additionalContext Claude Code keeps inline
MIN_CUT = 200  # a cut-down injection shorter than this is dropped, not shown
TRUNCATION_NOTE = ("\n[tacit: cut to fit the host's 10,000-character hook context limit; "
                   "run `tacit memory show` and `tacit skills` to see everything]")
ARG_CHARS = 2000  # a tool's error text longer than this is clipped (its args: tacit.events.clip_tool_args)

# hooks that carry injected text back to the model
_CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure")


def handle(cfg, event_name: str, payload_bytes: bytes, host: str = HOST) -> str:
    """Translate one hook payload, dispatch it, return the hook's stdout
    ("" for no output). Raises only on bugs; ``hook_entry`` catches those.
    ``host`` names the engine's host (child command, TACIT_HOST)."""
    if cfg.is_child:
        return ""
    translate = _TRANSLATORS.get(event_name)
    if translate is None:
        return ""
    from tacit.fastjson import loads

    payload = loads(payload_bytes) if payload_bytes.strip() else {}
    if not isinstance(payload, dict):
        return ""
    events = translate(payload)
    if not events:
        return ""
    from tacit.hosts.runtime import build_engine

    engine = build_engine(cfg, "hook", host=host)
    effects: list = []
    for event in events:
        effects.extend(engine.dispatch(event))
    if event_name == "SessionStart" and any(getattr(e, "scope", "") == "session" for e in effects):
        note = cli_note(cfg)
        if note:
            from tacit.events import InjectContext

            effects.append(InjectContext(text=note, scope="session", priority=25, source=host))
    return render_output(event_name, effects)


def cli_note(cfg) -> str:
    """When the shell Claude Code gives the agent has no ``tacit`` on PATH
    (tacit installed in a venv or by pipx without its bin on PATH), the
    saving guidance would fail: name the absolute command instead."""
    import os
    import sys

    for folder in (cfg.env.get("PATH") or "").split(os.pathsep):
        if folder and os.access(os.path.join(folder, "tacit"), os.X_OK):
            return ""
    script = os.path.join(os.path.dirname(sys.executable), "tacit")
    command = script if os.access(script, os.X_OK) else f"{sys.executable} -m tacit.cli"
    return f"(`tacit` is not on PATH in this shell: run it as `{command}`, e.g. `{command} memory add \"…\"`.)"


# ---------------------------------------------------------------------------
# payload -> events
# ---------------------------------------------------------------------------


def _common(payload: dict) -> dict:
    session_id = payload.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        raise ValueError("hook payload without a session_id")
    cwd = payload.get("cwd")
    return {"session_id": session_id, "cwd": cwd if isinstance(cwd, str) else None}


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _session_start(payload: dict) -> list:
    from tacit.events import BeforeAgentStart, SessionStart

    common = _common(payload)
    return [SessionStart(source=_text(payload.get("source")) or "startup", **common),
            BeforeAgentStart(**common)]


def _user_prompt(payload: dict) -> list:
    from tacit.events import MessageEnd

    return [MessageEnd(role="user", text=_text(payload.get("prompt")), **_common(payload))]


def _expansion(payload: dict) -> list:
    from tacit.events import Command

    name = _text(payload.get("command_name"))
    if not name:
        return []
    return [Command(name=name, args=_text(payload.get("command_args")), **_common(payload))]


def _tool(payload: dict, ok: bool) -> list:
    from tacit.events import ToolCall, clip_tool_args

    name = _text(payload.get("tool_name"))
    if not name:
        return []
    error = None
    if not ok:
        error = _text(payload.get("error"))[:ARG_CHARS] or "failed"
    return [ToolCall(name=name, ok=ok, args=clip_tool_args(payload.get("tool_input")), error=error,
                     **_common(payload))]


def _stop(payload: dict) -> list:
    if payload.get("stop_hook_active"):
        return []  # a continuation forced by some hook, not the end of a user turn
    from tacit.events import MessageEnd, TurnEnd

    common = _common(payload)
    text = payload.get("last_assistant_message")
    if not isinstance(text, str):
        # older builds had no last_assistant_message: read the transcript's tail
        from tacit.hosts.claude_code.transcript import last_assistant_text

        text = last_assistant_text(_text(payload.get("transcript_path")))
    events = [MessageEnd(role="assistant", text=text, **common)] if text else []
    return events + [TurnEnd(assistant_text=text, **common)]


def _pre_compact(payload: dict) -> list:
    from tacit.events import BeforeCompact

    return [BeforeCompact(trigger=_text(payload.get("trigger")) or "auto", **_common(payload))]


def _session_end(payload: dict) -> list:
    from tacit.events import SessionShutdown

    return [SessionShutdown(reason=_text(payload.get("reason")), **_common(payload))]


_TRANSLATORS = {
    "SessionStart": _session_start,
    "UserPromptSubmit": _user_prompt,
    "UserPromptExpansion": _expansion,
    "PostToolUse": lambda p: _tool(p, True),
    "PostToolUseFailure": lambda p: _tool(p, False),
    "Stop": _stop,
    "PreCompact": _pre_compact,
    "SessionEnd": _session_end,
}
EVENT_NAMES = tuple(_TRANSLATORS)


# ---------------------------------------------------------------------------
# effects -> hook output
# ---------------------------------------------------------------------------


def render_output(event_name: str, effects: list) -> str:
    """The hook's stdout for these effects: a JSON object with
    ``hookSpecificOutput.additionalContext`` and/or ``systemMessage``, or ""."""
    from tacit.events import InjectContext, Notify

    injections = [e for e in effects if isinstance(e, InjectContext)]
    if event_name == "SessionStart":
        injections = [e for e in injections if e.scope == "session"]
    else:
        # mid-session only "prompt" injections make sense; a session-scope
        # text would repeat the frozen snapshot
        injections = [e for e in injections if e.scope == "prompt"]
    notices = [e.text for e in effects if isinstance(e, Notify) and e.text]
    output: dict = {}
    if injections and event_name in _CONTEXT_EVENTS:
        text = fit_context(injections)
        if text:
            output["hookSpecificOutput"] = {"hookEventName": event_name, "additionalContext": text}
    if notices:
        output["systemMessage"] = fit_text("\n".join(notices), CONTEXT_CAP)
    if not output:
        return ""
    from tacit.fastjson import dumps

    return dumps(output)


def fit_context(injections: list, cap: int = CONTEXT_CAP) -> str:
    """Join injection texts in priority order (lower first, ties in order)
    within ``cap`` characters. The first text that does not fit is cut at a
    line boundary and marked; every later one is dropped."""
    ordered = sorted(enumerate(injections), key=lambda pair: (pair[1].priority, pair[0]))
    parts: list[str] = []
    used = 0
    sep = "\n\n"
    for _, effect in ordered:
        text = (effect.text or "").strip()
        if not text:
            continue
        joiner = len(sep) if parts else 0
        if used + joiner + len(text) <= cap:
            parts.append(text)
            used += joiner + len(text)
            continue
        room = cap - used - joiner - len(TRUNCATION_NOTE)
        if room >= MIN_CUT:
            parts.append(cut_at_line(text, room) + TRUNCATION_NOTE)
        elif cap - used - joiner >= len(TRUNCATION_NOTE):
            parts.append(TRUNCATION_NOTE.lstrip("\n"))
        break
    return sep.join(parts)


def cut_at_line(text: str, room: int) -> str:
    """The longest prefix of ``text`` within ``room`` chars that ends at a line
    end (or, for one long line, at a word boundary)."""
    if len(text) <= room:
        return text
    head = text[:room]
    cut = head.rfind("\n")
    if cut < room // 2:
        space = head.rfind(" ")
        cut = space if space >= room // 2 else room
    return head[:cut].rstrip()


def fit_text(text: str, cap: int) -> str:
    return text if len(text) <= cap else cut_at_line(text, cap - 1) + "…"

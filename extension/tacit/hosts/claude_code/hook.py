"""Claude Code hooks → tacit events → hook output.

``handle(engine, event_name, payload)`` is what the service (and a hook
running in-process when the service cannot be reached) calls for one hook.

Design notes: docs/design/hosts.md#tacithostsclaude_codehook
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from tacit import slash
from tacit.children.commands import agent_available
from tacit.commandline import agent_path, on_path, tacit_display
from tacit.config import captured
from tacit.consolidation import scopes_to_consolidate, start_in_background
from tacit.events import (
    BeforeAgentStart,
    BeforeCompact,
    Command,
    MessageEnd,
    SessionShutdown,
    SessionStart,
    ToolCall,
    ToolResult,
    TurnEnd,
    clip_tool_args,
)
from tacit.fsutil import read_tail
from tacit.guards.outcome import tool_call_args
from tacit.hookspecs import ContextResult, Injection, Result, ToolCallResult, by_priority, honoured
from tacit.hosts import spec as host_specs
from tacit.projects import project_for

HOST = "claude-code"
CONTEXT_CAP = 10_000  # characters of additionalContext Claude Code keeps inline
MIN_CUT = 200  # a cut-down injection shorter than this is dropped, not shown
TRUNCATION_NOTE = ("\n[tacit: cut to fit the host's 10,000-character hook context limit; "
                   "run `tacit memory show` and `tacit skill list` to see everything]")
ERROR_CHARS = 2000  # a tool's error text longer than this is clipped
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit")
TAIL_BYTES = 2 * 1024 * 1024  # of a transcript, read for its last reply
SLASH = re.compile(r"\s*/(?:tacit:)?(memory-[a-z]+)(?:\s+(.*?))?\s*\Z", re.S)


def handle(engine, event_name: str, payload: dict, *, host: str = HOST, event_id: str = "") -> str:
    """Translate one hook payload, dispatch it, return the hook's stdout."""
    translate = TRANSLATORS.get(event_name)
    if translate is None or event_name not in host_specs.get(host).hook_events or not isinstance(payload, dict):
        return ""
    if event_name == "UserPromptSubmit":
        answered = answer_slash_command(engine, payload, host)
        if answered is not None:
            return answered
    results = [engine.dispatch(replace(event, id=f"{event_id}:{n}") if event_id else event)
               for n, event in enumerate(translate(payload, host))]
    if event_name == "SessionStart" and not engine.cfg.is_child and not on_path(agent_path(
            session_view(engine, payload), login_shell=host_specs.get(host).login_shell, wait=0.3)):
        results.append(ContextResult(context=[Injection(cli_note(), priority=25, source=host)]))
    return render(event_name, results, host)


def session_view(engine, payload: dict) -> dict:
    """The environment facts of the session this hook is for: those of the environment its host was
    launched with (the service may have been started by another host), else the service's."""
    session_id = payload.get("session_id") if isinstance(payload.get("session_id"), str) else ""
    launched = engine.launch_env(session_id[:200])
    return engine.cfg.env if launched is None else captured(launched)


def slash_command(prompt) -> tuple[str, str] | None:
    """``/tacit:memory-show`` (or ``/memory-show``) and its arguments, or None."""
    match = SLASH.match(prompt) if isinstance(prompt, str) else None
    if match is None or match.group(1) not in slash.NAMES:
        return None
    return match.group(1), (match.group(2) or "").strip()


def answer_slash_command(engine, payload: dict, host: str) -> str | None:
    """A tacit slash command answered here as a blocked prompt's ``reason``: no model turn
    (docs/hosts/claude-code.md). A consolidation with work to do runs detached, told at the next prompt."""
    found = slash_command(payload.get("prompt"))
    if found is None:
        return None
    name, args = found
    cfg = engine.cfg
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    project = project_for(cwd, home=cfg.env.get("HOME"))
    session_id = payload.get("session_id") if isinstance(payload.get("session_id"), str) else ""
    if session_id:  # the learners count slash-command use
        engine.dispatch(Command(session_id=session_id[:200], host=host, name=f"tacit:{name}", args=args, cwd=cwd))
    force = slash.wants_force(args)
    todo = scopes_to_consolidate(cfg, project=project, force=force) if name == "memory-consolidate" else []
    if todo:
        start_in_background(cfg, session_id=session_id[:200] or "consolidate", host=host, project=project, force=force,
                            launched=engine.launch_env(session_id[:200]))
        return _blocked(host, f"Consolidating {', '.join(todo)} memory in the background"
                        f"{' with a child agent' if agent_available(cfg, host) else ' (merging duplicates)'}; "
                        "tacit tells you what changed at your next prompt.")
    result = slash.run(slash.typed_by_you(cfg, name, session_id=session_id[:200], host=host), name, args,
                       project=project)
    if name in ("memory-consolidate", "memory-forget", "memory-teach"):
        engine.reload_stores()
    return _blocked(host, result.get("text") or "")


def _blocked(host: str, text: str) -> str:
    """The answer as the blocked prompt's reason; in Claude Code without the "Original prompt: …" echo
    (``suppressOriginalPrompt``) and with its ``/tacit:`` names (docs/hosts/claude-code.md). Codex 0.171.0
    refuses that field ("invalid user prompt submit JSON output": the hook failed and the prompt went
    on to the model), and has no plugin namespace (docs/hosts/codex.md)."""
    if host != HOST:
        return json.dumps({"decision": "block", "reason": fit_text(text, CONTEXT_CAP)}, ensure_ascii=False)
    return json.dumps({"decision": "block", "reason": fit_text(slash_names(text), CONTEXT_CAP),
                       "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "suppressOriginalPrompt": True}},
                      ensure_ascii=False)


_BARE_SLASH = re.compile(r"(?<![\w:/])/(memory-[a-z]+)\b")


def slash_names(text: str) -> str:
    """Hints name the commands as Claude Code lists them: ``/memory-forget`` → ``/tacit:memory-forget``."""
    return _BARE_SLASH.sub(lambda m: f"/tacit:{m.group(1)}" if m.group(1) in slash.NAMES else m.group(0), text)


def cli_note() -> str:
    """The agent's shell has no ``tacit`` on PATH (a venv, pipx without its
    bin on PATH): the saving guidance names the absolute command instead."""
    command = tacit_display()
    return f"(`tacit` is not on PATH in this shell: run it as `{command}`, e.g. `{command} memory add \"…\"`.)"


def _common(payload: dict, host: str) -> dict:
    session_id = payload.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        raise ValueError("hook payload without a session_id")
    cwd = payload.get("cwd")
    return {"session_id": session_id[:200], "cwd": cwd if isinstance(cwd, str) else None, "host": host}


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _session_start(payload: dict, host: str) -> list:
    common = _common(payload, host)
    return [SessionStart(source=_text(payload.get("source")) or "startup", **common),
            BeforeAgentStart(**common)]


def _expansion(payload: dict, host: str) -> list:
    name = _text(payload.get("command_name"))
    if not name:
        return []
    return [Command(name=name, args=_text(payload.get("command_args")), **_common(payload, host))]


def _pre_tool(payload: dict, host: str) -> list:
    name = _text(payload.get("tool_name"))
    if not name:
        return []
    # the guards read the whole command (events clip arguments for the learners)
    return [ToolCall(name=name, args=tool_call_args(payload.get("tool_input")), **_common(payload, host))]


def _tool(payload: dict, host: str, ok: bool) -> list:
    name = _text(payload.get("tool_name"))
    if not name:
        return []
    error = None if ok else (_text(payload.get("error"))[:ERROR_CHARS] or "failed")
    return [ToolResult(name=name, ok=ok, args=clip_tool_args(payload.get("tool_input")), error=error,
                       **_common(payload, host))]


def _stop(payload: dict, host: str) -> list:
    if payload.get("stop_hook_active"):
        return []  # a continuation forced by some hook, not the end of a user turn
    common = _common(payload, host)
    text = payload.get("last_assistant_message")
    if not isinstance(text, str):
        # older builds had no last_assistant_message: read the transcript's tail
        text = last_assistant_text(_text(payload.get("transcript_path")))
    events = [MessageEnd(role="assistant", text=text, **common)] if text else []
    return events + [TurnEnd(assistant_text=text, **common)]


def last_assistant_text(path: str) -> str:
    """The last assistant text of a Claude Code transcript, read from its tail."""
    if not path or not isinstance(path, str):
        return ""
    texts: list[str] = []
    message_id = None
    for raw in reversed(read_tail(path, TAIL_BYTES).splitlines()):
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):  # a line nested past Python's limit is one bad line
            continue  # the first line of the tail may be cut in half
        if not isinstance(record, dict):
            continue
        if record.get("type") == "user" and not record.get("isMeta") and texts:
            break  # reached the prompt that started this reply
        if record.get("type") != "assistant":
            continue
        message = record.get("message") or {}
        if not isinstance(message, dict):
            continue
        if message_id is not None and message.get("id") != message_id:
            break  # an earlier assistant message: the last one is complete
        message_id = message.get("id")
        for block in reversed(message.get("content") or []):
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
    return "\n".join(reversed(texts))


TRANSLATORS = {
    "SessionStart": _session_start,
    "UserPromptSubmit": lambda p, h: [MessageEnd(role="user", text=_text(p.get("prompt")), **_common(p, h))],
    "UserPromptExpansion": _expansion,
    "PreToolUse": _pre_tool,
    "PostToolUse": lambda p, h: _tool(p, h, True),
    "PostToolUseFailure": lambda p, h: _tool(p, h, False),
    "Stop": _stop,
    "PreCompact": lambda p, h: [BeforeCompact(trigger=_text(p.get("trigger")) or "auto", **_common(p, h))],
    "SessionEnd": lambda p, h: [SessionShutdown(reason=_text(p.get("reason")), **_common(p, h))],
}


def render(event_name: str, results: list[Result], host: str = HOST) -> str:
    """The hook's stdout: a JSON object with ``hookSpecificOutput`` and/or ``systemMessage``, or "" for no output.
    A stop is a question only where ``host``'s spec honours ``tool_call.ask`` (Codex: a deny)."""
    context = [i for r in results if isinstance(r, ContextResult) for i in r.context]
    notices = [n for r in results for n in r.notices if n]
    output: dict = {}
    if context and event_name in CONTEXT_EVENTS:
        text = fit_context(context)
        if text:
            output["hookSpecificOutput"] = {"hookEventName": event_name, "additionalContext": text}
    if event_name == "PreToolUse":
        stop = next((r for r in results if isinstance(r, ToolCallResult) and (r.block or r.ask)), None)
        if stop is not None:
            output["hookSpecificOutput"] = {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny" if stop.block or "tool_call.ask" not in honoured(host) else "ask",
                "permissionDecisionReason": fit_text(stop.reason, 2000),
            }
    if notices:
        output["systemMessage"] = fit_text(slash_names("\n".join(notices)), CONTEXT_CAP)
    return json.dumps(output, ensure_ascii=False) if output else ""


def fit_context(injections: list[Injection], cap: int = CONTEXT_CAP) -> str:
    """Injection texts in priority order (lower first, ties in order) within ``cap`` characters: the
    first that does not fit is cut at a line boundary and marked; every later one is dropped."""
    parts: list[str] = []
    used = 0
    sep = "\n\n"
    for text in by_priority(injections):
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

"""tacit inside Hermes Agent: the ``hermes_agent.plugins`` entry point.

Design notes: docs/design/hosts.md#tacithostshermesplugin
"""

from __future__ import annotations

import json
import os
import sys
import threading

from tacit import slash
from tacit.app import Actor
from tacit.config import live_env, load_config
from tacit.events import (
    BeforeAgentStart,
    Command,
    MessageEnd,
    SessionShutdown,
    SessionStart,
    ToolCall,
    ToolResult,
    TurnEnd,
    clip_tool_args,
)
from tacit.guards.outcome import tool_call_args
from tacit.hookspecs import ContextResult, ToolCallResult, by_priority
from tacit.hosts.hermes import overflow, shared_memory
from tacit.hosts.hermes.child import tag_for
from tacit.hosts.hermes.settings import (
    adapt_config,
    hermes_home_of,
    hermes_reviews,
    read_raw,
    value,
)
from tacit.hosts.runtime import build_engine
from tacit.log import log, log_exception
from tacit.privacy.exclusion import excluded
from tacit.projects import project_for
from tacit.search import tool as search_tool
from tacit.stores import tombstones
from tacit.stores.memory import MemoryStore

HOST = "hermes"
HOOKS = ("on_session_start", "pre_llm_call", "pre_tool_call", "post_tool_call", "transform_llm_output",
         "post_llm_call", "on_session_end", "on_session_finalize")
SKILL_TRIGGER_OFF = 1_000_000_000  # skill_trigger_tool_calls that no turn reaches


def register(ctx) -> None:
    """Hermes's plugin entry point. Never raises."""
    cfg = None
    try:
        cfg = load_config(host=HOST)
        if cfg.is_child:
            return  # a tacit child agent: this copy stays inert
        try:
            shared_memory.heal(cfg, hermes_home_of(cfg))
        except Exception as exc:  # noqa: BLE001 — a folder tacit cannot make must not stop the rest
            log_exception(cfg, "hermes register: the shared folders", exc)
        HermesAdapter.create(cfg).register(ctx)
    except Exception as exc:  # noqa: BLE001 — Hermes must start without tacit
        log_exception(cfg, "hermes register", exc)


def is_oneshot(argv) -> bool:
    """``hermes -z`` / ``--oneshot``: the process ends with the turn (same test Hermes's own ``main`` uses)."""
    return any(a in ("-z", "--oneshot") or str(a).startswith("--oneshot=") for a in argv[1:])


class _Session:
    __slots__ = ("started", "agent_started", "turn_open", "user_text", "notices", "shown")

    def __init__(self):
        self.started = self.agent_started = self.turn_open = False
        self.user_text = ""
        self.notices: list[str] = []  # shown under the next reply (transform_llm_output)
        self.shown = ""  # what transform_llm_output put under the reply: not the agent's words


class HermesAdapter:
    """Hermes hooks → tacit events; tacit effects → what Hermes accepts."""

    def __init__(self, cfg, engine, *, oneshot: bool = False):
        self.cfg, self.engine, self.oneshot = cfg, engine, oneshot
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()
        self._last_session: str | None = None

    @classmethod
    def create(cls, cfg, *, argv=None) -> "HermesAdapter":
        raw = read_raw(hermes_home_of(cfg))
        cfg = adapt_config(cfg, raw)
        reviews = hermes_reviews(raw)
        if reviews["memory"] and cfg.review_enabled:
            cfg = cfg.with_settings(review_enabled=False)
        if reviews["skills"]:
            cfg = cfg.with_settings(skill_trigger_tool_calls=SKILL_TRIGGER_OFF)
        if reviews["memory"] or reviews["skills"]:
            log(cfg, "info", "hermes", "Hermes's own background review is on (memory.nudge_interval="
                f"{value(raw, 'memory.nudge_interval')}, skills.creation_nudge_interval="
                f"{value(raw, 'skills.creation_nudge_interval')}): tacit's "
                f"{'periodic review' if reviews['memory'] else ''}"
                f"{' and ' if reviews['memory'] and reviews['skills'] else ''}"
                f"{'skill extraction' if reviews['skills'] else ''} stay off to avoid a double "
                "review. `tacit install hermes` lets tacit's review replace Hermes's.")
        if not (value(raw, "memory.memory_enabled") or value(raw, "memory.user_profile_enabled")):
            log(cfg, "warning", "hermes", "Hermes's built-in memory is disabled (memory.memory_enabled "
                "and memory.user_profile_enabled are false): the agent and tacit's children have no "
                "memory tool, so corrections and reviews cannot be saved.")
        engine = build_engine(cfg, "inprocess", host=HOST)
        return cls(cfg, engine, oneshot=is_oneshot(sys.argv if argv is None else argv))

    def register(self, ctx) -> None:
        for name in HOOKS:
            ctx.register_hook(name, self._guarded(name, getattr(self, name)))
        if hasattr(ctx, "register_middleware"):
            ctx.register_middleware("tool_execution", self.memory_middleware)
        if hasattr(ctx, "register_tool"):
            schema = {k: search_tool.TOOL[k] for k in ("name", "description", "parameters")}
            ctx.register_tool(search_tool.NAME, "tacit", schema, self.search_sessions,
                              description=search_tool.TOOL["description"])
        for name, (description, hint) in slash.COMMANDS.items():
            handler = self._command(name)
            try:
                ctx.register_command(name, handler, description=description, args_hint=hint)
            except TypeError:  # an older Hermes without args_hint
                ctx.register_command(name, handler, description=description)

    def _guarded(self, name: str, fn):
        def hook(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 — never break a Hermes turn
                log_exception(self.cfg, f"hermes hook {name}", exc)
                return None

        hook.__name__ = f"tacit_{name}"
        return hook

    def _session(self, session_id) -> tuple[str, _Session]:
        sid = str(session_id or self._last_session or "hermes")
        with self._lock:
            session = self._sessions.setdefault(sid, _Session())
            self._last_session = sid
        return sid, session

    def _dispatch(self, event_type, sid: str, **fields):
        return self.engine.dispatch(event_type(session_id=sid, host=HOST, cwd=os.getcwd(), **fields))

    def _ensure_started(self, sid: str, session: _Session, source: str) -> list:
        if session.started:
            return []
        session.started = True
        results = [self._dispatch(SessionStart, sid, source=source)]
        self._kick_pending_overflow()
        return results

    def _realise(self, results, extra_notes=(), *, session_context=(), session: _Session | None = None) -> dict | None:
        """Results → ``{"context": …}`` for ``pre_llm_call`` (appended to the user message); notices
        wait for the reply, under which ``transform_llm_output`` shows them (docs/hosts/hermes.md)."""
        texts = []
        for result in (*session_context, *results):
            if isinstance(result, ContextResult):
                texts += by_priority(result.context)
            for notice in result.notices:
                log(self.cfg, "info", "hermes.notice", notice)
                if session is not None and notice:
                    session.notices.append(notice)
        texts.extend(n for n in extra_notes if n)
        return {"context": "\n\n".join(texts)} if texts else None

    def on_session_start(self, session_id=None, model=None, platform=None, **_):
        sid, session = self._session(session_id)
        self._realise(self._ensure_started(sid, session, "startup"), session=session)
        log(self.cfg, "info", "hermes", f"session {sid} started (model={model}, platform={platform}, "
                                        f"oneshot={self.oneshot})")
        return None

    def pre_llm_call(self, session_id=None, user_message=None, is_first_turn=False, **_):
        sid, session = self._session(session_id)
        text = message_text(user_message)
        results = list(self._ensure_started(sid, session, "startup" if is_first_turn else "resume"))
        notes, session_context = [], []
        if not session.agent_started:
            session.agent_started = True
            session_context.append(self._dispatch(BeforeAgentStart, sid, prompt=text))
            failed = overflow.take_failed(self.cfg)
            notes.append(overflow.failed_note(failed) if failed else "")
        session.turn_open, session.user_text = True, text
        results.append(self._dispatch(MessageEnd, sid, role="user", text=text))
        return self._realise(results, notes, session_context=session_context, session=session)

    def pre_tool_call(self, tool_name=None, args=None, session_id=None, **_):
        """Hermes's veto point: a guard's stop becomes a directive (where
        nobody would answer an approval, a deny: ``nobody_to_ask``)."""
        sid, session = self._session(session_id)
        results = self._ensure_started(sid, session, "resume")
        result = self._dispatch(ToolCall, sid, name=str(tool_name or "?"), args=tool_call_args(args))
        self._realise([*results, result])
        return tool_directive(result)

    def post_tool_call(self, tool_name=None, args=None, result=None, status=None, error_message=None,
                       session_id=None, **_):
        if status == "blocked":
            return None  # stopped before it ran (by a guard, Hermes's own scope or guardrails)
        sid, session = self._session(session_id)
        # an id never seen mid-turn: Hermes's compression rotated it; carry on as a continuation
        results = self._ensure_started(sid, session, "resume")
        ok, error = tool_outcome(result, status, error_message)
        if not ok and tool_name == "memory" and self.takes_overflow() and overflow.overflowed_add(args, result):
            ok, error = True, None  # queued and consolidated by tacit, not a failure
        results.append(self._dispatch(ToolResult, sid, name=str(tool_name or "?"), ok=ok,
                                      args=clip_tool_args(args, keep_nested=True), error=error))
        self._realise(results, session=session)
        return None

    def transform_llm_output(self, response_text=None, session_id=None, **_):
        """The notices waiting for this session, as lines under the reply (the
        one place a Hermes plugin can show the user something); None: no change."""
        if not isinstance(response_text, str) or not response_text:
            return None
        _sid, session = self._session(session_id)
        waiting, session.notices = session.notices, []
        if not waiting:
            return None
        session.shown = "\n\n" + "\n".join(f"· {n}" for n in waiting)
        return response_text.rstrip() + session.shown

    def post_llm_call(self, session_id=None, user_message=None, assistant_response=None, **_):
        sid, session = self._session(session_id)
        reply = message_text(assistant_response)
        if session.shown and reply.endswith(session.shown):  # Hermes hands over the reply with tacit's lines
            reply = reply[:-len(session.shown)]
        session.shown = ""
        results = self._ensure_started(sid, session, "resume")
        results.append(self._dispatch(MessageEnd, sid, role="assistant", text=reply))
        results.append(self._dispatch(TurnEnd, sid, user_text=message_text(user_message) or session.user_text,
                                      assistant_text=reply))
        session.turn_open = False
        self._realise(results, session=session)
        return None

    def on_session_end(self, session_id=None, **_):
        sid, session = self._session(session_id)
        if session.turn_open:  # interrupted or failed: post_llm_call did not fire
            session.turn_open = False
            self._realise([self._dispatch(TurnEnd, sid, user_text=session.user_text)], session=session)
        if self.oneshot:
            self._shutdown(sid, "oneshot")
        return None

    def on_session_finalize(self, session_id=None, reason=None, **_):
        sid = str(session_id or self._last_session or "")
        if sid:
            self._shutdown(sid, str(reason or "finalize"))
        return None

    def _shutdown(self, sid: str, reason: str) -> None:
        with self._lock:
            session = self._sessions.pop(sid, None)
        if session is None or not session.started:
            return
        self._realise([self._dispatch(SessionShutdown, sid, reason=reason)])
        # queued learners: a -z process os._exit()s right after this hook (what is
        # left waits in the event log for the next engine)
        self.engine.drain(timeout=5.0)

    def takes_overflow(self) -> bool:
        """Whether an over-limit ``memory`` add is deferred to a consolidation child (only when one can run)."""
        return bool(self.cfg.auto_consolidate and not self.cfg.is_child
                    and self.engine.child_available(HOST))

    def search_sessions(self, args=None, **_):
        """The ``search_sessions`` tool (``tacit.search.tool``): a JSON string, never raises."""
        try:
            return json.dumps(search_tool.run(self.cfg, args, os.getcwd()), ensure_ascii=False)
        except Exception as exc:  # noqa: BLE001 — a broken index must not break the turn
            log_exception(self.cfg, "hermes tool search_sessions", exc)
            return json.dumps({"success": False, "error": "tacit could not search past sessions"})

    def memory_middleware(self, tool_name=None, args=None, next_call=None, **kwargs):
        """Hermes ``tool_execution`` middleware: runs the tool; refuses a ``memory`` save of what the user
        forgot, replaces its over-limit refusal of an ``add``; files a new skill where every host reads it."""
        if tool_name == "skill_manage":
            return next_call(self._shared_skill(args))
        if tool_name != "memory":
            return next_call(args)
        refused = self._forgotten(args, kwargs.get("session_id"))
        if refused:  # the tool writes the shared file itself: what the user forgot is refused here
            return json.dumps({"success": False, "error": refused}, ensure_ascii=False)
        filed = self._project_entry(args, kwargs.get("session_id"))
        if filed is not None:  # "[name] …": this project's memory, which Hermes's tool cannot write
            return json.dumps(filed, ensure_ascii=False)
        before = self._unrecorded()
        result = next_call(args)  # the tool's own exceptions are Hermes's business
        self._record_edit(before, kwargs.get("session_id"))
        try:
            replaced = self._defer_overflow(args, result, kwargs.get("session_id"))
        except Exception as exc:  # noqa: BLE001 — fall back to Hermes's own result
            log_exception(self.cfg, "hermes memory middleware", exc)
            return result
        return result if replaced is None else replaced

    def _unrecorded(self) -> dict:
        """Before the tool runs: the entries of each file tacit never wrote (Hermes's from before tacit)."""
        try:
            return MemoryStore(self.cfg).unrecorded()
        except Exception as exc:  # noqa: BLE001 — the tool runs as Hermes would run it
            log_exception(self.cfg, "hermes memory middleware: unrecorded", exc)
            return {}

    def _record_edit(self, before: dict, session_id) -> None:
        """The tool's edit to such a file, as the agent's (the ``tool_result`` handler can only
        compare with a recorded state, and there is none)."""
        if not before:
            return
        sid, session = self._session(session_id)
        actor = Actor(kind="agent", name="memory", host=HOST, session_id=sid, cause=session.user_text)
        try:
            MemoryStore(self.cfg).notice_edits(actor=actor, baselines=before)
        except Exception as exc:  # noqa: BLE001 — never break the tool call
            log_exception(self.cfg, "hermes memory middleware: record", exc)

    def _forgotten(self, args, session_id) -> str | None:
        """Why this ``memory`` call may not save (the user asked to forget what it says), else None."""
        agent = Actor(kind="agent", name="memory tool", host=HOST, session_id=str(session_id or ""))
        try:
            for text in saved_texts(args):
                why = tombstones.check_save(self.cfg, text, agent)
                if why:
                    return why
        except Exception as exc:  # noqa: BLE001 — the tool runs as Hermes would run it
            log_exception(self.cfg, "hermes memory middleware: forgotten", exc)
        return None

    def _project_entry(self, args, session_id) -> dict | None:
        """An ``add`` tagged with this project's name (tacit's context says how), added to its memory."""
        try:
            if not (isinstance(args, dict) and args.get("action") == "add" and not args.get("operations")
                    and args.get("target", "memory") == "memory" and isinstance(args.get("content"), str)):
                return None
            project = project_for(os.getcwd(), home=self.cfg.env.get("HOME"))
            if project is None or not args["content"].startswith(tag_for(project)) \
                    or excluded(self.cfg, os.getcwd(), str(session_id or "")):
                return None
            actor = Actor(kind="agent", name="memory tool", host=HOST, session_id=str(session_id or ""))
            return MemoryStore(self.cfg, project, actor=actor).add("project", args["content"][len(tag_for(project)):])
        except Exception as exc:  # noqa: BLE001 — the tool runs as Hermes would run it
            log_exception(self.cfg, "hermes memory middleware: project entry", exc)
            return None

    def _shared_skill(self, args):
        """A ``skill_manage`` create with no category goes to ``skills/tacit``: tacit's global skills."""
        try:
            if not (isinstance(args, dict) and args.get("action") == "create" and not args.get("category")):
                return args
            link = shared_memory.skills_link(hermes_home_of(self.cfg))
            if link.is_symlink() and os.path.realpath(link) == os.path.realpath(self.cfg.skills_dir):
                return {**args, "category": link.name}
        except Exception as exc:  # noqa: BLE001 — the tool runs as Hermes would run it
            log_exception(self.cfg, "hermes skill middleware", exc)
        return args

    def _defer_overflow(self, args, result, session_id) -> str | None:
        hit = overflow.overflowed_add(args, result)
        if hit is None or not self.takes_overflow():
            return None
        target, content = hit
        overflow.enqueue(self.cfg, target, content, str(session_id or ""))
        overflow.start_runner(self.cfg, "overflow")
        return overflow.queued_result(target)

    def _kick_pending_overflow(self) -> None:
        """Entries queued by a process that died before its runner started."""
        try:
            if overflow.pending_paths(self.cfg) and self.takes_overflow():
                overflow.start_runner(self.cfg, "overflow")
        except Exception as exc:  # noqa: BLE001
            log_exception(self.cfg, "hermes overflow kick", exc)

    def _command(self, name: str):
        def handler(raw_args="", *args, **kwargs):
            raw = "" if raw_args is None else str(raw_args)
            try:
                self._dispatch(Command, self._last_session or "hermes-command", name=name, args=raw)
                you = slash.typed_by_you(self.cfg, name, session_id=self._last_session or "", host=HOST)
                project = project_for(os.getcwd(), home=self.cfg.env.get("HOME"))
                return slash.run(you, name, raw.strip(), project=project)["text"]
            except Exception as exc:  # noqa: BLE001 — a command answers, never raises
                log_exception(self.cfg, f"hermes command /{name}", exc)
                return f"tacit: /{name} failed: {exc} (details in {self.cfg.log_file})"

        handler.__name__ = f"tacit_{name.replace('-', '_')}"
        return handler


def saved_texts(args) -> list[str]:
    """The texts a ``memory`` call adds or writes as a replacement (a batch's too)."""
    if not isinstance(args, dict):
        return []
    ops = args.get("operations") if isinstance(args.get("operations"), list) else [args]
    return [op["content"] for op in ops if isinstance(op, dict) and op.get("action") in ("add", "replace")
            and isinstance(op.get("content"), str) and op["content"].strip()]


def message_text(value) -> str:
    """A Hermes message (a string, or OpenAI-style content parts) as text."""
    if isinstance(value, list):
        return "\n".join(p["text"] if isinstance(p, dict) else p for p in value
                         if isinstance(p, str) or isinstance(p, dict) and isinstance(p.get("text"), str))
    return "" if value is None else str(value)


def nobody_to_ask() -> bool:
    """Its spec's ``nobody_to_ask`` (a guard denies instead of asking): ``hermes -z``, or Hermes would grant
    an approval unasked (``--yolo``/``-z`` set HERMES_YOLO_MODE; ``/yolo`` per session)."""
    if is_oneshot(sys.argv) or live_env("HERMES_YOLO_MODE").strip().lower() in ("1", "true", "yes", "on"):
        return True
    approval = sys.modules.get("tools.approval")  # Hermes's own module, once Hermes loaded it
    try:
        return bool(approval is not None and (getattr(approval, "_YOLO_MODE_FROZEN", False)
                                              or approval.is_current_session_yolo_enabled()))
    except Exception:  # noqa: BLE001 — another Hermes version: assume someone is asked
        return False


def tool_directive(result) -> dict | None:
    """A ``tool_call`` result as Hermes's ``pre_tool_call`` directive:
    ``block`` (the message is the tool result), ``approve`` (Hermes asks the
    user: once/session/always/deny; blocked when no one can answer), or None."""
    if not isinstance(result, ToolCallResult) or not (result.block or result.ask):
        return None
    message = result.reason or "stopped by tacit"
    return {"action": "block" if result.block else "approve", "message": message}


def tool_outcome(result, status=None, error_message=None) -> tuple[bool, str | None]:
    """(ok, error) of one tool call: by an integer ``exit_code`` (Hermes says ``status: "ok"`` for
    ``exit 3``), else Hermes's ``status``, else the result's ``success``/``error``."""
    data = overflow.parse_result(result)
    if data is not None:
        code = data.get("exit_code")
        if isinstance(code, int) and not isinstance(code, bool):
            if code == 0:
                return True, None
            detail = data.get("error") or data.get("output") or ""
            return False, f"exit code {code}: {str(detail)[:500]}".rstrip(": ")
    if status is not None:
        ok = status == "ok"
    elif data is not None:
        ok = data.get("success") is not False and not data.get("error")
    else:
        ok = True
    if ok:
        return True, None
    detail = error_message or (data or {}).get("error") or status or "failed"
    return False, str(detail)[:500]

"""The pi extension's protocol: JSON lines, one session per connection (the service's socket, or
``tacit bridge --stdio``: the fallback when the service cannot be reached, and a pi child's tools).

Design notes: docs/design/hosts.md#tacithostspiprotocol
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from tacit import __version__, slash
from tacit.app import Actor, Tacit
from tacit.children.commands import timeout_for
from tacit.children.env import SESSION_ENV, session_env
from tacit.config import load_config
from tacit.events import EVENT_TYPES, Command, clip_tool_args
from tacit.guards.outcome import tool_call_args
from tacit.hookspecs import ContextResult, ToolCallResult, by_priority
from tacit.hosts.pi.tools import TOOL_NAMES, TOOLS, run_tool
from tacit.hosts.runtime import build_engine
from tacit.log import log, log_exception
from tacit.projects import project_for

PROTOCOL_VERSION = 2
SERVER_NAME = "tacit"
HOST = "pi"
ERROR_CHARS = 2000
MODEL_CHARS = 200
WORKERS = 4
BACKGROUND_FLUSH_SECONDS = 10.0  # what the stdio bridge's engine still runs after the session


class ProtocolError(Exception):
    """A request tacit cannot serve; becomes ``{"error": {code, message}}``."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


# what the extension may send for each event kind (name -> type)
EVENT_FIELDS = {
    "session_start": {"source": str},
    "before_agent_start": {"prompt": str},
    "message_end": {"role": str, "text": str},
    "tool_call": {"name": str, "args": dict},
    "tool_result": {"name": str, "ok": bool, "args": dict, "error": str},
    "command": {"name": str, "args": str},
    "turn_end": {"user_text": str, "assistant_text": str},
    "before_compact": {"trigger": str},
    "session_shutdown": {"reason": str},
}


def event_from_params(params: dict):
    """A ``tacit.events`` event from an ``event`` request's params. Unknown fields are ignored (a newer
    extension may send more); a field of the wrong type is an ``invalid_params`` error."""
    kind = params.get("kind")
    if kind not in EVENT_FIELDS:
        raise ProtocolError("invalid_params", f"unknown event kind {kind!r}; "
                                              f"expected one of {sorted(EVENT_FIELDS)}")
    session_id = params.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        raise ProtocolError("invalid_params", "session_id must be a non-empty string")
    values = {"session_id": session_id[:200], "host": HOST}
    for name in ("cwd", "id"):
        if isinstance(params.get(name), str) and params[name]:
            values[name] = params[name][:4096]
    for name, expected in EVENT_FIELDS[kind].items():
        value = params.get(name)
        if value is None:
            continue
        if not isinstance(value, expected):
            raise ProtocolError("invalid_params",
                                f"{kind}.{name} must be a {expected.__name__}, got {type(value).__name__}")
        values[name] = value
    if kind in ("tool_call", "tool_result"):
        # a tool_call keeps its whole command for the guards; results are clipped for the learners
        values["args"] = (tool_call_args(values.get("args")) if kind == "tool_call"
                          else clip_tool_args(values.get("args")))
        if "error" in values:
            values["error"] = values["error"][:ERROR_CHARS]
        if not values.get("name"):
            raise ProtocolError("invalid_params", f"{kind}.name must be a non-empty string")
    if kind == "message_end" and values.get("role", "user") not in ("user", "assistant"):
        raise ProtocolError("invalid_params", "message_end.role must be 'user' or 'assistant'")
    return EVENT_TYPES[kind](**values)


def render_result(kind: str, result) -> dict:
    """A typed result → the ``event`` response: system-prompt context at ``before_agent_start``,
    context next to the prompt at a user ``message_end``, notices, and a tool call's block/reason."""
    def joined() -> str:
        return "\n\n".join(by_priority(result.context)) if isinstance(result, ContextResult) else ""

    out = {"context": joined() if kind == "before_agent_start" else "",
           "prompt_context": joined() if kind == "message_end" else "",
           "notices": [n for n in result.notices if n]}
    if isinstance(result, ToolCallResult) and (result.block or result.ask):
        out.update(block=True, reason=result.reason)  # pi cannot ask: a stop is a block
    return out


class PiSession:
    """One extension's counterpart, over any line reader and binary writer."""

    def __init__(self, engine, reader, writer, *, child: bool = False, on_message=None):
        self.engine, self.cfg = engine, engine.cfg
        self.reader, self.writer = reader, writer
        self.child = child or bool(engine.cfg.is_child)
        self.on_message = on_message or (lambda: None)
        self._write_lock = threading.Lock()
        self.greeted = False
        self.closed = False
        self.extension_path: str | None = None
        self.launched: dict | None = None  # the environment pi was launched with: its children's
        self.host_env: dict | None = None  # of it, what goes with their jobs (session_env)
        self.models: dict[str, str] = {}
        self.cwds: dict[str, str] = {}  # session id -> its working folder (its project)
        self.stats = {"events": 0, "dispatched": 0, "tools": 0, "commands": 0, "errors": 0}
        self._pool: ThreadPoolExecutor | None = None
        self.child_actor: Actor | None = None

    def send(self, message: dict) -> None:
        line = (json.dumps(message, ensure_ascii=False, default=str) + "\n").encode("utf-8", "replace")
        with self._write_lock:
            if self.closed:
                return
            try:
                self.writer.write(line)
                self.writer.flush()
            except (OSError, ValueError):
                self.closed = True  # the extension is gone; finish quietly

    def notify(self, text: str) -> None:
        self.send({"event": "notify", "params": {"text": text}})

    def serve(self) -> int:
        try:
            for raw in self.reader:
                if self.closed:
                    break
                message = self._decode(raw)
                if message is None:
                    continue
                self.on_message()
                if message.get("method") in ("tool", "command") and "id" in message:
                    self._submit(message)  # may take minutes: off the reading thread
                else:
                    self._answer(message)
                if message.get("method") == "shutdown":
                    break
        finally:
            self.close()
        return 0

    def _decode(self, raw) -> dict | None:
        text = (raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw).strip()
        if not text:
            return None
        try:
            message = json.loads(text)
        except ValueError as exc:
            self.stats["errors"] += 1
            self.send({"id": None, "error": {"code": "parse_error", "message": f"not JSON: {exc}"}})
            return None
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            self.stats["errors"] += 1
            msg_id = message.get("id") if isinstance(message, dict) else None
            self.send({"id": msg_id, "error": {"code": "invalid_request",
                                               "message": "expected an object with a 'method' string"}})
            return None
        return message

    def _submit(self, message: dict) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="tacit-pi")
        self._pool.submit(self._answer, message)

    def _answer(self, message: dict) -> None:
        reply = self.handle(message)
        if reply is not None:
            self.send(reply)

    def handle(self, message: dict) -> dict | None:
        """Answer one message: a response for a request, None for a notification. Never raises."""
        method, msg_id = message.get("method"), message.get("id")
        is_request = "id" in message
        params = {} if message.get("params") is None else message["params"]
        try:
            if not isinstance(params, dict):
                raise ProtocolError("invalid_params", "params must be an object")
            handler = METHODS.get(method)
            if handler is None:
                raise ProtocolError("unknown_method", f"unknown method {method!r}; "
                                                      f"expected one of {sorted(METHODS)}")
            if method not in ("hello", "ping", "shutdown") and not self.greeted:
                raise ProtocolError("not_ready", "send 'hello' first")
            result = handler(self, params)
        except ProtocolError as exc:
            self.stats["errors"] += 1
            if not is_request:
                log(self.cfg, "warning", "pi", f"notification {method}: {exc.code}: {exc}")
            error = {"code": exc.code, "message": str(exc)}
        except Exception as exc:  # noqa: BLE001 — never break pi
            self.stats["errors"] += 1
            log_exception(self.cfg, f"pi {method}", exc)
            error = {"code": "internal_error", "message": f"{type(exc).__name__}: {exc}"}
        else:
            return {"id": msg_id, "result": result} if is_request else None
        return {"id": msg_id, "error": error} if is_request else None

    def _hello(self, params: dict) -> dict:
        wanted = params.get("protocol", PROTOCOL_VERSION)
        if wanted != PROTOCOL_VERSION:
            raise ProtocolError("protocol_mismatch",
                                f"this tacit speaks protocol {PROTOCOL_VERSION}, not {wanted!r}; "
                                "reinstall with `tacit install pi`")
        path = params.get("extension_path")
        if isinstance(path, str) and path and os.path.isfile(path):
            self.extension_path = os.path.abspath(path)
        if isinstance(params.get("env"), dict):  # pi's, not that of whichever hook started the service
            self.launched = {k: v for k, v in params["env"].items() if isinstance(k, str) and isinstance(v, str)}
            self.host_env = session_env(HOST, self.launched)
        if params.get("child") is True:
            self.child = True
            # a child's tool calls are the child's doing (its runner's TACIT_ACTOR), never yours
            self.child_actor = Actor.from_env(params.get("actor") if isinstance(params.get("actor"), str) else None)
        self.greeted = True
        if self.cfg.problems and not self.child:
            for problem in self.cfg.problems[:3]:
                self.notify(f"tacit config: {problem}")
        child_timeout = timeout_for(self.cfg, "consolidate") if self.cfg.child_enabled else 0
        return {
            "protocol": PROTOCOL_VERSION,
            "server": SERVER_NAME,
            "version": __version__,
            "pid": os.getpid(),
            "child": self.child,
            "capabilities": ["tools"] if self.child else ["events", "tools", "commands", "notices"],
            "tools": [dict(t) for t in TOOLS],
            "commands": [] if self.child else [
                {"name": name, "description": desc} for name, (desc, _) in slash.COMMANDS.items()],
            "data_dir": self.cfg.home_str,
            "log_file": str(self.cfg.log_file),
            # a memory add may consolidate with a child first; /memory-consolidate may run two
            "timeouts": {"tool": child_timeout + 60, "command": 2 * child_timeout + 60},
        }

    def _event(self, params: dict) -> dict:
        self.stats["events"] += 1
        event = event_from_params(params)
        self._note_session(event.session_id, params.get("model"))
        if event.cwd:
            self.cwds[event.session_id] = event.cwd
        if self.child:
            return {"context": "", "prompt_context": "", "notices": [], "dispatched": False}
        result = self.engine.dispatch(event)
        self.stats["dispatched"] += 1
        return {**render_result(event.kind, result), "dispatched": True}

    def _tool(self, params: dict) -> dict:
        name = params.get("name")
        if name not in TOOL_NAMES:
            raise ProtocolError("invalid_params", f"unknown tool {name!r}; expected one of {list(TOOL_NAMES)}")
        self.stats["tools"] += 1
        session_id, cwd = self._where(params)
        return run_tool(Tacit(self.cfg_for(session_id)).as_actor(self.tool_actor(session_id)), name,
                        params.get("args"), project=self.project_of(cwd))

    def _where(self, params: dict) -> tuple[str, str | None]:
        """(session id, working folder) of a tool or command request."""
        session_id = params.get("session_id") if isinstance(params.get("session_id"), str) else ""
        return session_id, params.get("cwd") if isinstance(params.get("cwd"), str) else self.cwds.get(session_id)

    def tool_actor(self, session_id: str) -> Actor:
        """Who a tool call acts for: the child agent this session is, or the agent in the session."""
        if self.child:
            return self.child_actor or Actor.from_env(self.cfg.env.get("TACIT_ACTOR")) or \
                Actor(kind="child", name="agent", session_id=session_id, host=HOST)
        return Actor(kind="agent", name="memory tool", session_id=session_id, host=HOST)

    def _command(self, params: dict) -> dict:
        if self.child:
            raise ProtocolError("unsupported", "a child agent's session serves tools only")
        name = params.get("name")
        if name not in slash.COMMANDS:
            raise ProtocolError("invalid_params", f"unknown command {name!r}; expected one of {sorted(slash.COMMANDS)}")
        args = params.get("args") or ""
        if not isinstance(args, str):
            raise ProtocolError("invalid_params", "args must be a string")
        self.stats["commands"] += 1
        session_id, cwd = self._where(params)
        if session_id:  # the learners count slash-command use like any other command
            self.engine.dispatch(Command(session_id=session_id, host=HOST, name=name, args=args))
        try:
            you = slash.typed_by_you(self.cfg_for(session_id), name, session_id=session_id, host=HOST)
            result = slash.run(you, name, args.strip(), project=self.project_of(cwd))
        except Exception as exc:  # noqa: BLE001 — e.g. LedgerUnavailable: say so, don't crash
            log_exception(self.cfg, f"pi command {name}", exc)
            return {"success": False, "text": f"/{name} failed: {type(exc).__name__}: {exc} "
                                              f"(details in {self.cfg.log_file})"}
        result.setdefault("success", True)
        result.setdefault("text", "")
        return result

    def _note_session(self, session_id: str, model) -> None:
        """What a pi child agent started for this session needs: the extension
        file the parent loaded, and the parent's model."""
        if isinstance(model, str) and model and len(model) <= MODEL_CHARS and "\n" not in model:
            self.models[session_id] = model
        known = (("pi_extension", self.extension_path), ("model", self.models.get(session_id)),
                 (SESSION_ENV, self.host_env))
        defaults = {name: value for name, value in known if value}
        if defaults:
            self.engine.set_job_defaults(session_id, defaults)
        if self.launched is not None and not self.child:
            self.engine.set_launch_env(session_id, self.launched)

    def project_of(self, cwd: str | None):
        return project_for(cwd, home=self.cfg.env.get("HOME"))

    def cfg_for(self, session_id: str):
        """Work done for a session (a consolidation child from a tool call)
        uses the session's model unless ``child_model`` is configured."""
        model = self.models.get(session_id)
        # pi's, launched as it was: the service may have been started by another host's hook
        cfg = self.cfg.for_session(HOST, self.launched) if not self.child else self.cfg
        if model and not self.cfg.child_model:
            return cfg.with_settings(child_model=model)
        return cfg

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        summary = " ".join(f"{k}={v}" for k, v in self.stats.items())
        log(self.cfg, "info", "pi", f"session closed: child={int(self.child)} {summary}")
        self.closed = True


METHODS = {
    "hello": PiSession._hello,
    "ping": lambda session, params: {"pong": True, "time": time.time()},
    "shutdown": lambda session, params: {"ok": True},
    "event": PiSession._event,
    "tool": PiSession._tool,
    "command": PiSession._command,
}


def run_stdio() -> int:
    """``tacit bridge --stdio``: one session over stdin/stdout (its spec's ``stdio_session``)."""
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    proto_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    cfg = None
    try:
        cfg = load_config(host=HOST)
        engine = build_engine(cfg, "inprocess", host=HOST)
        log(cfg, "info", "pi.bridge", f"start: pid={os.getpid()} child={int(cfg.is_child)} "
                                      f"protocol={PROTOCOL_VERSION}")
        with os.fdopen(proto_fd, "wb", buffering=0) as out:
            try:
                return PiSession(engine, sys.stdin.buffer, out).serve()
            finally:
                engine.drain(BACKGROUND_FLUSH_SECONDS)
                engine.close()
    except Exception as exc:  # noqa: BLE001
        log_exception(cfg, "pi.bridge", exc)
        sys.stderr.write(f"tacit bridge failed: {type(exc).__name__}: {exc}\n")
        return 1

"""``tacit bridge --stdio``: the long-lived Python side of the pi extension.

pi extensions are TypeScript; tacit is Python. The way language servers reach
editors, the small extension (``extension/index.ts``) starts this process once
per pi session and exchanges JSON lines with it over stdin/stdout. The
protocol is specified in ``docs/hosts/pi.md``; in short:

- extension → bridge: ``{"id", "method", "params"}`` (a request: exactly one
  response follows) or ``{"method", "params"}`` (a notification: none does);
- bridge → extension: ``{"id", "result"}`` or ``{"id", "error": {"code",
  "message"}}``, and unsolicited ``{"event": "notify", "params": {"text"}}``;
- the first request is ``hello``: protocol version, capabilities, the tool
  definitions to register; then ``event`` (host-neutral ``tacit.events``
  fields), ``tool``, ``command``, ``ping``, ``shutdown``. End of input is a
  shutdown too.

Design decisions
- **The same engine as every host**: ``build_engine(load_config(host="pi"),
  "inprocess", host="pi", host_features={"tacit_tools"})`` — in-memory
  session state, learners on a background thread. The extension only turns
  pi's payloads into tacit event fields; every decision is made here.
- **Children are detached processes, not threads.** ``pi -p`` exits as soon
  as its prompt is answered, and this bridge with it; a correction child on a
  bridge thread would die half-way. The engine's launcher is therefore
  ``tacit.launchers.detached_launcher`` (``tacit child run JOB``, its own
  session, logged to ``children.jsonl``), wrapped to (1) add the job
  variables pi's child command needs — ``pi_extension`` (the extension file
  the parent loaded, from ``hello``) and ``model`` (the parent's
  ``provider/id``, from the events) — and (2) wait for the process on a
  thread, then call ``engine.child_finished`` so the running mark clears and
  the stores re-read the disk (a long interactive session keeps working).
- **Tools and commands run on worker threads; events run in order** on the
  reading thread. An event handler is cheap (the engine's foreground rule);
  a tool call can consolidate memory with a child agent and take minutes —
  it must not hold up ``before_agent_start``.
- **stdout belongs to the protocol.** At start the real stdout is duplicated
  for the protocol and fd 1 is pointed at stderr, so a stray ``print`` (ours
  or a library's) can never corrupt a message.
- **Never break pi.** Every message is answered (an error response rather
  than silence); every exception is logged to the data folder's log; SIGINT
  is ignored (Ctrl+C in pi's terminal reaches the whole process group — it
  is pi's to handle, not a reason for tacit to die).
- **A child's bridge only serves tools** (``TACIT_CHILD=1``): its ``hello``
  offers no ``events`` or ``commands``, and ``event`` requests are counted
  but never dispatched, so a child agent detects nothing and starts nothing.
  At exit every bridge logs one summary line (events received/dispatched,
  tools, commands, children) — the e2e tests read it to prove that.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

PROTOCOL_VERSION = 1
SERVER_NAME = "tacit-bridge"
HOST = "pi"
HOST_FEATURES = frozenset({"tacit_tools"})
ARG_CHARS = 2000  # a tool's error text longer than this is clipped (its args: tacit.events.clip_tool_args)
MODEL_CHARS = 200
BACKGROUND_FLUSH_SECONDS = 10.0  # at exit: let queued learners finish, but not forever
WORKERS = 4


class ProtocolError(Exception):
    """A request the bridge cannot serve; becomes ``{"error": {code, message}}``."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------------------
# Slash commands: name -> (description, function(bridge, cfg, args) -> dict)
# ---------------------------------------------------------------------------


def _cmd_consolidate(bridge, cfg, args: str) -> dict:
    from tacit.slash import memory_consolidate

    return memory_consolidate(cfg)


def _cmd_skills(bridge, cfg, args: str) -> dict:
    from tacit.slash import memory_skills

    return memory_skills(cfg)


def _cmd_show(bridge, cfg, args: str) -> dict:
    from tacit.learn.lifecycle import show_memories

    return {"success": True, "text": show_memories(cfg, ledger=bridge.engine.ledger())}


def _cmd_forget(bridge, cfg, args: str) -> dict:
    from tacit.learn.lifecycle import forget

    result = forget(cfg, args, ledger=bridge.engine.ledger())
    result["text"] = result.get("message") or result.get("error") or ""
    return result


def _cmd_teach(bridge, cfg, args: str) -> dict:
    from tacit.learn.lifecycle import teach

    result = teach(cfg, args, ledger=bridge.engine.ledger())
    result["text"] = result.get("message") or result.get("error") or ""
    return result


def _cmd_review(bridge, cfg, args: str) -> dict:
    from tacit.learn.review import memory_review

    return memory_review(cfg, trigger="command", ledger=bridge.engine.ledger())


COMMANDS = {
    "memory-consolidate": ("Consolidate MEMORY.md and USER.md", _cmd_consolidate),
    "memory-skills": ("List tacit's skills and where their files are", _cmd_skills),
    "memory-show": ("Show what tacit has learned, by status", _cmd_show),
    "memory-forget": ("Forget a learned memory: /memory-forget KEY", _cmd_forget),
    "memory-teach": ("Teach tacit a memory directly: /memory-teach TEXT", _cmd_teach),
    "memory-review": ("Review what tacit noted today (keep/drop with `tacit review`)", _cmd_review),
}


# ---------------------------------------------------------------------------
# Event fields: what the extension may send for each kind (name -> type)
# ---------------------------------------------------------------------------

_EVENT_FIELDS = {
    "session_start": {"source": str},
    "before_agent_start": {"prompt": str},
    "message_end": {"role": str, "text": str},
    "tool_call": {"name": str, "ok": bool, "args": dict, "error": str},
    "command": {"name": str, "args": str},
    "turn_end": {"user_text": str, "assistant_text": str},
    "before_compact": {"trigger": str},
    "session_shutdown": {"reason": str},
}


def event_from_params(params: dict):
    """Build a ``tacit.events`` event from an ``event`` request's params.
    Unknown fields are ignored (a newer extension may send more); a field of
    the wrong type is an ``invalid_params`` error."""
    from tacit.events import EVENT_TYPES, clip_tool_args

    kind = params.get("kind")
    if kind not in EVENT_TYPES:
        raise ProtocolError("invalid_params", f"unknown event kind {kind!r}; "
                                              f"expected one of {sorted(EVENT_TYPES)}")
    session_id = params.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        raise ProtocolError("invalid_params", "session_id must be a non-empty string")
    values = {"session_id": session_id}
    cwd = params.get("cwd")
    if isinstance(cwd, str) and cwd:
        values["cwd"] = cwd
    for name, expected in _EVENT_FIELDS[kind].items():
        value = params.get(name)
        if value is None:
            continue
        if not isinstance(value, expected):
            raise ProtocolError("invalid_params",
                                f"{kind}.{name} must be a {expected.__name__}, got {type(value).__name__}")
        values[name] = value
    if kind == "tool_call":
        values["args"] = clip_tool_args(values.get("args"))
        if "error" in values:
            values["error"] = values["error"][:ARG_CHARS]
        if not values.get("name"):
            raise ProtocolError("invalid_params", "tool_call.name must be a non-empty string")
    if kind == "message_end" and values.get("role", "user") not in ("user", "assistant"):
        raise ProtocolError("invalid_params", "message_end.role must be 'user' or 'assistant'")
    return EVENT_TYPES[kind](**values)


def render_effects(effects) -> dict:
    """Effects → the ``event`` result: session-scope context (system prompt),
    prompt-scope context (next to the user message), notices."""
    from tacit.events import InjectContext, Notify

    def joined(scope: str) -> str:
        items = [e for e in effects if isinstance(e, InjectContext) and e.scope == scope]
        ordered = sorted(enumerate(items), key=lambda pair: (pair[1].priority, pair[0]))
        return "\n\n".join(e.text.strip() for _, e in ordered if e.text and e.text.strip())

    return {
        "context": joined("session"),
        "prompt_context": joined("prompt"),
        "notices": [e.text for e in effects if isinstance(e, Notify) and e.text],
    }


# ---------------------------------------------------------------------------
# The bridge
# ---------------------------------------------------------------------------


class Bridge:
    """One extension's counterpart. ``serve(lines)`` runs until end of input
    or ``shutdown``; ``handle(message)`` answers one decoded message."""

    def __init__(self, cfg, write_line, *, engine=None):
        self.cfg = cfg
        self._write_line = write_line
        self._write_lock = threading.Lock()
        self.child = bool(cfg.is_child)
        if engine is None:
            from tacit.hosts.runtime import build_engine

            engine = build_engine(cfg, "inprocess", host=HOST, host_features=HOST_FEATURES)
        self.engine = engine
        if engine.launcher is not None:
            from tacit.launchers import detached_launcher

            self._detached = detached_launcher(cfg)
            engine.launcher = self._launch
        self.greeted = False
        self.closed = False
        self.extension_path: str | None = None
        self.models: dict[str, str] = {}
        self.last_model: str | None = None
        self.stats = {"events": 0, "dispatched": 0, "tools": 0, "commands": 0, "children": 0,
                      "errors": 0}
        self._pool = None
        self._children: list[threading.Thread] = []

    # -- output ------------------------------------------------------------------
    def send(self, message: dict) -> None:
        line = json.dumps(message, ensure_ascii=False, default=str) + "\n"
        with self._write_lock:
            if self.closed:
                return
            try:
                self._write_line(line)
            except (BrokenPipeError, OSError, ValueError):
                self.closed = True  # the extension is gone; finish quietly

    def notify(self, text: str) -> None:
        """An unsolicited notice for the user."""
        self.send({"event": "notify", "params": {"text": text}})

    # -- main loop -----------------------------------------------------------------
    def serve(self, lines) -> int:
        try:
            for raw in lines:
                if self.closed:
                    break
                message = self._decode(raw)
                if message is None:
                    continue
                if message.get("method") in ("tool", "command") and "id" in message:
                    self._pool_submit(message)  # may take minutes: off the reading thread
                else:
                    reply = self.handle(message)
                    if reply is not None:
                        self.send(reply)
                if message.get("method") == "shutdown":
                    break
        finally:
            self.close()
        return 0

    def _decode(self, raw) -> dict | None:
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", errors="replace")
        raw = raw.strip()
        if not raw:
            return None
        try:
            message = json.loads(raw)
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

    def _pool_submit(self, message: dict) -> None:
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="tacit-bridge")

        def work():
            reply = self.handle(message)
            if reply is not None:
                self.send(reply)

        self._pool.submit(work)

    def handle(self, message: dict) -> dict | None:
        """Answer one message: a response dict for a request, ``None`` for a
        notification. Never raises."""
        method, msg_id = message.get("method"), message.get("id")
        is_request = "id" in message
        params = message.get("params")
        if params is None:
            params = {}
        try:
            if not isinstance(params, dict):
                raise ProtocolError("invalid_params", "params must be an object")
            handler = _METHODS.get(method)
            if handler is None:
                raise ProtocolError("unknown_method", f"unknown method {method!r}; "
                                                      f"expected one of {sorted(_METHODS)}")
            if method not in ("hello", "ping", "shutdown") and not self.greeted:
                raise ProtocolError("not_ready", "send 'hello' first")
            result = handler(self, params)
        except ProtocolError as exc:
            self.stats["errors"] += 1
            if not is_request:
                from tacit.log import log

                log(self.cfg, "warning", "pi.bridge", f"notification {method}: {exc.code}: {exc}")
                return None
            return {"id": msg_id, "error": {"code": exc.code, "message": str(exc)}}
        except Exception as exc:  # noqa: BLE001 — never break pi
            self.stats["errors"] += 1
            from tacit.log import log_exception

            log_exception(self.cfg, f"pi.bridge {method}", exc)
            if not is_request:
                return None
            return {"id": msg_id, "error": {"code": "internal_error",
                                            "message": f"{type(exc).__name__}: {exc}"}}
        return {"id": msg_id, "result": result} if is_request else None

    # -- methods -------------------------------------------------------------------
    def _hello(self, params: dict) -> dict:
        from tacit import __version__

        wanted = params.get("protocol", PROTOCOL_VERSION)
        if wanted != PROTOCOL_VERSION:
            raise ProtocolError("protocol_mismatch",
                                f"this bridge speaks protocol {PROTOCOL_VERSION}, not {wanted!r}; "
                                "reinstall with `tacit install pi`")
        path = params.get("extension_path")
        if isinstance(path, str) and path and os.path.isfile(path):
            self.extension_path = os.path.abspath(path)
        self.greeted = True
        from tacit.hosts.pi.tools import TOOLS

        capabilities = ["tools"] if self.child else ["events", "tools", "commands", "notices"]
        if self.cfg.problems and not self.child:
            for problem in self.cfg.problems[:3]:
                self.notify(f"tacit config: {problem}")
        return {
            "protocol": PROTOCOL_VERSION,
            "server": SERVER_NAME,
            "version": __version__,
            "pid": os.getpid(),
            "child": self.child,
            "capabilities": capabilities,
            "tools": [dict(t) for t in TOOLS],
            "commands": [] if self.child else [
                {"name": name, "description": desc} for name, (desc, _fn) in COMMANDS.items()],
            "data_dir": self.cfg.home_str,
            "log_file": str(self.cfg.log_file),
            "timeouts": self._timeouts(),
        }

    def _timeouts(self) -> dict:
        """Seconds the extension should wait for a tool call or a command: a
        memory add may consolidate with a child agent first, /memory-consolidate
        may run one per file."""
        from tacit.child import timeout_for

        child = timeout_for(self.cfg, "consolidate") if self.cfg.child_enabled else 0
        return {"tool": child + 60, "command": 2 * child + 60}

    def _ping(self, params: dict) -> dict:
        return {"pong": True, "time": time.time()}

    def _shutdown(self, params: dict) -> dict:
        return {"ok": True}

    def _event(self, params: dict) -> dict:
        self.stats["events"] += 1
        event = event_from_params(params)
        self._note_model(event.session_id, params.get("model"))
        if self.child:
            return {"context": "", "prompt_context": "", "notices": [], "dispatched": False}
        effects = self.engine.dispatch(event)
        self.stats["dispatched"] += 1
        result = render_effects(effects)
        if event.kind == "turn_end":
            result["notices"] += self._take_notices()
        result["dispatched"] = True
        return result

    def _tool(self, params: dict) -> dict:
        from tacit.hosts.pi.tools import TOOL_NAMES, run_tool

        name = params.get("name")
        if name not in TOOL_NAMES:
            raise ProtocolError("invalid_params", f"unknown tool {name!r}; expected one of {list(TOOL_NAMES)}")
        self.stats["tools"] += 1
        session_id = params.get("session_id") if isinstance(params.get("session_id"), str) else ""
        return run_tool(self.cfg_for(session_id), name, params.get("args"))

    def _command(self, params: dict) -> dict:
        if self.child:
            raise ProtocolError("unsupported", "a child agent's bridge serves tools only")
        name = params.get("name")
        if name not in COMMANDS:
            raise ProtocolError("invalid_params", f"unknown command {name!r}; expected one of {sorted(COMMANDS)}")
        args = params.get("args") or ""
        if not isinstance(args, str):
            raise ProtocolError("invalid_params", "args must be a string")
        self.stats["commands"] += 1
        session_id = params.get("session_id") if isinstance(params.get("session_id"), str) else ""
        if session_id:
            from tacit.events import Command

            # the learners count slash-command use like any other command
            self.engine.dispatch(Command(session_id=session_id, name=name, args=args))
        try:
            result = COMMANDS[name][1](self, self.cfg_for(session_id), args.strip())
        except Exception as exc:  # noqa: BLE001 — e.g. LedgerUnavailable: say so, don't crash
            from tacit.log import log_exception

            log_exception(self.cfg, f"pi.bridge command {name}", exc)
            return {"success": False, "text": f"/{name} failed: {type(exc).__name__}: {exc} "
                                              f"(details in {self.cfg.log_file})"}
        result.setdefault("success", True)
        result.setdefault("text", "")
        return result

    # -- helpers -------------------------------------------------------------------
    def _note_model(self, session_id: str, model) -> None:
        if isinstance(model, str) and model and len(model) <= MODEL_CHARS and "\n" not in model:
            self.models[session_id] = model
            self.last_model = model

    def cfg_for(self, session_id: str):
        """The config for work done on behalf of a session: a child agent
        started from here (memory consolidation) uses the session's model
        unless ``child_model`` is configured."""
        model = self.models.get(session_id) or self.last_model
        if model and not self.cfg.child_model:
            return self.cfg.with_settings(child_model=model)
        return self.cfg

    def _take_notices(self) -> list:
        from tacit.learn.lifecycle import take_notices
        from tacit.stores.ledger import LedgerUnavailable

        try:
            return take_notices(self.engine.ledger())
        except LedgerUnavailable as exc:
            from tacit.log import log

            log(self.cfg, "warning", "pi.bridge", f"notices not read: {exc}")
            return []

    def _launch(self, job: dict):
        """The engine's launcher: a detached ``tacit child run`` that outlives
        this bridge, with pi's child-command variables filled in."""
        variables = job.setdefault("variables", {})
        if self.extension_path:
            variables.setdefault("pi_extension", self.extension_path)
        model = self.models.get(job.get("session_id", "")) or self.last_model
        if model:
            variables.setdefault("model", model)
        pid = self._detached(job)
        self.stats["children"] += 1
        waiter = threading.Thread(target=self._wait_child, args=(pid, job), daemon=True,
                                  name=f"tacit-wait-{job.get('kind')}")
        waiter.start()
        self._children.append(waiter)
        return pid

    def _wait_child(self, pid: int, job: dict) -> None:
        try:
            os.waitpid(pid, 0)  # also reaps it: no zombie that looks "still running"
        except ChildProcessError:
            pass
        except Exception as exc:  # noqa: BLE001
            from tacit.log import log_exception

            log_exception(self.cfg, "pi.bridge waiting for a child", exc)
        try:
            self.engine.child_finished(job)
        except Exception as exc:  # noqa: BLE001
            from tacit.log import log_exception

            log_exception(self.cfg, "pi.bridge child_finished", exc)

    def close(self) -> None:
        """End of session: let queued learners finish (bounded), log a summary.
        Detached children keep running."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        try:
            self.engine.flush_background(BACKGROUND_FLUSH_SECONDS)
        except Exception as exc:  # noqa: BLE001
            from tacit.log import log_exception

            log_exception(self.cfg, "pi.bridge flush", exc)
        from tacit.log import log

        summary = " ".join(f"{k}={v}" for k, v in self.stats.items())
        log(self.cfg, "info", "pi.bridge", f"exit: child={int(self.child)} {summary}")
        self.closed = True


_METHODS = {
    "hello": Bridge._hello,
    "ping": Bridge._ping,
    "shutdown": Bridge._shutdown,
    "event": Bridge._event,
    "tool": Bridge._tool,
    "command": Bridge._command,
}


def run_stdio() -> int:
    """Entry point of ``tacit bridge --stdio``. Returns the exit code."""
    import signal

    # Ctrl+C in pi's terminal reaches its whole process group: pi handles it
    # (it clears the editor); the bridge must not die of it.
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):
        pass
    # The protocol gets the real stdout; fd 1 (and sys.stdout) now go to
    # stderr, so nothing else can ever write into the protocol stream.
    proto_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out = os.fdopen(proto_fd, "w", encoding="utf-8", buffering=1)

    def write_line(line: str) -> None:
        out.write(line)
        out.flush()

    cfg = None
    try:
        from tacit.config import load_config

        cfg = load_config(host=HOST)
        bridge = Bridge(cfg, write_line)
        from tacit.log import log

        log(cfg, "info", "pi.bridge", f"start: pid={os.getpid()} child={int(bridge.child)} "
                                      f"protocol={PROTOCOL_VERSION}")
        return bridge.serve(sys.stdin.buffer)
    except Exception as exc:  # noqa: BLE001
        from tacit.log import log_exception

        log_exception(cfg, "pi.bridge", exc)
        sys.stderr.write(f"tacit bridge failed: {type(exc).__name__}: {exc}\n")
        return 1

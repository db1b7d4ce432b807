"""The pi protocol, over both of its transports: the service's socket (what
the pi extension uses) and the ``tacit bridge --stdio`` process (its
fallback, and a child agent's tool server).

Each protocol test runs twice: against a real ``tacit serve`` reached through
its unix socket (``TACIT1 rpc <identity>`` then JSON lines), and against a
real bridge process started as the extension starts it. Covered: the
handshake, each method, every error code, notifications, child mode, end of
input, a stray ``print`` that must not reach the protocol stream, and a
correction whose child job is launched detached with pi's variables.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import socket

import pytest
from wait_helpers import wait_for

from tacit import __version__
from tacit.config import load_config
from tacit.paths import code_identity, socket_path

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "extension" / "tacit" / "hosts" / "pi" / "extension" / "index.ts"
FAKE_AGENT = REPO / "tests" / "fake_agent" / "fake_agent.py"
TIMEOUT = 20.0


class Session:
    """A protocol session: ``request`` waits for the matching response (events
    that arrive meanwhile are kept in ``events``), ``notify`` sends a
    notification, ``close`` ends input."""

    def _start_reading(self, stream):
        self.lines: queue.Queue = queue.Queue()
        self.raw: list[str] = []
        self.events: list[dict] = []
        self._next = 1

        def read():
            for line in stream:
                text = line.decode("utf-8")
                self.raw.append(text)
                self.lines.put(text)
            self.lines.put(None)

        threading.Thread(target=read, daemon=True).start()

    def send(self, message: dict) -> None:
        self.send_raw(json.dumps(message) + "\n")

    def next_message(self, timeout: float = TIMEOUT) -> dict:
        line = self.lines.get(timeout=timeout)
        assert line is not None, "the other side closed the session"
        return json.loads(line)

    def wait_for_id(self, msg_id, timeout: float = TIMEOUT) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            message = self.next_message(max(0.1, deadline - time.monotonic()))
            if "event" in message:
                self.events.append(message)
                continue
            assert message.get("id") == msg_id, message
            return message

    def request(self, method: str, params: dict | None = None, timeout: float = TIMEOUT) -> dict:
        msg_id = self._next
        self._next += 1
        self.send({"id": msg_id, "method": method, "params": params or {}})
        return self.wait_for_id(msg_id, timeout)

    def result(self, method: str, params: dict | None = None, timeout: float = TIMEOUT) -> dict:
        reply = self.request(method, params, timeout)
        assert "result" in reply, reply
        return reply["result"]

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def hello(self, **params) -> dict:
        return self.result("hello", {"protocol": 2, "client": "test", **params})


class BridgeProcess(Session):
    """``tacit bridge --stdio``, started as the extension starts it."""

    transport = "bridge"

    def __init__(self, env: dict):
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", "tacit", "bridge", "--stdio"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env)
        self._start_reading(self.proc.stdout)

    def send_raw(self, text: str) -> None:
        self.proc.stdin.write(text.encode("utf-8"))
        self.proc.stdin.flush()

    def close(self, timeout: float = TIMEOUT) -> int:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


class ServiceSession(Session):
    """A session on the data folder's service, as the extension opens it."""

    transport = "service"

    def __init__(self, env: dict):
        path = socket_path(env["TACIT_HOME"])
        self.server = subprocess.Popen([sys.executable, "-P", "-m", "tacit", "serve"], env=env,
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                self.sock.connect(path)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        self.sock.sendall(f"TACIT1 rpc {code_identity(__version__)}\n".encode())
        self.reader = self.sock.makefile("rb")
        assert self.reader.readline() == b"OK\n"
        self._start_reading(self.reader)

    def send_raw(self, text: str) -> None:
        self.sock.sendall(text.encode("utf-8"))

    def close(self, timeout: float = TIMEOUT) -> int:
        if getattr(self, "closed", False):
            return 0
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        # the session ends when its input does; the service stays for others
        deadline = time.monotonic() + timeout
        while self.lines.get(timeout=max(0.1, deadline - time.monotonic())) is not None:
            pass
        self.sock.close()
        return 0


@pytest.fixture
def bridge_env(tacit_env):
    env = dict(tacit_env)
    env["TACIT_HOST"] = "pi"
    return env


@pytest.fixture(params=["service", "bridge"])
def bridge(request, bridge_env):
    proc = (ServiceSession if request.param == "service" else BridgeProcess)(bridge_env)
    yield proc
    proc.close()


def pi_cfg(env: dict):
    return load_config(env=env, host="pi")


def log_lines(env: dict) -> list[str]:
    path = pi_cfg(env).log_file
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


# ---------------------------------------------------------------------------
# Handshake and errors
# ---------------------------------------------------------------------------


def test_hello_reports_protocol_capabilities_tools_and_commands(bridge, bridge_env):
    info = bridge.hello()
    assert info["protocol"] == 2
    assert info["server"] == "tacit"
    assert info["child"] is False
    assert set(info["capabilities"]) == {"events", "tools", "commands", "notices"}
    assert [t["name"] for t in info["tools"]] == ["memory", "skill", "search_sessions"]
    memory = info["tools"][0]
    assert memory["parameters"]["type"] == "object"
    assert memory["parameters"]["properties"]["action"]["enum"] == ["add", "replace", "remove"]
    assert {c["name"] for c in info["commands"]} == {
        "memory-consolidate", "memory-skills", "memory-show", "memory-forget", "memory-teach",
        "memory-review"}
    assert info["pid"] == (bridge.proc.pid if bridge.transport == "bridge" else bridge.server.pid)
    assert info["data_dir"] == bridge_env["TACIT_HOME"]
    assert info["timeouts"] == {"tool": 360, "command": 660}  # default child timeout 300 s
    assert bridge.result("ping")["pong"] is True


def test_requests_before_hello_are_refused(bridge):
    reply = bridge.request("event", {"kind": "session_start", "session_id": "s"})
    assert reply["error"]["code"] == "not_ready"
    bridge.hello()
    assert "result" in bridge.request("event", {"kind": "session_start", "session_id": "s"})


def test_protocol_mismatch_is_an_error_not_a_crash(bridge):
    reply = bridge.request("hello", {"protocol": 1})
    assert reply["error"]["code"] == "protocol_mismatch"
    assert "protocol 2" in reply["error"]["message"]
    assert bridge.hello()["protocol"] == 2  # still serving


def test_bad_input_gets_error_responses(bridge):
    bridge.hello()
    bridge.send_raw("this is not json\n")
    reply = bridge.next_message()
    assert reply["id"] is None and reply["error"]["code"] == "parse_error"
    bridge.send_raw("[1, 2, 3]\n")
    assert bridge.next_message()["error"]["code"] == "invalid_request"
    assert bridge.request("no-such-method")["error"]["code"] == "unknown_method"
    reply = bridge.request("event", {"kind": "nope", "session_id": "s"})
    assert reply["error"]["code"] == "invalid_params" and "unknown event kind" in reply["error"]["message"]
    reply = bridge.request("event", {"kind": "message_end", "session_id": "s", "text": 42})
    assert reply["error"]["code"] == "invalid_params" and "message_end.text" in reply["error"]["message"]
    assert bridge.request("event", {"kind": "turn_end"})["error"]["code"] == "invalid_params"
    assert bridge.request("tool", {"name": "bash"})["error"]["code"] == "invalid_params"
    assert bridge.request("command", {"name": "rm-rf"})["error"]["code"] == "invalid_params"
    send = {"id": 99, "method": "event", "params": "not an object"}
    bridge.send(send)
    assert bridge.wait_for_id(99)["error"]["code"] == "invalid_params"
    # a bad notification gets no response at all; the next request still works
    bridge.notify("event", {"kind": "nope", "session_id": "s"})
    assert bridge.result("ping")["pong"] is True


# ---------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------


def test_before_agent_start_returns_frozen_snapshot_guidance_and_skill_index(bridge, bridge_env):
    cfg = pi_cfg(bridge_env)
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    cfg.memory_file.write_text("MEMENTRY-ONE uses pnpm", encoding="utf-8")
    from tacit.stores.skills import SkillStore

    assert SkillStore(cfg).create("deploy-staging", "Deploy the web app to staging safely")["success"]
    bridge.hello()
    sid = {"session_id": "sess-1", "cwd": bridge_env["HOME"], "model": "stub/stub-model"}  # no project: global
    assert bridge.result("event", {"kind": "session_start", "source": "startup", **sid})["dispatched"]
    first = bridge.result("event", {"kind": "before_agent_start", "prompt": "hi", **sid})
    context = first["context"]
    assert "MEMENTRY-ONE uses pnpm" in context
    assert "call the `memory` tool" in context  # tools guidance, not the CLI one (tacit_tools)
    assert "deploy-staging" in context and "Deploy the web app to staging safely" in context
    assert context.index("MEMENTRY-ONE") < context.index("call the `memory` tool") < context.index(
        "deploy-staging")
    # a write mid-session does not change the frozen block
    add = bridge.result("tool", {"name": "memory", "session_id": "sess-1",
                                 "args": {"action": "add", "target": "memory", "content": "LATER entry"}})
    assert add["success"] is True
    again = bridge.result("event", {"kind": "before_agent_start", "prompt": "again", **sid})
    assert again["context"] == context
    assert "LATER entry" in cfg.memory_file.read_text(encoding="utf-8")


def test_a_skill_another_process_made_is_in_the_next_sessions_index(bridge, bridge_env, request):
    """The bridge has no file watcher: each new session reads the skills again (the service: its watcher)."""
    from tacit.stores.skills import SkillStore

    cfg = pi_cfg(bridge_env)
    assert SkillStore(cfg).create("deploy-staging", "Deploy the web app to staging safely")["success"]
    bridge.hello()

    def context(n: int) -> str:
        sid = {"session_id": f"sess-{n}", "cwd": bridge_env["HOME"]}
        bridge.result("event", {"kind": "session_start", "source": "startup", **sid})
        return bridge.result("event", {"kind": "before_agent_start", "prompt": "hi", **sid})["context"]

    first = context(1)
    assert "deploy-staging" in first and "added-later" not in first  # the catalog is built
    assert SkillStore(cfg).create("added-later", "Made by another process mid-session")["success"]
    assert "added-later" not in bridge.result("event", {"kind": "before_agent_start", "prompt": "more",
                                                        "session_id": "sess-1"})["context"]  # frozen
    if request.node.callspec.params["bridge"] == "bridge":
        assert "added-later: Made by another process mid-session" in context(2)
    else:  # once the service's watcher has seen the file
        sessions = iter(range(2, 10_000))
        wait_for(lambda: "added-later" in context(next(sessions)), what="the skill in a new session's index")


def test_notifications_are_processed_in_order_without_responses(bridge, bridge_env):
    bridge.hello()
    sid = {"session_id": "s2"}
    bridge.notify("event", {"kind": "message_end", "role": "user", "text": "run the tests", **sid})
    for name, ok in (("bash", True), ("read", True), ("bash", False)):
        bridge.notify("event", {"kind": "tool_result", "name": name, "ok": ok,
                                "args": {"command": "x" * 5000, "nested": {"a": 1}}, **sid})
    bridge.notify("event", {"kind": "message_end", "role": "assistant", "text": "done", **sid})
    turn = bridge.result("event", {"kind": "turn_end", **sid})
    assert turn["dispatched"] is True and turn["notices"] == []
    assert bridge.events == []  # nothing else was written for the notifications
    assert bridge.close() == 0
    summary = wait_for(lambda: [line for line in log_lines(bridge_env) if "pi: session closed:" in line],
                         what="the session summary")
    assert "child=0 events=6 dispatched=6" in summary[-1]


def test_queued_notices_reach_the_next_foreground_point_once(bridge, bridge_env):
    from tacit.stores.ledger import Ledger

    ledger = Ledger(pi_cfg(bridge_env))
    with ledger.write() as conn:
        conn.execute("INSERT INTO notices (text, created_at) VALUES (?, ?)",
                     ("Memory adapted: you always run pnpm test first", time.time()))
    ledger.close()
    bridge.hello()
    sid = {"session_id": "notices"}
    first = bridge.result("event", {"kind": "before_agent_start", **sid})
    assert first["notices"] == ["Memory adapted: you always run pnpm test first"]
    assert bridge.result("event", {"kind": "turn_end", **sid})["notices"] == []  # delivered once


# ---------------------------------------------------------------------------
# Tools and commands
# ---------------------------------------------------------------------------


def test_memory_and_skill_tools_write_through_the_stores(bridge, bridge_env):
    cfg = pi_cfg(bridge_env)
    bridge.hello()
    add = bridge.result("tool", {"name": "memory", "args": {
        "action": "add", "target": "user", "content": "The user is called Ada"}})
    assert add["success"] is True and add["target"] == "user"
    assert cfg.user_file.read_text(encoding="utf-8") == "The user is called Ada"
    replaced = bridge.result("tool", {"name": "memory", "args": {
        "action": "replace", "target": "user", "old_text": "Ada", "content": "The user is called Ada L."}})
    assert replaced["success"] is True
    refused = bridge.result("tool", {"name": "memory", "args": {
        "action": "remove", "target": "user", "old_text": "no such entry"}})
    assert refused["success"] is False and "No entry contains" in refused["error"]
    missing = bridge.result("tool", {"name": "memory", "args": {"action": "add", "target": "memory"}})
    assert missing == {"success": False, "error": "'content' is required and must be a non-empty string"}
    wrong = bridge.result("tool", {"name": "memory", "args": {"action": "add", "target": "nope",
                                                              "content": "x"}})
    assert wrong["success"] is False and "target" in wrong["error"]
    assert bridge.result("tool", {"name": "memory", "args": "add"})["success"] is False
    odd = bridge.result("tool", {"name": "memory", "args": {"action": ["add"], "target": "user", "content": "x"}})
    assert odd == {"success": False, "error": "action must be one of add, replace, remove"}

    created = bridge.result("tool", {"name": "skill", "args": {
        "action": "create", "name": "run-tests", "description": "Run the test suite with pnpm"}})
    assert created["success"] is True
    assert (cfg.skills_dir / "run-tests" / "SKILL.md").is_file()
    viewed = bridge.result("tool", {"name": "skill", "args": {"action": "view", "name": "run-tests"}})
    assert "Run the test suite with pnpm" in viewed["content"]
    listed = bridge.result("tool", {"name": "skill", "args": {"action": "list"}})
    assert [s["name"] for s in listed["skills"]] == ["run-tests"]
    patched = bridge.result("tool", {"name": "skill", "args": {
        "action": "patch", "name": "run-tests", "section": "Pitfalls", "content": "Never use npm."}})
    assert patched["success"] is True
    assert "Never use npm." in (cfg.skills_dir / "run-tests" / "SKILL.md").read_text(encoding="utf-8")
    assert bridge.result("tool", {"name": "skill", "args": {"action": "edit", "name": "run-tests"}})[
        "success"] is False
    assert bridge.result("tool", {"name": "skill", "args": {"action": "delete", "name": "run-tests"}})[
        "success"] is True
    assert not (cfg.skills_dir / "run-tests").exists()


def test_slash_commands(bridge, bridge_env):
    cfg = pi_cfg(bridge_env)
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    cfg.memory_file.write_text("Use pnpm here\n§\nuse pnpm here.\n§\nTests live in tests/unit",
                               encoding="utf-8")
    bridge.hello()
    skills = bridge.result("command", {"name": "memory-skills", "session_id": "s"})
    assert skills["text"].startswith(f"Skills in {cfg.skills_dir} (0):")
    taught = bridge.result("command", {"name": "memory-teach", "args": "  Deploys go through make ship ",
                                       "session_id": "s"})
    assert taught["success"] is True and taught["text"].startswith("Taught taught-")
    assert "Deploys go through make ship" in cfg.memory_file.read_text(encoding="utf-8")
    shown = bridge.result("command", {"name": "memory-show"})
    assert taught["key"] in shown["text"]
    forgot = bridge.result("command", {"name": "memory-forget", "args": taught["key"]})
    assert forgot["success"] is True and "removed it from MEMORY.md" in forgot["text"]
    assert "make ship" not in cfg.memory_file.read_text(encoding="utf-8")
    unknown = bridge.result("command", {"name": "memory-forget", "args": "no-such-key"})  # text, not a key
    assert unknown["success"] is True and unknown["text"].startswith('Nothing removed: no memory entry says "no-such-key"')


def test_memory_consolidate_command_merges_duplicates(bridge_env):
    env = dict(bridge_env, TACIT_CHILD_ENABLED="0")
    cfg = pi_cfg(env)
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    cfg.memory_file.write_text("Use pnpm here\n§\nuse pnpm here.\n§\nTests live in tests/unit",
                               encoding="utf-8")
    proc = BridgeProcess(env)
    try:
        proc.hello()
        result = proc.result("command", {"name": "memory-consolidate", "session_id": "s"})
        assert result["text"].startswith("Nothing to consolidate")
        result = proc.result("command", {"name": "memory-consolidate", "session_id": "s", "args": "force"})
        assert result["text"].startswith("Memory consolidation:")
        assert "(deterministic, 1 merged)" in result["text"]
        assert cfg.memory_file.read_text(encoding="utf-8") == "Use pnpm here\n§\nTests live in tests/unit"
    finally:
        assert proc.close() == 0


# ---------------------------------------------------------------------------
# Child mode, lifetime, stdout protection
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["bridge", "service"])
def test_a_childs_session_serves_tools_only(bridge_env, transport):
    env = dict(bridge_env, TACIT_CHILD="1") if transport == "bridge" else bridge_env
    proc = (BridgeProcess if transport == "bridge" else ServiceSession)(env)
    info = proc.hello(child=True)
    assert info["child"] is True and info["capabilities"] == ["tools"] and info["commands"] == []
    turn = proc.result("event", {"kind": "message_end", "role": "user", "session_id": "c",
                                 "text": "no, don't use npm here. we use pnpm in this repo"})
    assert turn["dispatched"] is False
    assert proc.result("event", {"kind": "turn_end", "session_id": "c"})["dispatched"] is False
    assert proc.request("command", {"name": "memory-skills"})["error"]["code"] == "unsupported"
    saved = proc.result("tool", {"name": "memory", "args": {"action": "add", "target": "user",
                                                            "content": "Use pnpm, not npm"}})
    assert saved["success"] is True
    assert proc.close() == 0
    summary = [line for line in log_lines(env) if "pi: session closed:" in line][-1]
    assert "child=1 events=2 dispatched=0 tools=1 commands=0" in summary


def test_end_of_input_and_shutdown_end_the_process(bridge_env):
    proc = BridgeProcess(bridge_env)
    proc.hello()
    assert proc.close() == 0
    proc = BridgeProcess(bridge_env)
    proc.hello()
    assert proc.result("shutdown") == {"ok": True}
    assert proc.proc.wait(timeout=TIMEOUT) == 0
    starts = [line for line in log_lines(bridge_env) if "pi.bridge: start:" in line]
    exits = [line for line in log_lines(bridge_env) if "pi: session closed:" in line]
    assert len(starts) == 2 and len(exits) == 2


def test_stray_prints_never_reach_the_protocol_stream(bridge_env, tmp_path):
    plugin_dir = tmp_path / "plugins"
    plugin_dir.mkdir()
    (plugin_dir / "noisy_plugin.py").write_text(
        "import os, sys\n"
        "def register(engine):\n"
        "    print('NOISE-AT-REGISTER')\n"
        "    engine.on('before_agent_start', handler, name='noisy')\n"
        "def handler(event, ctx):\n"
        "    print('NOISE-IN-HANDLER')\n"
        "    os.write(1, b'RAW-FD1-NOISE\\n')\n",
        encoding="utf-8")
    env = dict(bridge_env, TACIT_PLUGINS="noisy_plugin",
               PYTHONPATH=os.pathsep.join(filter(None, [str(plugin_dir), bridge_env.get("PYTHONPATH")])))
    proc = BridgeProcess(env)
    proc.hello()
    assert "context" in proc.result("event", {"kind": "before_agent_start", "session_id": "n"})
    assert proc.close() == 0
    assert proc.raw and all(json.loads(line) for line in proc.raw)
    stderr = proc.proc.stderr.read().decode()
    assert "NOISE-AT-REGISTER" in stderr and "NOISE-IN-HANDLER" in stderr and "RAW-FD1-NOISE" in stderr


def test_ctrl_c_does_not_kill_the_bridge(bridge):
    import signal

    bridge.hello()
    os.kill(bridge.proc.pid if bridge.transport == "bridge" else bridge.server.pid, signal.SIGINT)
    time.sleep(0.2)
    assert bridge.result("ping")["pong"] is True


# ---------------------------------------------------------------------------
# Children: detached, with pi's variables, reaped
# ---------------------------------------------------------------------------


def test_corrections_start_detached_children_with_pi_variables(bridge_env, tmp_path):
    calls = tmp_path / "agent-calls.jsonl"
    # the wrapper shows {model} and {pi_extension} in the logged command, then
    # runs the fake agent, which saves through the real `tacit memory` CLI
    command = (f"/bin/sh -c 'exec \"$0\" {FAKE_AGENT} --mode save --log {calls} \"$3\"' "
               f"{sys.executable} {{model}} {{pi_extension}} {{prompt_file}}")
    env = dict(bridge_env, TACIT_CHILD_COMMAND=command, TACIT_CORRECTION_SAVE_EVERY_TURNS="1")
    cfg = pi_cfg(env)
    proc = BridgeProcess(env)
    try:
        proc.hello(extension_path=str(EXTENSION))
        sid = {"session_id": "corr", "model": "stubprov/model-x"}
        proc.result("event", {"kind": "session_start", **sid})

        def turn(user: str) -> dict:
            proc.notify("event", {"kind": "message_end", "role": "user", "text": user, **sid})
            proc.notify("event", {"kind": "message_end", "role": "assistant",
                                  "text": "I ran npm install and updated the lockfile.", **sid})
            return proc.result("event", {"kind": "turn_end", **sid})

        turn("please add the date helper")
        turn("no, don't use npm here. we use pnpm in this repo")

        def records():
            if not cfg.children_log.exists():
                return []
            return [json.loads(line) for line in cfg.children_log.read_text().splitlines()]

        first = wait_for(lambda: records(), what="the first child record")[0]
        assert first["kind"] == "correction" and first["ok"] is True and first["mode"] == "agent"
        assert first["command"][4:6] == ["stubprov/model-x", str(EXTENSION)]
        assert "pnpm" in cfg.user_file.read_text(encoding="utf-8")
        agent_calls = [json.loads(line) for line in calls.read_text().splitlines()]
        assert agent_calls[0]["tacit_child"] == "1"
        assert agent_calls[0]["pgid"] != os.getpgid(proc.proc.pid)  # its own session

        # the child cleared its running mark: a later correction gets a child of its own
        time.sleep(0.5)
        turn("I told you to keep the tests in tests/unit")
        wait_for(lambda: len(records()) == 2, what="the second child record")
    finally:
        assert proc.close() == 0


# ---------------------------------------------------------------------------
# A session's end is never lost
# ---------------------------------------------------------------------------


def test_an_event_sent_again_with_its_id_is_applied_once(bridge, bridge_env):
    """The extension sends again, on a new link, what a dead link never answered; the id makes
    tacit apply it once and answer as it did the first time."""
    from tacit.stores.ledger import Ledger

    bridge.hello()
    event = {"kind": "message_end", "role": "user", "text": "we deploy on fridays", "session_id": "again",
             "id": "pi-1-x-7"}
    first = bridge.result("event", event)
    assert bridge.result("event", event) == first
    with Ledger(pi_cfg(bridge_env)).read() as conn:
        rows = conn.execute("SELECT count(*) FROM events WHERE id = 'pi-1-x-7'").fetchone()[0]
    assert rows == 1


def test_a_stopping_service_ends_its_open_session_and_logs_its_end(bridge_env):
    from tacit.service import client

    session = ServiceSession(bridge_env)
    try:
        session.hello()
        session.result("event", {"kind": "session_start", "session_id": "open", "id": "e1"})
        client.stop(bridge_env["TACIT_HOME"], wait=10)
        assert session.lines.get(timeout=TIMEOUT) is None  # the link ends: the extension makes a new one
        assert session.server.wait(timeout=TIMEOUT) == 0
        closed = [line for line in log_lines(bridge_env) if "pi: session closed:" in line]
        assert len(closed) == 1 and "events=1 dispatched=1" in closed[0]
    finally:
        session.sock.close()
        if session.server.poll() is None:
            session.server.kill()
            session.server.wait()


def test_the_extensions_command_descriptions_are_tacits():
    """Walking pi 0.73.1: its command menu showed the extension's own, older descriptions —
    "/memory-show: Show what tacit has learned, by status", "/memory-forget KEY" — while the commands
    show memory per scope and forget a text. They are now tacit's one table, checked here."""
    import re

    from tacit.slash_table import COMMANDS

    block = re.search(r"const COMMANDS = \{[^\n]*\n(.*?)\n\};", EXTENSION.read_text(), re.S).group(1)
    shown = dict(re.findall(r'^\s*("[^"]+"): ("(?:[^"\\]|\\.)*"),$', block, re.M))
    assert {json.loads(k): json.loads(v) for k, v in shown.items()} == \
        {name: description for name, (description, _hint) in COMMANDS.items()}

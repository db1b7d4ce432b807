"""A new host is one folder: a package of its own with a ``tacit.hosts`` entry
point gets install, status, hook bounds and hooks through the service, its
child's command, usage and reply, and ``tacit learn`` of its transcripts —
without a line of tacit changed (issue 20). Real subprocesses, real service."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from wait_helpers import wait_for

from tacit.children.runner import run_job
from tacit.commandline import hook_command
from tacit.config import load_config
from tacit.hosts import hook_client
from tacit.hosts import spec

PACKAGE = {
    "spec.py": '''
        from tacit.hosts.spec import Host

        HOST = Host(
            name="my-agent", label="My Agent",
            honoured=frozenset({"before_agent_start.context", "notices"}),
            child_command=("my-agent", "--quiet", "{prompt}"),
            child="my_agent_tacit.child",
            installer="my_agent_tacit.install",
            hook_handler="my_agent_tacit.hook:handle",
            rpc_session="my_agent_tacit.session:Echo",
            hook_bounds={"start": 1.5},
            headless="env:MY_AGENT_MODE=batch,tty",
            transcripts="my_agent_tacit.replay",
            env_vars=("MY_AGENT_HOME",),
        )
    ''',
    "hook.py": '''
        """Its hooks: {"session": …, "cwd": …} on "start" → the session's context."""
        import json

        from tacit.events import BeforeAgentStart, SessionStart
        from tacit.hookspecs import ContextResult

        def handle(engine, event_name, payload, *, event_id=""):
            if event_name != "start":
                return ""
            common = {"session_id": payload["session"], "cwd": payload.get("cwd"), "host": "my-agent"}
            results = [engine.dispatch(SessionStart(**common)), engine.dispatch(BeforeAgentStart(**common))]
            context = [i.text for r in results if isinstance(r, ContextResult) for i in r.context]
            return json.dumps({"context": "\\n".join(context)})
    ''',
    "session.py": '''
        """Its long-lived session over the service's socket: each line back, with its name."""
        class Echo:
            def __init__(self, engine, lines, writer, on_message):
                self.engine, self.lines, self.writer = engine, lines, writer

            def serve(self):
                for line in self.lines:
                    self.writer.write(b"my-agent: " + line)
                    self.writer.flush()
    ''',
    "child.py": '''
        """Its child prints one line: {"report": {"in", "out", "usd"}, "answer": …}."""
        import json

        from tacit.children.budget import Spend

        def _line(stdout):
            for line in reversed(stdout.splitlines()):
                try:
                    data = json.loads(line)
                except ValueError:
                    continue
                if isinstance(data, dict) and "report" in data:
                    return data
            return None

        def usage(stdout, usage_file):
            data = _line(stdout.decode())
            return {"report": data["report"]} if data else None

        def spend(cfg, usage, model):
            r = usage["report"]
            return Spend(r["in"] + r["out"], r["in"], r["out"], 0, 0, r["usd"], "host", model or "mine-1")

        def reply(stdout):
            data = _line(stdout)
            return data.get("answer") if data else None
    ''',
    "install.py": '''
        """Writes its plugin file into $MY_AGENT_HOME, and a manifest."""
        import json
        from pathlib import Path

        def manifest(cfg):
            return Path(cfg.env["MY_AGENT_HOME"]) / "tacit-manifest.json"

        def install(cfg, scope, project_dir=".", **options):
            plugin = Path(cfg.env["MY_AGENT_HOME"]) / "plugins" / "tacit.json"
            plugin.parent.mkdir(parents=True, exist_ok=True)
            plugin.write_text(json.dumps({"hook": "start"}))
            manifest(cfg).write_text(json.dumps({"files": [str(plugin)]}))
            return {"success": True, "installed": [str(plugin)]}

        def uninstall(cfg, scope, project_dir=".", **options):
            for name in json.loads(manifest(cfg).read_text())["files"]:
                Path(name).unlink()
            manifest(cfg).unlink()
            return {"success": True}
    ''',
    "replay.py": '''
        """Its transcripts: {"who": "me"|"it", "said": …} per line."""
        from tacit.events import MessageEnd, SessionShutdown, SessionStart, TurnEnd
        from tacit.learn.replay import json_objects

        def detect(data):
            return data.get("who") in ("me", "it") and "said" in data

        def read(path, stats):
            sid = path.stem
            yield SessionStart(session_id=sid)
            for _, data in json_objects(path, stats):
                if data.get("who") == "me":
                    yield MessageEnd(session_id=sid, role="user", text=data["said"])
                else:
                    yield MessageEnd(session_id=sid, role="assistant", text=data["said"])
                    yield TurnEnd(session_id=sid, assistant_text=data["said"])
            yield SessionShutdown(session_id=sid)
    ''',
}

AGENT = '''#!{python}
import json, sys
prompt = sys.stdin.read()
assert "--quiet" in sys.argv and prompt.strip()
print("thinking…")
print(json.dumps({{"report": {{"in": 120, "out": 7, "usd": 0.0042}}, "answer": "Nothing to save."}}))
'''


@pytest.fixture
def fifth_host(tmp_path, monkeypatch, tacit_env):
    """The package, installed where Python finds it (PYTHONPATH), its agent on PATH."""
    root = tmp_path / "site"
    (root / "my_agent_tacit").mkdir(parents=True)
    (root / "my_agent_tacit" / "__init__.py").write_text("")
    for name, text in PACKAGE.items():
        (root / "my_agent_tacit" / name).write_text(textwrap.dedent(text).lstrip())
    dist = root / "my_agent_tacit-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-agent-tacit\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[tacit.hosts]\nmy-agent = my_agent_tacit.spec:HOST\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    agent = bin_dir / "my-agent"
    agent.write_text(AGENT.format(python=sys.executable))
    agent.chmod(0o755)
    env = {**tacit_env, "PYTHONPATH": str(root), "MY_AGENT_HOME": str(tmp_path / "my-agent-home"),
           "PATH": f"{bin_dir}{os.pathsep}{tacit_env['PATH']}"}
    os.makedirs(env["MY_AGENT_HOME"])
    saved = spec.registry()
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("PATH", env["PATH"])  # the agent is installed (a child's environment is built from ours)
    yield env
    with spec._lock:
        spec._hosts.clear()
        spec._hosts.update(saved)
    for name in [m for m in sys.modules if m.startswith("my_agent_tacit")]:
        sys.modules.pop(name)


def tacit(env, *args) -> dict:
    proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def test_install_status_and_uninstall(fifth_host):
    home = Path(fifth_host["MY_AGENT_HOME"])
    assert tacit(fifth_host, "install", "my-agent")["installed"] == [str(home / "plugins" / "tacit.json")]
    assert tacit(fifth_host, "status")["hosts"]["my-agent"] == str(home / "tacit-manifest.json")
    tacit(fifth_host, "uninstall", "my-agent")
    assert sorted(p.name for p in home.rglob("*") if p.is_file()) == []
    assert tacit(fifth_host, "status")["hosts"]["my-agent"] is None


def test_its_hooks_wait_its_bound_and_reach_the_service(fifth_host):
    assert spec.discover() == ["my-agent"]
    command = hook_command(sys.executable, "my-agent", "start")
    assert shlex.split(command)[-4:] == ["my-agent", "start", "1.5", "env:MY_AGENT_MODE=batch,tty"]
    assert hook_client.bound_of(shlex.split(command)[-4:]) == 1.5
    tacit(fifth_host, "memory", "add", "--scope", "user", "Replies in French.")
    body = json.dumps({"session": "s1", "cwd": str(Path(fifth_host["HOME"]))}).encode()

    def hook() -> str:
        proc = subprocess.run(shlex.split(command), input=body, env=fifth_host, capture_output=True, timeout=60)
        assert proc.returncode == 0
        return proc.stdout.decode()

    # the first call starts the service (a cold start may outlast the 1.5 s bound: then the hook ran
    # in-process under -I, where this package is not importable, and answered nothing)
    out = wait_for(hook, timeout=60, what="the service to answer my-agent's hook")
    assert "Replies in French." in json.loads(out)["context"]  # the service ran its handler


def test_its_child_runs_and_its_usage_and_reply_are_read(fifth_host):
    spec.discover()
    cfg = load_config(env=fifth_host, host="my-agent")
    record = run_job(cfg, {"id": "j1", "kind": "correction", "session_id": "s", "host": "my-agent",
                           "variables": {"correction": "no, we use pnpm here"}})
    assert record["mode"] == "agent" and record["ok"], record
    assert record["command"][:2] == ["my-agent", "--quiet"] and record["prompt_via"] == "stdin"
    assert record["usage"] == {"report": {"in": 120, "out": 7, "usd": 0.0042}, "format": "my-agent"}
    assert (record["spend"]["tokens"], record["spend"]["usd"], record["spend"]["model"]) == (127, 0.0042, "mine-1")
    assert record["nothing_to_save"] and record["stdout_tail"] == "Nothing to save."


def test_tacit_learn_reads_its_transcripts(fifth_host, tmp_path):
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text("\n".join(json.dumps(line) for line in [
        {"who": "me", "said": "install the deps"}, {"who": "it", "said": "Running npm install."},
        {"who": "me", "said": "no, we use pnpm here, not npm"}, {"who": "it", "said": "Switching to pnpm."},
    ]) + "\n")
    report = tacit(fifth_host, "learn", str(transcript))
    [session] = report["sessions"]
    assert session["format"] == "my-agent" and session["turns"] == 2
    assert [c["text"] for c in session["corrections"]] == ["no, we use pnpm here, not npm"]
    assert tacit(fifth_host, "learn", "--host", "my-agent", str(transcript))["host"] == "my-agent"  # its child


def test_its_long_lived_session_through_the_service(fifth_host):
    """``TACIT1 rpc IDENTITY my-agent``: the service serves its spec's rpc_session."""
    import socket
    import time

    from tacit import __version__
    from tacit.paths import code_identity, socket_path

    server = subprocess.Popen([sys.executable, "-P", "-m", "tacit", "serve"], env=fifth_host,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            deadline = time.monotonic() + 30
            while True:
                try:
                    sock.connect(socket_path(fifth_host["TACIT_HOME"]))
                    break
                except OSError:
                    assert time.monotonic() < deadline, "no service"
                    time.sleep(0.02)
            sock.sendall(f"TACIT1 rpc {code_identity(__version__)} my-agent\nhello\n".encode())
            sock.shutdown(socket.SHUT_WR)
            reader = sock.makefile("rb")
            assert reader.readline() == b"OK\n"
            assert reader.readline() == b"my-agent: hello\n"  # its session class answered
    finally:
        tacit(fifth_host, "service", "stop")
        server.wait(timeout=30)


def test_the_guide_for_a_new_host_shows_every_spec_field():
    """docs/adding-a-host.md's `Host(...)` example names every field of the spec, and only real ones,
    so a host author reading it meets every decision (a field added to Host must be shown there)."""
    import dataclasses
    import re

    guide = (Path(__file__).resolve().parents[2] / "docs" / "adding-a-host.md").read_text(encoding="utf-8")
    example = guide.split("```python", 1)[1].split("```", 1)[0]
    shown = set(re.findall(r"^\s+(\w+)=", example, re.M))
    assert shown == {field.name for field in dataclasses.fields(spec.Host)}

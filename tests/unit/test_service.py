"""The engine service (`tacit serve`) for real: started by a hook, one per data
folder, private, exits when idle or when its code or config changes, answers
``tacit service status|stop``, and never leaves a process behind."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tacit import __version__
from tacit.paths import code_identity, socket_path
from tacit.commandline import hook_command
from tacit.service import client
from wait_helpers import claude_hook, wait_for

ROOT = Path(__file__).resolve().parents[2]


def hook(env, event="SessionStart", **fields) -> subprocess.CompletedProcess:
    return claude_hook(env, event, session_id=fields.pop("session_id", "svc-1"), **fields)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def tacit_processes(home: Path) -> list[int]:
    """pids of processes whose environment points at this data folder."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if f"TACIT_HOME={home}".encode() in environ.split(b"\0") and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def test_the_first_hook_starts_one_private_service_that_serves_the_next(tacit_env, tacit_home):
    first = hook(tacit_env)
    assert first.returncode == 0 and b"additionalContext" in first.stdout
    status = wait_for(lambda: client.status(str(tacit_home)) if client.status(str(tacit_home))["running"]
                      else None, what="the service")
    assert status["version"] == __version__ and status["identity"] == code_identity(__version__)
    run = tacit_home / "run"
    assert stat.S_IMODE(run.stat().st_mode) == 0o700
    assert stat.S_IMODE((run / "tacit.sock").stat().st_mode) == 0o600
    for n in range(3):
        assert hook(tacit_env, "PostToolUse", tool_name="Bash", tool_input={"command": "ls"}).returncode == 0
    again = client.status(str(tacit_home))
    assert again["pid"] == status["pid"] and again["events"] >= 4  # the same service served them all
    # a second `tacit serve` for the same folder leaves at once (the lock)
    second = subprocess.run([sys.executable, "-P", "-m", "tacit", "serve"], env=tacit_env, timeout=30)
    assert second.returncode == 0 and client.status(str(tacit_home))["pid"] == status["pid"]


def test_service_status_and_stop_in_text_and_json(tacit_env, tacit_home):
    def tacit(*args):
        return subprocess.run([sys.executable, "-P", "-m", "tacit", *args], env=tacit_env, capture_output=True,
                              text=True, timeout=60)

    stopped = tacit("service", "status")
    assert stopped.returncode == 0 and "not running" in stopped.stdout
    assert json.loads(tacit("service", "status", "--json").stdout)["running"] is False
    hook(tacit_env)
    wait_for(lambda: client.status(str(tacit_home))["running"], what="the service")
    text = tacit("service", "status").stdout
    assert "tacit service running: pid" in text and "socket:" in text
    data = json.loads(tacit("service", "status", "--json").stdout)
    assert data["running"] and data["rss_kb"] > 0 and data["idle_exit_seconds"] == 30
    out = json.loads(tacit("service", "stop", "--json").stdout)
    assert out["stopped"] is True
    wait_for(lambda: not alive(data["pid"]), what="the service to exit")
    assert not (tacit_home / "run" / "tacit.sock").exists()
    assert "no service is running" in tacit("service", "stop").stdout


def served(home: Path) -> list[int]:
    """The pids of the services that listened for ``home``, oldest first (their "serving" lines)."""
    log = home / "logs" / "tacit.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [int(line.split("(pid ", 1)[1].split(",", 1)[0]) for line in lines if "service: serving " in line]


def test_idle_time_counts_from_when_it_listens_not_from_its_start(cfg):
    """A start slower than the idle setting (the engine built under load) made the service leave about
    half a second after it began to listen, before the hook that started it could connect."""
    from tacit.fsutil import ensure_private_dir
    from tacit.service.server import Service

    service = Service(cfg)
    ensure_private_dir(service.folder)
    service.last_event -= 1000  # as if building the engine took that long
    service._bind()
    try:
        assert service.status()["idle_seconds"] < 5
    finally:
        service.listener.close()


def test_it_exits_when_idle_and_leaves_no_process(tacit_env, tacit_home):
    env = {**tacit_env, "TACIT_SERVICE_IDLE_SECONDS": "2"}
    hook(env)
    # flaky under load: polling `status` for the pid raced the 2 s idle exit (the service served the hook
    # and left before a poll was answered); the "serving" line it logs stays
    [pid] = wait_for(lambda: served(tacit_home), what="the service")
    wait_for(lambda: not alive(pid), what="the idle exit")
    assert not (tacit_home / "run" / "tacit.sock").exists()
    assert tacit_processes(tacit_home) == []
    assert "stopped (idle)" in (tacit_home / "logs" / "tacit.log").read_text()
    # the next hook starts a new one
    assert b"additionalContext" in hook(env).stdout
    assert wait_for(lambda: served(tacit_home)[1:], what="a new service") != [pid]


def _raw_hook(home, identity: str, event: str = "SessionStart", body: bytes = b"{}") -> bytes:
    return raw_request(home, f"TACIT1 hook {identity} claude-code {event} e-{time.time_ns()}", body)


def raw_request(home, header: str, body: bytes = b"") -> bytes:
    """``header`` and ``body`` to the service of ``home``; all it answers."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(socket_path(str(home)))
    sock.sendall(header.encode() + b"\n" + body)
    sock.shutdown(socket.SHUT_WR)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    sock.close()
    return data


def test_an_older_client_is_served_and_a_newer_one_takes_over(tacit_env, tacit_home):
    """Two installs of different versions sharing one data folder: the newer
    service answers the older install's hooks instead of being stopped by them."""
    hook(tacit_env)
    pid = wait_for(lambda: client.status(str(tacit_home)).get("pid"), what="the service")
    body = json.dumps({"session_id": "old-install", "cwd": "/tmp"}).encode()
    for _ in range(3):  # an older install's hook, again and again: served, the service stays
        reply = _raw_hook(tacit_home, "0.0.1+123", body=body)
        assert reply.startswith(b"OK ") and b"additionalContext" in reply
    assert client.status(str(tacit_home))["pid"] == pid
    assert _raw_hook(tacit_home, "999.0.0+1") == b"MISMATCH\n"  # a newer install: this one leaves
    wait_for(lambda: not alive(pid), what="the old service to exit")
    assert "another version" in (tacit_home / "logs" / "tacit.log").read_text()


def test_a_config_change_restarts_it_with_the_new_settings(tacit_env, tacit_home):
    tacit_env = {k: v for k, v in tacit_env.items() if k != "TACIT_SERVICE_IDLE_SECONDS"}  # env beats the file
    hook(tacit_env)
    pid = wait_for(lambda: client.status(str(tacit_home)).get("pid"), what="the service")
    (tacit_home / "config.toml").write_text("service_idle_seconds = 77\n")
    wait_for(lambda: not alive(pid), what="the service to exit on a config change")
    hook(tacit_env)
    status = wait_for(lambda: client.status(str(tacit_home)) if client.status(str(tacit_home))["running"]
                      else None, what="the new service")
    assert status["idle_exit_seconds"] == 77


def test_a_code_change_makes_it_exit(tacit_env, tmp_path):
    """A copy of the package stands in for an install a pip upgrade rewrites."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "extension" / "tacit", site / "tacit", ignore=shutil.ignore_patterns("__pycache__"))
    for resource in ("prompts", "skills_template"):
        shutil.copytree(ROOT / resource, site / "tacit" / resource)
    env = {**tacit_env, "PYTHONPATH": str(site)}
    server = subprocess.Popen([sys.executable, "-P", "-m", "tacit", "serve"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    home = tacit_env["TACIT_HOME"]
    wait_for(lambda: client.status(home).get("watching"), what="the service and its watchers")
    (site / "tacit" / "hookspecs.py").write_text((site / "tacit" / "hookspecs.py").read_text() + "\n# upgraded\n")
    assert server.wait(timeout=20) == 0
    assert "code changed" in (Path(home) / "logs" / "tacit.log").read_text()


@pytest.mark.skipif(os.getuid() != 0 or not os.access("/usr/bin/python3", os.X_OK),
                    reason="needs root (to connect as another user) and a system python3")
def test_another_user_cannot_use_it(tacit_env):
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="tacit-uid-"))  # world-traversable, unlike pytest's tmp folders
    try:
        os.chmod(top, 0o755)
        home = top / "home"
        env = {**tacit_env, "TACIT_HOME": str(home)}
        hook(env)
        wait_for(lambda: client.status(str(home))["running"], what="the service")
        path = socket_path(str(home))
        probe = ("import socket, sys\ns = socket.socket(socket.AF_UNIX)\n"
                 "try:\n    s.connect(sys.argv[1])\nexcept OSError as e:\n    print('refused', e.errno); sys.exit(0)\n"
                 "try:\n    s.sendall(b'TACIT1 status\\n'); s.shutdown(socket.SHUT_WR); print('reply', s.recv(100))\n"
                 "except (ConnectionResetError, BrokenPipeError):\n    print('reset')\n")

        def as_nobody():
            os.setgid(65534)
            os.setuid(65534)

        def run_probe():
            return subprocess.run(["/usr/bin/python3", "-I", "-c", probe, path], preexec_fn=as_nobody,
                                  capture_output=True, text=True, timeout=30, cwd="/")

        out = run_probe()
        assert out.stdout.startswith("refused"), out  # a 0700 folder and a 0600 socket
        # even with the file modes opened up, the service itself refuses another uid
        for folder in (home, home / "run"):
            os.chmod(folder, 0o755)
        os.chmod(path, 0o666)
        out = run_probe()
        assert out.stdout.strip() in ("reply b''", "reset"), out  # closed without a word
    finally:
        client.stop(str(top / "home"))
        shutil.rmtree(top, ignore_errors=True)


def test_a_service_that_cannot_start_costs_a_hook_no_wait(tacit_env, tacit_home):
    (tacit_home / "run").write_text("not a folder")
    # a 60 s bound, not SessionStart's 5: the in-process answer alone took longer than 4 s under CI load
    # (a flake); a client that waited for the service it could not start would take the whole 60 s
    argv = shlex.split(hook_command(sys.executable, "claude-code", "SessionStart"))
    argv[argv.index("SessionStart") + 1] = "60"
    started = time.monotonic()
    out = subprocess.run(argv, input=json.dumps({"session_id": "svc-1", "cwd": "/tmp"}).encode(), env=tacit_env,
                         capture_output=True, timeout=120)
    assert out.returncode == 0 and b"additionalContext" in out.stdout  # answered in-process
    assert time.monotonic() - started < 30.0  # did not wait out the bound for a service that failed


def test_a_long_data_folder_path_still_gets_a_socket(tmp_path, tacit_env):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    env = {**tacit_env, "TACIT_HOME": str(deep)}
    assert len(socket_path(str(deep)).encode()) > 108
    try:
        assert b"additionalContext" in hook(env).stdout
        status = wait_for(lambda: client.status(str(deep)) if client.status(str(deep))["running"] else None,
                          what="the service")
        assert b"" == hook(env, "PostToolUse", tool_name="Bash", tool_input={}).stdout
        assert client.status(str(deep))["events"] > status["events"]
    finally:
        client.stop(str(deep))


def test_sigterm_stops_it_cleanly(tacit_env, tacit_home):
    hook(tacit_env)
    pid = wait_for(lambda: client.status(str(tacit_home)).get("pid"), what="the service")
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not alive(pid), what="the service to stop")
    assert "stopped (signal)" in (tacit_home / "logs" / "tacit.log").read_text()
    assert not (tacit_home / "run" / "tacit.sock").exists()


def test_the_hook_that_starts_the_service_is_told_when_it_listens(tacit_env, tacit_home, monkeypatch):
    """The starting hook waits on a socket pair, not by polling every 10 ms:
    the service writes a byte once it listens (the next connect is served), and
    one that leaves without serving (another instance holds the lock) closes
    it, so its starter goes back to connecting to the one that serves."""
    from tacit.hosts import hook_client

    monkeypatch.setattr(hook_client.posix, "environ", {k.encode(): v.encode() for k, v in tacit_env.items()})
    deadline = time.monotonic() + 60
    pids = []
    try:
        for _ in range(2):
            pid, ready = hook_client.start_service()
            assert pid and ready is not None
            pids.append(pid)
            while ready is not None and time.monotonic() < deadline:
                ready = hook_client.wait_ready(ready, deadline)
            assert ready is None
            sock = hook_client.connect(str(tacit_home / "run"), deadline)
            assert sock is not None and not isinstance(sock, str)  # listening when told: no retry needed
            sock.close()
        assert os.waitpid(pids[1], 0)[1] == 0  # the second left: the first serves
        assert client.status(str(tacit_home))["pid"] == pids[0]
    finally:
        client.stop(str(tacit_home))
        for pid in pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def test_a_stop_wakes_the_reader_at_once_and_a_late_wake_writes_nowhere(tmp_path):
    """A SIGTERM (or the idle exit) used to leave the socket up until the
    reader's wait ended (0.5 s): the stop now wakes it. Its wait is made a
    minute here, so only the wake can end ``run`` within the join below."""
    import threading

    from tacit.service.connections import Reader

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(tmp_path / "s.sock"))
    listener.listen(8)
    stopping = threading.Event()
    reader = Reader(listener, lambda *a: None, stopping)
    reader.idle_wait = 60.0
    thread = threading.Thread(target=reader.run, daemon=True)
    thread.start()
    time.sleep(0.2)  # in its wait
    stopping.set()
    reader.wake()
    thread.join(timeout=20)
    assert not thread.is_alive()
    with open(tmp_path / "after", "wb") as handle:  # may reuse the pipe's descriptor number
        reader.wake()
    assert (tmp_path / "after").read_bytes() == b""
    listener.close()


def test_a_second_serve_leaves_once_the_starting_one_listens(tacit_env, tacit_home):
    """Two hooks each start a service: the one that lost the lock while the
    winner was still building its engine leaves as soon as the winner listens,
    without serving (one "serving" line, not two)."""
    import fcntl

    run = tacit_home / "run"
    run.mkdir(mode=0o700, parents=True, exist_ok=True)
    holder = os.open(run / "serve.lock", os.O_RDWR | os.O_CREAT, 0o600)  # the winner, still starting
    fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        second = subprocess.Popen([sys.executable, "-P", "-m", "tacit", "serve"], env=tacit_env)
        time.sleep(0.3)
        listener.bind(str(run / "tacit.sock"))  # the winner listens now
        listener.listen(8)
        listener.settimeout(30)
        conn, _ = listener.accept()  # the loser looks, and finds it serving
        conn.close()
        assert second.wait(timeout=30) == 0
        log = tacit_home / "logs" / "tacit.log"
        assert "serving" not in (log.read_text() if log.exists() else "")
    finally:
        listener.close()
        fcntl.flock(holder, fcntl.LOCK_UN)
        os.close(holder)


SLOW_WALK_SERVICE = """
import sys, time
import tacit.stores.guard_files as files
walk = files.found
def found(root):
    open(sys.argv[1], "a").write(root + "\\n")
    time.sleep(float(sys.argv[2]))  # a walk of a big, cold folder under load
    return walk(root)
files.found = found
from tacit.service.server import serve
raise SystemExit(serve())
"""


def test_a_slow_walk_in_the_service_leaves_the_ledger_to_an_in_process_hook(tacit_env, tacit_home, tmp_path):
    """The service looks for a project's instruction files (a walk) before the event's write: the
    hook that gave up waiting for it and runs in-process gets its write through, not "locked"."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("# Rules\n\n- Never run `git push --force`.\n")
    walked = tmp_path / "walked"
    service = subprocess.Popen([sys.executable, "-P", "-c", SLOW_WALK_SERVICE, str(walked), "8"], env=tacit_env)
    try:
        wait_for(lambda: client.status(str(tacit_home))["running"], what="the service")
        argv = shlex.split(hook_command(sys.executable, "claude-code", "SessionStart"))
        argv[argv.index("SessionStart") + 1] = "1"  # its bound: it gives up on the walking service
        body = json.dumps({"session_id": "walk-1", "cwd": str(project)}).encode()
        proc = subprocess.run(argv, input=body, env=tacit_env, capture_output=True, timeout=60)
        wait_for(walked.exists, what="the service's walk")
        assert walked.read_text().splitlines()[0] == str(project)  # the service walked this project
        assert proc.returncode == 0 and b"additionalContext" in proc.stdout, proc.stdout
        assert b"cannot use its data folder" not in proc.stdout  # answered in-process, not degraded
        conn = sqlite3.connect(tacit_home / "ledger.db")
        try:
            rows = conn.execute("SELECT count(*) FROM events WHERE session_id = 'walk-1' "
                                "AND kind = 'before_agent_start'").fetchone()[0]
        finally:
            conn.close()
        assert rows == 1  # the hook's own write
        assert "locked" not in (tacit_home / "logs" / "tacit.log").read_text()
    finally:
        service.terminate()
        service.wait(timeout=30)

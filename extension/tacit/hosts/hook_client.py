"""The hook command of Claude Code and Codex: a pipe to the tacit service.

Installed hooks run ``python -I -S -c "<path setup>; from tacit.hosts.hook_client
import main; main()" HOST EVENT`` (``tacit.commandline.hook_command``): no
``site``, no project folder on ``sys.path``, and this module imports only
``posix``, ``sys``, ``time`` and ``_socket`` — ``os`` would cost a
millisecond, ``socket`` would pull in ``enum`` and ``selectors``. It sends
the host, the event and the raw stdin bytes to the data folder's service and
writes the raw reply back.

Design decisions, and why
- **Never a lost event, always exit 0.** No service yet: the client starts
  one (detached, its own session) and waits for its socket up to a bound per
  event (``BOUNDS``). The service dies mid-event: the client retries with the
  *same event id*, so the event is applied once (the service's event log).
  Unreachable, too slow, or a different version: the same engine runs right
  here, in-process — slower, equally correct.
- **The reply is length-prefixed**: a reply cut short by a crash is not taken
  for a complete one.
- **A long data-folder path** (AF_UNIX allows ~107 bytes) is reached by
  changing into the run folder and connecting by the socket's bare name.
- **Headless runs show no hook output**: the reply's notices also go where
  that run's user sees them (``tell_terminal``; docs/hosts/claude-code.md,
  codex.md), never to its stdout.
"""

import _socket
import posix
import sys
import time

from tacit import __version__
from tacit.paths import SOCKET_NAME, code_identity, data_dir, python_argv, run_dir

# seconds a hook waits for the service (incl. starting it) before it runs in-process
BOUNDS = {"SessionStart": 5.0, "UserPromptSubmit": 4.0, "PreToolUse": 3.0, "Stop": 4.0,
          "SessionEnd": 1.0}
DEFAULT_BOUND = 3.0
PROTOCOL = b"TACIT1"


#: per host, how a headless run is recognised: an environment variable's value prefixes, or
#: an ancestor process's first argument (``codex exec``); and whether the notices then go to
#: that run's stderr only when it is a terminal (claude -p: stderr is otherwise empty) or
#: always (codex exec: stderr is the run's transcript, where it reports its hooks)
HEADLESS = {"claude-code": {"env": b"CLAUDE_CODE_ENTRYPOINT", "prefixes": (b"sdk",), "terminal_only": True},
            "codex": {"argv1": b"exec", "terminal_only": False}}
ANCESTORS = 4


def main() -> None:
    argv = sys.argv[1:]
    out = b""
    try:
        out = run(argv, read_stdin())
    except BaseException:  # noqa: BLE001 — never break the host
        out = b""
    try:
        tell_terminal(argv, out)
    except BaseException:  # noqa: BLE001
        pass
    try:
        if out:
            sys.stdout.buffer.write(out)
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    posix._exit(0)


def _parent(pid: int) -> int:
    stat = _read(f"/proc/{pid}/stat")
    fields = stat.rpartition(b")")[2].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0


def _read(path: str) -> bytes:
    try:
        fd = posix.open(path, posix.O_RDONLY)
    except OSError:
        return b""
    try:
        return posix.read(fd, 4096)
    finally:
        posix.close(fd)


def _ancestors(limit: int = ANCESTORS):
    pid = posix.getppid()
    for _ in range(limit):
        if pid <= 1:
            return
        yield pid
        pid = _parent(pid)


def headless_run(host: str, environ=None, ancestors: int = ANCESTORS) -> int:
    """The pid whose stderr is the headless run's output (``claude -p``, ``codex exec``),
    0 when the run is headless but that process is not known, -1 when it is not headless."""
    spec = HEADLESS.get(host)
    if spec is None:
        return -1
    if "env" in spec:
        value = (posix.environ if environ is None else environ).get(spec["env"], b"")
        return 0 if value and value.startswith(spec["prefixes"]) else -1
    for pid in _ancestors(ancestors):
        args = _read(f"/proc/{pid}/cmdline").split(b"\0")
        if spec["argv1"] in args[1:3]:
            return pid
    return -1


def open_terminal(host: str, run: int, tty: str = "/dev/tty", ancestors: int = ANCESTORS) -> int:
    """A writable fd on the headless run's output, or -1: its terminal (``tty``,
    else the nearest ancestor's stderr that is a terminal); for a host whose
    run reports hooks on stderr, that run's stderr whatever it is."""
    if run > 0 and not HEADLESS[host]["terminal_only"]:
        try:
            return posix.open(f"/proc/{run}/fd/2", posix.O_WRONLY | posix.O_NOCTTY | posix.O_APPEND)
        except OSError:
            return -1
    try:
        return posix.open(tty, posix.O_WRONLY | posix.O_NOCTTY)
    except OSError:
        pass
    for pid in _ancestors(ancestors):
        try:
            fd = posix.open(f"/proc/{pid}/fd/2", posix.O_WRONLY | posix.O_NOCTTY | posix.O_APPEND)
        except OSError:
            continue
        if posix.isatty(fd):
            return fd
        posix.close(fd)
    return -1


def tell_terminal(argv: list, out: bytes, tty: str = "/dev/tty", ancestors: int = ANCESTORS) -> bool:
    """In a headless run, write the reply's notices (``systemMessage``) where the
    run's user sees them (:func:`open_terminal`); True when written."""
    if len(argv) < 2 or b'"systemMessage"' not in out or posix.environ.get(b"TACIT_CHILD") == b"1":
        return False
    run = headless_run(argv[0], ancestors=ancestors)
    if run < 0:
        return False
    import json  # only here: a notice in a headless run

    message = json.loads(out).get("systemMessage")
    if not isinstance(message, str) or not message.strip():
        return False
    fd = open_terminal(argv[0], run, tty, ancestors)
    if fd < 0:
        return False  # no terminal (a script, CI): the notice waits for the next session start
    try:
        lines = [line for line in message.splitlines() if line.strip()]
        posix.write(fd, "".join(f"tacit: {line}\n" for line in lines).encode("utf-8", "replace"))
    finally:
        posix.close(fd)
    return True


def read_stdin() -> bytes:
    try:
        return sys.stdin.buffer.read()
    except (OSError, ValueError):
        return b""


def run(argv: list, payload: bytes) -> bytes:
    if len(argv) < 2 or posix.environ.get(b"TACIT_CHILD") == b"1":
        return b""  # a child agent's hooks do nothing
    posix.umask(0o077)  # the service it starts and an in-process run create private files only
    host, event = argv[0], argv[1]
    event_id = posix.urandom(9).hex()
    deadline = time.monotonic() + BOUNDS.get(event, DEFAULT_BOUND)
    reply = via_service(host, event, event_id, payload, deadline)
    if reply is None:
        reply = in_process(host, event, event_id, payload)
    return reply


def via_service(host: str, event: str, event_id: str, payload: bytes, deadline: float):
    """The service's reply, or None when the hook must run in-process."""
    state = data_dir()
    folder = run_dir(state)
    header = b" ".join((PROTOCOL, b"hook", code_identity(__version__).encode(), host.encode(),
                        event.encode(), event_id.encode())) + b"\n"
    started = False
    server = 0
    while time.monotonic() < deadline:
        sock = connect(folder)
        if sock is None:
            if not started:
                server = start_service()
                started = True
            elif server and service_failed(server):
                return None  # it could not start (read-only or full storage…): no point waiting
            time.sleep(0.01)
            continue
        try:
            sock.settimeout(max(0.05, deadline - time.monotonic()))
            sock.sendall(header + payload)
            sock.shutdown(_socket.SHUT_WR)
            reply = read_all(sock)
        except OSError:
            continue  # the service died mid-event: retry, same event id
        finally:
            sock.close()
        status, _, rest = reply.partition(b"\n")
        if status.startswith(b"OK "):
            try:
                size = int(status[3:])
            except ValueError:
                continue
            if len(rest) == size:
                return rest
            continue  # cut short: retry
        return None  # MISMATCH (another version serves this folder) or ERR
    return None


def connect(folder: str):
    path = folder + "/" + SOCKET_NAME
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        if len(path.encode()) < 100:
            sock.connect(path)
        else:
            posix.chdir(folder)
            sock.connect(SOCKET_NAME)
        return sock
    except OSError:
        sock.close()
        return None


def read_all(sock) -> bytes:
    chunks = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def start_service() -> int:
    """``python -m tacit serve``, detached; one instance wins the lock.
    Returns its pid (0 when it could not be started)."""
    try:
        devnull = posix.open("/dev/null", posix.O_RDWR)
    except OSError:
        return 0
    try:
        return posix.posix_spawn(sys.executable, python_argv("serve"), posix.environ,
                          file_actions=[(posix.POSIX_SPAWN_DUP2, devnull, 0),
                                        (posix.POSIX_SPAWN_DUP2, devnull, 1),
                                        (posix.POSIX_SPAWN_DUP2, devnull, 2)],
                          setsid=True)
    except OSError:
        return 0
    finally:
        posix.close(devnull)


def service_failed(pid: int) -> bool:
    """The service we started has exited with a failure (exit 0 means another
    instance holds the lock: then its socket is coming)."""
    try:
        done, status = posix.waitpid(pid, posix.WNOHANG)
    except OSError:
        return False
    return done == pid and status != 0


def in_process(host: str, event: str, event_id: str, payload: bytes) -> bytes:
    """Run the engine here: the same code the service runs."""
    if sys.flags.no_site:
        import site

        site.main()  # the dependencies live in site-packages
    from tacit.hosts.hooks import run_in_process

    return run_in_process(host, event, payload, event_id=event_id).encode("utf-8")


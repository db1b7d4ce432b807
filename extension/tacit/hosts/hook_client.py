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
- **Headless runs show no hook output** (``claude -p`` prints only the
  reply): there the reply's ``systemMessage`` is also written to the
  terminal the run was started from — the hook's own ``/dev/tty``, else (the
  host starts hooks in a session of their own) the terminal its parent
  process writes its errors to (Linux ``/proc``) — never to the run's
  stdout, and nothing when there is no terminal (see docs/hosts/).
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


#: per host, the environment variable that says the run is headless, and its values' prefixes
HEADLESS = {"claude-code": (b"CLAUDE_CODE_ENTRYPOINT", (b"sdk",))}


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


def headless(host: str, environ=None) -> bool:
    """Does this run show no hook output (``claude -p``)?"""
    name, prefixes = HEADLESS.get(host, (None, ()))
    value = (posix.environ if environ is None else environ).get(name, b"") if name else b""
    return bool(value) and value.startswith(prefixes)


def _parent(pid: int) -> int:
    try:
        fd = posix.open(f"/proc/{pid}/stat", posix.O_RDONLY)
    except OSError:
        return 0
    try:
        stat = posix.read(fd, 4096)
    finally:
        posix.close(fd)
    fields = stat.rpartition(b")")[2].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0


def open_terminal(tty: str = "/dev/tty", ancestors: int = 4) -> int:
    """A writable fd on the run's terminal, or -1: ``tty``, else the nearest
    ancestor's stderr when that is a terminal."""
    try:
        return posix.open(tty, posix.O_WRONLY | posix.O_NOCTTY)
    except OSError:
        pass
    pid = posix.getppid()
    for _ in range(ancestors):
        if pid <= 1:
            break
        try:
            fd = posix.open(f"/proc/{pid}/fd/2", posix.O_WRONLY | posix.O_NOCTTY | posix.O_APPEND)
        except OSError:
            fd = -1
        if fd >= 0:
            if posix.isatty(fd):
                return fd
            posix.close(fd)
        pid = _parent(pid)
    return -1


def tell_terminal(argv: list, out: bytes, tty: str = "/dev/tty", ancestors: int = 4) -> bool:
    """In a headless run, write the reply's notices (``systemMessage``) to the
    terminal the run was started from; True when written."""
    if len(argv) < 2 or b'"systemMessage"' not in out or posix.environ.get(b"TACIT_CHILD") == b"1":
        return False
    if not headless(argv[0]):
        return False
    import json  # only here: a notice in a headless run

    message = json.loads(out).get("systemMessage")
    if not isinstance(message, str) or not message.strip():
        return False
    fd = open_terminal(tty, ancestors)
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


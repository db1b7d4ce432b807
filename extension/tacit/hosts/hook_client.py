"""The hook command of Claude Code and Codex: a pipe to the tacit service.

Design notes: docs/design/hosts.md#tacithostshook_client
"""

import _socket
import posix
import sys
import time

from tacit import __version__
from tacit.paths import SOCKET_NAME, code_identity, data_dir, python_argv, run_dir

# seconds a hook waits for the service (incl. starting it) before it runs in-process: its
# command's BOUND (the spec's hook_bounds); this for a command written without one
DEFAULT_BOUND = 3.0
PROTOCOL = b"TACIT1"
S_IFMT, S_IFDIR, S_IFSOCK = 0o170000, 0o040000, 0o140000
FAULT_FILE = "/logs/service-fault.json"  # tacit.service.faults.FILE
READY_FD = 3  # where a service this client starts finds the socket it tells "listening" on
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


def bound_of(argv: list) -> float:
    """Seconds this hook waits for the service: its command's BOUND."""
    try:
        bound = float(argv[2]) if len(argv) > 2 else DEFAULT_BOUND
    except ValueError:
        return DEFAULT_BOUND
    return bound if 0 < bound <= 60 else DEFAULT_BOUND


def headless_rule(token: str):
    """A host's headless rule (its spec's ``headless``) as ``(kind, value, where)``,
    or None: ``env:VAR=prefix`` (a variable whose value starts so) or ``argv:word``
    (an ancestor process with that first or second argument), then ``,tty`` (the
    notices go to the run's terminal only) or ``,stderr`` (to the run's stderr,
    whatever it is: where it reports its hooks)."""
    what, _, where = token.partition(",")
    kind, _, value = what.partition(":")
    if kind not in ("env", "argv") or not value or where not in ("tty", "stderr"):
        return None
    return kind, value, where


def headless_run(rule, environ=None, ancestors: int = ANCESTORS) -> int:
    """The pid whose stderr is the headless run's output (``claude -p``, ``codex exec``),
    0 when the run is headless but that process is not known, -1 when it is not headless."""
    kind, value, _ = rule
    if kind == "env":
        name, _, prefix = value.partition("=")
        found = (posix.environ if environ is None else environ).get(name.encode(), b"")
        return 0 if found and found.startswith(prefix.encode()) else -1
    word = value.encode()
    for pid in _ancestors(ancestors):
        args = _read(f"/proc/{pid}/cmdline").split(b"\0")
        if word in args[1:3]:
            return pid
    return -1


def open_terminal(rule, run: int, tty: str = "/dev/tty", ancestors: int = ANCESTORS) -> int:
    """A writable fd on the headless run's output, or -1: its terminal (``tty``, else the nearest
    ancestor's stderr that is one); for a host that reports hooks on stderr, that run's stderr."""
    if run > 0 and rule[2] == "stderr":
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
    run's user sees them (:func:`open_terminal`); True when written. For a host that reports its hooks
    on stderr (``codex exec``), a blocked prompt's ``reason`` too: the answer to a ``/memory-…``
    command, which that run shows nowhere else."""
    if len(argv) < 4 or not (b'"systemMessage"' in out or b'"decision": "block"' in out) \
            or posix.environ.get(b"TACIT_CHILD") == b"1":
        return False
    rule = headless_rule(argv[3])
    if rule is None:
        return False
    run = headless_run(rule, ancestors=ancestors)
    if run < 0:
        return False
    import json  # only here: a notice in a headless run

    reply = json.loads(out)
    message = reply.get("systemMessage")
    if message is None and rule[2] == "stderr" and reply.get("decision") == "block":
        message = reply.get("reason")
    if not isinstance(message, str) or not message.strip():
        return False
    fd = open_terminal(rule, run, tty, ancestors)
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
    deadline = time.monotonic() + bound_of(argv)
    if not_a_folder(data_dir()):
        return b""  # the data folder is a file: no service, no engine can run (nothing to wait for)
    reply = via_service(host, event, event_id, payload, deadline)
    if reply is None or isinstance(reply, str):
        reply = in_process(host, event, event_id, payload, fault=reply)
    return reply


def via_service(host: str, event: str, event_id: str, payload: bytes, deadline: float):
    """The service's reply (bytes); None when the hook must run in-process;
    a sentence (str) when the socket path is held by something untrusted."""
    state = data_dir()
    folder = run_dir(state)
    # the environment the host launched this hook with goes first: a child the service starts for this
    # session runs with its host's PATH and home folder, not with those of the hook that started it
    environ = b"\0".join(name + b"=" + value for name, value in posix.environ.items())
    fields = (PROTOCOL, b"hook", code_identity(__version__).encode(), host.encode(), event.encode(), event_id.encode())
    header = full = b" ".join((*fields, b"env=%d" % len(environ))) + b"\n" + environ
    older = b" ".join(fields) + b"\n"  # what a service from before ``env=`` reads (it drops ``full`` unanswered)
    started = False
    server, ready = 0, None
    while time.monotonic() < deadline:
        problem = untrusted(folder)
        if problem:
            return problem
        sock = connect(folder, max(0.05, min(1.0, deadline - time.monotonic())))
        if isinstance(sock, str):
            return sock
        if sock is None:
            if not started:
                cached = cached_start(folder, host, event, event_id, payload) if event == "SessionStart" else None
                server, ready = start_service(wait=cached is None)
                started = True
                if cached is not None:
                    return cached  # the service applies the spooled event first, once it is up
            elif server:
                done = service_exited(server)
                if done:
                    return None  # it could not start (read-only or full storage…): no point waiting
                if done is not None:  # it left at once: the lock was held by one that was leaving; again
                    started = False
                    continue
            ready = wait_ready(ready, deadline)
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
                clear_fault(state)
                return rest
            continue  # cut short: retry
        if not reply and header is full:
            header = older  # not a word: a service too old to read this header (or it died); asked as it reads
            continue
        if status == b"MISMATCH":  # an older install's service: it leaves (its work done), this client starts its own
            exchange(folder, PROTOCOL + b" stop\n", max(0.05, min(0.5, deadline - time.monotonic())))
            header = full
            continue
        return None  # ERR
    return None


def cached_start(folder: str, host: str, event: str, event_id: str, payload: bytes):
    """A cold SessionStart answered from the last answer for this folder when nothing it was built from
    changed and this hook's host was launched with the same PATH, SHELL and HOME
    (``tacit.service.context_cache``), the event spooled to ``run/inbox/``; else None."""
    try:
        import _sha1
        import json

        cwd = json.loads(payload).get("cwd")
        if not isinstance(cwd, str):
            return None
        key = _sha1.sha1(f"{host}\0{cwd}".encode("utf-8", "surrogateescape")).hexdigest()
        with open(folder + "/context/" + key, "rb") as handle:
            cached = json.loads(handle.read())
        if cached.get("magic") != "tacit-context-2":
            return None
        for name, value in cached["env"].items():  # an answer may show the session's PATH (a note)
            value = None if value is None else value.encode("utf-8", "surrogateescape")
            if posix.environ.get(name.encode()) != value:
                return None  # another environment than the answer was made for: the service answers
        for entry in cached["entries"]:
            try:
                st = posix.stat(entry[1])
                now = [st.st_mtime_ns, st.st_size, st.st_ino] if entry[0] == "F" else [st.st_ino]
            except OSError:
                now = []
            if now != entry[2:]:
                posix.unlink(folder + "/context/" + key)  # it shows what is no longer so
                return None
        out = cached["out"].encode("utf-8")
        spool(folder, host, event, event_id, payload)
        return out
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return None


def spool(folder: str, host: str, event: str, event_id: str, payload: bytes) -> None:
    """The event into the service's inbox (``tacit.service.reports``' format)."""
    try:
        posix.mkdir(folder + "/inbox", 0o700)
    except FileExistsError:
        pass
    path = f"{folder}/inbox/{time.time_ns():020d}-c{posix.getpid():07d}"
    fd = posix.open(path + ".tmp", posix.O_WRONLY | posix.O_CREAT | posix.O_EXCL, 0o600)
    try:
        data = f"{host} {event} {event_id}\n".encode() + payload
        while data:
            data = data[posix.write(fd, data):]
    finally:
        posix.close(fd)
    posix.rename(path + ".tmp", path)  # whole, or not there: the service's scan skips *.tmp


def not_a_folder(path: str) -> bool:
    try:
        return posix.stat(path).st_mode & S_IFMT != S_IFDIR
    except OSError:
        return False  # not there yet: the service makes it


def untrusted(folder: str) -> str:
    """Why the run folder or its socket is not this user's own ("" when it is,
    or when there is nothing yet: the service makes them)."""
    for path, kind, what in ((folder, S_IFDIR, "a folder"), (folder + "/" + SOCKET_NAME, S_IFSOCK, "a socket")):
        try:
            st = posix.lstat(path)
        except OSError:
            return ""
        if st.st_mode & S_IFMT != kind:
            return f"{path} is not {what} (a link or a file)"
        if st.st_uid != posix.getuid():
            return f"{path} belongs to another user (uid {st.st_uid})"
        if kind == S_IFDIR and st.st_mode & 0o077:  # ours, but open: close it (a socket put there: next)
            try:
                posix.chmod(folder, 0o700)
            except OSError:
                return f"{folder} is open to other users (mode {st.st_mode & 0o777:o}, not 700)"
    return ""


def connect(folder: str, timeout: float):
    """The one unix-socket connect to the service in ``folder`` (a path too long for the system is
    reached from inside the folder, then the working folder is put back): a connected socket; None
    when nothing listens; a sentence when the peer is another user."""
    path = folder + "/" + SOCKET_NAME
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    here = None
    try:
        sock.settimeout(timeout)
        if len(path.encode()) < 100:
            sock.connect(path)
        else:
            here = _cwd()
            posix.chdir(folder)
            sock.connect(SOCKET_NAME)
    except OSError:
        sock.close()
        return None
    finally:
        if here is not None:
            try:
                posix.chdir(here)
            except OSError:
                pass
    uid = peer_uid(sock)
    if uid is not None and uid != posix.getuid():
        sock.close()
        return f"{path} is served by another user (uid {uid})"
    return sock


def connect_trusted(folder: str, timeout: float):
    """``connect`` for a client that quietly does without the service: None as well for a folder or
    socket not this user's (``untrusted``) and for another user's service."""
    if untrusted(folder):
        return None
    sock = connect(folder, timeout)
    return None if isinstance(sock, str) else sock


def exchange(folder: str, request: bytes, timeout: float) -> bytes | None:
    """Send ``request`` to the service in ``folder`` and read its whole answer; None when none answers."""
    sock = connect_trusted(folder, timeout)
    if sock is None:
        return None
    try:
        sock.sendall(request)
        sock.shutdown(_socket.SHUT_WR)
        return read_all(sock)
    except OSError:
        return None
    finally:
        sock.close()


def _cwd():
    try:
        return posix.getcwd()
    except OSError:  # a working folder that is gone: nothing to go back to
        return None


def peer_uid(sock):
    try:
        creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    except (AttributeError, OSError):
        return None  # no SO_PEERCRED here: the folder and socket checks stand
    return int.from_bytes(creds[4:8], sys.byteorder)


def clear_fault(state: str) -> None:
    try:
        posix.unlink(state + FAULT_FILE)
    except OSError:
        pass


def read_all(sock) -> bytes:
    chunks = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def start_service(wait: bool = True) -> tuple:
    """``python -m tacit serve``, detached (one instance wins the lock): its pid (0: not started) and,
    with ``wait``, our end of the socket pair whose other end it gets as ``READY_FD`` (``wait_ready``)."""
    try:
        devnull = posix.open("/dev/null", posix.O_RDWR)
    except OSError:
        return 0, None
    ours = theirs = None
    actions = [(posix.POSIX_SPAWN_DUP2, devnull, 0), (posix.POSIX_SPAWN_DUP2, devnull, 1),
               (posix.POSIX_SPAWN_DUP2, devnull, 2)]
    env = posix.environ
    try:
        if wait:
            try:
                ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
                fd = READY_FD if theirs.fileno() != READY_FD else READY_FD + 1  # dup2 onto itself keeps CLOEXEC
                actions.append((posix.POSIX_SPAWN_DUP2, theirs.fileno(), fd))
                env = {**posix.environ, b"TACIT_READY_FD": str(fd).encode()}
            except OSError:
                ours = None
        return posix.posix_spawn(sys.executable, python_argv("serve"), env, file_actions=actions,
                                 setsid=True), ours
    except OSError:
        if ours is not None:
            ours.close()
        return 0, None
    finally:
        posix.close(devnull)
        if theirs is not None:
            theirs.close()


def take_ready_fd() -> int:
    """The service's end of ``start_service``'s socket pair (``TACIT_READY_FD``), taken out of the
    environment and kept from its children; -1 unless it names a socket."""
    import os
    import stat

    try:
        fd = int(os.environ.pop("TACIT_READY_FD", ""))
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            return -1
        os.set_inheritable(fd, False)
        return fd
    except (ValueError, OSError):
        return -1


def wait_ready(ready, deadline: float):
    """Wait at most a second for the service we started to listen (a byte on ``ready``) or exit (end of
    file); without ``ready``, 10 ms. Returns what is still to be waited on."""
    if ready is None:
        time.sleep(0.01)
        return None
    try:
        ready.settimeout(max(0.001, min(1.0, deadline - time.monotonic())))
        ready.recv(1)  # a byte: it listens; b"": it is gone (another instance holds the lock)
    except TimeoutError:
        return ready
    except OSError:
        pass
    ready.close()
    return None


def service_exited(pid: int):
    """The exit status of the service we started (0: another instance held the lock), None while it runs."""
    try:
        done, status = posix.waitpid(pid, posix.WNOHANG)
    except OSError:
        return None
    return status if done == pid else None


def in_process(host: str, event: str, event_id: str, payload: bytes, fault: str | None = None) -> bytes:
    """Run the engine here: the same code the service runs (``fault``: why
    the socket was not trusted, recorded and told once)."""
    if sys.flags.no_site:
        import site

        site.main()  # the dependencies live in site-packages
    from tacit.hosts.hooks import run_in_process

    from tacit.handlers import degraded

    if fault:
        record_fault(host, fault)
    degraded.take_unapplied()
    out = run_in_process(host, event, payload, event_id=event_id).encode("utf-8")
    if degraded.take_unapplied() and not fault:  # the ledger was locked: the service applies it later
        try:
            spool(run_dir(data_dir()), host, event, event_id, payload)
        except OSError:
            pass
    return out


def record_fault(host: str, fault: str) -> None:
    """Kept for ``tacit doctor`` and told once (``tacit.service.faults``,
    the service's own record: this module is its client)."""
    try:
        from tacit.config import load_config
        from tacit.service import faults

        faults.record(load_config(host=host), fault)
    except Exception:  # noqa: BLE001 — the hook is answered all the same
        pass

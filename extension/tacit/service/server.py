"""``tacit serve``: one long-lived engine per data folder.

Design notes: docs/design/service.md#tacitserviceserver
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import resource
import signal
import socket
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from tacit import __version__, lazyre, processes
from tacit.children.env import SESSION_ENV, session_env
from tacit.config import load_config
from tacit.fsutil import ensure_private_dir
from tacit.hosts import hooks
from tacit.hosts import spec as host_specs
from tacit.hosts.hook_client import connect, take_ready_fd
from tacit.hosts.runtime import build_engine
from tacit.log import log, log_exception
from tacit.paths import LOCK_NAME, PACKAGE_DIR, SOCKET_NAME, code_identity, run_dir
from tacit.handlers import BUILTIN_PLUGINS, degraded
from tacit.service import context_cache, housekeeping
from tacit.service.launches import Launches
from tacit.service.connections import Reader
from tacit.service.reports import Reports, session_in
from tacit.stores.file_memo import signature

TICK_SECONDS = 5.0
SETTLE_SECONDS = 2.0  # start-up work waits at most this long for the first hook to be answered
LOCK_WAIT_SECONDS = 15.0  # a new instance waits this long for one that is leaving
WORKERS = 8  # threads answering hooks (the engine applies one event at a time; the rest wait in memory)


class Service:
    def __init__(self, cfg):
        self.cfg = cfg
        self.identity = code_identity(__version__)
        self.folder = run_dir(cfg.state_dir_str)
        self.started = time.time()
        self.last_event = time.monotonic()
        self.events = 0
        self.in_flight = 0
        self.stopping = threading.Event()
        self.stop_reason = ""
        self._lock = threading.Lock()
        self.engine = None
        self.launches: Launches | None = None  # the engine's launcher: jobs wait for their session's environment
        self.listener: socket.socket | None = None
        self.socket_inode = 0
        self.observer = None  # a watchdog Observer once the watchers run (tacit.service.watchers)
        self.pool: ThreadPoolExecutor | None = None
        self.reports: Reports | None = None
        self.reader = None
        self.sessions: dict = {}  # an open pi session's connection -> its thread
        self.cut = 0
        self.cacheable = False
        self.searches = Searches(cfg)
        self.kept = context_cache.Kept(cfg, self.folder)  # SessionStart answers kept for a cold start
        self.answered = threading.Event()  # the first hook is answered: start-up work may compete now
        self.config_seen = signature(os.path.join(cfg.state_dir_str, "config.toml"))  # as read at start
        self.ready_fd = take_ready_fd()  # the socket of the hook client that started this service, or -1

    # -- life -------------------------------------------------------------------------
    def run(self) -> int:
        ensure_private_dir(self.folder)
        os.chmod(self.folder, 0o700)
        lock_fd = os.open(os.path.join(self.folder, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if not self._take_lock(lock_fd):
                return 0  # another instance serves this folder
            self.engine = build_engine(self.cfg, "service")
            if self.engine.launcher is not None:
                self.launches = Launches(self.cfg, self.engine, self.engine.launcher)
                self.engine.launcher, self.engine.on_launch_env = self.launches, self.launches.session_back
            # a third-party plugin's part of a session's context may not come from a file
            self.cacheable = set(self.engine.plugins) <= set(BUILTIN_PLUGINS)
            os.ftruncate(lock_fd, 0)
            os.write(lock_fd, f"{os.getpid()}\n".encode())  # who holds it (tacit service status, tests)
            self.pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="tacit-hook")
            self.reports = Reports(self.cfg, self.folder, self._run_hook, self.engine.ledger, self._remember)
            self.reports.start()  # what a killed instance acknowledged but never applied
            self._bind()
            _tell_ready(self.ready_fd)  # the hook that started us stops waiting now
            self.ready_fd = -1
            # the first hook is waiting: the watchers (a walk of every skill folder) and what a
            # crashed instance left for the learners start once it is answered (they would
            # share the interpreter with it), or after SETTLE_SECONDS
            threading.Thread(target=self._after_first_answer, name="tacit-watch", daemon=True).start()
            log(self.cfg, "info", "service", f"serving {self.cfg.state_dir_str} (pid {os.getpid()}, "
                                             f"tacit {self.identity})")
            threading.Thread(target=self._housekeeping, name="tacit-housekeeping", daemon=True).start()
            # one thread reads every connection with a deadline; hooks go to a bounded pool, reports to
            # the spool, a long-lived session to a thread of its own
            self.reader = Reader(self.listener, self._handle, self.stopping, on_cut=self._on_cut)
            self.reader.run()
            return 0
        finally:
            self._shutdown()
            os.close(lock_fd)
            _tell_ready(self.ready_fd, b"")  # never listened: its starter sees the end at once

    def _take_lock(self, fd: int) -> bool:
        if _flock(fd):
            return True
        # held: by a live service or one still starting (then leave as soon as it
        # listens), or one that is shutting down (then wait for its lock: it finishes its
        # hooks in flight and its reports first, an older install's leaving for a newer client too)
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while time.monotonic() < deadline:
            if _connectable(self.folder):
                return False
            time.sleep(0.05)
            if _flock(fd):
                return True
        return False

    def _bind(self) -> None:
        path = os.path.join(self.folder, SOCKET_NAME)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # a crashed instance's socket: we hold the lock, it is stale
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)  # the socket file is created 0600
        try:
            if len(path.encode()) < 100:
                listener.bind(path)
            else:  # AF_UNIX paths are short: bind by name inside the folder
                with contextlib.chdir(self.folder):
                    listener.bind(SOCKET_NAME)
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        self.socket_inode = os.stat(path).st_ino
        listener.listen(128)
        listener.settimeout(1.0)
        self.listener = listener
        self.last_event = time.monotonic()  # idle from here: a slow start is no idle time (it left at once)

    def _after_first_answer(self) -> None:
        self.answered.wait(SETTLE_SECONDS)
        try:  # the detectors the first prompt needs (not imported before the first answer)
            import tacit.detect.analysis  # noqa: F401
        except Exception as exc:  # noqa: BLE001 — the first prompt imports them itself
            log_exception(self.cfg, "service detectors", exc)
        try:
            self.engine._schedule_background()  # noqa: SLF001 — on the engine's worker, not here
        except Exception as exc:  # noqa: BLE001
            log_exception(self.cfg, "service background start", exc)
        self._watch()
        lazyre.compile_all(pause=0.001)  # what the first prompt's detectors need, before it comes

    def _watch(self) -> None:
        try:
            from tacit.service import watchers  # watchdog: only once the first hook is answered
            self.observer = watchers.start(self, PACKAGE_DIR)
            if signature(os.path.join(self.cfg.state_dir_str, "config.toml")) != self.config_seen:
                self.request_stop("config.toml changed")  # before the watchers saw it
            self.engine.reload_stores()  # a skill changed before the watchers: read again (memo: cheap)
            self.kept.forget()  # kept before the watchers: walked again once
            context_cache.prune(self.folder)  # what changed while no service watched
        except Exception as exc:  # noqa: BLE001 — hand edits are then seen at the next start
            log_exception(self.cfg, "service watchers", exc)

    def request_stop(self, reason: str) -> None:
        if not self.stopping.is_set():
            self.stop_reason = reason
            self.stopping.set()
            if self.reader is not None:
                self.reader.wake()  # the socket goes now (SIGTERM used to leave it up to 0.5 s)

    def _on_cut(self, why: str) -> None:
        self.cut += 1
        if self.cut in (1, 10, 100, 1000) or self.cut % 10000 == 0:
            log(self.cfg, "warning", "service", f"cut a connection: {why} ({self.cut} so far)")

    def _shutdown(self) -> None:
        path = os.path.join(self.folder, SOCKET_NAME)
        if self.listener is not None:
            with contextlib.suppress(OSError):  # new clients must not reach a dying service
                if os.stat(path).st_ino == self.socket_inode:  # ours, not a successor's
                    os.unlink(path)
            self.listener.close()
        self._end_sessions(time.monotonic() + 5)
        deadline = time.monotonic() + 10
        while self.in_flight and time.monotonic() < deadline:
            time.sleep(0.01)
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        if self.reports is not None:
            self.reports.stop(timeout=max(1.0, deadline - time.monotonic()))
        if self.observer is not None:
            self.observer.stop()
        self.searches.close()
        if self.engine is not None:
            self.engine.close()
            log(self.cfg, "info", "service", f"stopped ({self.stop_reason or 'exit'}) after "
                                             f"{self.events} events")

    def _end_sessions(self, deadline: float) -> None:
        """Open sessions end with the service, each logging its end (an event being applied finishes)."""
        with self._lock:
            sessions = list(self.sessions.items())
        for conn, _thread in sessions:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        for _conn, thread in sessions:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _housekeeping(self) -> None:
        idle = max(1, int(self.cfg.service_idle_seconds))
        tick = min(TICK_SECONDS, idle / 4)
        while not self.stopping.wait(tick):
            try:
                if (self.in_flight == 0 and not self.reports.queued and not self._held()
                        and time.monotonic() - self.last_event > idle):
                    self.request_stop("idle")
                    return
                housekeeping.tick(self.cfg, self.engine)
                if self.launches is not None:
                    self.launches.tick()
            except Exception as exc:  # noqa: BLE001
                log_exception(self.cfg, "service housekeeping", exc)

    # -- connections ---------------------------------------------------------------
    def _handle(self, conn: socket.socket, parts: list[bytes], body: bytes | None) -> None:
        """A complete request, on the reader's thread: answer what is quick, hand the rest on."""
        handed = False
        try:
            kind = parts[1]
            if kind == b"hook" and len(parts) in (6, 7):
                handed = self._take_hook(conn, parts, body)
            elif kind == b"rpc" and len(parts) in (3, 4):
                self._count(+1)
                threading.Thread(target=self._served, args=(self._serve_rpc, conn, parts, body or b""),
                                 daemon=True, name="tacit-pi").start()
                handed = True
            elif kind == b"search" and len(parts) == 3:
                handed = self._take_search(conn, parts, body)
            elif kind == b"status":
                conn.sendall(json.dumps(self.status()).encode() + b"\n")
            elif kind == b"stop":
                conn.sendall(b'{"stopping": true}\n')
                self.request_stop("tacit service stop")
            elif kind in (b"hook", b"rpc", b"search") and len(parts) > 2:  # a shape this version does not know:
                # a newer client's (this service leaves for it), never left unanswered
                conn.sendall(b"ERR unknown request\n" if self._serves(parts[2].decode("utf-8", "replace"))
                             else b"MISMATCH\n")
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass  # the client gave up (its bound passed): a spooled report is applied all the same
        except Exception as exc:  # noqa: BLE001 — one bad connection never stops the service
            log_exception(self.cfg, "service connection", exc)
        finally:
            if not handed:
                conn.close()

    def _take_hook(self, conn: socket.socket, parts: list[bytes], body: bytes | None) -> bool:
        _, _, identity, host, event, event_id = (p.decode("utf-8", "replace") for p in parts[:6])
        if not self._serves(identity):
            conn.sendall(b"MISMATCH\n")
            return False
        body, environ = _split_environ(parts[6:], body)
        if body is None:
            conn.sendall(b"ERR payload too large\n")
            return False
        self._touch()
        if self.reports.accept(host, event, event_id, body, environ=environ):
            conn.sendall(b"OK 0\n")  # on disk: applied after, in order, exactly once
            self.answered.set()
            return False
        return self._submit(self._serve_hook, conn, host, event, event_id, body, environ)

    def _submit(self, serve, conn: socket.socket, *args) -> bool:
        """Hand a request to the pool; False when it is shutting down (the client retries elsewhere)."""
        self._count(+1)
        try:
            self.pool.submit(self._served, serve, conn, *args)
        except RuntimeError:
            self._count(-1)
            return False
        return True

    def _served(self, serve, conn: socket.socket, *args) -> None:
        """``serve(conn, *args)``; then the connection is closed and no longer in flight, whatever happened."""
        try:
            serve(conn, *args)
        finally:
            conn.close()
            self._count(-1)

    def _take_search(self, conn: socket.socket, parts: list[bytes], body: bytes | None) -> bool:
        if not self._serves(parts[2].decode("utf-8", "replace")) or body is None:
            conn.sendall(b"MISMATCH\n")
            return False
        self._touch()
        return self._submit(self._serve_search, conn, body)

    def _serve_search(self, conn: socket.socket, body: bytes) -> None:
        """``tacit search`` (``Searches``); "NO" when the CLI should answer it itself."""
        reply = b"NO\n"
        try:
            answer = self.searches.answer(json.loads(body.decode("utf-8")))
            if answer is not None:  # "OK CODE" and the text (tacit.service.search_client)
                reply = b"OK %d\n" % int(answer["code"]) + str(answer["out"]).encode("utf-8")
        except Exception as exc:  # noqa: BLE001 — the CLI searches in-process instead
            log_exception(self.cfg, "service search", exc)
        with contextlib.suppress(OSError):
            conn.sendall(reply)

    def _serves(self, identity: str) -> bool:
        """A client of this version or an older one is served; a newer one makes this service leave."""
        if identity == self.identity or _identity_key(identity) < _identity_key(self.identity):
            return True
        self.request_stop(f"a client of another version connected ({identity})")
        return False

    def _serve_hook(self, conn: socket.socket, host: str, event: str, event_id: str, body: bytes,
                    environ: dict | None = None) -> None:
        try:
            try:
                data = hooks.decode_payload(body)  # once: the session's reports and the handler share it
            except ValueError:
                data = None  # hooks.run reports it
            self._remember(session_in(data), host, environ)
            if event != "PreToolUse":  # a guard check reads no report's effect: it never waits
                self.reports.wait_for(session_in(data))
            started = time.time_ns()
            with self.engine.background_after():  # the answer first
                degraded.take_unapplied()
                text = self._run_hook(host, event, body, event_id, data)
                if degraded.take_unapplied():  # answered from the files; applied once the ledger can be written
                    self.reports.accept(host, event, event_id, body, later=True)
                out = text.encode("utf-8")
                conn.sendall(b"OK %d\n" % len(out) + out)
                conn.close()  # the client reads to the end: its answer is complete before the context is kept
            self.answered.set()
            if event == "SessionStart" and self.cacheable:
                self._keep_context(host, body, text, started, environ)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass  # the client gave up and ran it in-process: the event id keeps it applied once
        except Exception as exc:  # noqa: BLE001
            log_exception(self.cfg, "service hook", exc)

    def _keep_context(self, host: str, body: bytes, text: str, started: int, environ: dict | None) -> None:
        """For the next cold start (``tacit.service.context_cache``) of a session launched like this one
        (``environ``: what its host launched the hook with), after the reply."""
        try:
            self.kept.save(host, body, text, started, context_cache.session_facts(environ, self.cfg.env))
        except Exception as exc:  # noqa: BLE001 — the next cold start is merely slower
            log_exception(self.cfg, "keeping the session context", exc)

    def _remember(self, session_id: str, host: str, environ: dict | None) -> None:
        """The environment a session's host was launched with: its children's (kept in memory; of it,
        ``session_env`` goes with its jobs, for a launch from their ledger row)."""
        if not session_id:
            return
        if environ is None:  # an older install's hook client: its jobs start as they always did
            if self.launches is not None and self.engine.launch_env(session_id) is None:
                self.launches.sends_none(session_id)
            return
        if self.engine.launch_env(session_id) != environ or SESSION_ENV not in self.engine.job_defaults(session_id):
            self.engine.set_launch_env(session_id, environ)  # once per session unless it changes
            self.engine.set_job_defaults(session_id, {SESSION_ENV: session_env(host, environ)})

    def _run_hook(self, host: str, event: str, body: bytes, event_id: str, data: dict | None = None) -> str:
        return hooks.run(self.engine, host, event, body, event_id=event_id, data=data)

    def _count(self, delta: int) -> None:
        with self._lock:
            self.in_flight += delta

    def _serve_rpc(self, conn: socket.socket, parts: list[bytes], rest: bytes) -> None:
        try:
            if not self._serves(parts[2].decode("utf-8", "replace")):
                conn.sendall(b"MISMATCH\n")
                return
            session = rpc_session(parts[3].decode("utf-8", "replace") if len(parts) > 3 else "")
            if session is None:
                conn.sendall(b"ERR no session for this host\n")
                return
            conn.sendall(b"OK\n")
            conn.settimeout(None)
            with self._lock:
                self.in_flight -= 1  # an open pi session is not a request in flight
                self.sessions[conn] = threading.current_thread()
            try:
                with conn.makefile("rb") as reader, conn.makefile("wb") as writer:
                    lines = itertools.chain(rest.splitlines(keepends=True), reader)
                    session(self.engine, lines, writer, on_message=self._touch).serve()
            finally:
                with self._lock:
                    self.in_flight += 1
                    self.sessions.pop(conn, None)
        except Exception as exc:  # noqa: BLE001
            log_exception(self.cfg, "service rpc session", exc)

    def _held(self) -> int:
        return len(self.launches.held) if self.launches is not None else 0

    def _touch(self) -> None:
        self.last_event = time.monotonic()
        self.events += 1

    def status(self) -> dict:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return {"running": True, "pid": os.getpid(), "version": __version__, "identity": self.identity,
                "data_dir": self.cfg.state_dir_str, "socket": os.path.join(self.folder, SOCKET_NAME),
                "uptime_seconds": round(time.time() - self.started, 1), "events": self.events,
                "idle_seconds": round(time.monotonic() - self.last_event, 1),
                "idle_exit_seconds": self.cfg.service_idle_seconds,
                "max_rss_kb": usage.ru_maxrss, "rss_kb": _rss_kb(), "threads": threading.active_count(),
                "reports_queued": self.reports.queued if self.reports else 0, "connections_cut": self.cut,
                "jobs_held": self._held(),
                "connections_open": len(self.reader.open) if self.reader else 0,
                "watching": self.observer is not None}


class Searches:
    """``tacit search`` answered here: the index kept open, one search at a time."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.lock = threading.Lock()
        self.index = None
        self.inode = None

    def answer(self, request: dict) -> dict | None:
        """None while another search runs: a waiting one would hold a hook worker (the CLI searches)."""
        from tacit.commands.search import answer

        if not self.lock.acquire(blocking=False):
            return None
        try:
            return answer(self.cfg, request, self._open())
        finally:
            self.lock.release()

    def _open(self):
        from tacit.search.indexer import index_path, open_index

        try:
            inode = os.stat(index_path(self.cfg)).st_ino
        except FileNotFoundError:
            inode = None
        if self.index is None or inode != self.inode:
            self.close()
            self.index = open_index(self.cfg)
            self.inode = os.stat(self.index.path).st_ino
        return self.index

    def close(self) -> None:
        if self.index is not None:
            self.index.close()
            self.index = None


def _identity_key(identity: str) -> tuple:
    """``1.2.3+<stamp>`` → comparable: the version's numbers, then the stamp."""
    version, _, stamp = identity.partition("+")
    digits = ["".join(itertools.takewhile(str.isdigit, part)) for part in version.replace("-", ".").split(".")]
    return tuple(int(d) if d else -1 for d in digits), int(stamp) if stamp.isdigit() else 0


def _split_environ(extra: list[bytes], body: bytes | None) -> tuple[bytes | None, dict | None]:
    """A hook's payload, and the environment its host launched it with (None from a client that does
    not send it): ``env=N`` says the body's first N bytes are that environment, ``NAME=VALUE`` items
    joined by NUL (``tacit.hosts.hook_client``)."""
    if body is None or not extra or not extra[0].startswith(b"env="):
        return body, None
    try:
        size = int(extra[0][4:])
    except ValueError:
        return body, None
    environ = {}
    for item in body[:size].split(b"\0"):
        name, _, value = item.partition(b"=")
        if name:  # bytes that are not text stay themselves (session_env leaves those out)
            environ[name.decode("utf-8", "surrogateescape")] = value.decode("utf-8", "surrogateescape")
    return body[size:], environ


def _flock(fd: int) -> bool:
    """Take the service's lock without waiting; False when another process holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _connectable(folder: str) -> bool:
    """Something listens on the socket (another user's service too: the socket is not free)."""
    sock = connect(folder, 1.0)
    if sock is None or isinstance(sock, str):
        return sock is not None
    sock.close()
    return True


def _tell_ready(fd: int, what: bytes = b"1") -> None:
    if fd >= 0:
        with contextlib.suppress(OSError):  # the client is gone: it stopped waiting
            if what:
                os.write(fd, what)
        os.close(fd)


def _rss_kb() -> int:
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        return 0


def serve(cfg=None) -> int:
    """Run the service until idle, stopped or signalled. Never raises."""
    cfg = cfg or load_config()
    processes.bound_malloc()  # before the threads: few malloc arenas, so the RSS stays flat
    sys.setswitchinterval(0.001)  # a hook's reply never waits 5 ms for the interpreter lock
    service = Service(cfg)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: service.request_stop("signal"))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        ensure_private_dir(cfg.state_dir_str)
        os.chdir(cfg.state_dir_str)
    try:
        return service.run()
    except Exception as exc:  # noqa: BLE001
        log_exception(cfg, "service", exc)
        return FAILED


FAILED = 3  # the exit status a waiting hook client takes as "it will not come up"


def rpc_session(host: str):
    """The class serving a host's long-lived session (``TACIT1 rpc IDENTITY [HOST]``; without HOST,
    the first host that has one); None when there is none."""
    hosts = [h for h in host_specs.registry().values() if h.rpc_session]
    chosen = next((h for h in hosts if h.name == host), None) if host else (hosts[0] if hosts else None)
    return chosen.load("rpc_session") if chosen is not None else None

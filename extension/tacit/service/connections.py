"""Reading the service's connections: one event loop, a deadline each (``READ_SECONDS`` from the
accept), another user's connection closed unread, at most ``MAX_OPEN`` kept.

Design notes: docs/architecture.md ("One service per data folder").
"""

from __future__ import annotations

import contextlib
import os
import selectors
import socket
import struct
import threading
import time
from dataclasses import dataclass, field

HEADER_LIMIT = 4096
PAYLOAD_LIMIT = 64 * 1024 * 1024  # a hook payload beyond this is refused (the hook runs in-process)
READ_SECONDS = 5.0
MAX_OPEN = 512
WHOLE = (b"hook", b"search")  # kinds whose request ends at the client's shutdown, not at the first line
DRAIN = 4  # reads of one connection per wake-up
IDLE_WAIT = 0.5  # seconds the loop sleeps with nothing to do (a stop wakes it: ``Reader.wake``)
WAKE = object()


@dataclass
class Pending:
    conn: socket.socket
    deadline: float
    data: bytearray = field(default_factory=bytearray)
    header: list | None = None
    rest_at: int = 0


class Reader:
    """``handle(conn, parts, body)`` gets every complete request (``body``: what followed the first
    line; None when over the limit) and owns ``conn`` from then on."""

    def __init__(self, listener: socket.socket, handle, stopping, on_cut=None):
        self.listener, self.handle, self.stopping = listener, handle, stopping
        self.on_cut = on_cut or (lambda why: None)
        self.open: dict[int, Pending] = {}
        self.idle_wait = IDLE_WAIT
        self._woken, self._waker = os.pipe()  # ``wake``: a stop is seen at once, not at the next wait's end
        os.set_blocking(self._woken, False)
        os.set_blocking(self._waker, False)
        self._pipe_lock = threading.Lock()  # a wake never writes to a closed (reused) descriptor

    def wake(self) -> None:
        """Make ``run`` look at ``stopping`` now (safe in a signal handler: it never waits)."""
        if not self._pipe_lock.acquire(blocking=False):
            return
        try:
            if self._waker >= 0:
                os.write(self._waker, b"!")
        except OSError:  # full: a wake is pending anyway
            pass
        finally:
            self._pipe_lock.release()

    def run(self) -> None:
        self.listener.setblocking(False)
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(self.listener, selectors.EVENT_READ, None)
                selector.register(self._woken, selectors.EVENT_READ, WAKE)
                self._loop(selector)
                for pending in list(self.open.values()):
                    self._drop(selector, pending)
        finally:
            with self._pipe_lock:
                os.close(self._woken)
                os.close(self._waker)
                self._woken = self._waker = -1

    def _loop(self, selector) -> None:
        while not self.stopping.is_set():
            now = time.monotonic()
            wait = min([self.idle_wait] + [max(0.0, p.deadline - now) for p in self.open.values()])
            for key, _ in selector.select(wait):
                if key.data is None:
                    self._accept(selector)
                elif key.data is WAKE:
                    with contextlib.suppress(OSError):
                        os.read(self._woken, 512)
                else:
                    self._read(selector, key.data)
            now = time.monotonic()
            for pending in [p for p in self.open.values() if p.deadline <= now]:
                self._cut(selector, pending, "its deadline passed")

    def _accept(self, selector) -> None:
        for _ in range(64):  # a burst of connections in one wake-up
            try:
                conn, _ = self.listener.accept()
            except OSError:  # none waiting (BlockingIOError) too
                return
            if not same_user(conn):
                conn.close()
                continue
            conn.setblocking(False)
            if len(self.open) >= MAX_OPEN:
                oldest = min(self.open.values(), key=lambda p: p.deadline)
                self._cut(selector, oldest, "too many open connections")
            pending = Pending(conn, time.monotonic() + READ_SECONDS)
            self.open[conn.fileno()] = pending
            selector.register(conn, selectors.EVENT_READ, pending)
            self._read(selector, pending)  # a hook client has usually sent it all already

    def _read(self, selector, pending: Pending) -> None:
        """What has arrived, up to ``DRAIN`` reads (a request and its end are often there together;
        a big one leaves the others their turn)."""
        for _ in range(DRAIN):
            if not self._read_once(selector, pending):
                return

    def _read_once(self, selector, pending: Pending) -> bool:
        """One read; True when the request is still open and more may be waiting."""
        try:
            chunk = pending.conn.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            self._drop(selector, pending)
            return False
        if chunk:
            pending.data += chunk
        if pending.header is None:
            end = pending.data.find(b"\n")
            if end < 0:
                if not chunk or len(pending.data) > HEADER_LIMIT:
                    self._drop(selector, pending)
                    return False
                return True
            pending.header = bytes(pending.data[:end]).split()
            pending.rest_at = end + 1
            if not pending.header or len(pending.header) < 2 or pending.header[0] != b"TACIT1":
                self._drop(selector, pending)
                return False
        if pending.header[1] not in WHOLE:
            self._hand_on(selector, pending, bytes(pending.data[pending.rest_at:]))
        elif len(pending.data) - pending.rest_at > PAYLOAD_LIMIT:
            self._hand_on(selector, pending, None)
        elif not chunk:  # the client shut its side: the payload is complete
            self._hand_on(selector, pending, bytes(pending.data[pending.rest_at:]))
        else:
            return True
        return False

    def _hand_on(self, selector, pending: Pending, body: bytes | None) -> None:
        self._forget(selector, pending)
        pending.conn.setblocking(True)
        pending.conn.settimeout(READ_SECONDS)
        self.handle(pending.conn, pending.header, body)

    def _cut(self, selector, pending: Pending, why: str) -> None:
        self.on_cut(why)
        self._drop(selector, pending)

    def _drop(self, selector, pending: Pending) -> None:
        self._forget(selector, pending)
        pending.conn.close()

    def _forget(self, selector, pending: Pending) -> None:
        self.open.pop(pending.conn.fileno(), None)
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(pending.conn)


def same_user(conn: socket.socket) -> bool:
    try:
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (AttributeError, OSError):
        return True  # no SO_PEERCRED here: the 0700 folder and 0600 socket are the guard
    _, uid, _ = struct.unpack("3i", creds)
    return uid == os.getuid()

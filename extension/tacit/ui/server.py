"""The page's HTTP server: 127.0.0.1 only, a token, same-origin writes.

Design notes: docs/design/search.md#tacituiserver
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from tacit import processes
from tacit.log import log_exception

HOST = "127.0.0.1"
MAX_FORM_BYTES = 256 * 1024
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                               "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


STALE = ("this page is from an earlier `tacit ui` (each start has a new address): open the address "
         "it printed this time")
SLOW_CLIENT_SECONDS = 60  # a connection that sends nothing for this long is closed, its thread freed


class Forbidden(Exception):
    """A request the page refuses (403), with the reason for the log."""


class UIServer(ThreadingHTTPServer):
    """The bound server plus what every request is checked against."""

    daemon_threads = True

    def __init__(self, app, port: int = 0):
        super().__init__((HOST, port), _Handler)
        self.app = app
        self.token = secrets.token_urlsafe(32)
        self.csrf = secrets.token_urlsafe(32)
        self.port = self.server_address[1]
        self.origin = f"http://{HOST}:{self.port}"
        self.cookie_name = f"tacit_ui_{self.port}"  # cookies ignore ports: one per server
        app.csrf = self.csrf
        self._busy, self._busy_lock = 0, threading.Lock()

    def process_request_thread(self, request, client_address):
        """Serve one connection; the last one out gives the freed memory back."""
        with self._busy_lock:
            self._busy += 1
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._busy_lock:
                self._busy -= 1
                idle = self._busy == 0
            if idle:
                processes.give_back()

    def handle_error(self, request, client_address):
        """A browser that closed its connection early is no error; anything else goes to the log,
        never as a traceback on the terminal ``tacit ui`` runs in."""
        import sys

        exc = sys.exc_info()[1]
        if not isinstance(exc, (ConnectionError, TimeoutError)):
            log_exception(self.app.cfg, "ui.connection", exc)

    @property
    def url(self) -> str:
        return f"{self.origin}/?token={self.token}"

    def check(self, handler: "_Handler", query: dict) -> bool:
        """Forbidden unless the request names this server and holds the token; True if from the URL."""
        if handler.headers.get_all("Host", []) != [f"{HOST}:{self.port}"]:
            raise Forbidden("Host header is not the bound address")
        from_url = (query.get("token") or [""])[0]
        if from_url:
            if not hmac.compare_digest(from_url.encode(), self.token.encode()):
                raise Forbidden("wrong token")
            return True
        held = _cookie(handler, self.cookie_name)
        if not hmac.compare_digest(held.encode(), self.token.encode()):
            raise Forbidden(STALE if held else "no token")
        return False

    def check_write(self, handler: "_Handler", form: dict) -> None:
        origin = handler.headers.get("Origin")
        if origin is not None:
            if origin != self.origin:
                raise Forbidden("cross-origin write")
        else:
            referer = handler.headers.get("Referer") or ""
            if not referer.startswith(self.origin + "/"):
                raise Forbidden("write without a same-origin Origin or Referer")
        if not hmac.compare_digest((form.get("csrf") or "").encode(), self.csrf.encode()):
            raise Forbidden("missing or wrong CSRF token")


def _cookie(handler: BaseHTTPRequestHandler, name: str) -> str:
    try:
        jar = SimpleCookie(handler.headers.get("Cookie") or "")
    except CookieError:
        return ""
    morsel = jar.get(name)
    return morsel.value if morsel is not None else ""


class _Handler(BaseHTTPRequestHandler):
    server: UIServer
    server_version = "tacit-ui"
    timeout = SLOW_CLIENT_SECONDS
    sys_version = ""

    def log_message(self, format, *args):  # noqa: A002 — the base class's name
        pass  # no request lines on the terminal: the URL is the first line of stdout

    def do_GET(self):  # noqa: N802
        self._serve("GET")

    def do_POST(self):  # noqa: N802
        self._serve("POST")

    def do_HEAD(self):  # noqa: N802
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, "method not allowed\n", {"Allow": "GET, POST"})

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD  # noqa: N815

    def _serve(self, method: str) -> None:
        started = time.perf_counter()
        split = urlsplit(self.path)
        query = parse_qs(split.query)
        try:
            token_in_url = self.server.check(self, query)
            if token_in_url:  # keep the token out of history and bookmarks: a cookie from now on
                rest = urlencode([(k, v) for k, vs in query.items() if k != "token" for v in vs])
                self._send(HTTPStatus.SEE_OTHER, "", {
                    "Location": split.path + (f"?{rest}" if rest else ""),
                    "Set-Cookie": f"{self.server.cookie_name}={self.server.token}; Path=/; HttpOnly; "
                                  "SameSite=Strict"})
                return
            if method == "POST":
                form = self._form()
                self.server.check_write(self, form)
                location = self.server.app.post(split.path, form)
                self._send(HTTPStatus.SEE_OTHER, "", {"Location": location})
                return
            status, body = self.server.app.get(split.path, {k: v[-1] for k, v in query.items()})
        except Forbidden as exc:
            self._send(HTTPStatus.FORBIDDEN, f"403 forbidden: {exc}\n")
            return
        except Exception as exc:  # noqa: BLE001 — a broken page says so, the server lives on
            log_exception(self.server.app.cfg, "ui.request", exc)
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, f"tacit ui: {type(exc).__name__}: {exc}\n")
            return
        self._send(status, body, {"Content-Type": "text/html; charset=utf-8",
                                  "Server-Timing": f"app;dur={(time.perf_counter() - started) * 1000:.1f}"})

    def _form(self) -> dict:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise Forbidden("bad Content-Length") from None
        if length < 0 or length > MAX_FORM_BYTES:
            raise Forbidden("form too large")
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/x-www-form-urlencoded":
            raise Forbidden("not a form")
        raw = self.rfile.read(length).decode("utf-8", errors="replace")
        return {k: v[-1] for k, v in parse_qs(raw, keep_blank_values=True).items()}

    def _send(self, status, body: str, headers: dict | None = None) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        for name, value in {**HEADERS, "Content-Type": "text/plain; charset=utf-8", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def start(app, port: int = 0) -> tuple[UIServer, threading.Thread]:
    """Bind and serve on a thread; the server (its ``url``) and the thread."""
    server = UIServer(app, port)
    thread = threading.Thread(target=server.serve_forever, name="tacit-ui", daemon=True)
    thread.start()
    return server, thread

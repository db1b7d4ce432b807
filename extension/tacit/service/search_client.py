"""``tacit search`` asks the running service (``tacit.service.server.Searches``).

Design notes: docs/design/service.md#tacitservicesearch_client"""

from __future__ import annotations

import posix
from _json import encode_basestring_ascii as _quoted  # json's own C encoder: no json/re import here

from tacit import __version__
from tacit.hosts.hook_client import exchange
from tacit.paths import code_identity, run_dir, time_zone


def request_bytes(request: dict) -> bytes:
    """``{"argv": [...], "cwd": "...", "tty": bool, "tz": "...", "env": {...}}`` as JSON, without
    importing ``json`` (``env``, optional: where this CLI's hosts keep their session files)."""
    argv = ", ".join(_quoted(str(a)) for a in request["argv"])
    tty = "true" if request.get("tty") else "false"
    env = ""
    if isinstance(request.get("env"), dict):
        env = ', "env": {' + ", ".join(f"{_quoted(str(k))}: {_quoted(str(v))}" for k, v in request["env"].items()) + "}"
    return (f'{{"argv": [{argv}], "cwd": {_quoted(str(request["cwd"]))}, "tty": {tty}, '
            f'"tz": {_quoted(str(request.get("tz", "")))}{env}}}').encode()


def search(state_dir: str, request: dict, timeout: float = 30.0) -> dict | None:
    """The service's answer (``{"code", "out"}``), or None when no service of this version answers."""
    answer = exchange(run_dir(state_dir), f"TACIT1 search {code_identity(__version__)}\n".encode()
                      + request_bytes(request), timeout)
    head, _, body = (answer or b"").partition(b"\n")
    words = head.split()
    if len(words) != 2 or words[0] != b"OK":
        return None
    try:
        return {"code": int(words[1]), "out": body.decode("utf-8")}
    except ValueError:
        return None


def via_service(argv: list) -> int | None:
    """``tacit search`` answered by the running service (the CLI imports next to nothing); None when
    no service answers, or for what the CLI answers itself (help, --reindex, usage errors)."""
    import sys

    from tacit.paths import data_dir

    if any(a in ("-h", "--help") or a.startswith("--reindex") for a in argv):
        return None
    try:
        # the service may have been started with another host's environment: it reads each host's
        # session files where ours says they are (the service keeps only those variables)
        env = {k.decode("utf-8", "surrogateescape"): v.decode("utf-8", "surrogateescape")
               for k, v in posix.environ.items()}
        reply = search(data_dir(), {"argv": argv, "cwd": posix.getcwd(), "tty": sys.stdout.isatty(),
                                     "tz": time_zone(), "env": env})
        if reply is None or not isinstance(reply.get("out"), str):
            return None
    except Exception:  # noqa: BLE001 — searched in-process instead
        return None
    sys.stdout.write(reply["out"])
    sys.stdout.flush()
    return int(reply["code"])

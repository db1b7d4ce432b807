"""Something else holds the service's socket path: told once, kept for doctor
(``logs/service-fault.json``; ``told`` is what ``tacit doctor`` says).

Design notes: docs/architecture.md ("One service per data folder").
"""

from __future__ import annotations

import json
import os
import re
import shlex
import time

from pathlib import Path

from tacit.fsutil import atomic_write_text, read_json_or_none
from tacit.log import log
from tacit.stores import notices
from tacit.stores.ledger import Ledger, LedgerUnavailable

FILE = "logs/service-fault.json"  # relative to the data folder; the hook client names it too


def path_for(state_dir: str) -> str:
    return os.path.join(state_dir, FILE)


def current(state_dir: str) -> dict | None:
    """The recorded fault, or None."""
    data = read_json_or_none(path_for(state_dir))
    return data if data and data.get("problem") else None


# the hook client's sentences (``untrusted``, ``connect``): the path, then what is wrong with it
_SENTENCE = re.compile(r"^(?P<path>.+?) (?P<kind>is not a folder|is not a socket|belongs to another user|"
                       r"is open to other users|is served by another user)\b")


def advice(problem: str, state_dir: str) -> str:
    """What the user does about ``problem`` (one of the hook client's sentences)."""
    found = _SENTENCE.match(problem)
    if not found:
        return f"remove {shlex.quote(os.path.join(state_dir, 'run'))} if nothing of yours uses it"
    path, kind = shlex.quote(found["path"]), found["kind"]
    if kind.startswith("is not a"):
        return f"remove it (`rm {path}`): tacit makes its own"
    if kind == "belongs to another user":
        return (f"remove it as root or its owner (`sudo rm -r {path}`), and keep the data folder where only "
                f"you can write (`chmod 700 {shlex.quote(state_dir)}`)")
    if kind == "is open to other users":
        return f"make it yours with mode 700 (`sudo chown \"$(id -u)\" {path} && chmod 700 {path}`)"
    return f"stop the process of the other user that listens there, then remove it (`sudo rm {path}`)"


def told(state_dir: str) -> dict | None:
    """For ``tacit doctor``: None, ``{problem, at, path, advice}`` or ``{unreadable, file}``."""
    file = path_for(state_dir)
    try:
        data = json.loads(Path(file).read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as exc:
        return {"file": file, "unreadable": f"{type(exc).__name__}: {exc}"}
    if not isinstance(data, dict) or not isinstance(data.get("problem"), str) or not data["problem"].strip():
        return {"file": file, "unreadable": "not a fault record (no problem named)"}
    at = data.get("at")
    return {"file": file, "problem": data["problem"], "path": data.get("path"),
            "at": at if isinstance(at, (int, float)) and not isinstance(at, bool) else None,
            "advice": advice(data["problem"], state_dir)}


def record(cfg, problem: str) -> bool:
    """Keep ``problem``; True when it is new (then the user is told once)."""
    state = cfg.state_dir_str
    before = current(state)
    if before is not None and before.get("problem") == problem:
        return False
    record = {"at": time.time(), "problem": problem, "path": os.path.join(state, "run")}
    atomic_write_text(Path(path_for(state)), json.dumps(record))
    log(cfg, "error", "service", f"not using the service: {problem}")
    try:
        with Ledger(cfg) as ledger, ledger.write() as conn:
            notices.add(conn, f"tacit: {problem}; hooks run without the service (slower) until it is "
                              "fixed — see `tacit doctor`.")
    except LedgerUnavailable:
        pass
    return True

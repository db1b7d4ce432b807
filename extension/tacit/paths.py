"""Where the service of a data folder listens, and who it is.

Imports only ``os``: the hook client needs these names before anything else
is imported. ``tacit.config`` resolves the data folder the same way.
"""

from __future__ import annotations

import os

RUN_DIR = "run"
SOCKET_NAME = "tacit.sock"
LOCK_NAME = "serve.lock"
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
CLIENT_FILE = os.path.join(PACKAGE_DIR, "hosts", "hook_client.py")


def data_dir(env=None) -> str:
    """``$TACIT_HOME``, else ``~/.tacit``."""
    env = os.environ if env is None else env
    if env.get("TACIT_HOME"):
        return os.path.abspath(os.path.expanduser(env["TACIT_HOME"]))
    return os.path.join(env.get("HOME") or os.path.expanduser("~"), ".tacit")


def run_dir(state_dir: str) -> str:
    return os.path.join(state_dir, RUN_DIR)


def socket_path(state_dir: str) -> str:
    return os.path.join(state_dir, RUN_DIR, SOCKET_NAME)


def code_identity(version: str) -> str:
    """Client and service compare this: the version and the install of the
    code (a pip upgrade rewrites the client file, so its mtime moves)."""
    try:
        stamp = os.stat(CLIENT_FILE).st_mtime_ns
    except OSError:
        stamp = 0
    return f"{version}+{stamp}"

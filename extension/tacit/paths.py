"""Where the service of a data folder listens, who it is, and how to start it.

Design notes: docs/design/core.md#tacitpaths
"""


import posix
import sys

RUN_DIR = "run"
SOCKET_NAME = "tacit.sock"
LOCK_NAME = "serve.lock"
PACKAGE_DIR = __file__.rsplit("/", 1)[0] if __file__.startswith("/") else posix.getcwd() + "/" + __file__.rsplit("/", 1)[0]
CLIENT_FILE = PACKAGE_DIR + "/hosts/hook_client.py"


def _getenv(name: str, env=None) -> str | None:
    if env is not None:
        return env.get(name)
    value = posix.environ.get(name.encode())
    return None if value is None else value.decode(sys.getfilesystemencoding(), "surrogateescape")


def time_zone(env=None) -> str:
    """The ``TZ`` this process reads times in ("": the system's): a search answered by the service
    is one the client would have answered the same only when both read the same."""
    return _getenv("TZ", env) or ""


def _normal(path: str) -> str:
    """``os.path.abspath`` for an absolute or relative path, without ``os``."""
    if not path.startswith("/"):
        path = posix.getcwd() + "/" + path
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)


def home(env=None) -> str:
    return _getenv("HOME", env) or posix.getcwd()


def data_dir(env=None) -> str:
    """``$TACIT_HOME`` (a relative one from the home folder, never the cwd), else ``~/.tacit``."""
    configured = _getenv("TACIT_HOME", env)
    if configured:
        if configured == "~" or configured.startswith("~/"):
            configured = home(env) + configured[1:]
        elif not configured.startswith("/"):
            configured = home(env) + "/" + configured
        return _normal(configured)
    return _normal(home(env) + "/.tacit")


def run_dir(state_dir: str) -> str:
    return state_dir + "/" + RUN_DIR


def socket_path(state_dir: str) -> str:
    return run_dir(state_dir) + "/" + SOCKET_NAME


def code_identity(version: str) -> str:
    """Client and service compare this: the version and the install time of the code."""
    try:
        stamp = posix.stat(CLIENT_FILE).st_mtime_ns
    except OSError:
        stamp = 0
    return f"{version}+{stamp}"


def python_argv(*args: str) -> list[str]:
    """Run the tacit CLI with this very interpreter (``-P``: the working folder never shadows a module)."""
    return [sys.executable, "-P", "-m", "tacit", *args]

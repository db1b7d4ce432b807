"""Locate, or install once, the real agent hosts the end-to-end tests drive.

Pinned versions (registries here may serve other builds as "latest"):

* Claude Code — npm ``@anthropic-ai/claude-code@2.1.197`` (the native binary
  comes inside the npm platform sub-package; nothing else is downloaded);
* pi — npm ``@mariozechner/pi-coding-agent@0.73.1``;
* Codex CLI — npm ``@openai/codex@0.171.0`` (the native binary comes inside
  the npm platform sub-package, e.g. ``@openai/codex-linux-x64``);
* Hermes Agent — PyPI ``hermes-agent==0.19.0`` in its own venv, created with
  the interpreter that runs this module (the hermes adapter later installs
  tacit into the same venv with ``hermes_venv_install``).

Design decisions, and why:

* **One cache folder, one sub-folder per pinned version**
  (``$TACIT_E2E_CACHE`` or ``~/.cache/tacit-e2e``; ``claude-2.1.197/``,
  ``pi-0.73.1/``, ``hermes-0.19.0/``), so a version bump installs beside the
  old one instead of mutating it, and CI can cache the folder as a whole.
* **Idempotent and race-free.**  An install runs under an exclusive
  ``fcntl.flock`` on ``<cache>/<name>.lock`` (pytest-xdist workers and a CI
  step may all ask at once); it is marked done by a ``.tacit-installed`` file
  written only after the installed binary answered ``--version`` with the
  pinned version, so a half-finished install is redone, never trusted.
* **Skip only when the registry is unreachable.**  ``HostUnavailable`` is
  raised only for network failures (DNS, refused, timed out); the tests turn
  it into a skip with its reason.  Every other failure (npm or node missing,
  a broken package, a version mismatch) raises ``HostInstallError`` so the
  test run fails loudly instead of silently skipping the real-host proof.
* **Stdlib only**, so CI can run ``python tests/e2e/hostbin.py install all``
  before anything else is installed.
* **Overrides for a developer's own builds**: ``TACIT_E2E_CLAUDE_BIN``,
  ``TACIT_E2E_PI_BIN``, ``TACIT_E2E_CODEX_BIN``, ``TACIT_E2E_HERMES_BIN`` (with
  ``TACIT_E2E_HERMES_PYTHON``) are used as-is, unverified.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

CLAUDE_PACKAGE, CLAUDE_VERSION = "@anthropic-ai/claude-code", "2.1.197"
PI_PACKAGE, PI_VERSION = "@mariozechner/pi-coding-agent", "0.73.1"
HERMES_PACKAGE, HERMES_VERSION = "hermes-agent", "0.19.0"
CODEX_PACKAGE, CODEX_VERSION = "@openai/codex", "0.171.0"

INSTALL_TIMEOUT = 900  # seconds; the Claude Code package is ~245 MB
MARKER = ".tacit-installed"

# what npm / pip print when they cannot reach the registry
_NETWORK_ERRORS = re.compile(
    r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|"
    r"network request to .* failed|request to .* failed, reason|"
    r"Temporary failure in name resolution|Name or service not known|"
    r"Failed to establish a new connection|NewConnectionError|ConnectTimeoutError|"
    r"Network is unreachable|Connection refused|Max retries exceeded|ReadTimeoutError",
    re.IGNORECASE)


class HostInstallError(RuntimeError):
    """A host could not be installed or does not work: the test run must fail."""


class HostUnavailable(HostInstallError):
    """The package registry is unreachable: tests skip with this reason."""


def cache_dir() -> Path:
    root = os.environ.get("TACIT_E2E_CACHE") or str(Path.home() / ".cache" / "tacit-e2e")
    path = Path(root).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def _install_lock(name: str) -> Iterator[None]:
    lock_path = cache_dir() / f"{name}.lock"
    with open(lock_path, "a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _run(cmd: list[str], *, cwd: Path | None = None, what: str, timeout: int = INSTALL_TIMEOUT,
         env: dict | None = None) -> subprocess.CompletedProcess:
    """Run an installer; classify a failure as offline (skip) or broken (fail)."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, env=env)
    except FileNotFoundError as exc:
        raise HostInstallError(f"{what}: {cmd[0]} not found on PATH ({exc})") from exc
    except subprocess.TimeoutExpired as exc:
        raise HostUnavailable(f"{what}: no answer from the package registry in {timeout}s") from exc
    if proc.returncode != 0:
        output = (proc.stdout + "\n" + proc.stderr)[-4000:]
        if _NETWORK_ERRORS.search(output):
            raise HostUnavailable(f"{what}: package registry unreachable:\n{output[-1500:]}")
        raise HostInstallError(f"{what} failed (exit {proc.returncode}):\n{output}")
    return proc


def _marker_ok(folder: Path, version: str, binary: Path) -> bool:
    marker = folder / MARKER
    return binary.exists() and marker.exists() and marker.read_text().strip() == version


def _write_marker(folder: Path, version: str, seconds: float) -> None:
    (folder / MARKER).write_text(version + "\n")
    (folder / "install-seconds.txt").write_text(f"{seconds:.1f}\n")


def _check_version(binary: Path, version: str, what: str, args: tuple[str, ...] = ("--version",)) -> None:
    try:
        proc = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, env=_quiet_env())
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HostInstallError(f"{what}: {binary} --version did not run: {exc}") from exc
    output = proc.stdout + proc.stderr
    if version not in output:
        raise HostInstallError(f"{what}: expected version {version}, {binary} --version said: {output[-500:]}")


def _quiet_env() -> dict:
    """Environment for a version check: no network, no real HOME writes."""
    env = dict(os.environ)
    env.update(CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", PI_OFFLINE="1", DISABLE_AUTOUPDATER="1")
    # codex writes helper links under $CODEX_HOME/tmp even for --version
    codex_home = cache_dir() / "codex-version-home"
    codex_home.mkdir(exist_ok=True)
    env["CODEX_HOME"] = str(codex_home)
    return env


def _npm_install(name: str, package: str, version: str, bin_name: str,
                 after: Callable[[Path], None] | None = None) -> Path:
    folder = cache_dir() / f"{name}-{version}"
    binary = folder / "node_modules" / ".bin" / bin_name
    if _marker_ok(folder, version, binary):
        return binary
    with _install_lock(name):
        if _marker_ok(folder, version, binary):  # another worker finished it
            return binary
        if shutil.which("npm") is None or shutil.which("node") is None:
            raise HostInstallError(f"{name}: node and npm are needed to install {package}@{version}")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / MARKER).unlink(missing_ok=True)
        package_json = folder / "package.json"
        if not package_json.exists():
            package_json.write_text(json.dumps({"name": f"tacit-e2e-{name}", "private": True}) + "\n")
        started = time.monotonic()
        _run(["npm", "install", "--no-audit", "--no-fund", "--no-save", f"{package}@{version}"],
             cwd=folder, what=f"npm install {package}@{version}")
        if after is not None:
            after(folder)
        _check_version(binary, version, name)
        _write_marker(folder, version, time.monotonic() - started)
    return binary


def _claude_postinstall(folder: Path) -> None:
    """npm may skip install scripts; then bin/claude.exe is a small placeholder
    and ``node install.cjs`` puts the native binary from the platform package in place."""
    package_dir = folder / "node_modules" / "@anthropic-ai" / "claude-code"
    exe = package_dir / "bin" / "claude.exe"
    if exe.exists() and exe.stat().st_size > 10_000_000:
        return
    _run(["node", "install.cjs"], cwd=package_dir, what="claude-code postinstall (node install.cjs)")
    if not exe.exists() or exe.stat().st_size <= 10_000_000:
        raise HostInstallError(f"claude: {exe} is still a placeholder after node install.cjs "
                               "(is the platform package missing? npm --omit=optional?)")


def claude_bin() -> Path:
    """Path of the pinned ``claude`` binary, installing it on first use."""
    override = os.environ.get("TACIT_E2E_CLAUDE_BIN")
    if override:
        return Path(override)
    return _npm_install("claude", CLAUDE_PACKAGE, CLAUDE_VERSION, "claude", after=_claude_postinstall)


def pi_bin() -> Path:
    """Path of the pinned ``pi`` binary, installing it on first use."""
    override = os.environ.get("TACIT_E2E_PI_BIN")
    if override:
        return Path(override)
    return _npm_install("pi", PI_PACKAGE, PI_VERSION, "pi")


def codex_bin() -> Path:
    """Path of the pinned ``codex`` binary, installing it on first use."""
    override = os.environ.get("TACIT_E2E_CODEX_BIN")
    if override:
        return Path(override)
    return _npm_install("codex", CODEX_PACKAGE, CODEX_VERSION, "codex")


def hermes_venv() -> Path:
    return cache_dir() / f"hermes-{HERMES_VERSION}"


def _hermes_install() -> Path:
    venv = hermes_venv()
    binary = venv / "bin" / "hermes"
    if _marker_ok(venv, HERMES_VERSION, binary):
        return venv
    with _install_lock("hermes"):
        if _marker_ok(venv, HERMES_VERSION, binary):
            return venv
        started = time.monotonic()
        if not (venv / "bin" / "python").exists():
            # the same interpreter that runs the tests, so tacit installs there too
            base_python = getattr(sys, "_base_executable", None) or sys.executable
            _run([base_python, "-m", "venv", str(venv)], what="python -m venv for hermes")
        python = venv / "bin" / "python"
        _run([str(python), "-m", "pip", "install", "--disable-pip-version-check",
              f"{HERMES_PACKAGE}=={HERMES_VERSION}"], what=f"pip install {HERMES_PACKAGE}=={HERMES_VERSION}")
        _check_version(python, HERMES_VERSION, "hermes",
                       args=("-c", "import importlib.metadata as m; print(m.version('hermes-agent'))"))
        if not binary.exists():
            raise HostInstallError(f"hermes: {binary} missing after pip install")
        _write_marker(venv, HERMES_VERSION, time.monotonic() - started)
    return venv


def hermes_bin() -> Path:
    """Path of the pinned ``hermes`` entry script, installing it on first use."""
    override = os.environ.get("TACIT_E2E_HERMES_BIN")
    if override:
        return Path(override)
    return _hermes_install() / "bin" / "hermes"


def hermes_python() -> Path:
    """The interpreter of Hermes's venv (to import ``hermes_cli`` in tests)."""
    override = os.environ.get("TACIT_E2E_HERMES_PYTHON")
    if override:
        return Path(override)
    return _hermes_install() / "bin" / "python"


def _tree_fingerprint(package_path: Path) -> str:
    """Cheap content signature of a source tree (paths, sizes, mtimes)."""
    digest = hashlib.sha256()
    for path in sorted(package_path.rglob("*")):
        parts = path.relative_to(package_path).parts
        # build output and caches change on every install: not part of the source
        if set(parts) & {".git", "__pycache__", "node_modules", ".pytest_cache", ".hypothesis", "build", "dist"} \
                or any(part.endswith(".egg-info") for part in parts):
            continue
        if path.is_file():
            st = path.stat()
            digest.update(f"{path.relative_to(package_path)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def hermes_venv_install(package_path: str | os.PathLike, *, editable: bool = False) -> Path:
    """``pip install`` a local package (tacit) into Hermes's venv; returns the venv python.

    Skipped when the same tree (same fingerprint, same mode) was installed
    before, so calling it from every test session is cheap.  A non-editable
    install (the default) tests what a user gets, including package data.
    """
    package_path = Path(package_path).resolve()
    python = hermes_python()
    stamp = hermes_venv() / f".installed-{hashlib.sha1(str(package_path).encode()).hexdigest()[:12]}"
    wanted = f"{'editable' if editable else 'wheel'} {_tree_fingerprint(package_path)}"
    if stamp.exists() and stamp.read_text() == wanted:
        return python
    with _install_lock("hermes"):
        if stamp.exists() and stamp.read_text() == wanted:
            return python
        cmd = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
        cmd += ["-e", str(package_path)] if editable else ["--force-reinstall", "--no-deps", str(package_path)]
        if not editable:
            # dependencies once (cheap when satisfied), then the package itself
            _run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
                  str(package_path)], what=f"pip install {package_path} into hermes venv")
        _run(cmd, what=f"pip install {package_path} into hermes venv")
        stamp.write_text(wanted)
    return python


INSTALLERS: dict[str, Callable[[], Path]] = {"claude": claude_bin, "pi": pi_bin, "hermes": hermes_bin,
                                             "codex": codex_bin}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Install the pinned agent hosts for tacit's e2e tests.")
    sub = parser.add_subparsers(dest="command", required=True)
    install = sub.add_parser("install", help="install (idempotent) and print each binary's path")
    install.add_argument("hosts", nargs="*", default=["all"], choices=[*INSTALLERS, "all"])
    sub.add_parser("where", help="print the cache folder")
    args = parser.parse_args(argv)
    if args.command == "where":
        print(cache_dir())
        return 0
    names = list(INSTALLERS) if "all" in args.hosts else list(dict.fromkeys(args.hosts))
    status = 0
    for name in names:
        started = time.monotonic()
        try:
            path = INSTALLERS[name]()
        except HostUnavailable as exc:
            print(f"{name}: UNAVAILABLE (registry unreachable): {exc}", file=sys.stderr)
            status = max(status, 3)
            continue
        except HostInstallError as exc:
            print(f"{name}: FAILED: {exc}", file=sys.stderr)
            status = 1
            continue
        print(f"{name}: {path} ({time.monotonic() - started:.1f}s)")
    return status


if __name__ == "__main__":
    sys.exit(main())

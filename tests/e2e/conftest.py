"""Fixtures for end-to-end tests that drive the real hosts offline.

``stub`` starts the scripted model server (``stub_server.py``) as its own
process; ``run_claude``, ``run_hermes`` and ``run_pi`` build each host's
isolated offline environment exactly as ``shared/HOSTS.md`` describes
(see ``docs/hosts-observed.md`` for what was verified) and run the real
binary against the stub.

Design decisions, and why:

* **Whitelisted environment.**  A host run starts from a few harmless
  variables (PATH, locale, TMPDIR...) instead of ``os.environ``: a developer's
  real ``ANTHROPIC_API_KEY``, ``CLAUDECODE``, ``HERMES_HOME`` or proxy settings
  must never leak into a test, and CI must see exactly what a laptop sees.
  The test interpreter's folder goes first on PATH so hook commands find the
  ``tacit`` CLI and ``python3`` of the venv under test.
* **Every proxy variable points at the stub** (``NO_PROXY=127.0.0.1,localhost``).
  Anything trying to leave 127.0.0.1 through a proxy-aware client (Claude
  Code, Hermes's httpx/requests, pi's undici EnvHttpProxyAgent) lands in the
  stub as ``refused_proxy``; the ``stub`` fixture fails the test at teardown
  if there was any, unless the test set ``stub.allow_proxy_attempts = True``.
* **Process groups.**  Each host runs in its own session; on timeout the whole
  group is killed and the test fails with the output tails.  After a normal
  exit nothing is killed: detached children (tacit's child agents start their
  own session) must be able to outlive the host, as in real use.
* **Skip only when the registry is unreachable** (``hostbin.HostUnavailable``);
  any other install problem errors the test.
* **Timings are recorded** for every host run and printed in the terminal
  summary, so slow hosts show up in CI logs.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterable

import pytest

E2E_DIR = Path(__file__).resolve().parent
if str(E2E_DIR) not in sys.path:
    sys.path.insert(0, str(E2E_DIR))

import hostbin  # noqa: E402
from stub_server import StubProcess  # noqa: E402

FIXTURES = E2E_DIR / "fixtures"
REPO_ROOT = E2E_DIR.parent.parent
DEFAULT_TIMEOUT = 120  # seconds per host run; a normal run takes 1-10 s
PASS_THROUGH_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL")
STUB_PROVIDER, STUB_MODEL = "stub", "stub-model"

# (host, argv summary, seconds, exit code) of every host run, for the summary
RUN_TIMINGS: list[tuple[str, str, float, int]] = []


# --------------------------------------------------------------------------
# environment and process plumbing
# --------------------------------------------------------------------------

def base_env(home: Path, stub_url: str) -> dict[str, str]:
    """The whitelisted environment every host run starts from."""
    env = {k: os.environ[k] for k in PASS_THROUGH_ENV if k in os.environ}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "/usr/bin:/bin")])
    env.setdefault("LANG", "C.UTF-8")
    env.setdefault("SHELL", "/bin/bash")
    env["TERM"] = "dumb"
    env["NO_COLOR"] = "1"
    env["HOME"] = str(home)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = stub_url
        env[name.lower()] = stub_url
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


def run_host(host: str, argv: list[str], env: dict[str, str], *, cwd: Path, timeout: float,
             input: str | None = None) -> subprocess.CompletedProcess:
    """Run a host in its own process group; kill the group and fail on timeout."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=str(cwd), env=env, text=True, start_new_session=True,
                            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        stdout, stderr = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        stdout, stderr = proc.communicate()
        RUN_TIMINGS.append((host, _summarize(argv), time.monotonic() - started, -9))
        pytest.fail(f"{host} timed out after {timeout}s: {argv}\n--- stdout\n{stdout[-3000:]}"
                    f"\n--- stderr\n{stderr[-3000:]}")
    duration = time.monotonic() - started
    RUN_TIMINGS.append((host, _summarize(argv), duration, proc.returncode))
    result = subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)
    result.duration = duration  # type: ignore[attr-defined]
    return result


def _summarize(argv: list[str]) -> str:
    text = " ".join([Path(argv[0]).name] + [a if len(a) < 40 else a[:37] + "..." for a in argv[1:]])
    return text[:110]


def _host_binary(get) -> Path:
    try:
        return Path(get())
    except hostbin.HostUnavailable as exc:
        pytest.skip(f"host not installable, package registry unreachable: {exc}")


# --------------------------------------------------------------------------
# the stub
# --------------------------------------------------------------------------

@pytest.fixture
def stub(tmp_path: Path):
    """A running scripted model server; fails the test on any proxy attempt."""
    server = StubProcess(tmp_path / "stub")
    server.allow_proxy_attempts = False  # type: ignore[attr-defined]
    try:
        yield server
    finally:
        server.stop()
    refused = server.refused_proxy()
    if refused and not server.allow_proxy_attempts:  # type: ignore[attr-defined]
        pytest.fail("requests tried to leave 127.0.0.1 (refused by the stub): "
                    + ", ".join(f"{r['method']} {r['path']}" for r in refused))


# --------------------------------------------------------------------------
# host runners
# --------------------------------------------------------------------------

class HostRunner:
    """Common shape: ``runner(args, env_extra=..., cwd=..., timeout=...)``."""

    host = "?"

    def __init__(self, binary: Path, stub: StubProcess, root: Path):
        self.binary = binary
        self.stub = stub
        self.root = root
        self.home = root / "home"
        self.project = root / "project"
        self.home.mkdir(parents=True, exist_ok=True)
        self.project.mkdir(parents=True, exist_ok=True)

    def env(self, env_extra: dict[str, str] | None = None) -> dict[str, str]:
        env = base_env(self.home, self.stub.url)
        env.update(self.host_env())
        for key, value in (env_extra or {}).items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = str(value)
        return env

    def host_env(self) -> dict[str, str]:
        raise NotImplementedError

    def __call__(self, args: Iterable[str], *, env_extra: dict[str, Any] | None = None,
                 cwd: Path | None = None, timeout: float = DEFAULT_TIMEOUT,
                 input: str | None = None) -> subprocess.CompletedProcess:
        return run_host(self.host, [str(self.binary), *map(str, args)], self.env(env_extra),
                        cwd=cwd or self.project, timeout=timeout, input=input)

    run = __call__


class ClaudeRunner(HostRunner):
    """``claude`` with HOME isolated and the Anthropic endpoint on the stub."""

    host = "claude"

    def host_env(self) -> dict[str, str]:
        return {
            "ANTHROPIC_BASE_URL": self.stub.url,
            "ANTHROPIC_API_KEY": "dummy",
            # without it the CLI tries outside hosts several times per run
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }

    def prompt(self, text: str, *args: str, **kwargs: Any) -> tuple[subprocess.CompletedProcess, dict]:
        """``claude -p TEXT --output-format json ARGS`` -> (process, parsed result)."""
        proc = self(["-p", text, "--output-format", "json", *args], **kwargs)
        return proc, parse_json_output(proc)

    @property
    def config_dir(self) -> Path:
        return self.home / ".claude"

    def transcript_dir(self, cwd: Path | None = None) -> Path:
        """``~/.claude/projects/<cwd with every non-alphanumeric char as ->``
        (observed: ``/``, ``.`` and ``_`` all become ``-``)."""
        key = re.sub(r"[^A-Za-z0-9]", "-", str((cwd or self.project).resolve()))
        return self.config_dir / "projects" / key


class HermesRunner(HostRunner):
    """``hermes`` with its own HERMES_HOME and a config pointing at the stub."""

    host = "hermes"

    def __init__(self, binary: Path, python: Path, stub: StubProcess, root: Path):
        super().__init__(binary, stub, root)
        self.python = python
        self.hermes_home = root / "hermes-home"
        self.hermes_home.mkdir(parents=True, exist_ok=True)
        self.config: dict[str, Any] = {
            "model": {"provider": "custom", "default": STUB_MODEL, "base_url": f"{stub.url}/v1",
                      "api_key": "x", "context_length": 128000},
            "model_catalog": {"enabled": False},
            "curator": {"enabled": False},
            # Hermes's own background review would consume scripted replies
            "memory": {"nudge_interval": 0},
            "skills": {"creation_nudge_interval": 0},
            # otherwise Hermes pip-installs optional packages at start-up
            "security": {"allow_lazy_installs": False},
        }
        self.write_config()

    def host_env(self) -> dict[str, str]:
        return {"HERMES_HOME": str(self.hermes_home)}

    @property
    def config_path(self) -> Path:
        return self.hermes_home / "config.yaml"

    def write_config(self, **sections: Any) -> None:
        """Merge top-level ``sections`` into the config and write config.yaml."""
        for key, value in sections.items():
            if isinstance(value, dict) and isinstance(self.config.get(key), dict):
                self.config[key].update(value)
            else:
                self.config[key] = value
        # JSON is valid YAML; Hermes re-writes it as YAML when it edits the file
        self.config_path.write_text(json.dumps(self.config, indent=2) + "\n")

    def read_config(self) -> dict:
        """config.yaml as Hermes left it (it may have rewritten it)."""
        import yaml  # the test venv has PyYAML (python-frontmatter depends on it)
        return yaml.safe_load(self.config_path.read_text()) or {}

    def oneshot(self, text: str, *args: str, **kwargs: Any) -> subprocess.CompletedProcess:
        """``hermes -z TEXT ARGS``."""
        return self(["-z", text, *args], **kwargs)

    def run_python(self, code: str, *, env_extra: dict[str, Any] | None = None,
                   timeout: float = DEFAULT_TIMEOUT) -> subprocess.CompletedProcess:
        """Run code with Hermes's interpreter in this HERMES_HOME (e.g. to call
        ``hermes_cli.plugins.get_plugin_command_handler``)."""
        return run_host("hermes-python", [str(self.python), "-c", code], self.env(env_extra),
                        cwd=self.project, timeout=timeout)


class PiRunner(HostRunner):
    """``pi`` with PI_CODING_AGENT_DIR holding a models.json for the stub."""

    host = "pi"

    def __init__(self, binary: Path, stub: StubProcess, root: Path):
        super().__init__(binary, stub, root)
        self.agent_dir = root / "pi-agent"
        self.agent_dir.mkdir(parents=True, exist_ok=True)
        models = {"providers": {STUB_PROVIDER: {
            "baseUrl": f"{stub.url}/v1", "api": "openai-completions", "apiKey": "x",
            "models": [{"id": STUB_MODEL, "name": "Stub model", "contextWindow": 128000, "maxTokens": 4096}],
        }}}
        (self.agent_dir / "models.json").write_text(json.dumps(models, indent=2) + "\n")

    def host_env(self) -> dict[str, str]:
        return {"PI_CODING_AGENT_DIR": str(self.agent_dir), "PI_OFFLINE": "1"}

    @property
    def model_arg(self) -> str:
        return f"{STUB_PROVIDER}/{STUB_MODEL}"

    def prompt(self, text: str, *args: str, extensions: Iterable[str | Path] = (),
               **kwargs: Any) -> subprocess.CompletedProcess:
        """``pi -p --no-session --model stub/stub-model [-e EXT]... ARGS TEXT``."""
        argv = ["-p", "--no-session", "--model", self.model_arg]
        for ext in extensions:
            argv += ["-e", str(ext)]
        return self([*argv, *args, text], **kwargs)


def parse_json_output(proc: subprocess.CompletedProcess) -> dict:
    """The JSON object a host printed last on stdout (``--output-format json``)."""
    for line in reversed(proc.stdout.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    raise AssertionError(f"no JSON on stdout (exit {proc.returncode}):\n{proc.stdout[-2000:]}"
                         f"\n--- stderr\n{proc.stderr[-2000:]}")


@pytest.fixture(scope="session")
def claude_binary() -> Path:
    return _host_binary(hostbin.claude_bin)


@pytest.fixture(scope="session")
def pi_binary() -> Path:
    return _host_binary(hostbin.pi_bin)


@pytest.fixture(scope="session")
def hermes_binary() -> tuple[Path, Path]:
    return _host_binary(hostbin.hermes_bin), _host_binary(hostbin.hermes_python)


@pytest.fixture
def run_claude(claude_binary: Path, stub: StubProcess, tmp_path: Path) -> ClaudeRunner:
    return ClaudeRunner(claude_binary, stub, tmp_path / "claude")


@pytest.fixture
def run_hermes(hermes_binary: tuple[Path, Path], stub: StubProcess, tmp_path: Path) -> HermesRunner:
    binary, python = hermes_binary
    return HermesRunner(binary, python, stub, tmp_path / "hermes")


@pytest.fixture
def run_pi(pi_binary: Path, stub: StubProcess, tmp_path: Path) -> PiRunner:
    return PiRunner(pi_binary, stub, tmp_path / "pi")


@pytest.fixture(autouse=True)
def stop_tacit_services(tmp_path: Path):
    """A hook started a tacit service for each data folder a test used: stop
    them, so no test leaves a process behind (they also exit when idle)."""
    yield
    from tacit.service import client

    for sock in tmp_path.rglob("run/tacit.sock"):
        client.stop(str(sock.parent.parent), wait=10)
    # A background child the test's session launched (detached: a review run by pi itself) can
    # outlive the test, and its pi's tacit extension starts the service again after the stop above
    # (seen after a CI run: a `tacit serve` of a pi test still running). Every process left with
    # this test's data folder goes now, the children first, then what they started.
    for _ in range(3):
        left = _processes_under(tmp_path)
        if not left:
            break
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while _processes_under(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.1)


def _processes_under(folder: Path) -> list[int]:
    """The pids of processes whose TACIT_HOME is inside ``folder`` (Linux's /proc; none elsewhere)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            items = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        env = dict(item.split(b"=", 1) for item in items if b"=" in item)
        home = env.get(b"TACIT_HOME", b"").decode("utf-8", "surrogateescape")
        if home and int(entry.name) != os.getpid() and Path(home).is_relative_to(folder):
            found.append(int(entry.name))
    return found


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not RUN_TIMINGS:
        return
    terminalreporter.section("host runs (seconds)")
    for host, argv, seconds, code in RUN_TIMINGS:
        terminalreporter.write_line(f"{seconds:6.2f}s  exit {code:>3}  {host:<13} {argv}")
    by_host: dict[str, list[float]] = {}
    for host, _argv, seconds, _code in RUN_TIMINGS:
        by_host.setdefault(host, []).append(seconds)
    for host, values in sorted(by_host.items()):
        values.sort()
        terminalreporter.write_line(f"{host}: {len(values)} runs, median {values[len(values) // 2]:.2f}s, "
                                    f"max {values[-1]:.2f}s")

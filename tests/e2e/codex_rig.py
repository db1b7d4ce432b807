"""The Codex CLI side of the e2e rig: a runner, its fixtures, and hook trust.

Import the fixtures into a test module (``from codex_rig import codex_binary,
run_codex``); ``tests/e2e/conftest.py`` provides ``stub``.

Design decisions, and why:

* **Codex speaks the Responses API only.** 0.171.0 refuses ``wire_api =
  "chat"`` ("no longer supported"), so the runner's ``config.toml`` names a
  custom provider on the stub with ``wire_api = "responses"`` (the stub's
  ``POST /v1/responses`` branch) and ``env_key = "STUB_API_KEY"``: no login,
  no ``auth.json``.
* **Nothing leaves 127.0.0.1.** Measured with every proxy variable on the
  stub: a plain ``codex exec`` tries ``github.com``, ``api.github.com`` and
  ``chatgpt.com`` (plugins) and ``ab.chatgpt.com`` (analytics).
  ``[features] plugins = false`` and ``[analytics] enabled = false`` stop all
  four; ``check_for_update_on_startup = false`` is there for good measure.
* **The project is a git repository** (``git init``): ``codex exec`` refuses
  any other folder that is not a trusted project.
* **The user's home is the default one** (``$HOME/.codex``, no
  ``CODEX_HOME``), so ``tacit install codex`` is tested where users have it.
* **Trusting hooks the way ``/hooks`` does.** Codex runs a hook from
  ``hooks.json`` only once the user trusted it in the TUI's ``/hooks`` view,
  which stores ``[hooks.state."<key>"] trusted_hash = <currentHash>`` in
  ``config.toml``. ``trust_hooks`` does the same through Codex's own
  app-server (``hooks/list`` for the hashes Codex computed, then
  ``config/value/write``), so no hash is ever computed here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import hostbin
import pytest
from stub_server import StubProcess


def _e2e_conftest():
    """tests/e2e/conftest.py as pytest loaded it (found by file: pytest's
    module name for a conftest is not something to rely on)."""
    path = str(Path(__file__).resolve().parent / "conftest.py")
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == path:
            return module
    import conftest  # not loaded by pytest (e.g. imported from a script)

    return conftest


_rig = _e2e_conftest()
DEFAULT_TIMEOUT, STUB_MODEL, HostRunner, _host_binary = (_rig.DEFAULT_TIMEOUT, _rig.STUB_MODEL, _rig.HostRunner,
                                                          _rig._host_binary)


class CodexRunner(HostRunner):
    """``codex`` with HOME isolated and a Responses provider on the stub."""

    host = "codex"

    def __init__(self, binary: Path, stub: StubProcess, root: Path):
        super().__init__(binary, stub, root)
        self.codex_dir.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(self.base_config())
        # `codex exec` refuses a folder that is neither a git repository nor a
        # trusted project ("Not inside a trusted directory"): a user's project is a repo
        subprocess.run(["git", "init", "-q", str(self.project)], check=True, capture_output=True)

    def base_config(self) -> str:
        return (
            f'model = "{STUB_MODEL}"\n'
            'model_provider = "stub"\n'
            "check_for_update_on_startup = false\n"
            "\n"
            "[model_providers.stub]\n"
            'name = "stub"\n'
            f'base_url = "{self.stub.url}/v1"\n'
            'wire_api = "responses"\n'
            'env_key = "STUB_API_KEY"\n'
            "\n"
            "[analytics]\n"
            "enabled = false\n"
            "\n"
            "[features]\n"
            "plugins = false\n"
        )

    def host_env(self) -> dict[str, str]:
        return {"STUB_API_KEY": "stub-key"}

    @property
    def codex_dir(self) -> Path:
        return self.home / ".codex"

    @property
    def config_path(self) -> Path:
        return self.codex_dir / "config.toml"

    @property
    def hooks_path(self) -> Path:
        return self.codex_dir / "hooks.json"

    def exec(self, text: str, *args: str, **kwargs: Any) -> tuple[subprocess.CompletedProcess, str]:
        """``codex exec ARGS -- TEXT`` -> (process, the last agent message).

        Plain output, not ``--json``: stdout is just the last message, and
        stderr has the transcript with one ``hook: <Event> Completed`` line
        per hook run (``--json`` reports no hook runs at all)."""
        proc = self(["exec", *args, "--", text], **kwargs)
        return proc, proc.stdout.strip()

    def resume(self, text: str, *args: str, **kwargs: Any) -> tuple[subprocess.CompletedProcess, str]:
        """``codex exec resume --last``: the next turn of the latest session."""
        proc = self(["exec", "resume", "--last", *args, text], **kwargs)
        return proc, proc.stdout.strip()

    # -- the app-server: what the TUI's /hooks view uses -------------------

    def app_server(self, requests: list[tuple[str, dict]], *, env_extra: dict | None = None,
                   timeout: float = 60) -> list[dict]:
        """Send JSON-RPC requests to ``codex app-server`` (after ``initialize``);
        return their results in order. Raises on a JSON-RPC error."""
        proc = subprocess.Popen([str(self.binary), "app-server"], cwd=str(self.project), env=self.env(env_extra),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, start_new_session=True)
        deadline = time.monotonic() + timeout

        def send(obj: dict) -> None:
            proc.stdin.write(json.dumps(obj) + "\n")
            proc.stdin.flush()

        def answer(request_id: int) -> dict:
            while time.monotonic() < deadline:
                line = proc.stdout.readline()
                if not line:
                    break
                message = json.loads(line)
                if message.get("id") == request_id:
                    if "error" in message:
                        raise AssertionError(f"codex app-server error: {message['error']}")
                    return message["result"]
            raise AssertionError(f"codex app-server gave no answer to request {request_id}")

        try:
            send({"id": 0, "method": "initialize", "params": {
                "clientInfo": {"name": "tacit-e2e", "version": "0"}, "capabilities": {"experimentalApi": True}}})
            answer(0)
            send({"method": "initialized"})
            results = []
            for index, (method, params) in enumerate(requests, start=1):
                send({"id": index, "method": method, "params": params})
                results.append(answer(index))
            return results
        finally:
            proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def hooks_list(self, cwd: Path | None = None) -> dict:
        """``hooks/list`` for one folder: ``{"hooks": [...], "warnings", "errors"}``."""
        [result] = self.app_server([("hooks/list", {"cwds": [str(cwd or self.project)]})])
        return result["data"][0]

    def trust_hooks(self, contains: str = "", cwd: Path | None = None) -> list[str]:
        """Trust every listed hook whose command contains ``contains``, as the
        user does in ``/hooks``. Returns the keys trusted."""
        hooks = [h for h in self.hooks_list(cwd)["hooks"]
                 if contains in (h.get("command") or "") and h["trustStatus"] != "trusted"]
        if hooks:
            self.app_server([("config/value/write", {
                "keyPath": "hooks.state." + json.dumps(h["key"]),
                "value": {"enabled": True, "trusted_hash": h["currentHash"]},
                "mergeStrategy": "replace"}) for h in hooks])
        return [h["key"] for h in hooks]


@pytest.fixture(scope="session")
def codex_binary() -> Path:
    return _host_binary(hostbin.codex_bin)


@pytest.fixture
def run_codex(codex_binary: Path, stub: StubProcess, tmp_path: Path) -> CodexRunner:
    return CodexRunner(codex_binary, stub, tmp_path / "codex")


__all__ = ["DEFAULT_TIMEOUT", "CodexRunner", "codex_binary", "run_codex"]

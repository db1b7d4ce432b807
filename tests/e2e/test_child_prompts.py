"""Child prompts reach every real host on stdin, never on a command line, and
every host's usage becomes a spend (issue 14).

For each pinned host (Claude Code 2.1.197, Codex CLI 0.171.0, pi 0.73.1,
Hermes Agent 0.19.0) tacit's runner starts a review child with that host's
*default* command (each host spec's ``child_command``) against the
scripted model server, while a watcher reads every process's command line
(``/proc/*/cmdline``, what ``ps`` shows) every few milliseconds. The stub
must receive the prompt (its marker is in the request), no command line may
ever hold it, and the run's record carries the host's usage and a spend.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from codex_rig import codex_binary, run_codex  # noqa: F401 — fixtures
from tacit.children.runner import run_job
from tacit.config import load_config

pytestmark = pytest.mark.e2e


class CmdlineWatch:
    """Scans every process's command line for ``marker`` until stopped."""

    def __init__(self, marker: str):
        self.marker, self.seen, self.scans = marker.encode(), [], 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as handle:
                        line = handle.read()
                except OSError:
                    continue
                if self.marker in line:
                    self.seen.append(line[:300])
            self.scans += 1
            time.sleep(0.005)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(5)


def run_child(runner, host: str, monkeypatch, tmp_path: Path, **settings) -> tuple[dict, list, str]:
    marker = f"PSCHECK-{host}-{os.getpid()}-marker"
    runner.stub.set_script([{"match": marker, "reply": "Nothing to save."}], default="Nothing to save.")
    env = runner.env()
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    home = tmp_path / "tacit-data"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("TACIT_HOME", str(home))
    cfg = load_config(env={**env, "TACIT_HOME": str(home)})
    if settings:
        cfg = cfg.with_settings(**settings)
    job = {"id": f"ps-{host}", "kind": "review", "session_id": "ps", "host": host,
           "variables": {"reason": "a test", "recent": [{"role": "user", "text": marker}]}}
    with CmdlineWatch(marker) as watch:
        record = run_job(cfg, job)
    assert watch.scans > 10
    return record, watch.seen, marker


def prompt_reached_the_model(stub, marker: str) -> bool:
    return any(marker in json_text for json_text in (str(r.get("body")) for r in stub.model_requests()))


def bin_on_path(monkeypatch, binary: Path) -> None:
    monkeypatch.setenv("PATH", f"{binary.parent}{os.pathsep}{os.environ.get('PATH', '')}")


def test_claude_code_child_reads_its_prompt_from_stdin(run_claude, claude_binary, monkeypatch, tmp_path):
    bin_on_path(monkeypatch, claude_binary)
    record, seen, marker = run_child(run_claude, "claude-code", monkeypatch, tmp_path)
    assert record["ok"] and record["mode"] == "agent" and record["prompt_via"] == "stdin", record
    assert seen == [] and prompt_reached_the_model(run_claude.stub, marker)
    assert record["spend"]["tokens"] > 0 and record["spend"]["usd_source"] == "host"
    assert record["nothing_to_save"] is True


def test_codex_child_reads_its_prompt_from_stdin(run_codex, codex_binary, monkeypatch, tmp_path):  # noqa: F811
    bin_on_path(monkeypatch, codex_binary)
    record, seen, marker = run_child(run_codex, "codex", monkeypatch, tmp_path)
    assert record["ok"] and record["prompt_via"] == "stdin" and record["command"][-2:] == ["--", "-"], record
    assert seen == [] and prompt_reached_the_model(run_codex.stub, marker)
    assert record["spend"]["tokens"] > 0  # no cost from Codex: the price table knows no "stub-model"
    assert record["spend"]["usd"] is None and record["spend"]["usd_source"] == "unknown"


def test_pi_child_reads_its_prompt_from_stdin_and_reports_usage(run_pi, pi_binary, monkeypatch, tmp_path):
    bin_on_path(monkeypatch, pi_binary)
    record, seen, marker = run_child(run_pi, "pi", monkeypatch, tmp_path, child_model=run_pi.model_arg)
    assert record["ok"] and record["prompt_via"] == "stdin" and "--mode" in record["command"], record
    assert seen == [] and prompt_reached_the_model(run_pi.stub, marker)
    assert record["usage"]["format"] == "pi" and record["spend"]["tokens"] > 0
    assert record["stdout_tail"] == "Nothing to save." and record["nothing_to_save"] is True


def test_hermes_child_gets_its_prompt_through_its_entry_point(run_hermes, hermes_binary, monkeypatch, tmp_path):
    binary, _python = hermes_binary
    bin_on_path(monkeypatch, binary)
    record, seen, marker = run_child(run_hermes, "hermes", monkeypatch, tmp_path)
    assert record["ok"] and record["prompt_via"] == "stdin", record
    assert record["command"][:3] == ["hermes", "-z", "<prompt>"] and record["exec"][1] == "-c"
    assert seen == [] and prompt_reached_the_model(run_hermes.stub, marker)
    assert record["usage"]["api_calls"] >= 1 and record["spend"]["tokens"] > 0

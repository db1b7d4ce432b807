"""Helpers the e2e test modules share (``test_claude_code.py``,
``test_codex.py``, ``test_harness.py``, ``test_hermes.py``).

Plain functions and one base class, no fixtures: each test module still
builds its own objects from the rig's fixtures in ``conftest.py`` /
``codex_rig.py``, so what a test depends on stays visible in its signature.

- reading what the rig recorded: ``read_jsonl``, ``message_text``,
  ``tree_digest``;
- waiting for a detached child's effect with a deadline, never a sleep:
  ``wait_for``;
- talking to the stub over real HTTP: ``post``, ``sse_events``, ``sse_json``;
- ``TacitOnHost``: a host runner plus tacit's data folder, its CLI (this
  interpreter's ``python -m tacit``) and the child log — the part of
  ``TacitClaude`` and ``TacitCodex`` that does not depend on the host.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tacit.config import load_config


def read_jsonl(path: Path) -> list[dict]:
    """The records of a JSONL file; ``[]`` while it does not exist."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def message_text(content) -> str:
    """Text of an Anthropic/OpenAI message content, tool results included."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if block.get("type") == "text":
            parts.append(block["text"])
        elif block.get("type") == "tool_result":
            parts.append(message_text(block.get("content")))
    return "\n".join(parts)


def wait_for(predicate, timeout: float, what: str = "condition"):
    """Poll ``predicate`` until it returns something truthy (returned), or
    fail the test after ``timeout`` seconds naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.2)


def tree_digest(root: Path) -> dict[str, str]:
    """relative path -> sha1 of every file (and "<dir>" for folders) under root."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        out[rel] = "<dir>" if path.is_dir() else hashlib.sha1(path.read_bytes()).hexdigest()
    return out


def post(url: str, body: dict, headers: dict | None = None) -> tuple[int, str]:
    """POST ``body`` as JSON; (status, response text), an HTTP error included."""
    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def sse_events(text: str) -> list[tuple[str | None, str]]:
    """Parse an SSE body into (event, data) pairs."""
    events = []
    for frame in text.split("\n\n"):
        if not frame.strip():
            continue
        name, data = None, []
        for line in frame.splitlines():
            if line.startswith("event: "):
                name = line[len("event: "):]
            elif line.startswith("data: "):
                data.append(line[len("data: "):])
        events.append((name, "\n".join(data)))
    return events


def sse_json(text: str) -> list[tuple[str | None, dict]]:
    """``sse_events`` with every data part parsed as JSON."""
    return [(name, json.loads(data)) for name, data in sse_events(text)]


class TacitOnHost:
    """A host runner (``run_claude``, ``run_codex``) plus a tacit data
    folder, the CLI and the child log. Subclasses name the host
    (``host``: what ``tacit install`` takes) and add its own verbs."""

    host = ""

    def __init__(self, runner, stub, tmp_path: Path):
        self.runner = runner
        self.stub = stub
        self.home = tmp_path / "tacit-home"
        self.probe_log = tmp_path / "probe-hooks.jsonl"
        # the child agent runs the host by name, as on a user's machine
        path = os.pathsep.join([str(Path(sys.executable).parent), str(Path(runner.binary).parent),
                                os.environ.get("PATH", "/usr/bin:/bin")])
        self.env_extra = {"TACIT_HOME": str(self.home), "PATH": path, "PROBE_LOG": str(self.probe_log),
                          "TACIT_SERVICE_IDLE_SECONDS": "60"}

    def env(self, **extra) -> dict:
        return self.runner.env({**self.env_extra, **extra})

    def cfg(self):
        return load_config(env=self.env())

    def tacit(self, *args: str, check: bool = True, input: str | None = None, **extra) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "tacit", *args], env=self.env(**extra), input=input,
                              cwd=self.runner.project, capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            pytest.fail(f"tacit {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def install(self, *args: str) -> dict:
        return json.loads(self.tacit("install", self.host, *args, "--json").stdout)

    def project_memory_file(self) -> Path:
        """MEMORY.md of the runner's project (what an agent's ``tacit memory add`` writes there)."""
        from tacit.projects import forget_cache, project_for
        from tacit.stores.memory import project_dir

        forget_cache()
        return project_dir(self.cfg(), project_for(str(self.runner.project))) / "MEMORY.md"

    def project_skills_dir(self) -> Path:
        from tacit.projects import forget_cache, project_for
        from tacit.stores.skill_scopes import project_skills_dir

        forget_cache()
        return project_skills_dir(self.cfg(), project_for(str(self.runner.project)))

    HAND_EDITED_MEMORY = b"MEM-KEEP builds with make\n\xc2\xa7\nMEM-ODD caf\xe9\n"  # bad byte at offset 40

    def hand_edited(self) -> tuple[Path, Path]:
        """Two skills and a project entry saved, then edited by hand: MEMORY.md given a byte that is not
        UTF-8 (``HAND_EDITED_MEMORY``), skill run-tests a frontmatter that does not parse; (MEMORY.md, SKILL.md)."""
        self.tacit("memory", "add", "MEM-KEEP builds with make")
        for name in ("deploy-web", "run-tests"):
            self.tacit("skill", "create", "--name", name, "--description", f"SKILL-{name} procedure")
        memory_md, broken = self.project_memory_file(), self.project_skills_dir() / "run-tests" / "SKILL.md"
        memory_md.write_bytes(self.HAND_EDITED_MEMORY)
        broken.write_text("---\nname: run-tests\ndescription: [unclosed\n---\n\nmy edit\n")
        return memory_md, broken

    def uninstall(self, *args: str) -> dict:
        return json.loads(self.tacit("uninstall", self.host, *args, "--json").stdout)

    def session_state(self, session_id: str) -> dict | None:
        """A session's saved state, as the engine keeps it in the ledger."""
        path = self.home / "ledger.db"
        if not path.exists():
            return None
        conn = sqlite3.connect(path)
        try:
            row = conn.execute("SELECT state FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        finally:
            conn.close()
        return json.loads(row[0]) if row else None

    def session_ids(self) -> set[str]:
        path = self.home / "ledger.db"
        if not path.exists():
            return set()
        conn = sqlite3.connect(path)
        try:
            return {r[0] for r in conn.execute("SELECT session_id FROM sessions")}
        finally:
            conn.close()

    def children(self, kind: str | None = None) -> list[dict]:
        records = read_jsonl(self.home / "logs" / "children.jsonl")
        return [r for r in records if kind is None or r.get("kind") == kind]

    def run_ok(self, run, text: str, *args: str, env_extra: dict | None = None, **kw):
        """``run(text, *args, …)`` (a runner's ``prompt``/``exec``/``resume``)
        with tacit's environment added; the host must exit 0."""
        proc, result = run(text, *args, env_extra={**self.env_extra, **(env_extra or {})}, **kw)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc, result

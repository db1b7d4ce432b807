"""What the issue-14 tests share: a child agent that records its prompt, and
a search of a whole data folder.

``Recorder`` is a fake child agent (``child_command`` without placeholders,
so tacit hands it the prompt on stdin, as it does every real host): it
records what it received — the prompt, its own command line as the kernel
shows it (``/proc/self/cmdline``, what ``ps`` prints), its ``TACIT_ACTOR`` —
then lets ``tests/fake_agent/fake_agent.py`` act on the prompt (saving
through the real ``tacit`` CLI), and prints a Claude Code
``--output-format json`` result with the usage it was told to report.

``leaks(root, needles)`` searches every file under a folder, bytes and all
(SQLite's ``-wal``/``-shm`` included), for each needle as UTF-8 and, for
the ledger, as it would be stored in JSON (``ensure_ascii`` escapes).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tacit.config import load_config

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fake_agent" / "fake_agent.py"

RECORDER = r'''
import json, os, subprocess, sys, tempfile, time
log_dir, mode, tokens = sys.argv[1], sys.argv[2], int(sys.argv[3])
prompt = sys.stdin.read()
with open("/proc/self/cmdline", "rb") as handle:
    cmdline = [a.decode("utf-8", "replace") for a in handle.read().split(b"\0") if a]
os.makedirs(log_dir, exist_ok=True)
with open(os.path.join(log_dir, f"{time.time_ns()}-{os.getpid()}.json"), "w") as handle:
    json.dump({"cmdline": cmdline, "prompt": prompt, "actor": os.environ.get("TACIT_ACTOR"),
               "cwd": os.getcwd(), "umask": os.umask(0o077)}, handle)
code, out = 0, "Nothing to save."
if mode != "nothing":
    fd, path = tempfile.mkstemp(suffix=".md")
    with os.fdopen(fd, "w") as handle:
        handle.write(prompt)
    proc = subprocess.run([sys.executable, os.environ["FAKE_AGENT"], "--mode", mode, path],
                          capture_output=True, text=True)
    os.unlink(path)
    code, out = proc.returncode, proc.stdout.strip()
print(json.dumps({"type": "result", "result": out, "total_cost_usd": round(tokens * 2e-6, 6),
                  "usage": {"input_tokens": tokens - 100, "cache_read_input_tokens": 0, "output_tokens": 100}}))
sys.exit(code)
'''


class Recorder:
    """A recording child agent for one data folder (see the module docstring)."""

    def __init__(self, tmp: Path, tacit_env: dict, *, mode: str = "save", tokens: int = 5000):
        self.tmp, self.env = Path(tmp), dict(tacit_env)
        self.script = self.tmp / "recorder.py"
        self.script.write_text(RECORDER, encoding="utf-8")
        self.log_dir = self.tmp / "child-prompts"
        self.mode, self.tokens = mode, tokens
        self.env["FAKE_AGENT"] = str(FAKE_AGENT)
        os.environ["FAKE_AGENT"] = str(FAKE_AGENT)  # children of an in-process engine inherit ours

    @property
    def command(self) -> str:
        return f"{sys.executable} {self.script} {self.log_dir} {self.mode} {self.tokens}"

    def configure(self, home: Path, **settings):
        """config.toml with this recorder as the child command; the Config."""
        lines = [f"child_command = {json.dumps(self.command)}"]
        for key, value in settings.items():
            if isinstance(value, bool):
                lines.append(f"{key} = {'true' if value else 'false'}")
            elif isinstance(value, (int, float)):
                lines.append(f"{key} = {value}")
            else:
                lines.append(f"{key} = {json.dumps(value)}")
        (Path(home) / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return load_config(env=self.env)

    def calls(self) -> list[dict]:
        if not self.log_dir.exists():
            return []
        return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(self.log_dir.glob("*.json"))]

    def prompts(self) -> list[str]:
        return [c["prompt"] for c in self.calls()]


def _forms(needle: str) -> list[bytes]:
    """A needle as it may sit in a file: UTF-8, JSON-escaped (non-ASCII as \\u)."""
    forms = {needle.encode("utf-8"), json.dumps(needle)[1:-1].encode("ascii"),
             json.dumps(needle, ensure_ascii=False)[1:-1].encode("utf-8")}
    return [f for f in forms if f]


def files_under(root: Path) -> list[Path]:
    return [p for p in Path(root).rglob("*") if p.is_file() and not p.is_symlink()]


def leaks(root: Path, needles) -> dict[str, list[str]]:
    """{needle: [files holding it]} for the needles found anywhere under ``root``."""
    needles = [n for n in dict.fromkeys(needles) if isinstance(n, str) and len(n) >= 4]
    blobs = {str(p): p.read_bytes() for p in files_under(root)}
    found: dict[str, list[str]] = {}
    for needle in needles:
        where = [path for path, blob in blobs.items() if any(form in blob for form in _forms(needle))]
        if where:
            found[needle] = where
    return found


def in_texts(texts, needles) -> dict[str, int]:
    """{needle: how many texts hold it} for the needles found in ``texts``."""
    found = {}
    for needle in dict.fromkeys(needles):
        count = sum(1 for t in texts if needle in t)
        if count:
            found[needle] = count
    return found


# ---------------------------------------------------------------------------
# The helpers work
# ---------------------------------------------------------------------------
def test_leaks_finds_plain_and_json_escaped_needles(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "plain.txt").write_text("the code is ZQX-1234 here")
    (tmp_path / "b.json").write_text(json.dumps({"t": "密码是 ZQX-秘密"}))  # ensure_ascii: \u escapes
    assert leaks(tmp_path, ["ZQX-1234"]) == {"ZQX-1234": [str(tmp_path / "a" / "plain.txt")]}
    assert list(leaks(tmp_path, ["ZQX-秘密"])) == ["ZQX-秘密"]
    assert leaks(tmp_path, ["absent-needle", "abc"]) == {}  # too short needles are not searched


def test_the_recorder_gets_its_prompt_on_stdin_and_reports_usage(tmp_path, tacit_home, tacit_env):
    from tacit.children.runner import run_job

    recorder = Recorder(tmp_path, tacit_env, mode="nothing", tokens=1234)
    cfg = recorder.configure(tacit_home)
    record = run_job(cfg, {"id": "j1", "kind": "review", "session_id": "s", "variables": {"reason": "test"}})
    [call] = recorder.calls()
    assert "reviewing a coding session" in call["prompt"]
    assert not any("reviewing" in arg for arg in call["cmdline"])  # never on the command line
    assert record["prompt_via"] == "stdin" and record["spend"]["tokens"] == 1234
    assert record["nothing_to_save"] is True

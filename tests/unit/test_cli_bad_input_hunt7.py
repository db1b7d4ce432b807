"""Bad input a new user (or a script) gives the CLI: with ``--json`` the answer is one JSON object."""

from __future__ import annotations

import json
import subprocess
import sys


def test_child_run_of_no_queued_job_answers_one_json_object(tacit_env):
    out = subprocess.run([sys.executable, "-m", "tacit", "child", "run", "no-such-job", "--json"], env=tacit_env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    answer = json.loads(out.stdout)
    assert answer == {"success": False, "job_id": "no-such-job", "error": "no queued job no-such-job"}
    text = subprocess.run([sys.executable, "-m", "tacit", "child", "run", "no-such-job"], env=tacit_env,
                          capture_output=True, text=True, timeout=60)
    assert text.returncode == 1 and text.stdout == "" and "no queued job no-such-job" in text.stderr

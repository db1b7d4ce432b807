"""A usage error with ``--json`` is one JSON object on stdout, said once (issue 20)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.parametrize("argv", [["detect", "--json"], ["memory", "add", "--json"], ["memory", "--json", "nope"]])
def test_a_usage_error_is_one_json_object_and_nothing_else(tacit_env, argv):
    proc = subprocess.run([sys.executable, "-m", "tacit", *argv], env=tacit_env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    [line] = proc.stdout.splitlines()
    result = json.loads(line)
    assert result["success"] is False and result["error"].startswith("usage: ") and result["usage"]
    assert proc.stderr == ""


def test_without_json_the_usage_error_is_text_on_stderr(tacit_env):
    proc = subprocess.run([sys.executable, "-m", "tacit", "detect"], env=tacit_env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("error: the following arguments are required: DETECTOR") == 1

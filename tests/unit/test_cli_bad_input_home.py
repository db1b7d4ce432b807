"""A relative ``TACIT_HOME`` made a data folder inside whichever folder a
command (or a hook) ran in — a repository, a project's subfolder — so each
project had its own memory and tacit wrote into the user's code. It is taken
from the home folder, like ``~/...``."""

from __future__ import annotations

import json
import subprocess
import sys

from tacit.paths import data_dir


def test_a_relative_data_folder_is_taken_from_home_not_the_working_folder(tmp_path):
    home = tmp_path / "home"
    work = tmp_path / "repo"
    home.mkdir()
    work.mkdir()
    env = {"HOME": str(home), "TACIT_HOME": "tacit-data", "PATH": str(tmp_path)}
    assert data_dir(env) == str(home / "tacit-data")
    proc = subprocess.run([sys.executable, "-m", "tacit", "memory", "add", "--scope", "global", "Use pnpm.",
                           "--json"], env=env, cwd=work, capture_output=True, text=True, timeout=60)
    assert json.loads(proc.stdout)["success"] is True, proc.stdout + proc.stderr
    assert list(work.iterdir()) == []
    assert (home / "tacit-data" / "memories" / "MEMORY.md").read_text().strip() == "Use pnpm."

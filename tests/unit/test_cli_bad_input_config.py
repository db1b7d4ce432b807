"""A nonsensical memory limit in ``config.toml`` (``memory_char_limit = -5``)
was taken as is: every add refused with "62/-5 chars" and ``tacit doctor``
said nothing. A limit below one character is a problem told, and the
default applies."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tacit.config import DEFAULTS, load_config


@pytest.mark.parametrize("line", ["memory_char_limit = -5", "user_char_limit = 0"])
def test_a_limit_below_one_character_is_a_problem_with_the_default(cfg, tacit_env, line):
    cfg.home.mkdir(parents=True, exist_ok=True)
    cfg.config_file.write_text(line + "\n")
    again = load_config(env=tacit_env)
    key = line.split()[0]
    assert getattr(again, key) == DEFAULTS[key]
    assert any(p.startswith(f"config.toml: {key}:") and "positive" in p for p in again.problems), again.problems
    proc = subprocess.run([sys.executable, "-m", "tacit", "memory", "add", "--scope", "global", "Use pnpm.",
                           "--json"], env=tacit_env, capture_output=True, text=True, timeout=60)
    assert json.loads(proc.stdout)["success"] is True, proc.stdout


def test_a_limit_from_the_environment_is_checked_too(tacit_env):
    again = load_config(env={**tacit_env, "TACIT_PROJECT_CHAR_LIMIT": "-1"})
    assert again.project_char_limit == DEFAULTS["project_char_limit"]

"""``tacit install hermes`` / ``uninstall`` against a stand-in ``hermes_cli``.

The stand-in is a tiny ``hermes_cli.config`` (load/save/read_raw/get_config_path
over ``$HERMES_HOME/config.yaml``) put on ``PYTHONPATH``, and this interpreter
plays Hermes's: so the real subprocess path runs — ``run_in_hermes`` starts
``python -m tacit.hosts.hermes.hermes_config`` with ``HERMES_HOME`` set and
parses its answer. The e2e test does the same against Hermes 0.19.0's own
config code.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml

from tacit.config import load_config
from tacit.hosts.hermes import install as hermes_install

FAKE_CONFIG_MODULE = '''
import copy, os
from pathlib import Path
import yaml

def get_config_path():
    return Path(os.environ["HERMES_HOME"]) / "config.yaml"

def read_raw_config():
    path = get_config_path()
    return (yaml.safe_load(path.read_text()) or {}) if path.exists() else {}

def load_config():
    return copy.deepcopy(read_raw_config())

def save_config(config):
    get_config_path().write_text(yaml.safe_dump(config, sort_keys=False))
'''


@pytest.fixture
def hermes(tmp_path, monkeypatch):
    fake = tmp_path / "fake-hermes"
    (fake / "hermes_cli").mkdir(parents=True)
    (fake / "hermes_cli" / "__init__.py").write_text("")
    (fake / "hermes_cli" / "config.py").write_text(FAKE_CONFIG_MODULE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(fake), os.environ.get("PYTHONPATH")])))
    monkeypatch.setattr(hermes_install, "find_hermes_python", lambda cfg, prefer=None: sys.executable)
    home = tmp_path / "hermes-home"
    home.mkdir()
    cfg = load_config(env={"HOME": str(tmp_path), "HERMES_HOME": str(home), "PATH": "/usr/bin:/bin"})

    class Hermes:
        def write(self, data):
            (home / "config.yaml").write_text(yaml.safe_dump(data))

        def read(self):
            return yaml.safe_load((home / "config.yaml").read_text())

    h = Hermes()
    h.home, h.cfg = home, cfg
    return h


def test_install_enables_and_records_then_uninstall_restores(hermes):
    hermes.write({"model": {"default": "m"}, "memory": {"nudge_interval": 7}})
    (hermes.home / "memories").mkdir()
    (hermes.home / "memories" / "MEMORY.md").write_text("HERMES-ONLY entry\n§\nshared entry")
    hermes.cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    hermes.cfg.memory_file.write_text("shared entry\n§\nTACIT-ONLY entry")
    result = hermes_install.install(hermes.cfg, "user")
    assert result["success"] and result["hermes_home"] == str(hermes.home)
    assert result["changed"][:4] == ["plugins.enabled += tacit", "plugins.entries.tacit.allow_tool_override = false",
                                     "memory.nudge_interval = 0", "skills.creation_nudge_interval = 0"]
    # one memory: tacit's folder is now a link to Hermes's, which keeps its entries; tacit's old folder kept
    link = hermes.cfg.memories_dir
    assert link.is_symlink() and link.resolve() == (hermes.home / "memories").resolve()
    assert not (hermes.home / "memories").is_symlink()  # Hermes starts whatever happens to tacit's folder
    assert "1 of tacit's entries merged in" in result["changed"][4]
    assert hermes.cfg.memory_file.read_text() == "HERMES-ONLY entry\n§\nshared entry\n§\nTACIT-ONLY entry"
    [backup] = link.parent.glob("memories.before-hermes-*")
    assert (backup / "MEMORY.md").read_text() == "shared entry\n§\nTACIT-ONLY entry"
    # tacit's skills are in Hermes's index
    assert (hermes.home / "skills" / "tacit").resolve() == hermes.cfg.skills_dir.resolve()
    config = hermes.read()
    assert config["plugins"] == {"enabled": ["tacit"], "disabled": [],
                                 "entries": {"tacit": {"allow_tool_override": False}}}
    assert config["memory"]["nudge_interval"] == 0 and config["skills"]["creation_nudge_interval"] == 0
    assert config["model"] == {"default": "m"}
    manifest = json.loads((hermes.home / "tacit" / "install.json").read_text())
    assert manifest["nudges"] == {"memory.nudge_interval": {"had": True, "previous": 7},
                                  "skills.creation_nudge_interval": {"had": False, "previous": None}}

    again = hermes_install.install(hermes.cfg, "user")
    assert again["success"] and again["already_installed"] and again["changed"] == []

    removed = hermes_install.uninstall(hermes.cfg, "user")
    assert removed["success"] and removed["left"] == []
    assert not link.is_symlink() and (link / "MEMORY.md").read_text() == \
        "HERMES-ONLY entry\n§\nshared entry\n§\nTACIT-ONLY entry"
    assert not (hermes.home / "skills" / "tacit").is_symlink()
    config = hermes.read()
    assert config["plugins"]["enabled"] == [] and "entries" not in config["plugins"]
    assert config["memory"] == {"nudge_interval": 7} and "creation_nudge_interval" not in config["skills"]
    assert not (hermes.home / "tacit" / "install.json").exists()
    assert hermes_install.uninstall(hermes.cfg, "user")["changed"] == []  # nothing left to undo


def test_an_earlier_backup_of_the_same_second_is_kept_beside_the_new_one(hermes, monkeypatch):
    """tacit's old memory folder is set aside under a free name (``tacit.fsutil.free_name``)."""
    import time

    monkeypatch.setattr(time, "strftime", lambda *_a: "20260101T000000")
    hermes.write({"model": {"default": "m"}})
    hermes.cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    hermes.cfg.memory_file.write_text("TACIT-ONLY entry")
    earlier = hermes.cfg.memories_dir.with_name("memories.before-hermes-20260101T000000")
    earlier.mkdir()
    (earlier / "MEMORY.md").write_text("an earlier install's copy")
    assert hermes_install.install(hermes.cfg, "user")["success"]
    assert (earlier / "MEMORY.md").read_text() == "an earlier install's copy"
    moved = earlier.with_name(earlier.name + ".1")
    assert (moved / "MEMORY.md").read_text() == "TACIT-ONLY entry"


def test_reinstall_keeps_the_first_record_and_uninstall_respects_later_changes(hermes):
    hermes.write({"memory": {"nudge_interval": 7}, "skills": {"creation_nudge_interval": 4}})
    hermes_install.install(hermes.cfg, "user")
    config = hermes.read()
    config["memory"]["nudge_interval"] = 3  # the person turns Hermes's review back on
    hermes.write(config)
    again = hermes_install.install(hermes.cfg, "user")
    assert again["changed"] == ["memory.nudge_interval = 0"]
    manifest = json.loads((hermes.home / "tacit" / "install.json").read_text())
    assert manifest["nudges"]["memory.nudge_interval"]["previous"] == 7  # never our 0, nor the 3

    config = hermes.read()
    config["skills"]["creation_nudge_interval"] = 12  # changed after install: not ours to reset
    hermes.write(config)
    removed = hermes_install.uninstall(hermes.cfg, "user")
    assert removed["left"] == ["skills.creation_nudge_interval (changed since install: left as it is)"]
    config = hermes.read()
    assert config["memory"]["nudge_interval"] == 7 and config["skills"]["creation_nudge_interval"] == 12


def test_a_plugin_the_person_had_disabled_goes_back_to_disabled(hermes):
    hermes.write({"plugins": {"enabled": ["other"], "disabled": ["tacit"]}})
    hermes_install.install(hermes.cfg, "user")
    assert hermes.read()["plugins"]["enabled"] == ["other", "tacit"]
    assert hermes.read()["plugins"]["disabled"] == []
    hermes_install.uninstall(hermes.cfg, "user")
    plugins = hermes.read()["plugins"]
    assert plugins["enabled"] == ["other"] and plugins["disabled"] == ["tacit"]


def test_an_already_enabled_plugin_stays_enabled_after_uninstall(hermes):
    hermes.write({"plugins": {"enabled": ["tacit"], "entries": {"tacit": {"allow_tool_override": True}}}})
    hermes_install.install(hermes.cfg, "user")
    hermes_install.uninstall(hermes.cfg, "user")
    plugins = hermes.read()["plugins"]
    assert plugins["enabled"] == ["tacit"] and plugins["entries"] == {"tacit": {"allow_tool_override": True}}


def test_refused_when_hermes_cannot_load_tacit(hermes, monkeypatch):
    monkeypatch.setattr(hermes_install, "run_in_hermes",
                        lambda cfg, python, home, spec: {"ok": False, "error": "No module named tacit"})
    result = hermes_install.install(hermes.cfg, "user")
    root = Path(hermes_install.__file__).resolve().parents[4]  # run from a checkout: pip installs that
    checkout = root if (root / "pyproject.toml").is_file() else "<path of your tacit checkout>"
    assert result["success"] is False and f"-m pip install {checkout}`" in result["error"]
    assert "tacit-memory" not in result["error"]  # no such package on PyPI (and one could take the name)
    assert "No module named tacit" in result["error"]
    monkeypatch.setattr(hermes_install, "run_in_hermes", lambda cfg, python, home, spec: {
        "ok": True, "entry_point": None, "enabled": [], "disabled": [], "entry": None, "values": {}})
    assert "not installed in Hermes's Python" in hermes_install.install(hermes.cfg, "user")["error"]
    assert not (hermes.home / "tacit" / "install.json").exists()


def test_project_scope_is_refused_with_the_reason(hermes):
    result = hermes_install.install(hermes.cfg, "project", project_dir=".")
    assert result["success"] is False and "per Hermes home" in result["error"]
    assert hermes_install.uninstall(hermes.cfg, "project")["success"] is False


def test_hermes_not_found(tmp_path, monkeypatch):
    cfg = load_config(env={"HOME": str(tmp_path), "PATH": str(tmp_path)})
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    assert hermes_install.find_hermes_python(cfg) is None
    result = hermes_install.install(cfg, "user")
    assert result["success"] is False and "Hermes Agent not found" in result["error"]


def test_interpreter_from_the_hermes_script(tmp_path):
    from tacit.children.commands import script_python

    python = tmp_path / "venv" / "bin" / "python3.11"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    script = tmp_path / "hermes"
    script.write_text(f"#!{python}\nimport sys\n")
    assert script_python(str(script)) == str(python)
    script.write_text("#!/usr/bin/env python3\n")
    assert script_python(str(script)) is not None
    script.write_text("#!/bin/sh\nexec node x\n")
    assert script_python(str(script)) is None
    assert script_python(str(tmp_path / "missing")) is None


def test_cli_routes_to_the_hermes_installer(hermes, tmp_path):
    import subprocess

    env = {**os.environ, "HERMES_HOME": str(hermes.home), "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "tacit.cli", "install", "hermes", "--scope", "project", "--json"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and json.loads(proc.stdout)["success"] is False


def test_matching_hermess_limits_keeps_config_toml_as_toml(hermes):
    """match_limits rewrote tacit's config.toml with str.splitlines: a U+2028 inside a string value
    became a line break, the file no longer parsed, and every setting in it fell back to its default.
    A table at the end took the appended keys as its own."""
    import tomllib

    hermes.write({"memory": {"memory_char_limit": 3000, "user_char_limit": 1000}})
    config = hermes.cfg.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('exclude = ["notes\u2028old"]\nmemory_char_limit = 2200\n[tacit]\nnudge_interval = 4\n',
                      encoding="utf-8")
    assert hermes_install.match_limits(hermes.cfg, str(hermes.home)) == "memory_char_limit = 3000, user_char_limit = 1000"
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    assert data["exclude"] == ["notes\u2028old"] and data["tacit"] == {"nudge_interval": 4}, data
    assert (data["memory_char_limit"], data["user_char_limit"]) == (3000, 1000)
    loaded = load_config(env={"HOME": str(hermes.home.parent), "HERMES_HOME": str(hermes.home)})
    assert (loaded.memory_char_limit, loaded.user_char_limit, loaded.problems) == (3000, 1000, []), loaded.problems


def test_a_config_toml_that_cannot_be_changed_safely_is_left_alone(hermes):
    hermes.write({"memory": {"memory_char_limit": 3000, "user_char_limit": 1000}})
    config = hermes.cfg.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    text = 'exclude = ["""\nmemory_char_limit = 5\n"""]\n'  # a key's name inside a multi-line string
    config.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="could not be changed safely; set memory_char_limit = 3000"):
        hermes_install.match_limits(hermes.cfg, str(hermes.home))
    assert config.read_text(encoding="utf-8") == text

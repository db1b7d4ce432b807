"""An install made with a host's home-folder variable (``CODEX_HOME=/x tacit install codex``) is found
from a shell without it: ``tacit status`` and ``tacit doctor`` say it is installed and where, and
``tacit uninstall`` undoes it there, byte for byte. Real CLI subprocesses on real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# host, its home-folder variable, the user file install merges into (relative to that folder), its text
HOSTS = [("codex", "CODEX_HOME", "config.toml", 'model = "mine"\n\n[features]\nplugins = false\n'),
         ("claude-code", "CLAUDE_CONFIG_DIR", "settings.json", '{\n    "model": "mine"\n}\n'),
         ("pi", "PI_CODING_AGENT_DIR", "settings.json", '{"theme": "mine"}\n')]


def tacit(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tacit.cli", *args], env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


def tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("host,var,user_file,text", HOSTS)
def test_an_install_with_another_home_folder_is_found_from_a_plain_shell(tacit_env, tmp_path, host, var,
                                                                          user_file, text):
    place = tmp_path / "elsewhere"
    place.mkdir()
    (place / user_file).write_text(text)
    before = tree(place)
    plain = {k: v for k, v in tacit_env.items() if k != var}
    proc = tacit({**plain, var: str(place)}, "install", host, "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["success"], proc.stdout + proc.stderr
    assert tree(place) != before

    status = json.loads(tacit(plain, "status", "--json").stdout)
    manifest = status["hosts"][host]
    assert manifest is not None and Path(manifest).is_file() and Path(manifest).is_relative_to(place)
    assert f"{var}={place}" in status["hosts_elsewhere"][host]
    text_out = tacit(plain, "status").stdout
    assert f"Hosts: {host}" in text_out and f"{var}={place}" in text_out
    doctor = json.loads(tacit(plain, "doctor", "--json").stdout)
    assert any(f"{var}={place}" in w for w in doctor["warnings"]), doctor["warnings"]
    assert not any("installs.json" in p for p in doctor["problems"]), doctor["problems"]  # a private file
    if host == "codex":  # what the install there still waits for is read there
        assert any("/hooks" in p for p in doctor["problems"]), doctor["problems"]

    # the shell that installed it sees it where it looks: nothing to tell
    same = json.loads(tacit({**plain, var: str(place)}, "status", "--json").stdout)
    assert same["hosts"][host] == manifest and host not in same["hosts_elsewhere"]

    proc = tacit(plain, "uninstall", host, "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["success"], proc.stdout + proc.stderr
    assert tree(place) == before  # undone there, byte for byte
    assert not (Path(plain["HOME"]) / f".{host}").exists()
    after = json.loads(tacit(plain, "status", "--json").stdout)
    assert after["hosts"][host] is None and not after["hosts_elsewhere"]
    assert host not in json.loads((Path(plain["TACIT_HOME"]) / "installs.json").read_text())


def test_uninstall_with_the_variable_set_elsewhere_leaves_the_recorded_install(tacit_env, tmp_path):
    place, other = tmp_path / "x", tmp_path / "y"
    plain = {k: v for k, v in tacit_env.items() if k != "CODEX_HOME"}
    assert json.loads(tacit({**plain, "CODEX_HOME": str(place)}, "install", "codex", "--json").stdout)["success"]
    installed = tree(place)
    # CODEX_HOME named explicitly: that folder is the one meant, not the recorded one
    out = json.loads(tacit({**plain, "CODEX_HOME": str(other)}, "uninstall", "codex", "--json").stdout)
    assert out["success"] and "not installed" in out["message"]
    assert tree(place) == installed
    # and a status from that shell still finds the install, and says where
    status = json.loads(tacit({**plain, "CODEX_HOME": str(other)}, "status", "--json").stdout)
    assert Path(status["hosts"]["codex"]).is_relative_to(place)
    assert f"CODEX_HOME={place}" in status["hosts_elsewhere"]["codex"]


def test_an_install_whose_place_cannot_be_recorded_is_done_and_says_so(tacit_env, tmp_path):
    place = tmp_path / "pi-agent"
    (Path(tacit_env["TACIT_HOME"]) / "installs.json").mkdir(parents=True)  # not writable as a file
    proc = tacit({**tacit_env, "PI_CODING_AGENT_DIR": str(place)}, "install", "pi", "--json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 0 and out["success"], proc.stdout + proc.stderr
    assert any("not recorded" in w for w in out["warnings"])
    assert (place / "extensions" / "tacit" / "tacit.json").is_file()

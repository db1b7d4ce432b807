"""``tacit install pi`` / ``tacit uninstall pi``: where the extension goes,
idempotence, and an uninstall that removes exactly what install added."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tacit.config import load_config
from tacit.hosts.pi import install as pi_install


@pytest.fixture
def env(tacit_env, tmp_path):
    env = dict(tacit_env)
    env["PI_CODING_AGENT_DIR"] = str(tmp_path / "agent")
    return env


def test_user_scope_install_is_idempotent_and_uninstall_removes_exactly_it(env, tmp_path):
    cfg = load_config(env=env, host="pi")
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "models.json").write_text("{}")  # pi's own file: must survive uninstall
    result = pi_install.install(cfg, "user")
    folder = agent / "extensions" / "tacit"
    assert result["success"] is True and result["changed"] is True
    assert result["path"] == str(folder)
    assert (folder / "index.ts").read_text() == pi_install.source_file().read_text()
    manifest = json.loads((folder / "tacit.json").read_text())
    assert manifest["python"] == sys.executable and manifest["installed_by"] == "tacit"
    assert manifest["created_dirs"] == [str(folder), str(agent / "extensions")]

    again = pi_install.install(cfg, "user")
    assert again["success"] is True and again["changed"] is False
    assert "already installed" in again["message"]

    removed = pi_install.uninstall(cfg, "user")
    assert removed["success"] is True and removed["changed"] is True
    assert sorted(Path(p).name for p in removed["removed"]) == ["index.ts", "tacit.json"]
    assert not (agent / "extensions").exists()
    assert (agent / "models.json").read_text() == "{}"
    twice = pi_install.uninstall(cfg, "user")
    assert twice["success"] is True and twice["changed"] is False


def test_default_agent_dir_is_home_pi_agent(env):
    env = dict(env)
    del env["PI_CODING_AGENT_DIR"]
    cfg = load_config(env=env, host="pi")
    assert pi_install.target_dir(cfg, "user") == Path(env["HOME"]) / ".pi" / "agent" / "extensions" / "tacit"


def test_project_scope_and_files_someone_else_added_stay(env, tmp_path):
    cfg = load_config(env=env, host="pi")
    project = tmp_path / "project"
    project.mkdir()
    result = pi_install.install(cfg, "project", project_dir=project)
    folder = project / ".pi" / "extensions" / "tacit"
    assert result["success"] and (folder / "index.ts").is_file()
    (project / ".pi" / "settings.json").write_text("{}")  # added later by someone else
    (folder / "notes.md").write_text("mine")
    removed = pi_install.uninstall(cfg, "project", project_dir=project)
    assert removed["success"] is True
    assert not (folder / "index.ts").exists() and not (folder / "tacit.json").exists()
    assert (folder / "notes.md").read_text() == "mine"  # not ours: kept, and so is its folder
    assert (project / ".pi" / "settings.json").exists()


def test_a_foreign_extension_folder_is_never_overwritten(env, tmp_path):
    cfg = load_config(env=env, host="pi")
    folder = tmp_path / "agent" / "extensions" / "tacit"
    folder.mkdir(parents=True)
    (folder / "index.ts").write_text("// someone else's tacit")
    result = pi_install.install(cfg, "user")
    assert result["success"] is False and "not installed by tacit" in result["error"]
    assert (folder / "index.ts").read_text() == "// someone else's tacit"
    assert pi_install.uninstall(cfg, "user")["changed"] is False
    assert (folder / "index.ts").exists()


def test_reinstall_refreshes_a_changed_copy(env, tmp_path):
    cfg = load_config(env=env, host="pi")
    pi_install.install(cfg, "user")
    entry = tmp_path / "agent" / "extensions" / "tacit" / "index.ts"
    entry.write_text("// stale copy from an older tacit")
    result = pi_install.install(cfg, "user")
    assert result["changed"] is True and "updated" in result["message"]
    assert entry.read_text() == pi_install.source_file().read_text()


def test_cli_routes_to_the_pi_installer(env, tmp_path):
    run = lambda *args: subprocess.run([sys.executable, "-m", "tacit.cli", *args, "--json"], env=env,  # noqa: E731
                                       capture_output=True, text=True, timeout=60)
    proc = run("install", "pi", "--scope", "user")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["success"] is True
    assert (tmp_path / "agent" / "extensions" / "tacit" / "index.ts").is_file()
    proc = run("uninstall", "pi", "--scope", "user")
    assert proc.returncode == 0 and json.loads(proc.stdout)["changed"] is True
    assert not (tmp_path / "agent" / "extensions").exists()

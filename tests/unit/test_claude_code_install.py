"""``tacit install|uninstall claude-code``: the plugin folder, the settings
permissions, idempotence and exact undo — on real files in a temp HOME.
Loading the result in the real CLI is proven in tests/e2e/test_claude_code.py.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import frontmatter
import pytest
from install_helpers import InvalidHooks, digest, validate_hooks
from tacit.config import load_config
from tacit.hosts.claude_code.spec import HOST
from tacit.hosts.claude_code import install as inst
from tacit.hosts.claude_code.plugin import commands, hooks_config, plugin_files


# --------------------------------------------------------------------------
# the plugin's files
# --------------------------------------------------------------------------

def test_plugin_files_are_complete_and_well_formed(tmp_path):
    files = plugin_files(sys.executable, str(tmp_path / "tacit"))
    manifest = json.loads(files[".claude-plugin/plugin.json"][0])
    assert manifest["name"] == "tacit" and manifest["version"] and manifest["description"]
    hooks = json.loads(files["hooks/hooks.json"][0])
    validate_hooks(hooks)
    assert set(hooks["hooks"]) == set(HOST.hook_events)
    for event, groups in hooks["hooks"].items():
        [hook] = groups[0]["hooks"]
        argv = shlex.split(hook["command"])
        assert argv[:4] == [sys.executable, "-I", "-S", "-c"] and argv[5:7] == ["claude-code", event]
        assert isinstance(hook["timeout"], int) and 0 < hook["timeout"] <= 10
    assert files["bin/tacit"][1] == 0o755 and sys.executable in files["bin/tacit"][0]
    for name in ("memory-consolidate.md", "memory-skills.md"):
        assert f"commands/{name}" in files
    for rel, (text, mode) in files.items():
        if rel.startswith("commands/"):
            post = frontmatter.loads(text)  # YAML that parses: Claude Code drops broken frontmatter silently
            assert post["description"] and "!`" not in post.content  # the hook answers; no shell line
            assert mode == 0o644


def test_commands_are_answered_by_the_hook_and_run_no_shell_line():
    cmds = commands("/p/bin/tacit")
    for name, text in cmds.items():
        post = frontmatter.loads(text)
        # Claude Code runs `!` lines before the UserPromptSubmit hook: one would do the work twice
        assert "!`" not in text and "allowed-tools" not in post.metadata, name
        assert "/p/bin/tacit doctor" in post.content  # what the model says if tacit's hooks did not run
        # typed by you, answered by the hook; never offered to the model as a skill (2.1.197 lists every
        # plugin command among the skills in each request otherwise)
        assert post["disable-model-invocation"] is True, name
    assert frontmatter.loads(cmds["memory-forget.md"])["argument-hint"] == "TEXT"


@pytest.mark.parametrize("bad", [
    None, {}, {"hooks": []},
    {"hooks": {"NoSuchEvent": [{"hooks": [{"type": "command", "command": "x"}]}]}},
    {"hooks": {"Stop": []}},
    {"hooks": {"Stop": [{"hooks": []}]}},
    {"hooks": {"Stop": [{"hooks": [{"type": "prompt", "command": "x"}]}]}},
    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "  "}]}]}},
    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "ten"}]}]}},
    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}},
    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": True}]}]}},
    {"hooks": {"Stop": [{"matcher": 3, "hooks": [{"type": "command", "command": "x"}]}]}},
    {"hooks": {"Stop": [{"extra": 1, "hooks": [{"type": "command", "command": "x"}]}]}},
])
def test_validate_hooks_refuses_what_claude_code_would_ignore(bad):
    with pytest.raises(InvalidHooks):
        validate_hooks(bad)


def test_hooks_config_with_an_odd_interpreter_path_is_quoted():
    config = hooks_config("/opt/my envs/py 3/bin/python")
    validate_hooks(config)
    argv = shlex.split(config["hooks"]["Stop"][0]["hooks"][0]["command"])
    assert argv[0] == "/opt/my envs/py 3/bin/python"


# --------------------------------------------------------------------------
# install / uninstall, user scope
# --------------------------------------------------------------------------

def test_install_writes_plugin_permissions_and_manifest(ucfg, home):
    result = inst.install(ucfg, "user")
    assert result["success"], result
    plugin = home / ".claude" / "skills" / "tacit"
    assert Path(result["plugin_dir"]) == plugin and result["tacit_on_path"] is True
    for rel in result["files"]:
        assert (plugin / rel).is_file()
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    allow = settings["permissions"]["allow"]
    assert "Bash(tacit memory:*)" in allow and "Bash(tacit skill create:*)" in allow
    # the session guidance says to run `tacit search --json WORDS`: it must not prompt (nor be denied in -p)
    assert "Bash(tacit search:*)" in allow
    assert not any("skill delete" in rule for rule in allow)  # deleting a skill still asks
    assert allow == result["permissions_added"]
    manifest = json.loads((plugin / ".tacit-install.json").read_text())
    assert manifest["settings_created"] is True and manifest["permissions_added"] == allow
    assert str(home / ".claude") in manifest["dirs_created"]


def test_install_twice_changes_nothing_and_uninstall_restores_exactly(ucfg, home):
    claude = home / ".claude"
    claude.mkdir()
    original = {"theme": "dark", "permissions": {"allow": ["Bash(ls:*)", "Bash(tacit memory:*)"],
                                                 "deny": ["Bash(rm:*)"]}, "hooks": {}}
    (claude / "settings.json").write_text(json.dumps(original, indent=2) + "\n")
    (claude / "skills").mkdir()
    (claude / "skills" / "other-skill").mkdir()
    (claude / "skills" / "other-skill" / "SKILL.md").write_text("---\nname: other-skill\n---\n")
    before = digest(home)

    first = inst.install(ucfg, "user")
    assert first["success"] and "Bash(tacit memory:*)" not in first["permissions_added"]
    after_first = digest(home)
    second = inst.install(ucfg, "user")
    assert second["success"] and second["changed"] == [] and second["permissions_added"] == []
    assert digest(home) == after_first

    removed = inst.uninstall(ucfg, "user")
    assert removed["success"] and removed["removed"]
    assert digest(home) == before  # byte for byte, modes included
    again = inst.uninstall(ucfg, "user")
    assert again["success"] and again["removed"] == []


@pytest.mark.parametrize("layout", [
    '{"theme": "dark", "permissions": {"allow": ["Bash(ls:*)"]}}\n',  # one line
    '{\n    "theme": "dark",\n    "permissions": {"allow": ["Bash(ls:*)"]}\n}',  # 4 spaces, no final newline
    '{\n  "theme": "d\u00e4rk",\n  "permissions": {\n    "allow": [\n      "Bash(ls:*)"\n    ]\n  }\n}\n',
])
def test_uninstall_gives_back_a_hand_formatted_settings_file_byte_for_byte(ucfg, home, layout):
    """Walking Claude Code 2.1.197: uninstall wrote the user's settings.json back as json.dumps(indent=2),
    same data, other bytes; docs/hosts/claude-code.md promises the home byte for byte."""
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(layout)
    before = digest(home)
    assert inst.install(ucfg, "user")["permissions_added"]
    manifest = home / ".claude" / "skills" / "tacit" / ".tacit-install.json"
    assert manifest.stat().st_mode & 0o077 == 0  # it holds a copy of your settings: yours alone
    assert inst.install(ucfg, "user")["changed"] == []
    assert inst.uninstall(ucfg, "user")["success"]
    assert digest(home) == before
    # changed meanwhile: your change stays, tacit's rules go (the layout is tacit's then)
    inst.install(ucfg, "user")
    settings_path = home / ".claude" / "settings.json"
    settings = json.loads(settings_path.read_text())
    settings["model"] = "opus"
    settings_path.write_text(json.dumps(settings))
    assert inst.uninstall(ucfg, "user")["success"]
    assert json.loads(settings_path.read_text()) == {**json.loads(layout), "model": "opus"}


def test_uninstall_keeps_what_the_user_added_meanwhile(ucfg, home):
    inst.install(ucfg, "user")
    plugin = home / ".claude" / "skills" / "tacit"
    (plugin / "notes.txt").write_text("mine")
    settings_path = home / ".claude" / "settings.json"
    settings = json.loads(settings_path.read_text())
    settings["permissions"]["allow"].append("Bash(make:*)")
    settings["model"] = "opus"
    settings_path.write_text(json.dumps(settings))
    assert inst.uninstall(ucfg, "user")["success"]
    assert (plugin / "notes.txt").read_text() == "mine"
    assert json.loads(settings_path.read_text()) == {"permissions": {"allow": ["Bash(make:*)"]}, "model": "opus"}


def test_install_refuses_a_broken_settings_file_before_writing_anything(ucfg, home):
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text("{ not json")
    before = digest(home)
    result = inst.install(ucfg, "user")
    assert result["success"] is False and "not valid JSON" in result["error"]
    assert digest(home) == before


def test_install_refuses_a_foreign_plugin_folder(ucfg, home):
    foreign = home / ".claude" / "skills" / "tacit"
    foreign.mkdir(parents=True)
    (foreign / "SKILL.md").write_text("someone else's")
    result = inst.install(ucfg, "user")
    assert result["success"] is False and "not written by tacit" in result["error"]
    assert inst.uninstall(ucfg, "user")["success"] is False
    assert (foreign / "SKILL.md").read_text() == "someone else's"


def test_reinstall_removes_files_an_older_install_wrote(ucfg, home):
    inst.install(ucfg, "user")
    plugin = home / ".claude" / "skills" / "tacit"
    manifest_path = plugin / ".tacit-install.json"
    manifest = json.loads(manifest_path.read_text())
    (plugin / "commands" / "old-command.md").write_text("---\ndescription: old\n---\nold\n")
    manifest["files"].append("commands/old-command.md")
    manifest_path.write_text(json.dumps(manifest))
    result = inst.install(ucfg, "user")
    assert "commands/old-command.md" in result["changed"]
    assert not (plugin / "commands" / "old-command.md").exists()


def test_claude_config_dir_is_honoured(tmp_path, tacit_home):
    config_dir = tmp_path / "cc-config"
    cfg = load_config(env={"HOME": str(tmp_path / "h"), "TACIT_HOME": str(tacit_home),
                           "CLAUDE_CONFIG_DIR": str(config_dir)})
    result = inst.install(cfg, "user")
    assert Path(result["plugin_dir"]) == config_dir / "skills" / "tacit"
    assert (config_dir / "settings.json").exists()
    assert inst.uninstall(cfg, "user")["success"] and not config_dir.exists()


def test_tacit_not_on_path_is_reported(tmp_path, tacit_home):
    cfg = load_config(env={"HOME": str(tmp_path / "h"), "TACIT_HOME": str(tacit_home), "PATH": "/nonexistent"})
    result = inst.install(cfg, "user")
    assert result["success"] and result["tacit_on_path"] is False
    assert any("not on PATH" in w for w in result["warnings"])


# --------------------------------------------------------------------------
# project scope
# --------------------------------------------------------------------------

def test_project_scope_uses_local_settings_and_reports_trust(ucfg, home, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "README.md").write_text("hi")
    before = digest(project)
    result = inst.install(ucfg, "project", project_dir=str(project))
    assert result["success"] and result["trusted"] is False
    assert Path(result["plugin_dir"]) == project / ".claude" / "skills" / "tacit"
    assert Path(result["settings_file"]) == project / ".claude" / "settings.local.json"
    assert any("trust" in w for w in result["warnings"])
    assert not (home / ".claude").exists()  # user scope untouched

    (home / ".claude.json").write_text(json.dumps({"projects": {str(project): {"hasTrustDialogAccepted": True}}}))
    assert inst.install(ucfg, "project", project_dir=str(project))["trusted"] is True
    assert inst.uninstall(ucfg, "project", project_dir=str(project))["success"]
    assert digest(project) == before


def test_bad_scope_is_a_clear_error(ucfg):
    result = inst.install(ucfg, "galaxy")
    assert result["success"] is False and "scope" in result["error"]


# --------------------------------------------------------------------------
# through the CLI
# --------------------------------------------------------------------------

def test_cli_install_and_uninstall(tacit_env, tmp_path):
    home = Path(tacit_env["HOME"])
    before = digest(home)
    run = lambda *a: subprocess.run([sys.executable, "-m", "tacit", *a, "--json"], env=tacit_env,
                                    capture_output=True, text=True, timeout=60)
    proc = run("install", "claude-code")
    assert proc.returncode == 0 and json.loads(proc.stdout)["success"]
    hooks = json.loads((home / ".claude" / "skills" / "tacit" / "hooks" / "hooks.json").read_text())
    command = hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    started = subprocess.run(command, shell=True, input=json.dumps({"session_id": "s1", "cwd": "/tmp"}),
                             env=tacit_env, capture_output=True, text=True, timeout=30)
    assert started.returncode == 0 and "additionalContext" in started.stdout
    wrapper = home / ".claude" / "skills" / "tacit" / "bin" / "tacit"
    skills = subprocess.run([str(wrapper), "skills"], env=tacit_env, capture_output=True, text=True, timeout=60)
    assert skills.returncode == 0 and skills.stdout.startswith("Skills in ")
    proc = run("uninstall", "claude-code")
    assert proc.returncode == 0 and json.loads(proc.stdout)["success"]
    assert digest(home) == before


def test_the_host_page_counts_the_hook_events_install_writes():
    """docs/hosts/claude-code.md said 8 hooks after UserPromptExpansion made them 9."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "hosts" / "claude-code.md").read_text(encoding="utf-8")
    assert f"hooks/hooks.json               {len(HOST.hook_events)} hook events" in page
    assert all(f"| {event}" in page or f"/ {event}" in page for event in HOST.hook_events)

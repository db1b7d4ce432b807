"""``tacit install|uninstall codex``: hooks.json merge, the feature flag, the
rules file, idempotence and exact undo — on real files in a temp HOME.
That the real Codex CLI loads and runs the result is proven in
tests/e2e/test_codex.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from install_helpers import digest, validate_hooks
from tacit import commandline
from tacit.commandline import hook_command
from tacit.hosts.codex import install as inst

USER_CONFIG = '''model = "gpt-test"
# my own comment stays

[features]
plugins = false

[model_providers.x]
name = "x"
'''
MY_HOOKS = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done",
                                           "timeout": 3, "statusMessage": "notifying"}]}],
                      "PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "audit"}]}]}}

# the events Codex 0.171.0 lists in `hooks/list` (others are ignored silently)
KNOWN_EVENTS = frozenset(("PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact",
                          "SessionStart", "SessionEnd", "UserPromptSubmit", "SubagentStart", "SubagentStop",
                          "Stop"))


def codex_dir(home: Path) -> Path:
    return home / ".codex"


def hooks_of(home: Path) -> dict:
    return json.loads((codex_dir(home) / "hooks.json").read_text())


def tacit_groups(doc: dict) -> dict:
    return {event: [i for i, g in enumerate(groups) if inst.is_tacit_group(g, event)]
            for event, groups in doc["hooks"].items()}


# how Codex names each event in a hook's trust key (docs/hosts/codex.md)
KEYS = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "PreToolUse": "pre_tool_use",
        "PostToolUse": "post_tool_use", "Stop": "stop", "PreCompact": "pre_compact", "SessionEnd": "session_end"}


def test_trust_keys_are_codex_names():
    assert {event: inst.trust_key(event) for event in inst.EVENTS} == KEYS


def trust_all(home: Path, python: str = sys.executable) -> None:
    """What /hooks writes for tacit's hooks (the hash itself is Codex's business)."""
    doc = hooks_of(home)
    path = codex_dir(home) / "hooks.json"
    with (codex_dir(home) / "config.toml").open("a") as fh:
        for event, indexes in tacit_groups(doc).items():
            for index in indexes:
                key = f"{path}:{KEYS[event]}:{index}:0"
                fh.write(f'\n[hooks.state.{json.dumps(key)}]\nenabled = true\ntrusted_hash = "sha256:x"\n')


# --------------------------------------------------------------------------
# fresh home
# --------------------------------------------------------------------------

def test_fresh_install_writes_hooks_flag_rules_and_manifest(ucfg, home):
    result = inst.install(ucfg, "user")
    assert result["success"], result
    assert sorted(result["changed"]) == ["config.toml", "hooks.json", "rules/tacit.rules"]
    assert result["needs_trust"] is True and result["untrusted_events"] == list(inst.EVENTS)
    assert "/hooks" in result["message"]

    doc = hooks_of(home)
    validate_hooks(doc)  # tacit's own groups: the shape Claude Code's hooks files have too
    assert set(doc["hooks"]) == set(inst.EVENTS) <= KNOWN_EVENTS
    for event, groups in doc["hooks"].items():
        [group] = groups
        [hook] = group["hooks"]
        assert "matcher" not in group  # every source, every tool
        assert hook == {"type": "command", "command": hook_command(sys.executable, "codex", event),
                        "timeout": inst.EVENTS[event], "statusMessage": inst.HOOK_NAMES[event]}
        assert hook["statusMessage"].startswith("tacit: ")  # what /hooks shows, not "Unnamed hook"
        assert commandline.hook_target(hook["command"]) == ("codex", event) and " -I -S -c " in hook["command"]

    config_text = (codex_dir(home) / "config.toml").read_text()
    assert tomllib.loads(config_text) == {"features": {"hooks": True}}
    assert inst.FEATURE_LINE in config_text and inst.FEATURES_HEADER in config_text

    rules = (codex_dir(home) / "rules" / "tacit.rules").read_text()
    script = str(Path(sys.executable).parent / "tacit")
    assert 'prefix_rule(pattern = ["tacit", "memory"], decision = "allow")' in rules
    assert f'prefix_rule(pattern = ["{script}", "skill", "create"], decision = "allow")' in rules
    assert '"delete"' not in rules  # deleting a skill still asks

    manifest = json.loads((codex_dir(home) / "tacit-install.json").read_text())
    assert manifest["hooks_file_created"] and manifest["config_created"] and manifest["feature_line_added"]
    assert manifest["events_created"] == sorted(inst.EVENTS)


def test_install_twice_changes_nothing_and_uninstall_leaves_an_empty_home(ucfg, home):
    before = digest(home)
    inst.install(ucfg, "user")
    snapshot = digest(home)
    again = inst.install(ucfg, "user")
    assert again["success"] and again["changed"] == [] and "already installed" in again["message"]
    assert digest(home) == snapshot
    removed = inst.uninstall(ucfg, "user")
    assert removed["success"] and removed["warnings"] == []
    assert digest(home) == before
    assert inst.uninstall(ucfg, "user")["message"].startswith("tacit is not installed")


def test_existing_user_files_are_merged_and_restored_byte_for_byte(ucfg, home):
    codex_dir(home).mkdir()
    (codex_dir(home) / "config.toml").write_text(USER_CONFIG)
    (codex_dir(home) / "hooks.json").write_text(json.dumps(MY_HOOKS, indent=2) + "\n")
    before = digest(home)
    result = inst.install(ucfg, "user")
    assert result["success"]
    doc = hooks_of(home)
    assert doc["hooks"]["Stop"][0] == MY_HOOKS["hooks"]["Stop"][0]  # mine keep their place (and trust key)
    assert doc["hooks"]["PreToolUse"][0] == MY_HOOKS["hooks"]["PreToolUse"][0]
    assert tacit_groups(doc)["Stop"] == [1] and tacit_groups(doc)["PreToolUse"] == [1]
    config_text = (codex_dir(home) / "config.toml").read_text()
    # the line goes into the existing [features] table; nothing else moves
    assert config_text == USER_CONFIG.replace("[features]\n", f"[features]\n{inst.FEATURE_LINE}\n")
    assert inst.install(ucfg, "user")["changed"] == []
    assert inst.uninstall(ucfg, "user")["success"]
    assert digest(home) == before


def test_a_hand_formatted_hooks_file_is_given_back_byte_for_byte(ucfg, home):
    """Walking Codex 0.171.0: uninstall wrote a one-line hooks.json back as json.dumps(indent=2)."""
    codex_dir(home).mkdir()
    (codex_dir(home) / "hooks.json").write_text(json.dumps(MY_HOOKS) + "\n")
    before = digest(home)
    assert inst.install(ucfg, "user")["success"]
    assert inst.install(ucfg, "user")["changed"] == []
    assert inst.uninstall(ucfg, "user")["success"]
    assert digest(home) == before


def test_doctor_says_until_codex_trusts_the_hooks_that_tacit_is_inactive_there(ucfg, home):
    """Walking Codex 0.171.0: after `tacit install codex`, before /hooks, `tacit status` said "Problems:
    none" and `tacit doctor` "Nothing needs your attention", while Codex skipped every tacit hook."""
    from tacit.commands.health import check

    assert inst.waiting(ucfg) == []  # not installed: nothing to do
    inst.install(ucfg, "user")
    [todo] = [p for p in check(ucfg)["problems"] if p.startswith("Codex")]
    assert "7 of 7 are not trusted yet" in todo and "type /hooks" in todo
    trust_all(home)
    assert inst.waiting(ucfg) == [] and not [p for p in check(ucfg)["problems"] if p.startswith("Codex")]
    doc = hooks_of(home)
    del doc["hooks"]["Stop"]
    (codex_dir(home) / "hooks.json").write_text(json.dumps(doc))
    assert "run `tacit install codex` again" in inst.waiting(ucfg)[0]


def test_uninstall_after_codex_wrote_trust_removes_only_tacits_lines(ucfg, home):
    inst.install(ucfg, "user")
    trust_all(home)  # Codex appends [hooks.state…] tables after tacit's [features] table
    assert inst.install(ucfg, "user")["needs_trust"] is False
    inst.uninstall(ucfg, "user")
    config_text = (codex_dir(home) / "config.toml").read_text()
    assert inst.FEATURE_MARK not in config_text
    data = tomllib.loads(config_text)
    assert "features" not in data and len(data["hooks"]["state"]) == len(inst.EVENTS)
    assert not (codex_dir(home) / "hooks.json").exists()  # created by install, empty again
    assert not (codex_dir(home) / "rules").exists()


def test_reinstall_from_another_python_replaces_in_place_and_needs_trust_again(ucfg, home):
    codex_dir(home).mkdir()
    (codex_dir(home) / "hooks.json").write_text(json.dumps(MY_HOOKS))
    inst.install(ucfg, "user", python="/old/venv/bin/python")
    trust_all(home)
    # the user adds a hook after tacit's
    doc = hooks_of(home)
    doc["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "later"}]})
    (codex_dir(home) / "hooks.json").write_text(json.dumps(doc))
    result = inst.install(ucfg, "user")
    assert "hooks.json" in result["changed"] and result["needs_trust"] is True
    doc = hooks_of(home)
    assert tacit_groups(doc)["Stop"] == [1] and doc["hooks"]["Stop"][2]["hooks"][0]["command"] == "later"
    assert doc["hooks"]["Stop"][1]["hooks"][0]["command"].startswith(sys.executable)
    removed = inst.uninstall(ucfg, "user")
    assert any("Stop" in w and "trust them again" in w for w in removed["warnings"])
    assert [g["hooks"][0]["command"] for g in hooks_of(home)["hooks"]["Stop"]] == ["notify-send done", "later"]


def test_explicit_hooks_false_is_respected(ucfg, home):
    codex_dir(home).mkdir()
    text = "[features]\nhooks = false\n"
    (codex_dir(home) / "config.toml").write_text(text)
    result = inst.install(ucfg, "user")
    assert result["success"] and any("hooks = false" in w for w in result["warnings"])
    assert (codex_dir(home) / "config.toml").read_text() == text
    inst.uninstall(ucfg, "user")
    assert (codex_dir(home) / "config.toml").read_text() == text


def test_a_config_with_toml_dates_installs_and_uninstalls_byte_for_byte(ucfg, home):
    codex_dir(home).mkdir()
    text = 'model = "m"\nlast_seen = 2026-12-01T09:00:00Z\n[notes]\nsince = 2026-01-02\n'  # JSON has no dates
    (codex_dir(home) / "config.toml").write_text(text)
    result = inst.install(ucfg, "user")
    assert result["success"] and not any("hooks = true" in w for w in result["warnings"]), result
    assert tomllib.loads((codex_dir(home) / "config.toml").read_text())["features"]["hooks"] is True
    assert inst.uninstall(ucfg, "user")["success"]
    assert (codex_dir(home) / "config.toml").read_text() == text


def test_a_flag_that_cannot_be_added_safely_is_skipped_with_a_warning(ucfg, home):
    codex_dir(home).mkdir()
    text = 'features.plugins = false\nmodel = "m"\n'  # dotted keys: a [features] header would clash
    (codex_dir(home) / "config.toml").write_text(text)
    result = inst.install(ucfg, "user")
    assert result["success"] and any("safely" in w for w in result["warnings"])
    assert (codex_dir(home) / "config.toml").read_text() == text


@pytest.mark.parametrize("name, content, error", [
    ("hooks.json", "{not json", "not valid JSON"),
    ("hooks.json", "[]", "not a JSON object"),
    ("hooks.json", '{"hooks": {"Stop": {"hooks": []}}}', "list of matcher groups"),
    ("config.toml", "model = [broken", "not valid TOML"),
    ("rules/tacit.rules", "prefix_rule(pattern = [\"rm\"], decision = \"allow\")\n", "not written by tacit"),
])
def test_files_codex_would_refuse_stop_install_before_any_write(ucfg, home, name, content, error):
    target = codex_dir(home) / name
    target.parent.mkdir(parents=True)
    target.write_text(content)
    before = digest(home)
    result = inst.install(ucfg, "user")
    assert result["success"] is False and error in result["error"]
    assert digest(home) == before


def test_codex_home_is_honoured(ucfg, home, tmp_path):
    ucfg.env["CODEX_HOME"] = str(tmp_path / "elsewhere")
    result = inst.install(ucfg, "user")
    assert result["hooks_file"] == str(tmp_path / "elsewhere" / "hooks.json")
    assert (tmp_path / "elsewhere" / "hooks.json").exists() and not codex_dir(home).exists()
    inst.uninstall(ucfg, "user")
    assert not (tmp_path / "elsewhere").exists()


def test_project_scope_reports_project_trust_and_undoes_exactly(ucfg, home, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("x\n")
    before = digest(project)
    result = inst.install(ucfg, "project", project_dir=str(project))
    assert result["success"] and result["project_trusted"] is False
    assert result["hooks_file"] == str(project / ".codex" / "hooks.json")
    assert any("trusted project" in w for w in result["warnings"])
    assert any("version control" in w for w in result["warnings"])
    assert not codex_dir(home).exists()  # the user's ~/.codex is untouched
    codex_dir(home).mkdir()
    (codex_dir(home) / "config.toml").write_text(f'[projects.{json.dumps(str(project))}]\ntrust_level = "trusted"\n')
    assert inst.install(ucfg, "project", project_dir=str(project))["project_trusted"] is True
    assert inst.uninstall(ucfg, "project", project_dir=str(project))["success"]
    assert digest(project) == before


def test_lost_manifest_still_removes_tacits_hooks_and_nothing_else(ucfg, home):
    codex_dir(home).mkdir()
    (codex_dir(home) / "hooks.json").write_text(json.dumps(MY_HOOKS))
    inst.install(ucfg, "user")
    (codex_dir(home) / "tacit-install.json").unlink()
    result = inst.uninstall(ucfg, "user")
    assert result["success"] and "removed its hooks" in result["message"]
    assert hooks_of(home) == MY_HOOKS


def test_cli_routes_install_and_uninstall(tacit_env, tmp_path):
    env = dict(tacit_env)
    proc = subprocess.run([sys.executable, "-m", "tacit.cli", "install", "codex", "--json"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["success"] and out["host"] == "codex"
    assert Path(env["HOME"], ".codex", "hooks.json").exists()
    proc = subprocess.run([sys.executable, "-m", "tacit.cli", "uninstall", "codex", "--json"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["success"]
    assert not Path(env["HOME"], ".codex").exists()


def test_the_host_page_counts_the_hooks_to_trust():
    """docs/hosts/codex.md told the user to trust six hooks; install registers seven."""
    from tacit.hosts.codex.spec import HOST

    page = (Path(__file__).resolve().parents[2] / "docs" / "hosts" / "codex.md").read_text(encoding="utf-8")
    words = {6: "six", 7: "seven", 8: "eight", 9: "nine"}
    assert f"trust tacit's {words[len(HOST.hook_events)]} hooks" in page

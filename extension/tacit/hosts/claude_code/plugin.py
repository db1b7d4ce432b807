"""The Claude Code plugin folder tacit writes out: its files, as data.

Design notes: docs/design/hosts.md#tacithostsclaude_codeplugin
"""

from __future__ import annotations

import json
import os
import shlex

from tacit import __version__
from tacit.hosts.claude_code.spec import HOST
from tacit.hosts.install_support import hook_group
from tacit.slash_table import COMMANDS

PLUGIN_NAME = "tacit"


def hooks_config(python: str) -> dict:
    return {"description": "tacit: memory the agent never has to be told to keep",
            "hooks": {event: [hook_group(python, HOST, event)] for event in HOST.hook_events}}


def plugin_manifest() -> dict:
    return {
        "name": PLUGIN_NAME,
        "version": __version__,
        "description": "tacit: memory for the agent that it never has to be told to keep "
                       "(MEMORY.md, USER.md, skills)",
        "author": {"name": "tacit"},
    }


def wrapper_script(python: str) -> str:
    return (
        "#!/bin/sh\n"
        "# tacit's CLI for Claude Code, written by `tacit install claude-code`:\n"
        "# the Python environment tacit was installed from, with the host set so\n"
        "# consolidation can run a Claude child agent.\n"
        'TACIT_HOST="${TACIT_HOST:-claude-code}"\n'
        "export TACIT_HOST\n"
        f'exec {shlex.quote(python)} -P -m tacit "$@"\n'
    )


def _command(description: str, body: str, *, hint: str = "") -> str:
    # free text as a JSON string, a valid YAML scalar (an unquoted ": " drops every field; docs/hosts)
    lines = ["---", f"description: {json.dumps(description, ensure_ascii=False)}"]
    if hint:
        lines.append(f"argument-hint: {json.dumps(hint)}")
    # yours to type, not the model's to call: Claude Code otherwise lists every command among the skills in
    # each request, and a Skill call would get the body below, not tacit's answer (docs/hosts/claude-code.md)
    lines.append("disable-model-invocation: true")
    lines.append("---")
    return "\n".join(lines) + "\n" + body.strip() + "\n"


def commands(tacit: str) -> dict[str, str]:
    """Slash commands (file name -> text; ``tacit``: the wrapper's path, shell-quoted). The hook answers
    each (``hook.answer_slash_command``): a body reaches the model only when the hooks did not run."""
    def body(name: str) -> str:
        return (f"tacit answers /tacit:{name} itself, from its hooks, without you. If you are reading "
                "this, tacit's hooks did not run: tell the user in one line to run "
                f"`{tacit} doctor`, then stop. Run nothing else.")

    return {f"{name}.md": _command(description, body(name), hint=hint)
            for name, (description, hint) in COMMANDS.items()}


def plugin_files(python: str, plugin_dir: str) -> dict[str, tuple[str, int]]:
    """Every file of the plugin: relative path -> (text, mode)."""
    config = hooks_config(python)  # its shape: tests/unit/install_helpers.validate_hooks
    tacit = shlex.quote(os.path.join(plugin_dir, "bin", "tacit"))
    files = {
        ".claude-plugin/plugin.json": (json.dumps(plugin_manifest(), indent=2) + "\n", 0o644),
        "hooks/hooks.json": (json.dumps(config, indent=2) + "\n", 0o644),
        "bin/tacit": (wrapper_script(python), 0o755),
    }
    for name, text in commands(tacit).items():
        files[f"commands/{name}"] = (text, 0o644)
    return files

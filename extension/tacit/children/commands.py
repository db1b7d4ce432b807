"""Child agent commands: one template per host, overridable in config.

``claude -p …``, ``hermes -z …``, ``pi -p …`` and ``codex exec …`` differ only
in argv and in how they report usage, so they are data (``DEFAULT_COMMANDS``),
overridable with ``child_command``. Placeholders: ``{prompt}``,
``{prompt_file}``, ``{model}``, ``{max_turns}``, ``{usage_file}``, ``{tacit}``
(tacit's own command line, ``tacit.commandline``), ``{pi_extension}``,
``{data_dir}``. Each host's own switch keeps the child inert besides
``TACIT_CHILD=1`` (``disableAllHooks`` for Claude Code, ``--disable hooks``
for Codex, ``--no-extensions`` for pi).
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from tacit.commandline import tacit_argv

# Claude Code child: Bash pre-approved for tacit's CLI only, and Read inside
# the data folder (``//`` = absolute path in a permission rule); no Edit or
# Write at all: a child changes memory and skills only through ``tacit memory
# …`` / ``tacit skill …``, which record every change (tacit.children.integrity
# puts back anything else). Anything else is denied, never prompted (dontAsk).
# Verified on 2.1.197 (docs/hosts/claude-code.md, "The child agent").
CLAUDE_CHILD_TOOLS = "Bash,Read"

DEFAULT_COMMANDS: dict[str, list[str]] = {
    "claude-code": [
        "claude", "-p", "{prompt}",
        "--settings", '{"disableAllHooks": true, "autoMemoryEnabled": false}',
        "--no-session-persistence",
        "--output-format", "json",
        "--max-turns", "{max_turns}",
        "--model", "{model}",
        "--tools", CLAUDE_CHILD_TOOLS,
        "--allowedTools", "Bash(tacit:*),Bash({tacit_cmd}:*),Read(/{data_dir}/**)",
        "--permission-mode", "dontAsk",
        "--strict-mcp-config",
        "--disable-slash-commands",
        "--add-dir", "{data_dir}",
    ],
    # Hermes's own memory/skill tools only (they write the same files); no
    # --model unless child_model is set: the child uses the user's configured model
    "hermes": ["hermes", "-z", "{prompt}", "-t", "memory,skills", "--usage-file", "{usage_file}",
               "--model", "{model}"],
    # --no-extensions + --extension: only tacit loads in the child (its bridge serves the
    # memory/skill tools; TACIT_CHILD=1 keeps it inert); empty values drop their flag
    "pi": ["pi", "-p", "--no-session", "--no-extensions", "--extension", "{pi_extension}",
           "--model", "{model}", "{prompt}"],
    # Codex CLI 0.171.0 (docs/hosts/codex.md): no hooks at all in the child, no
    # session files, the data folder (its cwd, not a git repo) as the writable
    # sandbox workspace, JSONL events (the last line carries token usage); no
    # --model unless child_model is set: the child uses the user's configured model
    "codex": ["codex", "exec", "--skip-git-repo-check", "--ephemeral", "--disable", "hooks",
              "--sandbox", "workspace-write", "--json", "--color", "never", "--model", "{model}",
              "--", "{prompt}"],
}
DEFAULT_MODELS = {"claude-code": "haiku", "hermes": "", "pi": "", "codex": ""}
NOTHING_TO_SAVE = "Nothing to save."


def timeout_for(cfg, kind: str) -> int:
    specific = cfg.settings.get(f"child_timeout_{kind}", 0)
    return int(specific or cfg.child_timeout_seconds)


def command_template(cfg, host: str | None) -> list[str] | None:
    if cfg.child_command:
        return shlex.split(cfg.child_command)
    return list(DEFAULT_COMMANDS[host]) if host in DEFAULT_COMMANDS else None


def agent_available(cfg, host: str | None) -> bool:
    """A child can run: children enabled, a template, and its program found."""
    if not cfg.child_enabled:
        return False
    template = command_template(cfg, host)
    if not template:
        return False
    program = template[0]
    if program in ("{tacit}",) or os.path.isabs(program):
        return program == "{tacit}" or os.access(program, os.X_OK)
    return shutil.which(program, path=cfg.env.get("PATH")) is not None


def build_command(cfg, host: str | None, job: dict, prompt: str, workdir: Path) -> list[str]:
    template = command_template(cfg, host)
    if template is None:
        raise RuntimeError(f"no child command for host {host!r}")
    prompt_file = workdir / "prompt.md"
    prompt_file.write_text(prompt, encoding="utf-8")
    tacit = tacit_argv()
    values = {
        "prompt": prompt,
        "prompt_file": str(prompt_file),
        "model": cfg.child_model or job.get("variables", {}).get("model") or DEFAULT_MODELS.get(host or "", ""),
        "max_turns": str(cfg.child_max_turns),
        "usage_file": str(workdir / "usage.json"),
        "tacit_cmd": " ".join(tacit),
        "pi_extension": job.get("variables", {}).get("pi_extension", ""),
        "data_dir": cfg.home_str,
    }
    argv: list[str] = []
    for arg in template:
        if arg == "{tacit}":
            argv.extend(tacit)
            continue
        argv.append(_fill(arg, values))
    # a flag whose value came out empty (no --model configured) is dropped
    cleaned: list[str] = []
    for arg in argv:
        if arg == "" and cleaned and cleaned[-1].startswith("--"):
            cleaned.pop()
            continue
        cleaned.append(arg)
    return cleaned


def _fill(arg: str, values: dict) -> str:
    out = arg
    for key, value in values.items():
        out = out.replace("{" + key + "}", value)
    return out

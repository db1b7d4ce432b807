"""Child agent commands: one template per host (its spec's ``child_command``),
overridable in config (``child_command``).

Design notes: docs/design/children.md#tacitchildrencommands
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from tacit.commandline import tacit_argv
from tacit.fsutil import atomic_write_text
from tacit.hosts import spec as host_specs

NOTHING_TO_SAVE = "Nothing to save."
REPLY_ONLY = frozenset({"rules"})  # kinds whose child has no tools: it answers in its reply (rule_replies)


def default_model(host: str | None) -> str:
    """The model a host's child uses when ``child_model`` is not configured (its spec)."""
    spec = host_specs.get(host or "")
    return spec.child_model if spec is not None else ""


def timeout_for(cfg, kind: str) -> int:
    specific = cfg.settings.get(f"child_timeout_{kind}", 0)
    return int(specific or cfg.child_timeout_seconds)


def command_template(cfg, host: str | None, kind: str | None = None) -> list[str] | None:
    """The configured command, else the host's: with no tools (``child_reply_command``) for a
    kind that answers in its reply alone; None when the host has no such command."""
    if cfg.child_command:
        return shlex.split(cfg.child_command)
    spec = host_specs.get(host or "")
    if spec is None:
        return None
    template = spec.child_reply_command if kind in REPLY_ONLY else spec.child_command
    return list(template) if template else None


def program(cfg, name: str) -> str | None:
    return shutil.which(name, path=cfg.env.get("PATH"))


def script_python(path: str | None) -> str | None:
    """The interpreter of a Python console script (its ``#!`` line), or None."""
    if not path:
        return None
    try:
        with open(path, "rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    parts = first[2:].decode("utf-8", "replace").split()
    if len(parts) > 1 and os.path.basename(parts[0]) == "env":
        found = shutil.which(parts[-1])
        parts = [found] if found else []
    if not parts or "python" not in os.path.basename(parts[0]) or not os.access(parts[0], os.X_OK):
        return None
    return parts[0]


def agent_available(cfg, host: str | None, kind: str | None = None) -> bool:
    """A child can run: children enabled, a template, and its program found."""
    if not cfg.child_enabled:
        return False
    template = command_template(cfg, host, kind)
    if not template:
        return False
    first = template[0]
    if first == "{tacit}" or os.path.isabs(first):
        return first == "{tacit}" or os.access(first, os.X_OK)
    return program(cfg, first) is not None


def why_no_agent(cfg, host: str | None, kind: str | None = None) -> str:
    """Why no child can run, in a few words ("" when one can)."""
    if agent_available(cfg, host, kind):
        return ""
    if not cfg.child_enabled:
        where = cfg.source_of("child_enabled")  # TACIT_CHILD_ENABLED too: not "in config.toml" then
        return "child_enabled = false in config.toml" if where == "config.toml" else f"child_enabled is false ({where})"
    template = command_template(cfg, host, kind)
    if not template:
        return (f"{host} has no child command" if host else "no agent host is known") + \
            " (set child_command in config.toml)"
    return f"`{template[0]}` is not found on PATH"


@dataclass(frozen=True, slots=True)
class Command:
    """What to run: ``argv``, ``stdin`` (the prompt, or None), and ``shown`` (the prompt elided)."""

    argv: list
    stdin: str | None
    shown: list
    prompt_via: str  # stdin | file | argv
    exec_shown: list | None = None  # argv as recorded, when it differs from ``shown`` and holds code


def build_command(cfg, host: str | None, job: dict, prompt: str, workdir: Path) -> Command:
    template = command_template(cfg, host, job.get("kind"))
    if template is None:
        raise RuntimeError(f"no child command for host {host!r}" + (
            " with no tools" if job.get("kind") in REPLY_ONLY else ""))
    configured = bool(cfg.child_command)
    prompt_file = workdir / "prompt.md"
    uses_file = any("{prompt_file}" in arg for arg in template)
    uses_argv = configured and any("{prompt}" in arg for arg in template)
    if uses_file:
        atomic_write_text(prompt_file, prompt)  # 0600
    tacit = tacit_argv()
    values = {
        "prompt": prompt if uses_argv else PROMPT_SHOWN,
        "prompt_file": str(prompt_file),
        "model": cfg.child_model or job.get("variables", {}).get("model") or default_model(host),
        "max_turns": str(cfg.child_max_turns),
        "usage_file": str(workdir / "usage.json"),
        "tacit_cmd": " ".join(tacit),
        "pi_extension": job.get("variables", {}).get("pi_extension", ""),
        "data_dir": cfg.home_str,
    }
    # a flag whose value came out empty (no --model configured) is dropped; an empty value the
    # template states itself (``--tools ""``) is kept
    shown: list[str] = []
    for arg in template:
        filled = tacit if arg == "{tacit}" else [_fill(arg, values)]
        if filled == [""] and arg != "" and shown and shown[-1].startswith("--"):
            shown.pop()
            continue
        shown.extend(filled)
    if configured:
        via = "argv" if uses_argv else "file" if uses_file else "stdin"
        return Command(list(shown), None if uses_argv or uses_file else prompt,
                       [PROMPT_SHOWN if a == prompt else a for a in shown] if uses_argv else list(shown), via)
    return _default_command(cfg, host, shown, prompt)


def _default_command(cfg, host: str, shown: list[str], prompt: str) -> Command:
    """The host's default command with its prompt on stdin (module docstring)."""
    spec = host_specs.get(host or "")
    child = spec.load("child") if spec is not None else None
    if child is not None and hasattr(child, "command"):
        return child.command(cfg, shown, prompt)
    how = spec.prompt_stdin if spec is not None else None
    argv = [a for a in shown if a != PROMPT_SHOWN] if how is None else [how if a == PROMPT_SHOWN else a
                                                                         for a in shown]
    return Command(argv, prompt, argv, "stdin")


PROMPT_SHOWN = "<prompt>"


def _fill(arg: str, values: dict) -> str:
    """Placeholders filled in one pass: a ``{model}`` inside the filled-in prompt stays as it is."""
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), arg)

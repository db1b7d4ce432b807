"""What the host-installer tests share besides the ``home`` / ``ucfg``
fixtures (those are in ``tests/conftest.py``): a digest of a folder that
tells "exactly as before" from "changed", permissions included; and the
shape of a hooks file Claude Code accepts (what tacit writes must have it)."""

from __future__ import annotations

import hashlib
from pathlib import Path


# every event name Claude Code 2.1.197 accepts in a hooks file (docs/hosts-observed.md)
KNOWN_EVENTS = frozenset((
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
    "UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop",
    "StopFailure", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
    "PermissionRequest", "PermissionDenied", "Setup", "TeammateIdle", "TaskCreated",
    "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange", "WorktreeCreate",
    "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged", "MessageDisplay",
))


class InvalidHooks(ValueError):
    """A hooks configuration Claude Code would silently ignore."""


def validate_hooks(config) -> None:
    """Raise ``InvalidHooks`` unless ``config`` has the shape Claude Code
    accepts: ``{"hooks": {Event: [{"matcher"?: str, "hooks": [{"type":
    "command", "command": str, "timeout"?: number > 0}]}]}}``."""
    if not isinstance(config, dict) or not isinstance(config.get("hooks"), dict):
        raise InvalidHooks('expected {"hooks": {...}}')
    for event, groups in config["hooks"].items():
        if event not in KNOWN_EVENTS:
            raise InvalidHooks(f"unknown hook event {event!r}")
        if not isinstance(groups, list) or not groups:
            raise InvalidHooks(f"{event}: expected a non-empty list of matcher groups")
        for group in groups:
            if not isinstance(group, dict) or set(group) - {"matcher", "hooks"}:
                raise InvalidHooks(f"{event}: a group has only 'matcher' and 'hooks'")
            if "matcher" in group and not isinstance(group["matcher"], str):
                raise InvalidHooks(f"{event}: matcher must be a string")
            hooks = group.get("hooks")
            if not isinstance(hooks, list) or not hooks:
                raise InvalidHooks(f"{event}: 'hooks' must be a non-empty list")
            for hook in hooks:
                if not isinstance(hook, dict) or hook.get("type") != "command":
                    raise InvalidHooks(f"{event}: every hook must be {{'type': 'command', …}}")
                command = hook.get("command")
                if not isinstance(command, str) or not command.strip():
                    raise InvalidHooks(f"{event}: 'command' must be a non-empty string")
                timeout = hook.get("timeout")
                if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                            or timeout <= 0):
                    raise InvalidHooks(f"{event}: 'timeout' must be a positive number of seconds")


def digest(root: Path) -> dict:
    """relative path -> sha1 + permission bits of every file ("<dir>" for a
    folder) under ``root``."""
    return {str(p.relative_to(root)): ("<dir>" if p.is_dir() else hashlib.sha1(p.read_bytes()).hexdigest()
                                       + oct(p.stat().st_mode & 0o777))
            for p in sorted(root.rglob("*"))}

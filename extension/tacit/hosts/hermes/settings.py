"""What tacit must know from Hermes Agent's own ``config.yaml``.

Design notes: docs/design/hosts.md#tacithostshermessettings
"""

from __future__ import annotations

import os
import sys

from tacit.hosts.spec import home_folder

HERMES_DEFAULTS = {
    "memory.memory_enabled": True,
    "memory.user_profile_enabled": True,
    "memory.memory_char_limit": 2200,
    "memory.user_char_limit": 1375,
    "memory.nudge_interval": 10,
    "skills.creation_nudge_interval": 10,
}
# Hermes's own background review: a turn counter (memory) and a tool-iteration
# counter (skills). ``tacit install hermes`` sets both to 0 (off).
NUDGE_KEYS = ("memory.nudge_interval", "skills.creation_nudge_interval")
MISSING = object()


def hermes_home_of(cfg) -> str:
    """The Hermes home a Config refers to: ``$HERMES_HOME`` or ``~/.hermes`` from its environment."""
    return os.path.abspath(os.path.expanduser(home_folder(cfg.env, "HERMES_HOME", ".hermes")))


def read_raw(hermes_home: str) -> dict:
    """``<hermes_home>/config.yaml`` as a dict; ``{}`` when absent or broken."""
    path = os.path.join(hermes_home, "config.yaml")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        return {}
    try:
        import yaml  # PyYAML: a dependency of python-frontmatter, and of Hermes

        data = yaml.safe_load(text)
    except Exception:  # noqa: BLE001 — a broken Hermes config must not break tacit
        return {}
    return data if isinstance(data, dict) else {}


def get_dotted(raw: dict, key: str, default=MISSING):
    node = raw
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def value(raw: dict, key: str):
    """A Hermes setting with Hermes's runtime default; ints coerced the way
    Hermes does (``int(...)``), falling back to the default if that fails."""
    default = HERMES_DEFAULTS[key]
    found = get_dotted(raw, key)
    if found is MISSING or found is None:
        return default
    if isinstance(default, bool):
        return bool(found)
    try:
        return int(found)
    except (TypeError, ValueError):
        return default


def hermes_reviews(raw: dict) -> dict:
    """Which of Hermes's own background reviews are on: ``{"memory": bool,
    "skills": bool}`` (an interval of 0 or less turns a review off)."""
    return {"memory": value(raw, "memory.nudge_interval") > 0,
            "skills": value(raw, "skills.creation_nudge_interval") > 0}


def adapt_config(cfg, raw: dict | None = None):
    """The Config tacit uses inside Hermes: Hermes's memory limits, and this
    interpreter's folder first on the captured ``PATH``."""
    if raw is None:
        raw = read_raw(hermes_home_of(cfg))
    adapted = cfg.with_settings(
        memory_char_limit=max(1, value(raw, "memory.memory_char_limit")),
        user_char_limit=max(1, value(raw, "memory.user_char_limit")),
    )
    path = adapted.env.get("PATH", "")
    first = os.path.dirname(sys.executable)  # a venv's bin: its hermes and tacit first
    if path.split(os.pathsep)[:1] != [first]:
        adapted.env["PATH"] = first + (os.pathsep + path if path else "")
    return adapted

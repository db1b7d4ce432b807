"""Edit Hermes's ``config.yaml`` with Hermes's own code, from Hermes's interpreter.

Design notes: docs/design/hosts.md#tacithostshermeshermes_config
"""

from __future__ import annotations

import json
import sys

from tacit.hosts.hermes.settings import MISSING, get_dotted

PLUGIN = "tacit"
ENTRY_POINT_GROUP = "hermes_agent.plugins"


def _get(node, dotted: str):
    found = get_dotted(node, dotted)
    return {"present": False} if found is MISSING else {"present": True, "value": found}


def _set(config: dict, dotted: str, value) -> None:
    parts = dotted.split(".")
    node = config
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[parts[-1]] = value


def _unset(config: dict, dotted: str) -> None:
    parent, _, last = dotted.rpartition(".")
    node = get_dotted(config, parent) if parent else config
    if isinstance(node, dict):
        node.pop(last, None)


def status(keys) -> dict:
    from importlib.metadata import entry_points

    from hermes_cli.config import get_config_path, read_raw_config

    raw = read_raw_config()
    plugins = raw.get("plugins") if isinstance(raw.get("plugins"), dict) else {}
    entries = plugins.get("entries") if isinstance(plugins.get("entries"), dict) else {}
    eps = [ep.value for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == PLUGIN]
    return {
        "config_path": str(get_config_path()),
        "entry_point": eps[0] if eps else None,
        "enabled": list(plugins.get("enabled") or []) if isinstance(plugins.get("enabled"), list) else [],
        "disabled": list(plugins.get("disabled") or []) if isinstance(plugins.get("disabled"), list) else [],
        "entry": entries.get(PLUGIN),
        "values": {key: _get(raw, key) for key in keys},
    }


def apply(spec: dict) -> dict:
    """Change what ``spec`` asks, in one load → edit → save."""
    from hermes_cli.config import load_config, save_config

    config = load_config()
    plugins = config.get("plugins")
    if not isinstance(plugins, dict):
        plugins = config["plugins"] = {}
    enabled = set(plugins.get("enabled") or []) if isinstance(plugins.get("enabled"), list) else set()
    disabled = set(plugins.get("disabled") or []) if isinstance(plugins.get("disabled"), list) else set()
    if spec.get("enable"):
        enabled.add(PLUGIN)
        disabled.discard(PLUGIN)
    if spec.get("unenable"):
        enabled.discard(PLUGIN)
    if spec.get("redisable"):
        disabled.add(PLUGIN)
    plugins["enabled"] = sorted(enabled)
    plugins["disabled"] = sorted(disabled)
    entries = plugins.get("entries")
    if spec.get("add_entry"):
        if not isinstance(entries, dict):
            entries = plugins["entries"] = {}
        entries.setdefault(PLUGIN, {"allow_tool_override": False})
    if spec.get("remove_entry") and isinstance(entries, dict):
        entries.pop(PLUGIN, None)
        if not entries:
            plugins.pop("entries", None)
    for key, value in (spec.get("set") or {}).items():
        _set(config, key, value)
    for key in spec.get("unset") or ():
        _unset(config, key)
    save_config(config)
    return status(spec.get("keys") or ())


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        spec = json.loads(argv[0]) if argv else {}
        done = apply(spec) if spec.get("action") == "apply" else status(spec.get("keys") or ())
        out = {"ok": True, **done}
    except Exception as exc:  # noqa: BLE001 — reported to the caller as data
        out = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    sys.stdout.write("\n" + json.dumps(out, default=str) + "\n")
    return 0 if out["ok"] else 1


if __name__ == "__main__":  # pragma: no cover — run in Hermes's interpreter
    sys.exit(main())

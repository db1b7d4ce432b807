"""``tacit install hermes`` / ``tacit uninstall hermes``.

Design notes: docs/design/hosts.md#tacithostshermesinstall
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tacit.children.commands import program, script_python
from tacit.children.env import process_env
from tacit.config import toml_settings
from tacit.fsutil import atomic_write_text, read_json_or_none, unlink_quietly
from tacit.hosts.hermes import shared_memory
from tacit.hosts.hermes.settings import NUDGE_KEYS, hermes_home_of, read_raw, value

MANIFEST_VERSION = 1
NUDGE_OFF = 0
CONFIG_TIMEOUT_SECONDS = 120


def install(cfg, scope: str = "user", project_dir: str = ".", **_options) -> dict:
    if scope != "user":
        return _scope_refused()
    home = hermes_home_of(cfg)
    python = find_hermes_python(cfg)
    if python is None:
        return {"success": False, "error": "Hermes Agent not found: neither this Python can import "
                "hermes_cli nor is a `hermes` program on PATH. Install Hermes Agent first, then "
                f"install tacit into its Python ({_pip_install('<hermes python>')})."}
    state = run_in_hermes(cfg, python, home, {"action": "status", "keys": list(NUDGE_KEYS)})
    if not state.get("ok"):
        return _not_loadable(python, state)
    if not state.get("entry_point"):
        return _not_loadable(python, {"error": "the entry point hermes_agent.plugins:tacit is not visible"})

    manifest_path = install_manifest_path(home)
    manifest = read_json_or_none(manifest_path)
    first = manifest is None
    if first:
        manifest = {"version": MANIFEST_VERSION, "hermes_home": home, "installed": time.time(),
                    "added_enabled": False, "undisabled": False, "added_entry": False, "nudges": {}}
    spec = {"action": "apply", "keys": list(NUDGE_KEYS), "set": {}}
    changed = []
    was_enabled = "tacit" in state["enabled"] and "tacit" not in state["disabled"]
    if not was_enabled:
        spec["enable"] = True
        changed.append("plugins.enabled += tacit")
        if first:
            manifest["added_enabled"] = "tacit" not in state["enabled"]
            manifest["undisabled"] = "tacit" in state["disabled"]
    if state.get("entry") is None:
        spec["add_entry"] = True
        changed.append("plugins.entries.tacit.allow_tool_override = false")
        if first:
            manifest["added_entry"] = True
    for key in NUDGE_KEYS:
        current = state["values"].get(key, {"present": False})
        if current.get("present") and current.get("value") == NUDGE_OFF:
            continue
        spec["set"][key] = NUDGE_OFF
        changed.append(f"{key} = {NUDGE_OFF}")
        # remember the person's value once; a re-install must not record our 0
        manifest["nudges"].setdefault(key, {"had": bool(current.get("present")),
                                            "previous": current.get("value")})
    if changed:
        after = run_in_hermes(cfg, python, home, spec)
        if not after.get("ok"):
            return {"success": False, "error": f"could not update Hermes's config: {after.get('error')}",
                    "hermes_home": home}
    linked = shared_memory.link(cfg, home)
    if linked.get("error"):
        return {"success": False, "error": f"tacit is enabled in Hermes, but its memory is not shared: "
                                           f"{linked['error']}", "hermes_home": home}
    if linked["changed"]:
        changed.append(f"{linked['link']} -> {linked['target']} (one memory for every host"
                       + (f"; {linked['merged']} of tacit's entries merged in" if linked["merged"] else "")
                       + (f"; tacit's old folder kept as {linked['backup']}" if linked.get("backup") else "") + ")")
        manifest["linked_memories"] = True
    skills = shared_memory.link_skills(cfg, home)
    if skills.get("changed"):
        changed.append(f"{skills['link']} -> {skills['target']} (tacit's skills in Hermes's index)")
        manifest["linked_skills"] = True
    limits, limits_error = _matched_limits(cfg, home)
    if limits:
        changed.append(f"config.toml: {limits} (Hermes's limits, for every host)")
    manifest["hermes_python"] = str(python)
    manifest["updated"] = time.time()
    atomic_write_text(manifest_path, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    message = (f"tacit is enabled in Hermes ({state.get('config_path')}); it takes effect in the next "
               f"Hermes session. tacit's memory is now Hermes's ({cfg.memories_dir} -> {home}/memories), "
               "shared with every host. Hermes's own background review is off: tacit's review replaces it.")
    if not changed:
        message = f"tacit was already installed in Hermes ({state.get('config_path')}); nothing changed."
    if skills.get("error"):
        message += f" Skills not linked: {skills['error']}."
    if limits_error:
        message += f" Limits not matched: {limits_error}."
    return {"success": True, "message": message, "hermes_home": home, "hermes_python": str(python),
            "changed": changed, "already_installed": not changed, "manifest": str(manifest_path)}


def _matched_limits(cfg, home: str) -> tuple[str, str]:
    """(the keys ``match_limits`` wrote, or ""; why it could not, or "")."""
    try:
        return match_limits(cfg, home), ""
    except ValueError as exc:
        return "", str(exc)


def match_limits(cfg, home: str) -> str:
    """tacit's limits for USER.md and the global MEMORY.md made Hermes's own
    (its tool and tacit write the same files); the keys written, or ""."""
    raw = read_raw(home)
    wanted = {"memory_char_limit": value(raw, "memory.memory_char_limit"),
              "user_char_limit": value(raw, "memory.user_char_limit")}
    if all(cfg.settings.get(k) == v for k, v in wanted.items()):
        return ""
    path = cfg.config_file
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    # lines as TOML has them ("\n" only: a U+2028 inside a string value is no line break)
    lines = [line for line in text.split("\n") if line.split("=", 1)[0].strip() not in wanted]
    while lines and not lines[-1].strip():
        lines.pop()
    # first in the file: top-level keys, whatever table the file ends in
    new_text = "\n".join([f"{k} = {v}  # Hermes's limit (tacit install hermes)" for k, v in wanted.items()]
                         + lines) + "\n"
    before = _toml_settings(text)
    if before is None or _toml_settings(new_text) != {**before, **wanted}:  # e.g. a key in a multi-line string
        raise ValueError(f"{path} could not be changed safely; set {', '.join(f'{k} = {v}' for k, v in wanted.items())} "
                         "there by hand (Hermes's limits)")
    atomic_write_text(path, new_text)
    return ", ".join(f"{k} = {v}" for k, v in wanted.items())


def _toml_settings(text: str) -> dict | None:
    """The settings a config.toml text gives tacit, or None when it does not parse."""
    import tomllib

    try:
        return toml_settings(tomllib.loads(text))
    except tomllib.TOMLDecodeError:
        return None


def uninstall(cfg, scope: str = "user", project_dir: str = ".", **_options) -> dict:
    if scope != "user":
        return _scope_refused()
    home = hermes_home_of(cfg)
    manifest_path = install_manifest_path(home)
    manifest = read_json_or_none(manifest_path)
    if manifest is None:
        return {"success": True, "message": f"tacit install hermes was not run for {home}: nothing to undo.",
                "hermes_home": home, "changed": []}
    python = find_hermes_python(cfg, prefer=manifest.get("hermes_python"))
    if python is None:
        return {"success": False, "error": "Hermes Agent not found (needed to edit its config.yaml)."}
    state = run_in_hermes(cfg, python, home, {"action": "status", "keys": list(NUDGE_KEYS)})
    if not state.get("ok"):
        return {"success": False, "error": f"could not read Hermes's config: {state.get('error')}"}
    spec = {"action": "apply", "keys": list(NUDGE_KEYS), "set": {}, "unset": []}
    changed, left = [], []
    if manifest.get("added_enabled") and "tacit" in state["enabled"]:
        spec["unenable"] = True
        changed.append("plugins.enabled -= tacit")
    if manifest.get("undisabled") and "tacit" not in state["disabled"]:
        spec["redisable"] = True
        changed.append("plugins.disabled += tacit")
    if manifest.get("added_entry") and state.get("entry") == {"allow_tool_override": False}:
        spec["remove_entry"] = True
        changed.append("plugins.entries.tacit removed")
    for key, record in (manifest.get("nudges") or {}).items():
        current = state["values"].get(key, {"present": False})
        if not (current.get("present") and current.get("value") == NUDGE_OFF):
            left.append(f"{key} (changed since install: left as it is)")
            continue
        if record.get("had"):
            spec["set"][key] = record.get("previous")
            changed.append(f"{key} = {record.get('previous')!r} (restored)")
        else:
            spec["unset"].append(key)
            changed.append(f"{key} removed (Hermes's default applies)")
    if changed:
        after = run_in_hermes(cfg, python, home, spec)
        if not after.get("ok"):
            return {"success": False, "error": f"could not update Hermes's config: {after.get('error')}"}
    if manifest.get("linked_skills") and shared_memory.unlink_skills(cfg, home):
        changed.append(f"{shared_memory.skills_link(home)}: removed (tacit's skills stay in {cfg.skills_dir})")
    if manifest.get("linked_memories"):
        restored = shared_memory.unlink(cfg, home)
        if restored.get("changed"):
            changed.append(f"{restored['restored']}: tacit's own folder again (copies of the shared files)")
    unlink_quietly(manifest_path)
    message = f"tacit is no longer enabled in Hermes ({state.get('config_path')})."
    if left:
        message += " Left alone: " + "; ".join(left) + "."
    return {"success": True, "message": message, "hermes_home": home, "changed": changed, "left": left}


def _scope_refused() -> dict:
    return {"success": False, "error": "Hermes enables plugins per Hermes home, not per project: use "
            "`tacit install hermes` (--scope user); for another home or profile set HERMES_HOME."}


def _not_loadable(python, state: dict) -> dict:
    return {"success": False, "hermes_python": str(python),
            "error": f"tacit is not installed in Hermes's Python ({python}), so Hermes cannot load the "
                     f"plugin: run {_pip_install(python)}, "
                     f"then `tacit install hermes` again. ({state.get('error', '').strip()[-300:]})"}


def _pip_install(python) -> str:
    """The pip command that puts this tacit into ``python``: the package is installed from a checkout
    (it is not on PyPI), so name this one's folder when tacit runs from it."""
    root = Path(__file__).resolve().parents[4]  # extension/tacit/hosts/hermes/install.py → the checkout
    checkout = root if (root / "pyproject.toml").is_file() else "<path of your tacit checkout>"
    return f"`{python} -m pip install {checkout}`"


def find_hermes_python(cfg, prefer: str | None = None) -> str | None:
    """Hermes's interpreter: ``prefer`` if it still exists, this one if it
    imports ``hermes_cli``, else the shebang of ``hermes`` on PATH."""
    if prefer and os.access(prefer, os.X_OK):
        return prefer
    if importlib.util.find_spec("hermes_cli") is not None:
        return sys.executable
    return script_python(program(cfg, "hermes"))


def run_in_hermes(cfg, python: str, hermes_home: str, spec: dict) -> dict:
    """Run ``tacit.hosts.hermes.hermes_config`` in Hermes's interpreter."""
    env = {**process_env(cfg), "HERMES_HOME": hermes_home}  # a tacit process's, not a child's
    try:
        proc = subprocess.run([python, "-m", "tacit.hosts.hermes.hermes_config", json.dumps(spec)],
                              env=env, capture_output=True, text=True, timeout=CONFIG_TIMEOUT_SECONDS,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"ok": False, "error": f"{python}: {exc}"}
    for line in reversed(proc.stdout.strip().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    return {"ok": False, "error": (proc.stderr or proc.stdout).strip()[-800:] or f"exit {proc.returncode}"}


def manifest(cfg) -> Path:
    """Where the install's manifest lives (``tacit status``)."""
    return Path(install_manifest_path(hermes_home_of(cfg)))


def install_manifest_path(hermes_home: str) -> str:
    return os.path.join(hermes_home, "tacit", "install.json")

"""``tacit install claude-code`` / ``tacit uninstall claude-code``.

Design notes: docs/design/hosts.md#tacithostsclaude_codeinstall
"""

from __future__ import annotations

import sys
from pathlib import Path

from tacit import __version__, commandline
from tacit.fsutil import atomic_write_text, read_json_or_none
from tacit.hosts import install_support as support
from tacit.hosts.claude_code.plugin import PLUGIN_NAME, plugin_files
from tacit.hosts.install_support import InstallError

MANIFEST = ".tacit-install.json"


def locations(cfg, scope: str, project_dir: str | None = None) -> dict:
    home = support.host_home(cfg, "CLAUDE_CONFIG_DIR", ".claude")
    base, project = support.scope_folder(scope, project_dir, home, ".claude")
    settings = base / ("settings.json" if project is None else "settings.local.json")
    return {"plugin_dir": base / "skills" / PLUGIN_NAME, "settings": settings, "project": project,
            "base": base}


def manifest(cfg) -> Path:
    """Where the user-scope install's manifest lives (``tacit status``)."""
    return locations(cfg, "user")["plugin_dir"] / MANIFEST


def permissions_for() -> list[str]:
    """The Bash prefixes the agent may run without a prompt: the bare ``tacit`` and this environment's
    absolute command (named when ``tacit`` is not on PATH). Slash commands pre-approve ``bin/tacit``.
    ``tacit search`` too: the session guidance tells the agent to run it (as Codex's rules allow)."""
    rules = []
    for form in ("tacit", commandline.tacit_display()):
        rules += [f"Bash({form} memory:*)", f"Bash({form} search:*)",
                  *(f"Bash({form} skill {verb}:*)" for verb in support.SKILL_VERBS)]
    return list(dict.fromkeys(rules))  # one of each: the two forms are the same when tacit is on PATH


@support.answering("claude-code", "tacit was not installed into Claude Code")
def install(cfg, scope: str = "user", *, project_dir: str | None = None, python: str | None = None) -> dict:
    python = python or sys.executable
    where = locations(cfg, scope, project_dir)
    plugin_dir: Path = where["plugin_dir"]
    settings_path: Path = where["settings"]
    previous = support.read_manifest(plugin_dir / MANIFEST)
    if previous is None and plugin_dir.exists() and any(plugin_dir.iterdir()):
        raise InstallError(f"{plugin_dir} exists and was not written by tacit; move it away first")
    settings, settings_existed = read_settings(settings_path)  # refuses a broken file before any write
    settings_text, _ = support.read_text(settings_path)
    files = plugin_files(python, str(plugin_dir))
    dirs_created = [str(d) for d in support.missing_dirs(plugin_dir, stop_at=where["base"].parent)]
    changed = []
    for rel, (text, mode) in files.items():
        target = plugin_dir / rel
        try:
            same = target.read_text(encoding="utf-8") == text and (target.stat().st_mode & 0o777) == mode
        except OSError:
            same = False
        if not same:
            atomic_write_text(target, text, mode=mode)
            changed.append(rel)
    # files an earlier install wrote that this one no longer does (e.g. the
    # ledger commands of an older version)
    for rel in (previous or {}).get("files", []):
        if rel not in files:
            support.unlink(plugin_dir / rel)
            changed.append(rel)

    wanted = permissions_for()
    allow = settings.setdefault("permissions", {}).setdefault("allow", [])
    if not isinstance(allow, list):
        raise InstallError(f"{settings_path}: permissions.allow is not a list")
    added = [rule for rule in wanted if rule not in allow]
    if added or not settings_existed:
        allow.extend(added)
        support.write_json(settings_path, settings, support.mode_of(settings_path, 0o644))

    manifest = {
        "tacit_version": __version__,
        "host": "claude-code",
        "scope": scope,
        "python": python,
        "plugin_dir": str(plugin_dir),
        "files": sorted(files),
        "dirs_created": sorted(set(dirs_created) | set((previous or {}).get("dirs_created", []))),
        "settings_file": str(settings_path),
        "settings_created": (not settings_existed) or bool((previous or {}).get("settings_created")),
        "permissions_added": list(dict.fromkeys([*(previous or {}).get("permissions_added", []), *added])),
    }
    # your settings.json as it was, when it had a layout of its own: uninstall writes it back as it was
    support.write_manifest(plugin_dir / MANIFEST, manifest, "settings_text", support.text_to_restore(
        settings_text, settings_existed and bool(added), (previous or {}).get("settings_text")))

    result = {
        "success": True,
        "host": "claude-code",
        "scope": scope,
        "plugin_dir": str(plugin_dir),
        "settings_file": str(settings_path),
        "files": sorted(files),
        "changed": sorted(changed) + (["settings"] if added else []),
        "permissions_added": added,
        "tacit_on_path": commandline.on_path(cfg.env.get("PATH")),
        "warnings": [],
    }
    already = "is already installed" if not changed and not added else "installed"
    lines = [f"tacit {already} into Claude Code ({scope} scope): {plugin_dir}"]
    if scope == "project":
        result["trusted"] = workspace_trusted(cfg, where["project"])
        if not result["trusted"]:
            warning = (f"Claude Code loads project plugins only in a trusted workspace: run `claude` in "
                       f"{where['project']} once and accept the trust prompt (or use --scope user).")
            result["warnings"].append(warning)
        result["warnings"].append(f"{plugin_dir} names this machine's Python: keep .claude/skills/{PLUGIN_NAME}/ "
                                  f"and .claude/settings.local.json out of version control.")
    if not result["tacit_on_path"]:
        result["warnings"].append(f"`tacit` is not on PATH; the agent is told to run {commandline.tacit_display()} instead.")
    result["message"] = "\n".join(lines + result["warnings"])
    return result


def workspace_trusted(cfg, project: Path) -> bool:
    # ~/.claude.json, Claude Code's own state (trust); in $CLAUDE_CONFIG_DIR when that is set
    state = support.host_home(cfg, "CLAUDE_CONFIG_DIR") / ".claude.json"
    projects = (read_json_or_none(state) or {}).get("projects")
    entry = projects.get(str(project)) if isinstance(projects, dict) else None
    return bool(isinstance(entry, dict) and entry.get("hasTrustDialogAccepted"))


@support.answering("claude-code", "tacit was not uninstalled from Claude Code")
def uninstall(cfg, scope: str = "user", *, project_dir: str | None = None) -> dict:
    where = locations(cfg, scope, project_dir)
    plugin_dir: Path = where["plugin_dir"]
    manifest = support.read_manifest(plugin_dir / MANIFEST)
    if manifest is None:
        if plugin_dir.exists():
            raise InstallError(f"{plugin_dir} has no tacit manifest; not removing what tacit did not write")
        return {"success": True, "host": "claude-code", "scope": scope, "removed": [],
                "message": f"tacit is not installed into Claude Code ({scope} scope)"}

    removed = []
    settings_path = Path(manifest.get("settings_file") or where["settings"])
    ours = manifest.get("permissions_added", [])
    if ours and settings_path.exists():
        settings, _ = read_settings(settings_path)
        permissions = settings.get("permissions")
        allow = permissions.get("allow") if isinstance(permissions, dict) else None
        if isinstance(allow, list):
            kept = [rule for rule in allow if rule not in ours]
            if kept != allow:
                removed += [f"permission {rule}" for rule in allow if rule in ours]
                permissions["allow"] = kept
                if not kept:
                    del permissions["allow"]
                if not permissions:
                    del settings["permissions"]
                if manifest.get("settings_created") and not settings:
                    support.unlink(settings_path)
                    removed.append(str(settings_path))
                else:
                    support.write_json_as_before(settings_path, settings, support.mode_of(settings_path, 0o644),
                                                 manifest.get("settings_text"))
    elif manifest.get("settings_created") and settings_path.exists():
        settings, _ = read_settings(settings_path)
        if settings in ({}, {"permissions": {"allow": []}}):
            support.unlink(settings_path)
            removed.append(str(settings_path))

    for rel in manifest.get("files", []) + [MANIFEST]:
        if support.unlink(plugin_dir / rel):
            removed.append(str(plugin_dir / rel))
    # folders inside the plugin, deepest first, then those install created
    inner = support.deepest_first({p for rel in manifest.get("files", []) for p in (plugin_dir / rel).parents
                                   if plugin_dir in p.parents or p == plugin_dir})
    support.remove_empty_dirs(inner + support.deepest_first(manifest.get("dirs_created", [])))
    return {"success": True, "host": "claude-code", "scope": scope, "plugin_dir": str(plugin_dir),
            "removed": removed,
            "message": f"tacit removed from Claude Code ({scope} scope): {len(removed)} items"}


def read_settings(path: Path) -> tuple[dict, bool]:
    """(settings, existed). Refuses a file that is not a JSON object."""
    text, existed = support.read_text(path)
    if not text.strip():
        return {}, existed
    data = support.parse_json_object(text, path, "Claude Code")
    if "permissions" in data and not isinstance(data["permissions"], dict):
        raise InstallError(f"{path}: 'permissions' is not an object")
    return data, True

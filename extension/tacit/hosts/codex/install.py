"""``tacit install codex`` / ``tacit uninstall codex``.

Design notes: docs/design/hosts.md#tacithostscodexinstall
"""

from __future__ import annotations

import copy
import json
import re
import sys
import tomllib
from pathlib import Path

from tacit import __version__, commandline
from tacit.fsutil import atomic_write_text
from tacit.hosts import install_support as support
from tacit.hosts.codex.spec import HOST as SPEC
from tacit.hosts.install_support import InstallError

HOST = "codex"
MANIFEST = "tacit-install.json"
RULES_FILE = "rules/tacit.rules"
EVENTS = SPEC.hook_events
# what Codex's ``/hooks`` shows for each: it has no other name field (without one "Unnamed hook")
HOOK_NAMES = {"SessionStart": "tacit: load memory", "UserPromptSubmit": "tacit: read your message",
              "PreToolUse": "tacit: check guards", "PostToolUse": "tacit: note the result",
              "Stop": "tacit: end of turn", "PreCompact": "tacit: save before compaction",
              "SessionEnd": "tacit: save the session"}
FEATURE_MARK = "# added by `tacit install codex`"
FEATURE_LINE = f"hooks = true  {FEATURE_MARK}"
FEATURES_HEADER = f"[features]  {FEATURE_MARK}"
RULES_HEADER = "# tacit: written by `tacit install codex`, removed by `tacit uninstall codex`."


def codex_home(cfg) -> Path:
    return support.host_home(cfg, "CODEX_HOME", ".codex")


def locations(cfg, scope: str, project_dir: str | None = None) -> dict:
    base, project = support.scope_folder(scope, project_dir, codex_home(cfg), ".codex")
    return {"base": base, "project": project, "hooks_file": base / "hooks.json",
            "config_file": base / "config.toml", "rules_file": base / RULES_FILE,
            "manifest": base / MANIFEST, "user_config": codex_home(cfg) / "config.toml"}


def manifest(cfg) -> Path:
    """Where the user-scope install's manifest lives (``tacit status``)."""
    return locations(cfg, "user")["manifest"]


def tacit_group(python: str, event: str) -> dict:
    return support.hook_group(python, SPEC, event, statusMessage=HOOK_NAMES[event])


def trust_key(event: str) -> str:
    """How Codex names ``event`` in a hook's trust key: ``PreToolUse`` -> ``pre_tool_use``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def is_tacit_group(group, event: str) -> bool:
    """A matcher group tacit wrote (by any Python) for ``event``."""
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    commands = [h.get("command") for h in group["hooks"] if isinstance(h, dict)]
    return bool(commands) and all(commandline.hook_target(c) == (HOST, event) for c in commands)


def rules_text(python: str) -> str:
    """The rules for the argv prefixes of tacit's CLI the agent may use: the bare ``tacit`` the injected
    guidance names, and this environment's absolute command."""
    script = Path(python).parent / "tacit"
    absolute = [str(script)] if script.exists() else [python, "-m", "tacit.cli"]
    lines = [RULES_HEADER,
             "# Lets the agent save memories and skills, and search past sessions, without an approval",
             "# prompt, outside the sandbox (tacit's data folder is not in the workspace). Deleting a",
             "# skill still asks."]
    for form in (["tacit"], absolute):
        for tail in [["memory"], ["search"]] + [["skill", verb] for verb in support.SKILL_VERBS]:
            pattern = ", ".join(json.dumps(token, ensure_ascii=False) for token in form + tail)
            lines.append(f'prefix_rule(pattern = [{pattern}], decision = "allow")')
    return "\n".join(lines) + "\n"


@support.answering(HOST, "tacit was not installed into Codex")
def install(cfg, scope: str = "user", *, project_dir: str | None = None, python: str | None = None) -> dict:
    python = python or sys.executable
    where = locations(cfg, scope, project_dir)
    base: Path = where["base"]
    previous = support.read_manifest(where["manifest"]) or {}
    # read (and refuse) everything before writing anything
    hooks_doc, hooks_existed = read_hooks(where["hooks_file"])
    hooks_text, _ = support.read_text(where["hooks_file"])
    config_text, config_existed = support.read_text(where["config_file"])
    config = parse_toml(config_text, where["config_file"])
    rules_wanted = rules_text(python)
    rules_current, _ = support.read_text(where["rules_file"])
    if rules_current and not rules_current.startswith(RULES_HEADER):
        raise InstallError(f"{where['rules_file']} exists and was not written by tacit; move it away first")

    events_created, groups_changed, positions = merge_groups(hooks_doc, python)

    # config.toml: the feature flag
    new_config_text, flag = with_feature_flag(config_text, config, where["config_file"])
    warnings = [flag["warning"]] if flag.get("warning") else []

    dirs_created = [str(d) for d in support.missing_dirs(where["rules_file"].parent, stop_at=base.parent)]
    changed = []
    if groups_changed or not hooks_existed:
        support.write_json(where["hooks_file"], hooks_doc, support.mode_of(where["hooks_file"], 0o644))
        changed.append("hooks.json")
    if new_config_text != config_text:
        atomic_write_text(where["config_file"], new_config_text, mode=support.mode_of(where["config_file"], 0o600))
        changed.append("config.toml")
    if rules_current != rules_wanted:
        atomic_write_text(where["rules_file"], rules_wanted, mode=0o644)
        changed.append(RULES_FILE)

    manifest = {
        "tacit_version": __version__,
        "host": HOST,
        "scope": scope,
        "python": python,
        "hooks_file": str(where["hooks_file"]),
        "hooks_file_created": (not hooks_existed) or bool(previous.get("hooks_file_created")),
        "events_created": sorted(set(previous.get("events_created", [])) | set(events_created)),
        "config_file": str(where["config_file"]),
        "config_created": (not config_existed and new_config_text != config_text)
                          or bool(previous.get("config_created")),
        "feature_line_added": bool(flag.get("line_added") or previous.get("feature_line_added")),
        "features_table_added": bool(flag.get("table_added") or previous.get("features_table_added")),
        "features_block": flag.get("block") or previous.get("features_block", ""),
        "rules_file": str(where["rules_file"]),
        "dirs_created": sorted(set(dirs_created) | set(previous.get("dirs_created", []))),
    }
    # your hooks.json as it was, when it had a layout of its own: uninstall writes it back as it was
    support.write_manifest(where["manifest"], manifest, "hooks_text", support.text_to_restore(
        hooks_text, hooks_existed and bool(groups_changed), previous.get("hooks_text")))

    # a changed command has a new hash: Codex shows it as modified until re-trusted
    untrusted = [e for e in EVENTS if e in set(untrusted_events(where, positions)) | set(groups_changed)]
    result = {
        "success": True,
        "host": HOST,
        "scope": scope,
        "hooks_file": str(where["hooks_file"]),
        "config_file": str(where["config_file"]),
        "rules_file": str(where["rules_file"]),
        "events": list(EVENTS),
        "changed": changed,
        "needs_trust": bool(untrusted),
        "untrusted_events": untrusted,
        "tacit_on_path": commandline.on_path(commandline.agent_path(cfg.env, login_shell=True)),
        "warnings": warnings,
    }
    result["message"] = _message(where, result)
    return result


def merge_groups(hooks_doc: dict, python: str) -> tuple[list, list, dict]:
    """tacit's group per event into ``hooks_doc``, replaced in place or appended: (events created,
    events whose groups changed, the index of tacit's group per event)."""
    ours = {event: tacit_group(python, event) for event in EVENTS}
    events = hooks_doc.setdefault("hooks", {})
    events_created, groups_changed, positions = [], [], {}
    for event, group in ours.items():
        if event not in events:
            events[event] = []
            events_created.append(event)
        groups = events[event]
        found = [i for i, g in enumerate(groups) if is_tacit_group(g, event)]
        if found:
            if groups[found[0]] != group:
                groups[found[0]] = group
                groups_changed.append(event)
            for extra in reversed(found[1:]):  # duplicates from a hand edit: keep one
                del groups[extra]
                groups_changed.append(event)
        else:
            groups.append(group)
            groups_changed.append(event)
        positions[event] = next(i for i, g in enumerate(groups) if g == group)
    return events_created, groups_changed, positions


def _message(where: dict, result: dict) -> str:
    """The install's message; its warnings added to ``result["warnings"]``."""
    untrusted, scope, warnings = result["untrusted_events"], result["scope"], result["warnings"]
    already = "is already installed" if not result["changed"] else "installed"
    lines = [f"tacit {already} into Codex ({scope} scope): {where['hooks_file']}"]
    if untrusted:
        warnings.append(f"Codex runs new hooks only after you trust them: open `codex`, type /hooks and "
                        f"trust tacit's {len(untrusted)} hook(s) ({', '.join(untrusted)}). Until then "
                        f"tacit is inactive (`codex exec` skips untrusted hooks silently).")
    if scope == "project":
        result["project_trusted"] = project_trusted(where)
        if not result["project_trusted"]:
            warnings.append(f"Codex reads {where['base']} only for a trusted project: open `codex` in "
                            f"{where['project']} once and trust it (or use --scope user).")
        warnings.append(f"{where['hooks_file']} now names this machine's Python: keep tacit's entries "
                        f"out of version control.")
    if not result["tacit_on_path"]:
        warnings.append("`tacit` is not on the PATH of Codex's shell (it runs `$SHELL -lc`, which reads your login "
                        "profile); the agent is told the absolute command instead.")
    return "\n".join(lines + warnings)


def with_feature_flag(text: str, config: dict, path: Path) -> tuple[str, dict]:
    """(new config.toml text, what was done). Adds ``hooks = true`` under
    ``[features]`` unless the flag is already set either way."""
    features = config.get("features")
    if features is not None and not isinstance(features, dict):
        return text, {"warning": f"{path}: 'features' is not a table; left alone"}
    features = features or {}
    for name in ("hooks", "codex_hooks"):
        if features.get(name) is False:
            return text, {"warning": f"{path} switches Codex hooks off ([features] {name} = false): "
                                     f"tacit's hooks will not run until you remove that line."}
    if features.get("hooks") is True or features.get("codex_hooks") is True:
        return text, {}
    lines = text.splitlines(keepends=True)
    header = next((i for i, line in enumerate(lines) if re.match(r"\s*\[\s*features\s*\]\s*(#.*)?$", line)), None)
    if header is not None:
        block = FEATURE_LINE + "\n"
        lines.insert(header + 1, block)
        new_text, table_added = "".join(lines), False
    else:
        sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        block = sep + FEATURES_HEADER + "\n" + FEATURE_LINE + "\n"
        new_text, table_added = text + block, True
    expected = copy.deepcopy(config)
    expected.setdefault("features", {})["hooks"] = True
    if not parses_as(new_text, path, expected):
        return text, {"warning": f"could not add `hooks = true` under [features] in {path} safely (left "
                                 f"unchanged); Codex 0.171.0 has hooks on by default."}
    return new_text, {"line_added": True, "table_added": table_added, "block": block}


def untrusted_events(where: dict, positions: dict) -> list[str]:
    """tacit's events whose hook has no trust entry yet (docs/hosts/codex.md); whether the stored
    hash still matches only Codex can tell: the caller adds the commands a reinstall changed."""
    trusted: set[str] = set()
    for path in {where["user_config"], where["config_file"]}:
        try:
            states = (parse_toml(support.read_text(path)[0], path).get("hooks") or {}).get("state") or {}
        except (InstallError, AttributeError):
            continue
        if isinstance(states, dict):
            trusted |= {key for key, value in states.items()
                        if isinstance(value, dict) and value.get("trusted_hash")}
    hooks_file = str(where["hooks_file"])
    return [event for event, index in positions.items()
            if f"{hooks_file}:{trust_key(event)}:{index}:0" not in trusted]


def waiting(cfg) -> list[str]:
    """What you still have to do before tacit runs in Codex (``tacit doctor``, ``tacit status``): trust
    the hooks of the user-scope install in /hooks. Until then Codex skips them without a word."""
    where = locations(cfg, "user")
    if not where["manifest"].is_file():
        return []
    try:
        groups = read_hooks(where["hooks_file"])[0]["hooks"]
    except InstallError as exc:
        return [f"Codex: {exc}"]
    positions = {event: next((i for i, g in enumerate(groups.get(event) or []) if is_tacit_group(g, event)), None)
                 for event in EVENTS}
    missing = [event for event, index in positions.items() if index is None]
    if missing:
        return [f"Codex: tacit's hooks for {', '.join(missing)} are gone from {where['hooks_file']}: "
                "run `tacit install codex` again"]
    untrusted = untrusted_events(where, positions)
    if not untrusted:
        return []
    return [f"Codex runs tacit's hooks only once you trust them, and {len(untrusted)} of {len(EVENTS)} are not "
            f"trusted yet ({', '.join(untrusted)}): open `codex`, type /hooks and trust them. Until then tacit "
            "does nothing in Codex (`codex exec` skips untrusted hooks silently)."]


def project_trusted(where: dict) -> bool:
    try:
        path = where["user_config"]
        projects = parse_toml(support.read_text(path)[0], path).get("projects") or {}
    except InstallError:
        return False
    entry = projects.get(str(where["project"])) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("trust_level") == "trusted"


@support.answering(HOST, "tacit was not uninstalled from Codex")
def uninstall(cfg, scope: str = "user", *, project_dir: str | None = None) -> dict:
    where = locations(cfg, scope, project_dir)
    manifest = support.read_manifest(where["manifest"])
    hooks_doc, _ = read_hooks(where["hooks_file"])
    config_text, _ = support.read_text(where["config_file"])
    config = parse_toml(config_text, where["config_file"])
    removed, warnings = [], []

    # hook groups: tacit's are recognised by their command, manifest or not
    events = hooks_doc.get("hooks", {})
    created = set((manifest or {}).get("events_created", []))
    for event in list(events):
        groups = events[event]
        keep = [g for g in groups if not is_tacit_group(g, event)]
        if len(keep) == len(groups):
            continue
        first = next(i for i, g in enumerate(groups) if is_tacit_group(g, event))
        if len(keep) > first:
            warnings.append(f"{event}: your hooks after tacit's moved up one place; Codex will ask you to "
                            f"trust them again in /hooks.")
        removed.append(f"hook {event}")
        # an event left empty goes when install created it (or, manifest lost,
        # when tacit's group was all it held)
        if keep or (manifest is not None and event not in created):
            events[event] = keep
        else:
            del events[event]
    if removed:
        if manifest and manifest.get("hooks_file_created") and hooks_doc == {"hooks": {}}:
            support.unlink(where["hooks_file"])
            removed.append(str(where["hooks_file"]))
        else:
            support.write_json_as_before(where["hooks_file"], hooks_doc, support.mode_of(where["hooks_file"], 0o644),
                                         (manifest or {}).get("hooks_text"))

    if manifest is None:
        message = (f"tacit removed its hooks from Codex ({scope} scope)" if removed
                   else f"tacit is not installed into Codex ({scope} scope)")
        return {"success": True, "host": HOST, "scope": scope, "removed": removed, "warnings": warnings,
                "message": "\n".join([message] + warnings)}

    # config.toml: exactly the feature line (and the table header) install added
    if manifest.get("feature_line_added") and FEATURE_LINE in config_text:
        new_text, note = without_feature_flag(config_text, config, where["config_file"],
                                              table_added=bool(manifest.get("features_table_added")),
                                              block=manifest.get("features_block", ""))
        if note:
            warnings.append(note)
        elif new_text != config_text:
            if manifest.get("config_created") and not new_text.strip():
                support.unlink(where["config_file"])
                removed.append(str(where["config_file"]))
            else:
                atomic_write_text(where["config_file"], new_text, mode=support.mode_of(where["config_file"], 0o600))
                removed.append("[features] hooks = true")

    rules_text_now, _ = support.read_text(where["rules_file"])
    if rules_text_now.startswith(RULES_HEADER) and support.unlink(where["rules_file"]):
        removed.append(str(where["rules_file"]))
    if support.unlink(where["manifest"]):
        removed.append(str(where["manifest"]))
    support.remove_empty_dirs(support.deepest_first(manifest.get("dirs_created", [])))
    return {"success": True, "host": HOST, "scope": scope, "removed": removed, "warnings": warnings,
            "message": "\n".join([f"tacit removed from Codex ({scope} scope): {len(removed)} items"] + warnings)}


def without_feature_flag(text: str, config: dict, path: Path, *, table_added: bool,
                         block: str = "") -> tuple[str, str]:
    """(new text, problem): without tacit's marked line (and its ``[features]`` header when that table
    is then empty); what install appended, when still last, is cut off: byte for byte as it was."""
    expected = copy.deepcopy(config)
    expected.get("features", {}).pop("hooks", None)
    empty_table = table_added and not expected.get("features")
    if empty_table:
        expected.pop("features", None)
    if empty_table and block and text.endswith(block):
        new_text = text[:-len(block)]
    else:
        lines = text.splitlines(keepends=True)
        out: list[str] = []
        for line in lines:
            bare = line.rstrip("\n")
            if bare == FEATURE_LINE:
                continue
            if empty_table and bare == FEATURES_HEADER:
                if out and not out[-1].strip():
                    out.pop()  # the blank line install put before the table
                continue
            out.append(line)
        new_text = "".join(out)
    if not parses_as(new_text, path, expected):
        return text, f"{path}: could not remove tacit's `hooks = true` line safely; left it in place."
    return new_text, ""


def read_hooks(path: Path) -> tuple[dict, bool]:
    """(hooks document, existed). Refuses a file Codex could not parse (each event a list of matcher
    groups); only the outline: a Codex-only field in a user's hook is never refused."""
    text, existed = support.read_text(path)
    if not text.strip():
        return {"hooks": {}}, existed
    data = support.parse_json_object(text, path, "Codex")
    if not isinstance(data.setdefault("hooks", {}), dict):
        raise InstallError(f'{path}: expected {{"hooks": {{...}}}}; fix it first')
    for event, groups in data["hooks"].items():
        # an event name Codex does not know is ignored by Codex, not an error
        if not isinstance(groups, list):
            raise InstallError(f"{path}: {event}: expected a list of matcher groups; fix it first")
        if not all(isinstance(group, dict) and isinstance(group.get("hooks"), list) for group in groups):
            raise InstallError(f"{path}: {event}: every group needs a 'hooks' list; fix it first")
    return data, existed


def parses_as(text: str, path: Path, expected: dict) -> bool:
    """Whether ``text`` is valid TOML that reads as ``expected``."""
    try:
        return parse_toml(text, path) == expected
    except InstallError:
        return False


def parse_toml(text: str, path: Path) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); fix it first — Codex refuses it too") from None

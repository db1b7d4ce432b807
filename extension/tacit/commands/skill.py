"""``tacit skill …`` — the SkillStore as a command line.

Design notes: docs/design/commands.md#tacitcommandsskill
"""

from __future__ import annotations

import sys
from pathlib import Path

from tacit.commands import command, emit, exit_code, refuse, say
from tacit.commands.memory import project_of
from tacit.stores.skill_format import MAX_SKILL_BYTES, MAX_SKILL_CHARS
from tacit.stores.skill_scopes import ScopedSkills
from tacit.stores.skills import SkillStore

EXIT_USAGE = 2


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "skill", help="create, view, patch, edit, delete or list skills (skills/<name>/SKILL.md)",
        description="Skills are procedures saved as skills/<name>/SKILL.md. Text by default, one JSON "
                    "object with --json; exit 0 done, 1 refused, 2 usage error.",
    )
    sub = parser.add_subparsers(dest="skill_command", metavar="ACTION", required=True)

    def where(p):
        p.add_argument("--scope", choices=("project", "global"),
                       help="project (the default inside a project) or global; changing a skill: "
                            "where it is")
        p.add_argument("--project", metavar="DIR", help="the project of this folder (default: the working folder)")

    p = command(sub, "create", _create, help="create a new skill (refuses an existing name)")
    p.add_argument("--name", required=True,
                   help="lowercase letters, digits, hyphens; at most 64 characters")
    p.add_argument("--description", required=True,
                   help="one line saying when to use the skill (at most 1,024 characters)")
    p.add_argument("--body-file", metavar="FILE",
                   help="Markdown body (sections When to Use, Procedure, Pitfalls, "
                        "Verification); - reads stdin; default: the empty template")

    p = command(sub, "view", _view, help="print a skill's full SKILL.md (or one of its files)")
    p.add_argument("name")
    p.add_argument("--file", metavar="RELPATH",
                   help="a supporting file inside the skill folder, e.g. references/api.md")

    p = command(sub, "patch", _patch, help="replace one '## Section' (or append it); bumps the version")
    p.add_argument("name")
    p.add_argument("--section", required=True, help='e.g. "Pitfalls" or "## Procedure"')
    p.add_argument("--content-file", required=True, metavar="FILE",
                   help="the section's new text; - reads stdin")

    p = command(sub, "edit", _edit, help="replace the description and/or the whole body")
    p.add_argument("name")
    p.add_argument("--description")
    p.add_argument("--body-file", metavar="FILE", help="the new body; - reads stdin")

    p = command(sub, "delete", _delete, help="move a skill to skills/.trash/ (nothing is lost)")
    p.add_argument("name")

    p = command(sub, "list", _list, help="every skill, and every file that could not be used")

    p = command(sub, "index", _index, help="the skill index as the agent sees it in its context")
    p.add_argument("--budget", type=int, help="character budget (default: skill_index_budget)")

    p = command(sub, "install-starters", _install_starters,
                       help="copy tacit's starter skills into the skills folder (never overwrites)")
    for p in sub.choices.values():
        where(p)


def _skills(args, cfg) -> ScopedSkills:
    """The skills of the command's project, written as the command's actor (its front door's)."""
    return args.tacit.skills(project_of(args))


def _store(args, cfg, name: str | None = None) -> SkillStore:
    """Where a write goes: ``--scope``; else the scope that holds ``name``; else the project (inside one) or global."""
    skills = _skills(args, cfg)
    if args.scope:
        store = skills.store(args.scope)
        if store is None:
            raise _UsageError(f"--scope {args.scope}: not inside a project (use --scope global or --project DIR)")
        return store
    if name:
        for scope in skills.scopes():
            if any(s.name == name for s in skills.stores[scope].catalog().skills):
                return skills.stores[scope]
    return skills.store(None)


class _UsageError(Exception):
    pass


def _read_file_arg(value: str, flag: str) -> str:
    """Text of a ``--body-file``/``--content-file`` argument, or _UsageError."""
    if value == "-":
        data = sys.stdin.buffer.read(MAX_SKILL_BYTES + 1)
    else:
        if "\x00" in value:
            raise _UsageError(f"{flag}: the path contains a NUL character")
        path = Path(value)
        if not path.exists():
            raise _UsageError(f"{flag}: no such file: {value}")
        if not path.is_file():
            raise _UsageError(f"{flag}: not a regular file: {value}")
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_SKILL_BYTES + 1)
        except OSError as exc:
            raise _UsageError(f"{flag}: cannot read {value}: {exc.strerror or exc}") from None
    if len(data) > MAX_SKILL_BYTES:
        raise _UsageError(f"{flag}: over {MAX_SKILL_BYTES:,} bytes, more than a SKILL.md may hold ({MAX_SKILL_CHARS:,} "
                          "characters); nothing was changed")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _UsageError(f"{flag}: not valid UTF-8 text (bad byte at offset {exc.start})") from None


def _run(call) -> int:
    try:
        result = call()
    except _UsageError as exc:
        return refuse(str(exc), EXIT_USAGE)
    emit(result, text=render)
    return exit_code(result)


def render(result: dict) -> str:
    """A skill result for a person: the file, the list, the index, or the message."""
    if result.get("success") is False:
        return say(result)
    if "content" in result:
        return result["content"]
    if "index" in result:
        return result["index"] or "(no skills yet)"
    if isinstance(result.get("skills"), list):
        lines = [f"{s['name']}  v{s.get('version') or '?'}  {' '.join(str(s.get('description', '')).split())}"
                 for s in result["skills"]]  # one line a skill, as in the index
        lines += [f"! unusable: {p.get('path')}: {p.get('reason')}" for p in result.get("problems", [])]
        return "\n".join(lines) or "(no skills yet)"
    return say(result)


def _create(args, cfg) -> int:
    return _run(lambda: _store(args, cfg).create(
        args.name, args.description,
        _read_file_arg(args.body_file, "--body-file") if args.body_file is not None else None))


def _view(args, cfg) -> int:
    return _run(lambda: (_store(args, cfg) if args.scope else _skills(args, cfg)).view(args.name, file=args.file))


def _patch(args, cfg) -> int:
    return _run(lambda: _store(args, cfg, args.name).patch(
        args.name, args.section, _read_file_arg(args.content_file, "--content-file")))


def _edit(args, cfg) -> int:
    def call():
        if args.description is None and args.body_file is None:
            raise _UsageError("edit needs --description and/or --body-file")
        body = _read_file_arg(args.body_file, "--body-file") if args.body_file else None
        return _store(args, cfg, args.name).edit(args.name, description=args.description, body=body)

    return _run(call)


def _delete(args, cfg) -> int:
    return _run(lambda: _store(args, cfg, args.name).delete(args.name))


def _list(args, cfg) -> int:
    return _run(lambda: (_store(args, cfg) if args.scope else _skills(args, cfg)).list())


def _index(args, cfg) -> int:
    def call():
        if args.budget is not None and args.budget < 0:
            raise _UsageError("--budget must be zero or more")
        store = _store(args, cfg) if args.scope else _skills(args, cfg)
        text = store.index_text(args.budget)
        listing = store.list()
        return {"success": True, "index": text, "chars": len(text),
                "skills": len(listing.get("skills", [])),
                "problems": listing.get("problems", [])}

    return _run(call)


def _install_starters(args, cfg) -> int:
    # starter skills are general procedures: global unless told otherwise
    return _run(lambda: _skills(args, cfg).store(args.scope or "global").install_starters())

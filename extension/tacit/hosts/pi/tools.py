"""The ``memory`` and ``skill`` tools tacit gives the agent inside pi.

Design notes: docs/design/hosts.md#tacithostspitools
"""

from __future__ import annotations

from tacit.consolidation import add_entry
from tacit.search import tool as search_tool
from tacit.projects import Project
from tacit.stores.skill_scopes import ScopedSkills

MEMORY_TARGETS = ("memory", "user", "project", "global")

MEMORY_TOOL = {
    "name": "memory",
    "label": "Memory",
    "description": (
        "Save durable facts to tacit's persistent memory, which is shown to you at the start of "
        "every future session. target \"user\": who the user is, their preferences and "
        "corrections, in every project. target \"project\" (or \"memory\"): this project's "
        "conventions, commands, facts and decisions. target \"global\": facts true in every "
        "project (the machine, the shell). Actions: add (content), replace (old_text = a unique "
        "substring of one entry, content = the new entry), remove (old_text). One short, "
        "factual entry per call; no secrets, no transient task state."
    ),
    "promptSnippet": "Save durable user preferences and project facts to persistent memory",
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["add", "replace", "remove"]},
            "target": {"type": "string", "enum": list(MEMORY_TARGETS),
                       "description": "user = the user's profile; project (= memory) = this project's "
                                      "memory; global = notes true everywhere"},
            "content": {"type": "string", "description": "the entry (add, replace)"},
            "old_text": {"type": "string",
                         "description": "a unique substring of the entry to change (replace, remove)"},
        },
        "required": ["action", "target"],
    },
}

SKILL_TOOL = {
    "name": "skill",
    "label": "Skill",
    "description": (
        "Reusable procedures saved as skills (skills/<name>/SKILL.md). Actions: list; view (name; "
        "optional file = a supporting file inside the skill); create (name, description, "
        "optional body with sections When to Use, Procedure, Pitfalls, Verification); patch "
        "(name, section, content: replaces one '## section'); edit (name, description and/or "
        "body); delete (name; moved to skills/.trash). Load a skill with view when its "
        "description matches the task; save a procedure with create after complex work."
    ),
    "promptSnippet": "List, view, create and improve reusable skills (procedures)",
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string",
                       "enum": ["list", "view", "create", "patch", "edit", "delete"]},
            "name": {"type": "string",
                     "description": "lowercase letters, digits and hyphens, at most 64 characters"},
            "description": {"type": "string", "description": "one line: when to use the skill"},
            "body": {"type": "string", "description": "Markdown body of SKILL.md (create, edit)"},
            "section": {"type": "string", "description": "section title, e.g. Pitfalls (patch)"},
            "content": {"type": "string", "description": "the section's new text (patch)"},
            "file": {"type": "string", "description": "a supporting file inside the skill (view)"},
            "scope": {"type": "string", "enum": ["project", "global"],
                      "description": "where a new or changed skill lives (default: this project)"},
        },
        "required": ["action"],
    },
}

TOOLS = (MEMORY_TOOL, SKILL_TOOL, search_tool.TOOL)
TOOL_NAMES = tuple(t["name"] for t in TOOLS)


def _fail(error: str, **extra) -> dict:
    return {"success": False, "error": error, **extra}


def _string_args(args: dict, required: tuple, optional: tuple = ()) -> tuple[dict, str | None]:
    """The named arguments as strings, or an error saying which one is wrong."""
    out = {}
    for key in required:
        value = args.get(key)
        if not isinstance(value, str) or not value.strip():
            return {}, f"'{key}' is required and must be a non-empty string"
        out[key] = value
    for key in optional:
        value = args.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            return {}, f"'{key}' must be a string"
        out[key] = value
    return out, None


def run_tool(tacit, name: str, args, project: Project | None = None) -> dict:
    """One tool call through ``tacit`` (acting as the agent or child that called it) in ``project``:
    always a result dict (bad input and store errors come back as reported, never raised)."""
    if not isinstance(args, dict):
        return _fail("arguments must be a JSON object")
    if name not in TOOL_NAMES:
        return _fail(f"unknown tool {name!r}; tacit provides {', '.join(TOOL_NAMES)}")
    if name == search_tool.NAME:  # reads only: no actor needed
        return search_tool.run(tacit.cfg, args, project.root if project else None)
    with tacit.acting():
        return _memory(tacit, args, project) if name == "memory" else _skill(tacit.cfg, args, project)


def _memory(tacit, args: dict, project: Project | None) -> dict:
    action, target = args.get("action"), args.get("target", "memory")
    if target not in MEMORY_TARGETS:
        return _fail(f"target must be one of {', '.join(MEMORY_TARGETS)}")
    required = {"add": ("content",), "replace": ("old_text", "content"), "remove": ("old_text",)}.get(str(action))
    if required is None:
        return _fail("action must be one of add, replace, remove")
    values, error = _string_args(args, required)
    if error:
        return _fail(error)
    if action == "add":
        return add_entry(tacit, target, values["content"], project=project)
    if action == "replace":
        return tacit.memory(project).replace(target, values["old_text"], values["content"])
    return tacit.memory(project).remove(target, values["old_text"])


# skill action -> (required, optional) string arguments
SKILL_ARGS = {"view": (("name",), ("file",)), "create": (("name", "description"), ("body",)),
              "patch": (("name", "section", "content"), ()), "edit": (("name",), ("description", "body")),
              "delete": (("name",), ())}


def _skill(cfg, args: dict, project: Project | None) -> dict:
    action = args.get("action")
    skills = ScopedSkills(cfg, project)
    if action == "list":
        return skills.list()
    scope = args.get("scope")
    if action != "view" and scope is not None and scope not in skills.scopes():
        return _fail(f"scope must be one of {', '.join(skills.scopes())}")
    if action not in SKILL_ARGS:
        return _fail("action must be one of list, view, create, patch, edit, delete")
    values, error = _string_args(args, *SKILL_ARGS[action])
    if error:
        return _fail(error)
    if action == "view":
        return skills.view(values["name"], file=values.get("file"))
    store = skills.store(scope)
    if action == "create":
        return store.create(values["name"], values["description"], values.get("body"))
    if action == "patch":
        return store.patch(values["name"], values["section"], values["content"])
    if action == "delete":
        return store.delete(values["name"])
    if "description" not in values and "body" not in values:
        return _fail("edit needs a new description and/or body")
    return store.edit(values["name"], description=values.get("description"), body=values.get("body"))

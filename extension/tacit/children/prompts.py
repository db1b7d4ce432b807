"""Child-agent prompts, rendered from the jinja2 templates in ``prompts/``.

Design notes: docs/design/children.md#tacitchildrenprompts"""

from __future__ import annotations

import jinja2

from tacit.commandline import tacit_display
from tacit.hosts import spec as host_specs
from tacit.projects import project_for
from tacit.resources import resource_dir
from tacit.safety.context_gate import ENTRY_SEPARATOR, MEMORY, NOTICE, SKILL_NAME, Block, gate_context
from tacit.stores.memory import MemoryStore
from tacit.stores.skill_gate import SkillGate
from tacit.stores.skill_scopes import ScopedSkills

LEFT_OUT_ENTRY = "(entry {number} left out of this prompt: {reason} [{pattern_id}]; leave it as it is)"
UNSAFE_PROJECT = "(a project whose folder name tacit does not show)"


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("prompts"))),
        autoescape=False,  # prompts are plain text/markdown, not HTML
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def job_variables(cfg, job: dict) -> dict:
    """Everything a child template may use for this job: its project's scopes, entries and usage."""
    project = project_for(job.get("cwd"), home=cfg.env.get("HOME"))
    store = MemoryStore(cfg, project)
    scopes = []
    for name in store.targets():
        entries = store.entries(name)
        scopes.append({"name": name, "title": store.prompt_header(name), "file": str(store.path_for(name)),
                       "entries": entries, "usage": store.usage(name, entries)["text"]})
    gate_scopes(scopes)
    try:  # the same gate as the session context: a forged category folder name is never printed
        skill_index = ScopedSkills(cfg, project).index_text(gate=SkillGate())
    except Exception:  # noqa: BLE001 — a broken skills folder must not stop a save
        skill_index = ""
    variables = {
        "host": job.get("host") or cfg.host or "",
        "tacit": tacit_display(),
        "project": None if project is None else _shown_project(project),
        "scopes": scopes,
        "skill_index": skill_index,
        "recent": [],
        "highlighted": [],
        "targets": [s["name"] for s in scopes if s["name"] != "team"],
        "reason": "",
        "why": "",
        "correction": "",
        "earlier_corrections": [],
        "prev_assistant": "",
        "user_text": "",
        "assistant_text": "",
        "tool_calls": [],
        "tool_names": [],
        "tool_call_count": 0,
        "lines": [],  # the rule reader's instruction-file lines and lessons
        "lessons": [],
    }
    variables.update(job.get("variables", {}))
    variables["targets"] = [store.resolve(t) for t in variables["targets"]]
    titles = {s["name"]: s["title"] for s in scopes}
    variables["targets_text"] = " and ".join(titles.get(t, t) for t in variables["targets"])
    variables["save_guide"] = _save_guide(variables)
    return variables


def _save_guide(variables: dict) -> str:
    """How this host's child saves with its own tools, rendered; "" when it uses tacit's CLI."""
    spec = host_specs.get(variables["host"])
    child = spec.load("child") if spec is not None else None
    guide = getattr(child, "SAVE_GUIDE", "")
    return environment().from_string(guide).render(**variables) if guide else ""


def render_job_prompt(cfg, job: dict) -> str:
    return environment().get_template(f"{job['kind']}.md.j2").render(**job_variables(cfg, job))


def gate_scopes(scopes: list) -> None:
    """Every scope's entries through the context gate, together; a refused entry is replaced by a
    line saying so (the child keeps track of the order)."""
    gated = gate_context([Block(MEMORY, scope["name"], ENTRY_SEPARATOR.join(scope["entries"]), scope["name"])
                          for scope in scopes if scope["entries"]])
    refused: dict = {}
    for item in gated.left_out:
        name, _, number = item.label.rpartition(" entry ")
        if number.isdigit():
            refused[(name, int(number))] = item
    for scope in scopes:
        scope["entries"] = [
            LEFT_OUT_ENTRY.format(number=n, reason=refused[(scope["name"], n)].reason,
                                  pattern_id=refused[(scope["name"], n)].pattern_id)
            if (scope["name"], n) in refused else entry
            for n, entry in enumerate(scope["entries"], 1)]


def _shown_project(project) -> dict:
    """The project's name and root, unless either fails the gate (a folder name anyone can choose)."""
    gated = gate_context([Block(SKILL_NAME, "project", project.name), Block(NOTICE, "root", project.root)])
    if gated.left_out:
        return {"name": UNSAFE_PROJECT, "root": UNSAFE_PROJECT}
    return {"name": project.name, "root": project.root}

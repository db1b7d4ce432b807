"""Hermes's child (``hermes -z``): its prompt comes from stdin through its
own entry point (never on the command line), its usage from
``--usage-file``, its reply is plain text. Its spec's ``child``
(``tacit.children.output``, ``tacit.children.commands``); and its ``after_child``:
the project entries it saved with its own ``memory`` tool, filed."""

from __future__ import annotations

import json

from tacit.children.budget import Spend, reported
from tacit.children.commands import PROMPT_SHOWN, Command, program, script_python
from tacit.children.output import USAGE_FILE_CAP
from tacit.fsutil import read_tail
from tacit.stores import history
from tacit.stores.memory import MemoryStore

# how its child saves, in the child's prompt (prompts/_tools.md.j2; a jinja2 template of the same variables)
SAVE_GUIDE = (
    'Use your `memory` tool: target "user" for the user profile, target "memory" for the global notes.\n'
    '{%- if project %} For {{ project.name }}\'s memory use target "memory" too and begin the entry with\n'
    '`[{{ project.name }}] ` (tacit files it under the project when you finish).{% endif %}\n'
    'Use your `skill_manage` tool for skills; create one with category "tacit", the folder of skills every\n'
    'agent of the user reads.')
# its entry point, with the prompt from stdin in sys.argv
STDIN_SHIM = ("import sys\n"
              "from hermes_cli.main import main\n"
              "sys.argv = ['hermes', '--oneshot=' + sys.stdin.read(), *sys.argv[1:]]\n"
              "sys.exit(main())\n")


def command(cfg, shown: list[str], prompt: str) -> Command:
    """The default command run through Hermes's interpreter, the prompt on stdin."""
    python = script_python(program(cfg, shown[0]))
    if python is None:
        raise RuntimeError("the hermes command is not a Python script: its prompt cannot be passed "
                           "on stdin, so no child runs")
    rest = [a for a in shown[1:] if a not in ("-z", PROMPT_SHOWN)]
    argv = [python, "-c", STDIN_SHIM, *rest]
    return Command(argv, prompt, shown, "stdin", ["<hermes entry point>" if a == STDIN_SHIM else a for a in argv])


def usage(stdout: bytes, usage_file) -> dict | None:
    try:
        if not usage_file.exists():
            return None
        found = json.loads(read_tail(usage_file, USAGE_FILE_CAP).decode("utf-8", "replace"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def spend(cfg, usage: dict, model: str) -> Spend | None:
    known = str(usage.get("cost_status") or "").lower() not in ("unknown", "none", "")
    return reported(cfg, str(usage.get("model") or model or ""), usage.get("estimated_cost_usd") if known else None,
                    usage.get("input_tokens"), usage.get("output_tokens"), usage.get("cache_read_tokens"),
                    usage.get("cache_write_tokens"), tokens=usage.get("total_tokens"))


def reply(stdout: str) -> str | None:
    return None  # plain text


def tag_for(project) -> str:
    return f"[{project.name}] "


def file_tagged(cfg, project, actor: history.Actor) -> list[str]:
    """Move the tagged global entries into ``project``'s memory; the entries moved. Run before the
    integrity check, as one change (docs/design/hosts.md#tacithostshermeschild)."""
    if project is None:
        return []
    store = MemoryStore(cfg, project, actor=actor)
    tag = tag_for(project)
    tagged = [e for e in store.entries("global") if e.startswith(tag) and e[len(tag):].strip()]
    moved = []
    for entry in tagged:
        if store.add("project", entry[len(tag):].strip())["success"]:
            store.take_unrecorded("global", lambda e, entry=entry: e == entry)
            moved.append(entry[len(tag):].strip())
    return moved

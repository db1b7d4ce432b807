"""The learner plugin: engine events → observations and habit action events.

``register(engine)`` subscribes background handlers (never a delay to the
turn): every ``tool_call`` and ``command`` becomes one observation (run
through the five usage-pattern rules) and one habit action event; habits are
re-mined at a turn end when the last mining is older than 15 minutes, and at
session end.

Design decisions
- **What an automatic observation holds.** plugin = the tool name or
  ``/command``; action = ``tool_call`` | ``command``; context = ``run_hour``,
  ``ok``, and the entities tacit can see without reading content: the project
  (the working folder's name), the file a tool touched, the program a shell
  command ran, and a package it installed. The primary entity is the most
  specific one (package > file > command > project). Never the command line,
  arguments or file contents: they may hold secrets.
- **Never in the way.** A locked ledger (busy beyond its timeout) or a
  corrupt one (moved aside and recreated by the Ledger) is logged and the
  event skipped; nothing is raised into the engine. With ``learning_enabled``
  off, nothing is recorded.
- **Time is the event's.** Journal replays (hook hosts) happen later than the
  events, so observations and action events carry ``event.ts``.
- **Notices wait in the ledger.** "Memory adapted: …" created here is stored
  undelivered (background effects cannot reach the user); a host shows it at
  its next foreground point with ``tacit.learn.lifecycle.take_notices``.
"""

from __future__ import annotations

import os

PLUGIN_NAME = "tacit.learn.observe"

_FILE_ARGS = ("file_path", "path", "notebook_path", "filename", "file")
_INSTALLERS = {
    "pip": ("install",), "pip3": ("install",), "uv": ("add", "pip"), "poetry": ("add",),
    "npm": ("install", "i", "add"), "pnpm": ("add", "install", "i"), "yarn": ("add",),
    "bun": ("add", "install", "i"), "cargo": ("add", "install"), "go": ("get", "install"),
    "gem": ("install",), "brew": ("install",), "apt": ("install",), "apt-get": ("install",),
    "conda": ("install",), "composer": ("require",),
}
_OPTIONS_WITH_VALUE = {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i",
                       "--index-url", "--extra-index-url", "-t", "--target", "--prefix",
                       "--registry", "-f", "--find-links"}


def register(engine) -> None:
    engine.on("tool_result", on_tool_call, name="learn.observe.tool_call", background=True)
    engine.on("command", on_command, name="learn.observe.command", background=True)
    engine.on("turn_end", on_turn_end, name="learn.habits.mine", background=True, idempotent=True)
    engine.on("session_shutdown", on_session_shutdown, name="learn.habits.mine_final",
              background=True, idempotent=True)


# ---------------------------------------------------------------------------
# Entities tacit can see
# ---------------------------------------------------------------------------
def installed_package(command) -> str | None:
    """``pip install -U requests==2.0`` → ``requests`` (first package only)."""
    if not isinstance(command, str):
        return None
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for i, word in enumerate(words):
        verbs = _INSTALLERS.get(os.path.basename(word))
        if not verbs:
            continue
        rest = words[i + 1:]
        if rest[:1] == ["pip"] and word == "uv":
            rest = rest[1:]  # uv pip install
        if not rest or rest[0] not in verbs:
            continue
        skip_next = False
        for arg in rest[1:]:
            if arg in ("&&", "||", ";", "|"):
                return None
            if skip_next:
                skip_next = False
                continue
            if arg in _OPTIONS_WITH_VALUE:
                skip_next = True
                continue
            if (arg.startswith("-") or arg == "." or ("/" in arg and not arg.startswith("@"))
                    or arg.endswith((".txt", ".toml", ".cfg", ".lock", ".json"))):
                continue
            import re

            name = re.split(r"[=<>!~\[;]", arg, maxsplit=1)[0]
            if name.startswith("@"):  # npm scope: @scope/pkg@1.2
                name = "@" + name[1:].split("@", 1)[0]
            else:
                name = name.split("@", 1)[0]
            return name[:100] or None
    return None


def tool_context(event) -> dict:
    """The context of an automatic tool-call observation."""
    from tacit.learn.habits import SHELL_TOOLS, shell_program

    args = event.args if isinstance(event.args, dict) else {}
    context: dict = {"ok": bool(event.ok)}
    if event.cwd:
        context["project"] = os.path.basename(os.path.normpath(str(event.cwd)))[:100]
    for name in _FILE_ARGS:
        value = args.get(name)
        if isinstance(value, str) and value.strip():
            path = value.strip()
            if event.cwd and os.path.isabs(path):
                try:
                    rel = os.path.relpath(path, str(event.cwd))
                    if not rel.startswith(".."):
                        path = rel
                except ValueError:
                    pass
            context["file"] = path[:200]
            break
    if str(event.name).lower() in SHELL_TOOLS:
        command = args.get("command") or args.get("cmd")
        program = shell_program(command)
        if program:
            context["command"] = program
        package = installed_package(command)
        if package:
            context["package"] = package
    for entity_type in ("package", "file", "command", "project"):
        if context.get(entity_type):
            context["entity_type"], context["entity_value"] = entity_type, context[entity_type]
            break
    return context


# ---------------------------------------------------------------------------
# Handlers
# ---------------------------------------------------------------------------
def _hour(ts: float) -> int:
    import time

    return time.localtime(ts).tm_hour


def observe_event(ledger, cfg, event) -> dict | None:
    """Record one ``tool_call`` or ``command`` event. Returns the
    observation result, or None when the event is not learnable."""
    from tacit.learn import habits, patterns

    if event.kind == "tool_result":
        plugin, action, source = str(event.name or "tool"), "tool_call", "tool"
        context = tool_context(event)
        habit_action = habits.action_for_tool(event.name, event.args)
    elif event.kind == "command":
        plugin = habits.action_for_command(event.name)
        if plugin == "/":
            return None
        action, source, habit_action = "command", "command", plugin
        context = {}
        if event.cwd:
            context["project"] = os.path.basename(os.path.normpath(str(event.cwd)))[:100]
    else:
        return None
    context["run_hour"] = _hour(event.ts)
    result = patterns.record_observation(ledger, cfg, plugin, action, context,
                                         session_id=event.session_id, source=source, now=event.ts)
    habits.record_action(ledger, event.session_id, habit_action, event.ts)
    return result


def _guarded(where: str, ctx, work) -> None:
    if not ctx.cfg.learning_enabled:
        return
    from tacit.learn import guarded

    # ctx.ledger opens the ledger: inside the guard, so a corrupt one is handled
    guarded(where, ctx.cfg, lambda: work(ctx.ledger))


def on_tool_call(event, ctx):
    return _guarded("learn.observe.tool_call", ctx, lambda led: observe_event(led, ctx.cfg, event))


def on_command(event, ctx):
    return _guarded("learn.observe.command", ctx, lambda led: observe_event(led, ctx.cfg, event))


def on_turn_end(event, ctx):
    from tacit.learn import habits

    return _guarded("learn.habits.mine", ctx,
                    lambda led: habits.mine_if_stale(led, ctx.cfg, now=event.ts))


def on_session_shutdown(event, ctx):
    from tacit.learn import habits

    return _guarded("learn.habits.mine", ctx, lambda led: habits.mine(led, ctx.cfg, now=event.ts))

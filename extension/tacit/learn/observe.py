"""The tool-call learner: ``tool_result`` and ``command`` events → observations and habits.

Design notes: docs/design/learn.md#tacitlearnobserve"""

from __future__ import annotations

import os
import re
import time
from contextlib import suppress
from dataclasses import dataclass, field, replace

from tacit.learn import habits, lifecycle, patterns, writing
from tacit.learn.habits import Step
from tacit.learn.patterns import Observation, make_observation
from tacit.stores import habits as habit_store
from tacit.stores import observations
from tacit.stores.observations import RuleEvidence

PLUGIN_NAME = "tacit.learn.observe"
WORKFLOW_EVIDENCE = 50

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
_VERSION_SPEC = re.compile(r"[=<>!~\[;]")


def register(engine) -> None:
    engine.on("tool_result", on_event, name="learn.observe.tool_result", background=True)
    engine.on("command", on_event, name="learn.observe.command", background=True)


# Entities tacit can see
def installed_package(command, words: list[str] | None = None) -> str | None:
    """``pip install -U requests==2.0`` → ``requests`` (first package only).
    ``words``: the line already split by ``habits.shell_words``."""
    words = habits.shell_words(command) if words is None else words
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
            name = _VERSION_SPEC.split(arg, maxsplit=1)[0]
            name = name[:1] + name[1:].split("@", 1)[0]  # "pkg@1.2"; an npm scope's "@" leads: "@scope/pkg@1.2"
            return name[:100] or None
    return None


def _project(cwd) -> str | None:
    return os.path.basename(os.path.normpath(str(cwd)))[:100] if cwd else None


def tool_context(event) -> dict:
    """The context of an automatic tool-call observation."""
    args = event.args if isinstance(event.args, dict) else {}
    context: dict = {"ok": bool(event.ok)}
    project = _project(event.cwd)
    if project:
        context["project"] = project
    for name in _FILE_ARGS:
        value = args.get(name)
        if isinstance(value, str) and value.strip():
            path = value.strip()
            if event.cwd and os.path.isabs(path):
                with suppress(ValueError):
                    rel = os.path.relpath(path, str(event.cwd))
                    if not rel.startswith(".."):
                        path = rel
            context["file"] = path[:200]
            break
    if str(event.name).lower() in habits.SHELL_TOOLS:
        command = args.get("command") or args.get("cmd")
        words = habits.shell_words(command)  # split once: the program and the package come from it
        program = habits.shell_program(command, words)
        if program:
            context["command"] = program
        package = installed_package(command, words)
        if package:
            context["package"] = package
    for entity_type in ("package", "file", "command", "project"):
        if context.get(entity_type):
            context["entity_type"], context["entity_value"] = entity_type, context[entity_type]
            break
    return context


# Recording (inside the caller's write transaction)
@dataclass(slots=True)
class Recorded:
    """What one observation or action changed."""

    observation_id: int | None = None
    created: list = field(default_factory=list)
    reinforced: list = field(default_factory=list)
    notices: list = field(default_factory=list)  # [lifecycle.Applied]
    deleted: list = field(default_factory=list)  # keys removed by the day's decay

    def add(self, changes: lifecycle.Changes, applied: list) -> None:
        self.created += changes.created
        self.reinforced += changes.reinforced
        self.notices += applied

    def as_dict(self) -> dict:
        return {"observation_id": self.observation_id, "created": self.created, "reinforced": self.reinforced,
                "applied": [n.key for n in self.notices],
                "notices": [{"key": n.key, "text": n.text} for n in self.notices],
                "deleted": self.deleted}


def record(conn, cfg, obs: Observation, *, announce: bool = True) -> Recorded:
    """Store one observation, run the day's maintenance if due and the five
    rules, and apply what reached the threshold."""
    out = Recorded(deleted=lifecycle.run_daily_if_due(conn, cfg, obs.at))
    obs = replace(obs, id=observations.insert(conn, obs))
    out.observation_id = obs.id
    changes = lifecycle.advance(conn, patterns.evaluate(obs, RuleEvidence(conn)), obs.at)
    out.add(changes, lifecycle.apply(conn, cfg, changes.to_apply, obs.at, announce=announce))
    return out


def record_observation(ledger, cfg, plugin, action, context=None, *, session_id=None, source="explicit",
                       now: float | None = None, announce: bool = True) -> dict:
    """``tacit observe``: validate (``ObservationError``), then ``record`` in
    one write transaction. Returns ``Recorded.as_dict()``."""
    obs = make_observation(plugin, action, context, session_id=session_id, source=source, now=now)
    with ledger.write() as conn:
        return record(conn, cfg, obs, announce=announce).as_dict()


def record_action(conn, cfg, session_id: str, action: str, ts: float) -> Recorded:
    """One habit action: store it, count the patterns it completes, and
    propose suggestion-grade command habits as workflow memories."""
    session_id, action = str(session_id), str(action)[:200]
    previous = [Step(a, t) for a, t in habit_store.last_actions(conn, session_id)]
    habit_store.insert_action(conn, session_id, action, ts)
    out = Recorded()
    proposals = []
    for occurrence in habits.completed(previous, Step(action, ts), float(cfg.sequential_window_seconds)):
        new_session = habit_store.count_occurrence(conn, session_id, occurrence)
        # the proposal's evidence is the session: only a session new to the pattern can move it
        if new_session and any(step.startswith("/") for step in occurrence.steps):
            proposal = _workflow_proposal(conn, cfg, session_id, occurrence.pattern)
            if proposal is not None:
                proposals.append(proposal)
    if proposals:
        changes = lifecycle.advance(conn, proposals, ts)
        out.add(changes, lifecycle.apply(conn, cfg, changes.to_apply, ts))
    return out


def _workflow_proposal(conn, cfg, session_id: str, pattern: str):
    habit = _habit(habit_store.pattern_row(conn, pattern), cfg)
    if habit is None or not habits.becomes_workflow(habit):
        return None
    sessions = habit_store.sessions_of(conn, pattern, WORKFLOW_EVIDENCE)
    return patterns.workflow_proposal(
        patterns.workflow_key(habit.steps), habit.steps, source="habits", ref=f"session:{session_id}",
        session_key=session_id, evidence=[(f"session:{s}", s) for s in sessions], create=True)


def observe_event(conn, cfg, event) -> Recorded | None:
    """Record one ``tool_result`` or ``command`` event (observation + habit
    action). None when the event is not learnable."""
    if event.kind == "tool_result":
        plugin, action, source = str(event.name or "tool"), "tool_call", "tool"
        context = tool_context(event)
        habit_action = habits.action_for_tool(event.name, program=context.get("command") or "")
    elif event.kind == "command":
        plugin = habits.action_for_command(event.name)
        if plugin == "/":
            return None
        action, source, habit_action = "command", "command", plugin
        project = _project(event.cwd)
        context = {"project": project} if project else {}
    else:
        return None
    context["run_hour"] = time.localtime(event.ts).tm_hour
    obs = make_observation(plugin, action, context, session_id=event.session_id, source=source, now=event.ts)
    out = record(conn, cfg, obs)
    habit = record_action(conn, cfg, event.session_id, habit_action, event.ts)
    out.add(habit, habit.notices)  # a Recorded has a Changes' created and reinforced
    return out


# The handler
def on_event(event, ctx):
    """A ``tool_result`` or ``command`` event learned from (in the background)."""
    if not ctx.cfg.learning_enabled:
        return None

    writing(f"learn.observe.{event.kind}", ctx, lambda conn: observe_event(conn, ctx.cfg, event))
    return None


# Habits as read (`tacit habits`)
def _habit(row, cfg) -> habits.Habit | None:
    if row is None:
        return None
    steps, count, gap_sum, sessions, considered, first, last = row
    return habits.make_habit(steps, count, gap_sum, sessions, considered, first, last, int(cfg.habit_min_frequency))


def all_habits(conn, cfg) -> list[habits.Habit]:
    return habits.order(h for h in (_habit(r, cfg) for r in habit_store.pattern_rows(conn)) if h)


def list_habits(conn, cfg) -> list[dict]:
    return [h.as_dict() for h in all_habits(conn, cfg) if h.status == "habit"]


def suggest(conn, cfg, current: str) -> list[dict]:
    """What usually follows ``current`` (weight ≥ 0.8, seen ≥ 5 times)."""
    rows = habit_store.pattern_rows(conn, first_step=str(current or "").strip())
    return habits.suggestions((h for h in (_habit(r, cfg) for r in rows) if h), current)


def habit_status(conn, cfg) -> dict:
    events, sessions, oldest = habit_store.event_stats(conn)
    found = all_habits(conn, cfg)
    emerging = sorted((h for h in found if h.status == "emerging"), key=lambda h: (-h.count, h.pattern))
    return {"events": events, "sessions": sessions, "oldest_event": oldest,
            "window_seconds": cfg.sequential_window_seconds, "min_frequency": cfg.habit_min_frequency,
            "retention_days": cfg.habit_retention_days,
            "habits": [h.as_dict() for h in found if h.status == "habit"],
            "emerging": [h.as_dict() for h in emerging]}


def clear_habits(conn) -> dict:
    events, patterns_deleted = habit_store.clear(conn)
    return {"success": True, "events_deleted": events, "habits_deleted": patterns_deleted,
            "message": f"Cleared {events} action events and {patterns_deleted} counted patterns."}


def rebuild_habits(conn, cfg, now: float | None = None) -> dict:
    """Recount every pattern from the action events in the retention window
    with the current settings (after ``sequential_window_seconds`` changed)."""
    now = time.time() if now is None else now
    since = now - float(cfg.habit_retention_days) * 86400.0
    habit_store.clear_counters(conn)
    window = float(cfg.sequential_window_seconds)
    current, previous, counted = object(), [], 0
    for session_id, action, ts in list(habit_store.ordered_events(conn, since)):
        if session_id != current:
            current, previous = session_id, []
        habit_store.insert_action_session(conn, action, session_id, ts)
        step = Step(action, ts)
        for occurrence in habits.completed(previous, step, window):
            habit_store.count_occurrence(conn, session_id, occurrence)
            counted += 1
        previous = [*previous[-1:], step]
    return {"success": True, "occurrences": counted, "patterns": len(habit_store.pattern_rows(conn))}

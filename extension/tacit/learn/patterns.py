"""Observations (docs/learning.md) and the five usage-pattern rules — the model, no SQL.

Design notes: docs/design/learn.md#tacitlearnpatterns"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Protocol

from tacit.learn.habits import Step, completed
from tacit.learn.lifecycle import Proposal, slugify

# Thresholds and base confidences from the issue.
CATEGORY_MIN = 3          # rule 1
CATEGORY_CONFIDENCE = 20
OVERRIDE_MIN = 2          # rule 2
OVERRIDE_CONFIDENCE = 35
ENTITY_CONFIDENCE = 30    # rule 3 (no threshold)
SEQUENCE_MIN_SESSIONS = 3  # rule 4
SEQUENCE_CONFIDENCE = 20
SEQUENCE_MAX_GAP = 2 * 3600.0
TEMPORAL_MIN = 5          # rule 5
TEMPORAL_CONFIDENCE = 20
TEMPORAL_TTL = 90 * 86400.0
EVIDENCE_LIMIT = 50       # evidence rows recorded when a memory is created

SOURCES = ("explicit", "command", "tool")
TOOL_FACT_ENTITY_TYPES = ("package",)
MAX_FIELD = 200

_STRING_FIELDS = ("company", "input_type", "output_type", "category", "edit_description",
                  "entity_type", "entity_value")


class ObservationError(ValueError):
    """The observation is malformed (clear message; nothing was stored)."""


# Observations
def _as_bool(name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "false", "no", "0", ""):
        return value.strip().lower() in ("true", "yes", "1")
    raise ObservationError(f"{name} must be true or false, got {value!r}")


def _run_hour(hour) -> int:
    try:
        if isinstance(hour, bool) or float(hour) != int(float(hour)):
            raise ValueError
        hour = int(float(hour))
    except (TypeError, ValueError, OverflowError):
        raise ObservationError(f"run_hour must be a whole hour 0-23, got {hour!r}") from None
    if not 0 <= hour <= 23:
        raise ObservationError(f"run_hour must be between 0 and 23, got {hour}")
    return hour


def normalise_context(context, now: float) -> dict:
    """Validate and type a context (dict or JSON text). ``run_hour`` defaults
    to the local hour of ``now``. Unknown fields are kept as given."""
    if context is None or context == "":
        context = {}
    if isinstance(context, (str, bytes)):
        try:
            context = json.loads(context)
        except ValueError as exc:
            raise ObservationError(f"context is not valid JSON: {exc}") from None
    if not isinstance(context, dict):
        raise ObservationError(f"context must be a JSON object, got {type(context).__name__}")
    out = dict(context)
    for name in _STRING_FIELDS:
        value = out.get(name)
        if value is None:
            out.pop(name, None)
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise ObservationError(f"{name} must be a string, got {value!r}")
        value = " ".join(str(value).split())[:MAX_FIELD]
        if value:
            out[name] = value
        else:
            out.pop(name)
    priority = out.get("priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, (str, int, float))):
        raise ObservationError(f"priority must be a string or a number, got {priority!r}")
    if "user_edited" in out:
        out["user_edited"] = _as_bool("user_edited", out["user_edited"])
    hour = out.get("run_hour")
    out["run_hour"] = time.localtime(now).tm_hour if hour is None else _run_hour(hour)
    return out


@dataclass(frozen=True, slots=True)
class Observation:
    """One observation with its typed fields (slugs for matching, display text for sentences); built
    by ``make_observation``. ``id`` is set once it is stored (``dataclasses.replace``)."""

    plugin: str
    action: str
    context: dict
    session_id: str | None
    at: float
    source: str
    entity_text: str | None = None
    entity_type: str | None = None
    entity: str | None = None
    category_text: str | None = None
    category: str | None = None
    user_edited: bool = False
    edit_text: str | None = None
    edit_slug: str | None = None
    run_hour: int | None = None
    id: int | None = None

    @property
    def ref(self) -> str:
        return f"obs:{self.id}"

    @property
    def session_key(self) -> str:
        return self.session_id or self.ref


def make_observation(plugin, action, context=None, *, session_id=None, source="explicit",
                     now: float | None = None) -> Observation:
    """Validate inputs into an ``Observation`` (raises ``ObservationError``)."""
    now = time.time() if now is None else float(now)
    plugin = " ".join(str(plugin or "").split())[:MAX_FIELD]
    action = " ".join(str(action or "").split())[:MAX_FIELD]
    if not plugin:
        raise ObservationError("plugin is required (what ran: a command, skill, tool or plugin id)")
    if not action:
        raise ObservationError("action is required (what it did, e.g. triage_email)")
    if source not in SOURCES:
        raise ObservationError(f"source must be one of {SOURCES}")
    session_id = str(session_id).strip()[:MAX_FIELD] if session_id else None
    context = normalise_context(context, now)
    if context.get("entity_value"):
        entity_text, entity_type = context["entity_value"], context.get("entity_type") or "entity"
    elif context.get("company"):
        entity_text, entity_type = context["company"], "company"
    else:
        entity_text, entity_type = None, None
    category, edit = context.get("category"), context.get("edit_description")
    return Observation(plugin, action, context, session_id or None, now, source,
                       entity_text=entity_text, entity_type=entity_type,
                       entity=slugify(entity_text) if entity_text else None,
                       category_text=category, category=slugify(category) if category else None,
                       user_edited=bool(context.get("user_edited")), edit_text=edit,
                       edit_slug=slugify(edit, 60) if edit else None, run_hour=context.get("run_hour"))


# What the rules ask the ledger
class Evidence(Protocol):
    """Answers about the stored observations (``tacit.stores.observations``). ``obs`` is already
    stored: the latest-N lookups include it. ``record_sequence`` is the one write: rule 4 keeps its
    evidence incrementally instead of re-scanning sessions."""

    def known(self, key: str) -> bool: ...

    def same_category(self, obs: Observation, limit: int) -> list[tuple[str, str]]: ...

    def same_edit(self, obs: Observation, limit: int) -> list[tuple[str, str]]: ...

    def entity_mentioned(self, obs: Observation) -> bool: ...

    def previous_runs(self, obs: Observation, limit: int) -> list[tuple[str, float]]: ...

    def record_sequence(self, key: str, obs: Observation) -> None: ...

    def sessions_with(self, key: str, limit: int) -> list[str]: ...

    def same_hour(self, obs: Observation, limit: int) -> list[tuple[str, str]]: ...


def evaluate(obs: Observation, evidence: Evidence) -> list[Proposal]:
    """Proposals from all five rules for a just-stored observation."""
    rules = (rule_categorization, rule_override, rule_new_entity, rule_sequence, rule_temporal)
    return [proposal for rule in rules for proposal in rule(obs, evidence)]


def _threshold(evidence: Evidence, key: str, lookup, minimum: int) -> tuple[bool, tuple]:
    """(create?, evidence rows): the expensive count runs only for a new key."""
    if evidence.known(key):
        return False, ()
    refs = lookup()
    return (True, tuple(refs)) if len(refs) >= minimum else (False, ())


def plugin_key(plugin: str) -> str:
    """The plugin as it appears in keys: its own spelling and case (``P01``), a leading ``/``
    dropped, anything but letters, digits, ``.``, ``_``, ``-`` turned into ``-``."""
    key = re.sub(r"[^\w.-]+", "-", str(plugin).lstrip("/"), flags=re.UNICODE).strip("-")[:40]
    return key or "plugin"


def rule_categorization(obs: Observation, evidence: Evidence) -> list[Proposal]:
    """1. Same plugin, same entity, same category ≥ 3 times → pattern."""
    if not (obs.entity and obs.category):
        return []
    key = f"{plugin_key(obs.plugin)}-{obs.entity}-{obs.category}"
    create, refs = _threshold(evidence, key, lambda: evidence.same_category(obs, EVIDENCE_LIMIT), CATEGORY_MIN)
    kind_of_input = obs.context.get("input_type")
    if kind_of_input:
        noun = kind_of_input if kind_of_input.endswith("s") else kind_of_input + "s"
        content = (f"{noun[:1].upper()}{noun[1:]} from {obs.entity_text} are typically "
                   f"{obs.category_text} ({obs.plugin}).")
    else:
        content = f"In {obs.plugin}, {obs.entity_text} is typically {obs.category_text}."
    return [Proposal(key, kind="pattern", source="rule1-categorization", content=content,
                     adaptation=f"Now treating {obs.entity_text} as {obs.category_text} in {obs.plugin}",
                     confidence=CATEGORY_CONFIDENCE, plugin=obs.plugin, entity=obs.entity,
                     data={"category": obs.category_text, "entity_type": obs.entity_type},
                     ref=obs.ref, session_key=obs.session_key, evidence=refs, create=create)]


def rule_override(obs: Observation, evidence: Evidence) -> list[Proposal]:
    """2. Same plugin, same edit, user_edited true ≥ 2 times → preference."""
    if not (obs.user_edited and obs.edit_slug):
        return []
    key = f"pref-{plugin_key(obs.plugin)}-{obs.edit_slug}"
    create, refs = _threshold(evidence, key, lambda: evidence.same_edit(obs, EVIDENCE_LIMIT), OVERRIDE_MIN)
    return [Proposal(key, kind="preference", source="rule2-override", target="user",
                     content=f"When {obs.plugin} produces a result, the user prefers: {obs.edit_text}.",
                     adaptation=f"Now applying your usual edit to {obs.plugin} results: {obs.edit_text}",
                     confidence=OVERRIDE_CONFIDENCE, plugin=obs.plugin, data={"edit_description": obs.edit_text},
                     ref=obs.ref, session_key=obs.session_key, evidence=refs, create=create)]


def rule_new_entity(obs: Observation, evidence: Evidence) -> list[Proposal]:
    """3. An entity no memory mentions → fact (no threshold)."""
    if not obs.entity:
        return []
    if obs.source == "tool" and obs.entity_type not in TOOL_FACT_ENTITY_TYPES:
        return []
    key = f"entity-{obs.entity}"
    create = not evidence.known(key) and not evidence.entity_mentioned(obs)
    article = "an" if obs.entity_type[:1].lower() in "aeiou" else "a"
    return [Proposal(key, kind="fact", source="rule3-new-entity",
                     content=f"{obs.entity_text} is {article} {obs.entity_type} the user works with "
                             f"(seen in {obs.plugin}).",
                     adaptation=f"Now remembering {obs.entity_text} as {article} {obs.entity_type} you work with",
                     confidence=ENTITY_CONFIDENCE, plugin=obs.plugin, entity=obs.entity,
                     data={"entity_type": obs.entity_type, "entity": obs.entity_text},
                     ref=obs.ref, session_key=obs.session_key, create=create)]


def sequences(obs: Observation, previous: list[tuple[str, float]]) -> list[tuple[str, ...]]:
    """The 2- and 3-step sequences ``obs`` completes, given the session's
    previous runs (latest first): different plugins, each gap within 2 h (as a habit's steps)."""
    steps = [Step(plugin, at) for plugin, at in reversed(previous[:2])]
    return [found.steps for found in completed(steps, Step(obs.plugin, obs.at), SEQUENCE_MAX_GAP)]


def rule_sequence(obs: Observation, evidence: Evidence) -> list[Proposal]:
    """4. The same 2- or 3-step sequence of different plugins, each step within
    2 hours of the previous inside one session, in ≥ 3 sessions → workflow."""
    if obs.source == "tool" or not obs.session_id:
        return []
    out = []
    for steps in sequences(obs, evidence.previous_runs(obs, 2)):
        key = workflow_key(steps)
        evidence.record_sequence(key, obs)  # the incremental evidence: which sessions had it
        create, refs = False, ()
        if not evidence.known(key):
            sessions = evidence.sessions_with(key, EVIDENCE_LIMIT)
            if len(sessions) >= SEQUENCE_MIN_SESSIONS:
                create = True
                refs = tuple((f"session:{s}", s) for s in sessions if s != obs.session_id)
        out.append(workflow_proposal(key, steps, source="rule4-sequence", ref=obs.ref,
                                     session_key=obs.session_key, evidence=refs, create=create))
    return out


def workflow_key(steps) -> str:
    return "workflow-seq-" + "-".join(plugin_key(p) for p in steps)


def workflow_proposal(key, steps, *, source, ref, session_key, evidence=(), create=False) -> Proposal:
    """A workflow memory (rule 4, and command habits — same keys)."""
    content = f"In one session the user usually runs {', then '.join(steps)}."
    adaptation = f"Now expecting {' and then '.join(steps[1:])} after {steps[0]}"
    return Proposal(key, kind="workflow", source=source, content=content, adaptation=adaptation,
                    confidence=SEQUENCE_CONFIDENCE, data={"steps": list(steps)}, ref=ref,
                    session_key=session_key, evidence=tuple(evidence), create=create)


def rule_temporal(obs: Observation, evidence: Evidence) -> list[Proposal]:
    """5. The same plugin at the same hour of day ≥ 5 times → pattern, 90-day TTL."""
    if obs.source == "tool" or obs.run_hour is None:
        return []
    hour = int(obs.run_hour)
    key = f"temporal-{plugin_key(obs.plugin)}-{hour}h"
    create, refs = _threshold(evidence, key, lambda: evidence.same_hour(obs, EVIDENCE_LIMIT), TEMPORAL_MIN)
    return [Proposal(key, kind="pattern", source="rule5-temporal",
                     content=f"The user usually runs {obs.plugin} around {hour:02d}:00.",
                     adaptation=f"Now expecting {obs.plugin} around {hour:02d}:00",
                     confidence=TEMPORAL_CONFIDENCE, plugin=obs.plugin, data={"run_hour": hour},
                     ttl_seconds=TEMPORAL_TTL, ref=obs.ref, session_key=obs.session_key,
                     evidence=refs, create=create)]

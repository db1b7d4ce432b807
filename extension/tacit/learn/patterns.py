"""Observations and the five usage-pattern rules.

An observation is one run of something — a slash command, a skill, a tool, or
a named plugin that reports itself (``tacit observe``) — with a JSON context
(company, input_type, output_type, category, priority, user_edited,
edit_description, entity_type, entity_value, run_hour, and anything else the
plugin adds). After each one is logged, five rules look for usage patterns and
hand ``Proposal``s to the shared lifecycle (``tacit.learn.lifecycle``), which
creates or reinforces memories.

Design decisions
- **Every rule is a bounded index lookup.** Thresholds are checked with
  ``LIMIT``-bounded queries on partial indexes, and only when the rule's key
  does not exist yet (an existing key just gets reinforced), so the cost per
  observation does not grow with the ledger (see docs/learning.md for the
  1M-row figures). Rule 4 keeps its evidence incrementally in
  ``observed_sequences`` instead of re-scanning sessions.
- **Typed matching.** ``user_edited`` is coerced to a real boolean when the
  observation arrives (``true``, ``"true"``, ``1`` …) and stored both as a
  JSON ``true`` in the context and as INTEGER 1 in an indexed column; rules
  compare the integer. Entities, categories and edits match by slug, so
  "Acme Corp" and "acme corp" are one entity.
- **Who feeds which rule.** Rules 1–3 take every observation (tool calls
  rarely carry a category or an edit, so 1 and 2 seldom fire for them), but a
  tool call only creates a new-entity fact for a *package* — every file the
  agent opens is not a fact worth a line of MEMORY.md. Rules 4 and 5 look at
  *runs* (slash commands, skills, explicit plugins), not at individual tool
  calls: "Read then Edit" describes the agent, not the user, and tool
  sequences are the habit miner's job, with its own statistics.
- **Memory text is a sentence.** "Emails from Acme Corp are typically
  action-required." — what the agent will read next session — and each
  memory carries the "Now …" sentence logged as its adaptation.
"""

from __future__ import annotations

import time

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


def _as_bool(name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "false", "no", "0", ""):
        return value.strip().lower() in ("true", "yes", "1")
    raise ObservationError(f"{name} must be true or false, got {value!r}")


def normalise_context(context, now: float) -> dict:
    """Validate and type a context (dict or JSON text). ``run_hour`` defaults
    to the local hour of ``now``. Unknown fields are kept as given."""
    import json

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
    if priority is not None and (isinstance(priority, bool)
                                 or not isinstance(priority, (str, int, float))):
        raise ObservationError(f"priority must be a string or a number, got {priority!r}")
    if "user_edited" in out:
        out["user_edited"] = _as_bool("user_edited", out["user_edited"])
    hour = out.get("run_hour")
    if hour is None:
        out["run_hour"] = time.localtime(now).tm_hour
    else:
        try:
            if isinstance(hour, bool) or float(hour) != int(float(hour)):
                raise ValueError
            hour = int(float(hour))
        except (TypeError, ValueError):
            raise ObservationError(f"run_hour must be a whole hour 0-23, got {hour!r}") from None
        if not 0 <= hour <= 23:
            raise ObservationError(f"run_hour must be between 0 and 23, got {hour}")
        out["run_hour"] = hour
    return out


class Observation:
    """One logged observation with its typed fields (slugs for matching,
    display text for sentences)."""

    __slots__ = (
        "action",
        "at",
        "category",
        "category_text",
        "context",
        "edit_slug",
        "edit_text",
        "entity",
        "entity_text",
        "entity_type",
        "id",
        "plugin",
        "run_hour",
        "session_id",
        "source",
        "user_edited",
    )

    def __init__(self, plugin, action, context, session_id, at, source):
        from tacit.learn.lifecycle import slugify

        self.id = None
        self.plugin, self.action, self.context = plugin, action, context
        self.session_id, self.at, self.source = session_id, at, source
        if context.get("entity_value"):
            self.entity_text = context["entity_value"]
            self.entity_type = context.get("entity_type") or "entity"
        elif context.get("company"):
            self.entity_text, self.entity_type = context["company"], "company"
        else:
            self.entity_text, self.entity_type = None, None
        self.entity = slugify(self.entity_text) if self.entity_text else None
        self.category_text = context.get("category")
        self.category = slugify(self.category_text) if self.category_text else None
        self.user_edited = bool(context.get("user_edited"))
        self.edit_text = context.get("edit_description")
        self.edit_slug = slugify(self.edit_text, 60) if self.edit_text else None
        self.run_hour = context.get("run_hour")

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
    return Observation(plugin, action, normalise_context(context, now), session_id or None, now,
                       source)


def insert_observation(conn, obs: Observation) -> int:
    import json

    cur = conn.execute(
        "INSERT INTO observations (plugin, action, context, session_id, observed_at, source, "
        "entity, entity_type, category, user_edited, edit_slug, run_hour) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (obs.plugin, obs.action, json.dumps(obs.context, ensure_ascii=False, sort_keys=True),
         obs.session_id, obs.at, obs.source, obs.entity, obs.entity_type, obs.category,
         1 if obs.user_edited else 0, obs.edit_slug, obs.run_hour))
    obs.id = cur.lastrowid
    return obs.id


def record_observation(ledger, cfg, plugin, action, context=None, *, session_id=None,
                       source="explicit", now: float | None = None) -> dict:
    """Log one observation, run the daily maintenance if this is the day's
    first event, run the five rules, and apply what reached the threshold.

    Returns ``{"observation_id", "created", "reinforced", "applied",
    "notices": [{id, key, text}], "deleted"}`` (keys; ``deleted`` by decay/TTL). Raises ``ObservationError`` for bad input
    and ``LedgerUnavailable`` when the ledger is locked or was corrupt.
    """
    from tacit.learn import lifecycle

    obs = make_observation(plugin, action, context, session_id=session_id, source=source, now=now)
    with ledger.write() as conn:
        removals = lifecycle.run_daily_if_due(conn, cfg, obs.at)
        insert_observation(conn, obs)
        proposals = evaluate_rules(conn, obs)
        changes = lifecycle.advance(conn, proposals, obs.at)
    lifecycle.revert_entries(cfg, removals)
    notices = lifecycle.finish(ledger, cfg, changes["to_apply"], obs.at)
    return {"observation_id": obs.id, "created": changes["created"],
            "reinforced": changes["reinforced"], "applied": [n["key"] for n in notices],
            "notices": notices, "deleted": [key for _, _, key in removals]}


# ---------------------------------------------------------------------------
# The five rules
# ---------------------------------------------------------------------------
def evaluate_rules(conn, obs: Observation) -> list:
    """Proposals from all five rules for a just-inserted observation."""
    proposals = []
    for rule in (rule_categorization, rule_override, rule_new_entity, rule_sequence,
                 rule_temporal):
        proposals.extend(rule(conn, obs))
    return proposals


def _ids(conn, sql: str, params) -> list[int]:
    return [r[0] for r in conn.execute(sql, params)]


def _obs_evidence(conn, ids) -> list[tuple]:
    """(ref, session_key) for observation ids."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = conn.execute(f"SELECT id, session_id FROM observations WHERE id IN ({marks})", list(ids))
    return [(f"obs:{i}", s or f"obs:{i}") for i, s in rows]


def plugin_key(plugin: str) -> str:
    """The plugin as it appears in keys: its own spelling and case (``P01``),
    a leading ``/`` dropped, anything but letters, digits, ``.``, ``_``, ``-``
    turned into ``-``."""
    import re

    key = re.sub(r"[^\w.-]+", "-", str(plugin).lstrip("/"), flags=re.UNICODE).strip("-")[:40]
    return key or "plugin"


def rule_categorization(conn, obs: Observation) -> list:
    """1. Same plugin, same entity, same category ≥ 3 times → pattern."""
    from tacit.learn.lifecycle import Proposal, status_of

    if not (obs.entity and obs.category):
        return []
    key = f"{plugin_key(obs.plugin)}-{obs.entity}-{obs.category}"
    create, evidence = False, ()
    if status_of(conn, key) is None:
        ids = _ids(conn, "SELECT id FROM observations WHERE plugin = ? AND entity = ? AND "
                         "category = ? ORDER BY id DESC LIMIT ?",
                   (obs.plugin, obs.entity, obs.category, EVIDENCE_LIMIT))
        create = len(ids) >= CATEGORY_MIN
        evidence = _obs_evidence(conn, ids) if create else ()
    kind_of_input = obs.context.get("input_type")
    if kind_of_input:
        noun = kind_of_input if kind_of_input.endswith("s") else kind_of_input + "s"
        content = f"{noun[:1].upper()}{noun[1:]} from {obs.entity_text} are typically {obs.category_text} ({obs.plugin})."
    else:
        content = f"In {obs.plugin}, {obs.entity_text} is typically {obs.category_text}."
    return [Proposal(key, kind="pattern", source="rule1-categorization", content=content,
                     adaptation=f"Now treating {obs.entity_text} as {obs.category_text} in {obs.plugin}",
                     confidence=CATEGORY_CONFIDENCE, plugin=obs.plugin, entity=obs.entity,
                     data={"category": obs.category_text, "entity_type": obs.entity_type},
                     ref=obs.ref, session_key=obs.session_key, evidence=evidence, create=create)]


def rule_override(conn, obs: Observation) -> list:
    """2. Same plugin, same edit, user_edited true ≥ 2 times → preference."""
    from tacit.learn.lifecycle import Proposal, status_of

    if not (obs.user_edited and obs.edit_slug):
        return []
    key = f"pref-{plugin_key(obs.plugin)}-{obs.edit_slug}"
    create, evidence = False, ()
    if status_of(conn, key) is None:
        # user_edited is an INTEGER 0/1 column: compared as a number, never as 'true'
        ids = _ids(conn, "SELECT id FROM observations WHERE plugin = ? AND edit_slug = ? AND "
                         "user_edited = 1 ORDER BY id DESC LIMIT ?",
                   (obs.plugin, obs.edit_slug, EVIDENCE_LIMIT))
        create = len(ids) >= OVERRIDE_MIN
        evidence = _obs_evidence(conn, ids) if create else ()
    return [Proposal(key, kind="preference", source="rule2-override", target="user",
                     content=f"When {obs.plugin} produces a result, the user prefers: {obs.edit_text}.",
                     adaptation=f"Now applying your usual edit to {obs.plugin} results: {obs.edit_text}",
                     confidence=OVERRIDE_CONFIDENCE, plugin=obs.plugin,
                     data={"edit_description": obs.edit_text}, ref=obs.ref,
                     session_key=obs.session_key, evidence=evidence, create=create)]


def rule_new_entity(conn, obs: Observation) -> list:
    """3. An entity no memory mentions → fact (no threshold)."""
    from tacit.learn.lifecycle import Proposal, status_of

    if not obs.entity:
        return []
    if obs.source == "tool" and obs.entity_type not in TOOL_FACT_ENTITY_TYPES:
        return []
    key = f"entity-{obs.entity}"
    create = False
    if status_of(conn, key) is None:
        mentioned = conn.execute(
            "SELECT 1 FROM memories WHERE entity = ? OR instr(lower(content), lower(?)) > 0 LIMIT 1",
            (obs.entity, obs.entity_text)).fetchone()
        create = mentioned is None
    article = "an" if obs.entity_type[:1].lower() in "aeiou" else "a"
    return [Proposal(key, kind="fact", source="rule3-new-entity",
                     content=f"{obs.entity_text} is {article} {obs.entity_type} the user works with "
                             f"(seen in {obs.plugin}).",
                     adaptation=f"Now remembering {obs.entity_text} as {article} {obs.entity_type} you work with",
                     confidence=ENTITY_CONFIDENCE, plugin=obs.plugin, entity=obs.entity,
                     data={"entity_type": obs.entity_type, "entity": obs.entity_text},
                     ref=obs.ref, session_key=obs.session_key, create=create)]


def rule_sequence(conn, obs: Observation) -> list:
    """4. The same 2- or 3-step sequence of different plugins, each step within
    2 hours of the previous inside one session, in ≥ 3 sessions → workflow."""
    from tacit.learn.lifecycle import status_of

    if obs.source == "tool" or not obs.session_id:
        return []
    previous = conn.execute(
        "SELECT plugin, observed_at FROM observations WHERE session_id = ? AND source != 'tool' "
        "AND id < ? ORDER BY id DESC LIMIT 2", (obs.session_id, obs.id)).fetchall()
    sequences = []
    if previous:
        b_plugin, b_at = previous[0]
        if b_plugin != obs.plugin and 0 <= obs.at - b_at <= SEQUENCE_MAX_GAP:
            sequences.append((b_plugin, obs.plugin))
            if len(previous) > 1:
                a_plugin, a_at = previous[1]
                if a_plugin not in (b_plugin, obs.plugin) and 0 <= b_at - a_at <= SEQUENCE_MAX_GAP:
                    sequences.append((a_plugin, b_plugin, obs.plugin))
    proposals = []
    for steps in sequences:
        key = workflow_key(steps)
        conn.execute("INSERT OR IGNORE INTO observed_sequences (seq_key, session_id, first_at) "
                     "VALUES (?, ?, ?)", (key, obs.session_id, obs.at))
        create, evidence = False, ()
        if status_of(conn, key) is None:
            sessions = [r[0] for r in conn.execute(
                "SELECT session_id FROM observed_sequences WHERE seq_key = ? LIMIT ?",
                (key, EVIDENCE_LIMIT))]
            create = len(sessions) >= SEQUENCE_MIN_SESSIONS
            evidence = [(f"session:{s}", s) for s in sessions if s != obs.session_id]
        proposals.append(workflow_proposal(key, steps, source="rule4-sequence", ref=obs.ref,
                                           session_key=obs.session_key, evidence=evidence,
                                           create=create))
    return proposals


def workflow_key(steps) -> str:
    return "workflow-seq-" + "-".join(plugin_key(p) for p in steps)


def workflow_proposal(key, steps, *, source, ref, session_key, evidence=(), create=False):
    """A workflow memory (rule 4, and habits promoted to memory — same keys)."""
    from tacit.learn.lifecycle import Proposal

    if len(steps) == 2:
        content = f"In one session the user usually runs {steps[0]}, then {steps[1]}."
        adaptation = f"Now expecting {steps[1]} after {steps[0]}"
    else:
        content = (f"In one session the user usually runs {steps[0]}, then {steps[1]}, "
                   f"then {steps[2]}.")
        adaptation = f"Now expecting {steps[1]} and then {steps[2]} after {steps[0]}"
    return Proposal(key, kind="workflow", source=source, content=content, adaptation=adaptation,
                    confidence=SEQUENCE_CONFIDENCE, data={"steps": list(steps)}, ref=ref,
                    session_key=session_key, evidence=evidence, create=create)


def rule_temporal(conn, obs: Observation) -> list:
    """5. The same plugin at the same hour of day ≥ 5 times → pattern, 90-day TTL."""
    from tacit.learn.lifecycle import Proposal, status_of

    if obs.source == "tool" or obs.run_hour is None:
        return []
    hour = int(obs.run_hour)
    key = f"temporal-{plugin_key(obs.plugin)}-{hour}h"
    create, evidence = False, ()
    if status_of(conn, key) is None:
        ids = _ids(conn, "SELECT id FROM observations WHERE plugin = ? AND run_hour = ? AND "
                         "source != 'tool' ORDER BY id DESC LIMIT ?",
                   (obs.plugin, hour, EVIDENCE_LIMIT))
        create = len(ids) >= TEMPORAL_MIN
        evidence = _obs_evidence(conn, ids) if create else ()
    return [Proposal(key, kind="pattern", source="rule5-temporal",
                     content=f"The user usually runs {obs.plugin} around {hour:02d}:00.",
                     adaptation=f"Now expecting {obs.plugin} around {hour:02d}:00",
                     confidence=TEMPORAL_CONFIDENCE, plugin=obs.plugin,
                     data={"run_hour": hour}, ttl_seconds=TEMPORAL_TTL, ref=obs.ref,
                     session_key=obs.session_key, evidence=evidence, create=create)]

"""The fix-pattern learner: forge patterns from the agent's replies, inject them when the problem
comes back, learn from what the user says next.

Design notes: docs/design/learn.md#tacitlearnfixes"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from tacit.hookspecs import ContextResult, Injection
from tacit.learn import fix_patterns as model
from tacit.learn import guarded, writing
from tacit.learn.fix_patterns import Match
from tacit.log import log
from tacit.safety.commands import dangerous_command
from tacit.safety.scanner import first_finding
from tacit.safety.secrets import was_redacted
from tacit.stores import fix_patterns as store

PLUGIN_NAME = "tacit.learn.fixes"
MARK_INJECTED = "fixes.injected"  # session mark: what the previous user message got injected
INJECTION_PRIORITY = 40


# Lookup
def find_patterns(conn, text: str, cfg, *, now: float | None = None, limit: int | None = None,
                  threshold: float | None = None, filters: bool = True) -> list[Match]:
    """Patterns relevant to ``text``, best first. ``filters`` applies the injection rules (fresh
    within ``decay_after_days``; success rate ≥ ``min_success_rate`` once rated); ``threshold``
    defaults to ``cfg.similarity`` and ``limit`` to ``cfg.max_injected``. Read-only."""
    now = time.time() if now is None else now
    limit = cfg.max_injected if limit is None else limit
    threshold = cfg.similarity if threshold is None else threshold
    terms = model.query_terms(text)
    n_docs = store.active_count(conn)
    if not terms or limit <= 0 or n_docs <= 0:
        return []
    if store.index_kind(conn) == "fts5":
        doc_freq = store.doc_freqs(conn, terms)
        candidates = store.match(conn, model.choose_terms(terms, doc_freq), cfg, now, filters=filters,
                                 limit=model.CANDIDATES)
    else:
        candidates = store.scan_active(conn, cfg, now, filters=filters)
        doc_freq = model.doc_freqs_of(candidates, terms)
    return model.rank(candidates, terms, doc_freq, n_docs, threshold=threshold, limit=limit)


# Storing
@dataclass(frozen=True, slots=True)
class Forged:
    action: str  # created | merged | refused (unsafe) | skipped (nothing a later session could use)
    id: int | None = None
    title: str = ""
    reason: str = ""

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}


def forge(conn, cfg, fix, *, title: str, session_id: str | None = None, cwd: str | None = None,
          now: float | None = None) -> Forged:
    """Store one fix statement, inside the caller's write transaction (docs/fix-patterns.md): refused
    for a dangerous command (``tacit.safety.commands``) or a scanner finding; a near-twin is merged."""
    now = time.time() if now is None else now
    title = model.title_from(title, fix.problem)
    unfit = model.unfit(fix.problem, fix.solution)
    if unfit is not None:  # found by the detector, but nothing a later session could use
        return Forged("skipped", reason=unfit)
    danger = dangerous_command(fix.solution)
    if danger is not None:  # a fix is data, not an order: never kept when it would do harm again
        return Forged("refused", reason=f"the fix {danger}")
    for part in (title, fix.problem, fix.solution):
        if was_redacted(part):
            return Forged("refused", reason="scanner: it held a secret (redacted)")
        finding = first_finding(part)
        if finding is not None:
            return Forged("refused", reason=f"scanner: {finding.reason} [{finding.pattern_id}]")
    key = model.pattern_key(fix.problem, fix.solution)
    found = store.id_by_key(conn, key) or next(
        ((c.id, "active") for c in find_patterns(conn, fix.problem, cfg, limit=5, threshold=0.0, filters=False)
         if model.near_duplicate(fix, c)), None)
    if found is not None:
        store.merge(conn, found[0], now)
        return Forged("merged", found[0])
    from tacit.detect.fix import lookup_text  # the detector's module: imported when a fix is stored

    lookup = lookup_text(fix)
    pattern_id = store.insert(conn, key=key, title=title, fix=fix, lookup=lookup,
                              terms=model.stored_terms(title, lookup),
                              tags=model.tags_for(fix.problem, fix.solution, cwd), session_id=session_id, now=now)
    return Forged("created", pattern_id, title)


def apply_outcome(conn, pattern_ids, outcome: str, *, session_id: str, at: float, now: float) -> list[int]:
    """Count one outcome for each pattern (once per message); retire those
    that fall below 30 % over 10+ outcomes. Returns the ids retired."""
    retired = []
    for pattern_id in dict.fromkeys(pattern_ids):
        counts = store.record_outcome(conn, pattern_id, outcome, session_id=session_id, at=at, now=now)
        reason = model.retire_reason(*counts) if counts else None
        if reason and store.retire(conn, pattern_id, reason, now):
            retired.append(pattern_id)
    return retired


def retire_pattern(conn, pattern_id: int, reason: str = "retired by hand", now: float | None = None) -> dict:
    now = time.time() if now is None else now
    status = store.status_of(conn, pattern_id)
    if status is None:
        return {"success": False, "error": f"no fix pattern has id {pattern_id} (see tacit patterns list)"}
    if status == "retired":
        return {"success": True, "id": pattern_id, "message": f"pattern {pattern_id} was already retired"}
    store.retire(conn, pattern_id, reason, now)
    return {"success": True, "id": pattern_id, "message": f"retired pattern {pattern_id}: no longer injected"}


def delete_pattern(conn, pattern_id: int) -> dict:
    if not store.delete(conn, pattern_id):
        return {"success": False, "error": f"no fix pattern has id {pattern_id} (see tacit patterns list)"}
    return {"success": True, "id": pattern_id, "message": f"deleted pattern {pattern_id} and its history"}


def stats(conn, *, since: float | None = None) -> dict:
    """``tacit stats``: per-turn metrics and the pattern store at a glance."""
    since = 0.0 if since is None else since
    return model.summarise(store.metric_values(conn, "patterns.injected", since),
                           store.metric_values(conn, "patterns.forged", since),
                           store.metric_values(conn, "patterns.lookup_ms", since), store.store_totals(conn), since)


# The plugin
def register(engine) -> None:
    engine.on("message_end", on_user_message, name="fixes.inject", priority=INJECTION_PRIORITY)
    engine.on("turn_end", on_turn_end, name="fixes.forge", background=True)


def on_user_message(event, ctx):
    """Foreground: outcome of the previous injection, lookup, metrics."""
    if event.role != "user":
        return None
    cfg, marks = ctx.cfg, ctx.state.marks
    previous = marks.pop(MARK_INJECTED, None)
    found: list[Match] = []

    def work(conn):
        if previous and previous.get("ids") and cfg.learning_enabled:
            analysis = ctx.analysis
            outcome = model.classify_outcome(event.text, bool(analysis and analysis.is_correction))
            if outcome:
                retired = apply_outcome(conn, previous["ids"], outcome, session_id=event.session_id,
                                        at=event.ts, now=time.time())
                if retired:
                    log(cfg, "info", "fixes.outcome", f"retired pattern(s) {retired}: success rate below 30%")
        lookup_ms = None
        if cfg.max_injected > 0 and event.text.strip() and store.active_count(conn) > 0:
            started = time.perf_counter()
            found.extend(find_patterns(conn, event.text, cfg, now=event.ts))
            lookup_ms = (time.perf_counter() - started) * 1000.0
        if cfg.learning_enabled:
            now = time.time()
            for match in found:
                store.record_injection(conn, match.id, session_id=event.session_id, at=event.ts)
            store.record_metric(conn, event.session_id, event.ts, "patterns.injected", len(found), now)
            if lookup_ms is not None:
                store.record_metric(conn, event.session_id, event.ts, "patterns.lookup_ms",
                                    round(lookup_ms, 3), now)

    writing("fixes.inject", ctx, work)
    if not found:
        return None
    marks[MARK_INJECTED] = {"ids": [m.id for m in found], "at": event.ts}
    return ContextResult(context=[Injection(model.render_block(found), priority=INJECTION_PRIORITY)])


def on_turn_end(event, ctx):
    """Background: forge a pattern from the final reply; record ``patterns.forged``."""
    cfg = ctx.cfg
    if not cfg.learning_enabled:
        return None

    def work():
        created = 0
        calls = event.tool_calls or ()
        failed = bool(calls) and not calls[-1].ok  # the turn ended on a failing tool call
        if cfg.forge_on_success and event.assistant_text and not failed:
            from tacit.detect.fix import detect_fix  # off the lookup's path: see the module's docstring

            fix = detect_fix(event.assistant_text)
            if fix is not None:
                with ctx.ledger.write() as conn:  # nested in the engine's applied-once transaction
                    result = forge(conn, cfg, fix, title=event.user_text, session_id=event.session_id,
                                   cwd=event.cwd, now=event.ts)
                created = int(result.action == "created")
                if result.action == "refused":
                    log(cfg, "warning", "fixes.forge", f"fix pattern not stored: {result.reason}")
        with ctx.ledger.write() as conn:
            store.record_metric(conn, event.session_id, store.turn_of(conn, event.session_id, event.ts),
                                "patterns.forged", created, time.time())

    guarded("fixes.forge", cfg, work)
    return None

"""The importance learner: what the user says that is worth keeping, stored as candidate memories,
kept fresh by a heartbeat, settled by a review.

Design notes: docs/design/learn.md#tacitlearnimportance"""

from __future__ import annotations

from dataclasses import dataclass

from tacit.hookspecs import ContextResult, Injection, Result
from tacit.learn import captures, lifecycle, review, writing
from tacit.learn.captures import SOURCE, Assessment
from tacit.learn.lifecycle import Proposal
from tacit.log import log
from tacit.stores import candidates
from tacit.stores import captures as capture_store

PLUGIN_NAME = "tacit.learn.importance"
MARK_ACK = "importance.ack"  # session mark: the "Noted: …" waiting for the turn's end
MAX_MERGE_ROWS = 2000
REVIEW_PRIORITY = 45


def register(engine) -> None:
    engine.on("message_end", on_user_message, name="importance.capture", background=True)
    engine.on("session_start", on_session_start, name="importance.heartbeat", background=True)
    engine.on("message_end", on_user_message_foreground, name="importance.foreground", priority=REVIEW_PRIORITY)
    engine.on("before_agent_start", on_nightly, name="importance.nightly_start", priority=95)
    engine.on("turn_end", on_nightly, name="importance.nightly_turn", priority=95)


def enabled(cfg) -> bool:
    return bool(cfg.importance_enabled and cfg.learning_enabled)


def minimums(cfg) -> dict:
    found, bad = captures.category_minimums(cfg)
    for item in bad:
        log(cfg, "warning", "importance", f"importance_category_minimums: bad entry {item!r} ignored")
    return found


# Capturing (inside the caller's write transaction)
@dataclass(frozen=True, slots=True)
class Captured:
    action: str  # captured | mentioned | refused
    key: str
    id: int | None = None
    reason: str = ""


def capture(conn, cfg, assessment: Assessment, *, session_id: str, now: float, host: str | None = None,
            text: str = "", project=None) -> Captured:
    """Store one capture, or one more mention of it (once per message: the
    evidence row of a replayed message is found and nothing changes)."""
    key = "imp-" + lifecycle.slugify(assessment.content, 48)
    expires = captures.resolve_expiry(assessment.expiry_hint, now)
    ref = f"msg:{session_id}:{now!r}"
    row = candidates.by_key(conn, key)
    if row is None:
        if captures.forgotten(captures.terms(assessment.content), capture_store.forgotten_terms(conn)):
            return Captured("refused", key, reason="you asked to forget this")
        proposal = Proposal(
            key, kind=assessment.category, source=SOURCE, content=assessment.content,
            adaptation=f'Now remembering "{assessment.content[:120]}"',
            confidence=round(assessment.importance * 100),
            target=captures.target_for(assessment.category, assessment.content),
            data={**captures.capture_data(assessment, session_id=session_id, host=host, text=text, now=now),
                  # a note about the project goes to that project's memory when it is kept
                  "project": project.root if project is not None else None},
            ref=ref, session_key=session_id, create=True, status="candidate")
        lifecycle.advance(conn, [proposal], now)
        row = candidates.by_key(conn, key)
        candidates.set_expiry(conn, row.id, expires)
        return Captured("captured", key, row.id)
    if row.status == "dismissed":
        return Captured("refused", key, row.id, reason="dropped or forgotten before")
    if not candidates.add_evidence(conn, row.id, ref, session_id, "confirm", now):
        return Captured("mentioned", key, row.id)  # a replayed message: its evidence row is there
    mentions = candidates.mentions(conn, row.id)
    base = max(float(row.data.get("importance", 0.0)), assessment.importance)
    data = {**row.data, "importance": base, "mentions": mentions,
            "last_mention_at": max(float(row.data.get("last_mention_at", 0)), now),
            "phrased": bool(row.data.get("phrased") or assessment.phrased)}
    data["effective"] = captures.effective_importance(base, mentions, now, now)
    capture_store.update_mention(conn, row.id, data, confidence=round(data["effective"] * 100), now=now,
                                 expires_at=expires)
    return Captured("mentioned", key, row.id)


def apply_forget(conn, cfg, what: str, *, session_id: str | None, now: float) -> dict:
    """"Forget that …": remember the request (future captures like it are refused) and forget every
    capture that matches it — dismissed, and removed from USER.md/MEMORY.md if it was promoted."""
    wanted = captures.terms(what)
    capture_store.remember_forget(conn, what, wanted, session_id, now)
    keys = []
    if wanted:
        for row in candidates.of_source(conn, SOURCE):
            if captures.forgotten(captures.terms(row.content), [wanted]):
                review.record_decision(conn, row, "forget", "user", row.content, None, now)
                keys.append(row.key)
    results = [lifecycle.forget_in(conn, cfg, key, now) for key in keys]
    # no notice here: the "forget that …" handler (tacit.handlers.forget) tells the user once
    return {"action": "forgotten", "what": what, "keys": keys, "results": results}


# Heartbeat
def heartbeat_due(conn, cfg, now: float) -> bool:
    """``heartbeat_interval`` minutes since the last beat (0 turns it off)."""
    interval = cfg.heartbeat_interval
    if interval <= 0:
        return False
    last = capture_store.last_heartbeat(conn)
    return last is None or now - last >= interval * 60


def heartbeat(conn, cfg, now: float) -> dict:
    """Expire, merge, re-score; then settle past days' reviews. Idempotent."""
    previous_beat = capture_store.last_heartbeat(conn) or 0.0
    expired = merged = rescored = 0
    alive = []
    for row in candidates.of_source(conn, SOURCE, limit=MAX_MERGE_ROWS):
        if row.expires_at is not None and row.expires_at <= now:
            review.record_decision(conn, row, "expire", "heartbeat", row.content, None, now)
            candidates.revert_adaptations(conn, row.id, "expired", now)
            candidates.delete(conn, row.id)
            if row.applied_text:
                lifecycle.remove_entry(cfg, row.target, row.applied_text, row.key,
                                       lifecycle.project_of_candidate(row))
            expired += 1
            continue
        data = dict(row.data)
        terms = set(data["terms"].split()) if data.get("terms") else captures.terms(row.content)
        # only captures new or mentioned since the last beat can have a new twin
        fresh = row.created_at >= previous_beat or float(data.get("last_mention_at", 0)) >= previous_beat
        alive.append({"row": row, "data": data, "terms": terms, "fresh": fresh})
    rank = {"applied": 0, "confirmed": 1, "candidate": 2}
    alive.sort(key=lambda a: (rank.get(a["row"].status, 3), a["row"].created_at, a["row"].id))  # survivors first
    survivors = []
    for item in alive:
        twin = next((s for s in survivors
                     if (item["fresh"] or s["fresh"]) and captures.similar(s["terms"], item["terms"])), None)
        if twin is None or (twin["row"].status == "applied" and item["row"].status == "applied"):
            survivors.append(item)
            continue
        # fold item into twin: evidence, best base score, mention times
        candidates.move_evidence(conn, item["row"].id, twin["row"].id)
        twin["data"] = captures.folded(twin["data"], item["data"], now)
        twin["data"].setdefault("merged", []).append(item["row"].key)
        review.record_decision(conn, item["row"], "discard", "heartbeat", item["row"].content,
                               f"merged into {twin['row'].key}", now, item["data"])
        candidates.delete(conn, item["row"].id)
        merged += 1
    for item in survivors:
        row, data = item["row"], item["data"]
        mentions = max(1, candidates.mentions(conn, row.id))
        effective = captures.effective_importance(float(data.get("importance", 0.0)), mentions,
                                                  float(data.get("last_mention_at", now)), now)
        confidence = max(0, min(100, round(effective * 100)))
        # confidence is rewritten even when nothing else changed: the
        # lifecycle's generic daily decay (−5 after 30 unused days) must not
        # erode a capture, whose ageing is the multipliers above
        if data != row.data or data.get("effective") != effective or data.get("mentions") != mentions \
                or row.confidence != confidence:
            data.update(effective=effective, mentions=mentions)
            candidates.set_data(conn, row.id, data, now, confidence=confidence)
            rescored += 1
    capture_store.set_heartbeat(conn, now)
    settled = review.settle_past_days(conn, cfg, now)
    return {"expired": expired, "merged": merged, "rescored": rescored, "settled": settled}


# The handlers
def on_user_message(event, ctx):
    """Background: capture, forget, or record nothing; then the heartbeat."""
    cfg = ctx.cfg
    if event.role != "user" or not enabled(cfg):
        return None
    assessment = captures.assess(event.text, ctx.analysis, minimums(cfg))
    if assessment.action == "refuse":
        log(cfg, "warning", "importance.capture", f"not stored: {assessment.reason}")

    def work(conn):
        if assessment.action == "forget":
            apply_forget(conn, cfg, assessment.forget_what, session_id=event.session_id, now=event.ts)
        elif assessment.action == "capture":
            capture(conn, cfg, assessment, session_id=event.session_id, now=event.ts, host=ctx.host,
                    text=event.text, project=ctx.project)

    writing("importance.capture", ctx, work)
    _beat_if_due(event, ctx)
    return None


def on_session_start(event, ctx):
    if enabled(ctx.cfg):
        _beat_if_due(event, ctx)
    return None


def _beat_if_due(event, ctx) -> None:
    def work(conn):
        if heartbeat_due(conn, ctx.cfg, event.ts):
            heartbeat(conn, ctx.cfg, event.ts)

    writing("importance.heartbeat", ctx, work)


def on_user_message_foreground(event, ctx):
    """The review on request, the nightly notice, the acknowledgement to come."""
    cfg = ctx.cfg
    if event.role != "user" or not enabled(cfg):
        return None
    analysis = ctx.analysis
    if cfg.acknowledge_captures and not cfg.silent and analysis is not None:
        ack = captures.acknowledgement(captures.assess(event.text, analysis, minimums(cfg)),
                                       cfg.importance_threshold)
        if ack:
            ctx.state.marks[MARK_ACK] = ack
    wants_review = analysis is not None and analysis.wants_review

    def work(conn):
        return review.review_for_prompt(conn, event.ts) if wants_review else review.nightly_notice(conn, cfg, event.ts)

    text = writing("importance.foreground", ctx, work)
    if text and wants_review:
        return ContextResult(context=[Injection(text, priority=REVIEW_PRIORITY)])
    return ContextResult(notices=[text]) if text else None


def on_nightly(event, ctx):
    cfg = ctx.cfg
    if not enabled(cfg):
        return None
    texts = []
    if event.kind == "turn_end":
        ack = ctx.state.marks.pop(MARK_ACK, None)
        if ack and not cfg.silent:
            texts.append(ack)

    notice = writing("importance.nightly", ctx, lambda conn: review.nightly_notice(conn, cfg, event.ts))
    if notice:
        texts.append(notice)
    if not texts:
        return None
    return (ContextResult if event.kind == "before_agent_start" else Result)(notices=texts)

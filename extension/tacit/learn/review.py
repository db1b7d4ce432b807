"""The review of importance captures (docs/importance.md): list, decide, settle.

Design notes: docs/design/learn.md#tacitlearnreview"""

from __future__ import annotations

import contextlib
import time

from tacit.learn import captures, lifecycle
from tacit.learn.captures import GROUPS, SOURCE, group_of, importance_in, local_day
from tacit.safety.scanner import first_finding
from tacit.stores import candidates
from tacit.stores import captures as capture_store
from tacit.stores.candidates import Candidate
from tacit.stores.entries import control_problem
from tacit.stores.ledger import Ledger
from tacit.stores.memory import LIMIT_SETTINGS, MemoryStore

MAX_PROMOTIONS = 25  # per settlement: each is a memory-file write (maybe a consolidation)
_GROUP_TITLES = {
    "high": "High (> 0.85) — kept tomorrow unless you drop them (when tacit could phrase them as a rule)",
    "medium": "Medium (0.60–0.85) — stay as candidates",
    "low": "Low (< 0.60) — dropped tomorrow unless you keep them",
}
REVIEW_INSTRUCTIONS = (
    "The user asked to review what tacit (the memory extension) noted from the conversation today. "
    "Show them the notes below as they are grouped and ask which to keep, drop or edit. Apply their "
    "answer with one shell command, e.g. `tacit review --keep 12 14 --drop 13 --edit 15 \"new text\"`. "
    "Kept notes go into USER.md/MEMORY.md at once; undecided ones follow the group's default tomorrow.")


def record_decision(conn, row: Candidate, action: str, decided_by: str, before, after, now: float,
                    data: dict | None = None) -> None:
    data = row.data if data is None else data
    importance = importance_in(data)
    capture_store.record_decision(conn, memory_id=row.id, key=row.key, day=data.get("day") or local_day(now),
                                  group=group_of(importance), importance=importance, action=action,
                                  decided_by=decided_by, before=before, after=after, now=now)


# What to review
def _item(row: Candidate) -> dict:
    data = row.data
    importance = importance_in(data)
    return {"id": row.id, "key": row.key, "content": row.content, "status": row.status, "target": row.target,
            "category": data.get("category"), "importance": round(importance, 3), "group": group_of(importance),
            "mentions": int(data.get("mentions", 1)), "day": data.get("day"),
            "last_mention_at": data.get("last_mention_at", row.created_at), "expires_at": row.expires_at,
            "tags": data.get("tags", []), "kept": bool(data.get("kept")), "phrased": bool(data.get("phrased"))}


def review_items(conn, *, now: float, day: str | None = None, include_all: bool = False) -> list[dict]:
    """Undecided captures (candidates) of ``day`` (today by default):
    captured or mentioned that day. ``include_all``: every candidate."""
    day = day or local_day(now)
    items = [item for item in map(_item, candidates.of_source(conn, SOURCE, ["candidate"]))
             if include_all or item["day"] == day or local_day(float(item["last_mention_at"] or 0)) == day]
    order = {g: i for i, g in enumerate(GROUPS)}
    items.sort(key=lambda i: (order[i["group"]], -i["importance"], i["id"]))
    return items


def counts(items: list[dict]) -> dict:
    return {g: sum(1 for i in items if i["group"] == g) for g in GROUPS}


def render_review(items: list[dict], day: str) -> str:
    if not items:
        return (f"Memory review for {day}: nothing was noted. tacit notes preferences, decisions, "
                f"corrections, goals and facts you mention; `tacit memories` lists what it has learned.")
    lines = [f"Memory review for {day} — {len(items)} note(s)"]
    for group in GROUPS:
        members = [i for i in items if i["group"] == group]
        if not members:
            continue
        lines.append(_GROUP_TITLES[group] + ":")
        for i in members:
            extra = f", said {i['mentions']}×" if i["mentions"] > 1 else ""
            if i["expires_at"]:
                extra += f", until {time.strftime('%Y-%m-%d', time.localtime(i['expires_at']))}"
            where = "USER.md" if i["target"] == "user" else "MEMORY.md"
            lines.append(f"  #{i['id']} [{i['category']} {i['importance']:.2f}{extra} → {where}] {i['content']}")
    lines.append("Keep: tacit review --keep ID…   Drop: tacit review --drop ID…   "
                 "Edit: tacit review --edit ID \"new text\"")
    return "\n".join(lines)


def _record_shown(conn, trigger: str, now: float, items: list[dict], *, offered: bool = True) -> int:
    """Record one showing of the review (``offered``: the nightly notice counts as given); its id."""
    review_id = capture_store.record_review(conn, local_day(now), trigger, counts(items), now)
    if offered:
        capture_store.set_offered_day(conn, local_day(now))
    return review_id


def review_due(conn, cfg, now: float) -> bool:
    """The first event at or after ``review_time`` today (once a day across
    sessions and processes: the offered day is in the ledger)."""
    local = time.localtime(now)
    reached = (local.tm_hour, local.tm_min) >= captures.review_clock(cfg)
    return reached and capture_store.offered_day(conn) != local_day(now)


def nightly_notice(conn, cfg, now: float) -> str | None:
    """The nightly review notice if it is due (marks it offered)."""
    if not review_due(conn, cfg, now):
        return None
    capture_store.set_offered_day(conn, local_day(now))
    count = len(review_items(conn, now=now))
    if count <= 0 or cfg.silent:
        return None
    return (f"Memory review: I noted {count} thing{'s' if count != 1 else ''} today. Say \"review\" (or /memory-review) to keep, "
            f"drop or edit them. Otherwise tomorrow the high-importance ones tacit could phrase as a rule "
            f"are kept and the low ones dropped.")


def memory_review(cfg, *, trigger: str = "command", now: float | None = None, day: str | None = None,
                  include_all: bool = False) -> dict:
    """``/memory-review``: today's captures grouped, as text for any host.
    The showing is recorded and the nightly notice counts as given."""
    now = time.time() if now is None else now
    day = day or local_day(now)
    with Ledger(cfg) as led, led.write() as conn:
        items = review_items(conn, now=now, day=day, include_all=include_all)
        elsewhere = 0 if items or include_all else len(review_items(conn, now=now, include_all=True))
        review_id = _record_shown(conn, trigger, now, items, offered=day == local_day(now))
    text = render_review(items, "all pending days" if include_all else day)
    if elsewhere:  # e.g. noted by `tacit learn --apply`, on the day of the replayed session
        text += (f"\n{elsewhere} undecided note(s) from other days wait: `tacit review --all` shows them "
                 "(`--day YYYY-MM-DD` one day).")
    return {"success": True, "text": text, "day": day, "items": items, "counts": counts(items),
            "review_id": review_id}


def review_for_prompt(conn, now: float) -> str:
    """The ``<memory-review>`` block injected when the user asks for the
    review in a message; the showing is recorded."""
    items = review_items(conn, now=now)
    _record_shown(conn, "request", now, items)
    return f"<memory-review>\n{REVIEW_INSTRUCTIONS}\n\n{render_review(items, local_day(now))}\n</memory-review>"


# Deciding
def _resolve(conn, ref) -> Candidate | None:
    ref = str(ref).strip().lstrip("#")
    row = candidates.by_id(conn, int(ref)) if ref.isdigit() else candidates.by_key(conn, ref)
    return row if row is not None and row.source == SOURCE else None


def promote(conn, cfg, memory_ids, now: float, *, by_user: bool) -> dict:
    """candidate → confirmed → applied (written into USER.md/MEMORY.md). The
    user's own decision is not announced again (the command says it)."""
    ids = list(dict.fromkeys(memory_ids))
    for memory_id in ids:
        candidates.set_status(conn, memory_id, "confirmed", now, only_from=("candidate", "confirmed"))
    lifecycle.apply(conn, cfg, ids, now, announce=not by_user)
    applied, failed = [], []
    for memory_id in ids:
        row = candidates.by_id(conn, memory_id)
        if row is not None:
            (applied if row.status == "applied" else failed).append(row.key)
    return {"applied": applied, "failed": failed}


def _limit(cfg, target: str) -> int:
    """The characters the memory file of ``target`` holds (``memory``: the larger of its two files)."""
    names = ("global", "project") if target == "memory" else (target,)
    return max(int(cfg.settings.get(LIMIT_SETTINGS.get(n, ""), 0) or 0) for n in names) or 10**9


def _validate(conn, keep, drop, edits, cfg) -> tuple[dict, list[str]]:
    resolved, errors = {}, []
    for ref in [*keep, *drop, *(r for r, _ in edits)]:
        row = _resolve(conn, ref)
        if row is None:
            errors.append(f"no capture has id or key {ref!r} (see tacit review)")
        elif row.status == "dismissed" and ref not in drop:
            errors.append(f"#{row.id} was dropped or forgotten; teach it again with tacit memories teach")
        else:
            resolved[ref] = row
    kept_ids = {resolved[r].id for r in keep if r in resolved}
    dropped_ids = {resolved[r].id for r in drop if r in resolved}
    for memory_id in sorted(kept_ids & dropped_ids):
        errors.append(f"#{memory_id} is both kept and dropped")
    for ref, text in edits:
        if not text:
            errors.append(f"the new text for {ref!r} is empty")
        elif problem := control_problem(text):  # refused again when it is kept, in the background
            errors.append(f"the new text for {ref!r}: {problem}")
        elif (finding := first_finding(text)) is not None:
            errors.append(f"the new text for {ref!r} was refused by the scanner: {finding.reason}")
        elif ref in resolved and len(text) > (limit := _limit(cfg, resolved[ref].target)):  # it could never be kept
            errors.append(f"the new text for {ref!r} is {len(text):,} characters; its memory file holds {limit:,}")
        elif ref in resolved and resolved[ref].id in dropped_ids:
            errors.append(f"#{resolved[ref].id} is both edited and dropped")
    return resolved, errors


def decide(cfg, *, keep=(), drop=(), edits=(), ledger=None, now: float | None = None) -> dict:
    """``tacit review --keep/--drop/--edit``. ``edits`` is ``[(ref, text)]``; ``ledger``: the caller's,
    left open (else a fresh one). Validates everything first; on any problem nothing changes."""
    now = time.time() if now is None else now
    keep, drop = [str(r) for r in keep], [str(r) for r in drop]
    edits = [(str(r), " ".join(str(t).split())) for r, t in edits]
    if not (keep or drop or edits):
        return {"success": False, "error": "Nothing to do: give --keep, --drop or --edit."}
    with contextlib.nullcontext(ledger) if ledger is not None else Ledger(cfg) as led, led.write() as conn:
        resolved, errors = _validate(conn, keep, drop, edits, cfg)
        if errors:
            return {"success": False, "error": "; ".join(errors), "errors": errors}
        edited, dropped, kept_ids = [], [], []
        for ref, text in edits:
            row = candidates.by_id(conn, resolved[ref].id)
            if row.status == "applied" and row.applied_text:
                result = MemoryStore(cfg).replace(row.target, row.applied_text, text)
                if not result.get("success"):
                    errors.append(f"#{row.id}: {result.get('error')}")
                    continue
            data = dict(row.data)
            data.setdefault("edited_from", row.content)
            data["terms"] = " ".join(sorted(captures.terms(text)))
            data["phrased"] = True  # the user's own phrasing of it: it may be promoted as it is
            capture_store.edit_content(conn, row.id, text, data, now)
            record_decision(conn, row, "edit", "user", row.content, text, now, data)
            edited.append(row.key)
        for ref in drop:
            row = resolved[ref]
            if row.status != "dismissed":
                record_decision(conn, row, "drop", "user", row.content, None, now)
                lifecycle.forget_in(conn, cfg, row.key, now)
            dropped.append(row.key)
        for ref in keep:
            row = candidates.by_id(conn, resolved[ref].id)
            data = {**row.data, "kept": True}
            candidates.set_data(conn, row.id, data)
            record_decision(conn, row, "keep", "user", row.content, None, now, data)
            kept_ids.append(row.id)
        promoted = promote(conn, cfg, kept_ids, now, by_user=True)
    for key in promoted["failed"]:
        errors.append(f"{key}: the memory file refused it (scanner or limit); it stays confirmed")
    said = ((f"kept {len(promoted['applied'])} (now in USER.md/MEMORY.md)", promoted["applied"]),
            (f"dropped {len(dropped)}", dropped), (f"edited {len(edited)}", edited))
    parts = [text for text, done in said if done]
    return {"success": not errors, "kept": promoted["applied"], "dropped": dropped, "edited": edited,
            "errors": errors, "message": ("Review: " + ", ".join(parts) + ".") if parts else "Review: no change.",
            **({"error": "; ".join(errors)} if errors else {})}


# Defaults for what nobody decided
def settle_past_days(conn, cfg, now: float, *, include_today: bool = False) -> dict:
    """Apply the review defaults (``captures.default_action``) to undecided captures of earlier days
    (and today with ``include_today``). At most ``MAX_PROMOTIONS`` per call (the rest wait for the
    next heartbeat); a promotion a memory file refused is retried once a day, not at every beat."""
    today = local_day(now)
    minimums, _ = captures.category_minimums(cfg)
    to_promote, discarded, deferred = [], [], []
    for row in candidates.of_source(conn, SOURCE, ["candidate", "confirmed"]):
        data = row.data
        if row.status == "confirmed":  # promoted before, the file refused it: retry once a day
            if data.get("retried_on") != today and len(to_promote) < MAX_PROMOTIONS:
                candidates.set_data(conn, row.id, {**data, "retried_on": today})
                to_promote.append(row.id)
            continue
        action = captures.default_action(data, created=row.created_at, today=today, include_today=include_today,
                                         threshold=cfg.importance_threshold, minimums=minimums)
        if action == "promote":
            if len(to_promote) >= MAX_PROMOTIONS:
                continue  # the rest at the next heartbeat
            record_decision(conn, row, "promote", "default", row.content, None, now)
            to_promote.append(row.id)
        elif action == "discard":
            record_decision(conn, row, "discard", "default", row.content, None, now)
            candidates.delete(conn, row.id)
            discarded.append(row.key)
        elif action == "defer":
            data = {**data, "deferred": True}
            candidates.set_data(conn, row.id, data)
            record_decision(conn, row, "defer", "default", row.content, None, now, data)
            deferred.append(row.key)
    promoted = promote(conn, cfg, to_promote, now, by_user=False)
    return {"promoted": promoted["applied"], "failed": promoted["failed"], "discarded": discarded,
            "deferred": deferred}

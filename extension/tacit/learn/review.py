"""The nightly review of importance captures: list, decide, settle.

Today's captures are shown grouped by effective importance — high (> 0.85),
medium (0.60–0.85), low (< 0.60) — each with an id the user keeps, drops or
edits (``tacit review --keep/--drop/--edit``, or by telling the agent, which
runs the same command). ``memory_review(cfg)`` returns the text every host
shows for ``/memory-review``.

Design decisions
- **The user decides; defaults settle the rest the next day.** An item the
  user keeps is promoted at once (USER.md/MEMORY.md, through
  ``lifecycle.finish`` — the same write, adaptation and ``/memory-forget`` as
  any learned memory); a dropped one is dismissed (never captured again).
  What nobody decided is settled by the first heartbeat of a later day: high
  items that clear ``importance_threshold`` and their category minimum are
  promoted, low items are discarded (deleted, not dismissed: saying it again
  later, more emphatically, may capture it again), medium ones stay
  candidates — a repeat can lift them to high, age lowers them to low.
- **Every decision is recorded** (``importance_decisions``: who — user,
  default, heartbeat — what, before/after text) and every showing of the
  review (``importance_reviews``), so "why is this in my USER.md?" has an
  answer.
- **Validate, then act.** A command naming an unknown id, a capture both
  kept and dropped, or an edit the scanner refuses changes nothing.
"""

from __future__ import annotations

import time

GROUPS = ("high", "medium", "low")
MAX_PROMOTIONS = 25  # per settlement: each is a memory-file write (maybe a consolidation)
_GROUP_TITLES = {
    "high": "High (> 0.85) — kept tomorrow unless you drop them",
    "medium": "Medium (0.60–0.85) — stay as candidates",
    "low": "Low (< 0.60) — dropped tomorrow unless you keep them",
}


def record_decision(conn, memory_id, key, data, action, decided_by, before, after, now) -> None:
    from tacit.learn.importance import group_of, local_day

    importance = float((data or {}).get("effective", (data or {}).get("importance", 0.0)))
    day = (data or {}).get("day") or local_day(now)
    conn.execute("INSERT INTO importance_decisions (memory_key, memory_id, day, grp, importance, action, "
                 "decided_by, content_before, content_after, at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                 (key, memory_id, day, group_of(importance), importance, action, decided_by, before, after,
                  now))


# ---------------------------------------------------------------------------
# What to review
# ---------------------------------------------------------------------------
def _item(row) -> dict:
    import json

    from tacit.learn.importance import group_of

    memory_id, key, content, status, target, raw, created, expires = row
    data = json.loads(raw or "{}")
    importance = float(data.get("effective", data.get("importance", 0.0)))
    return {"id": memory_id, "key": key, "content": content, "status": status, "target": target,
            "category": data.get("category"), "importance": round(importance, 3),
            "group": group_of(importance), "mentions": int(data.get("mentions", 1)),
            "day": data.get("day"), "last_mention_at": data.get("last_mention_at", created),
            "expires_at": expires, "tags": data.get("tags", []), "kept": bool(data.get("kept"))}


def review_items(conn, *, now: float, day: str | None = None, include_all: bool = False) -> list[dict]:
    """Undecided captures (candidates) of ``day`` (today by default): captured
    or mentioned that day. ``include_all``: every candidate."""
    from tacit.learn.importance import SOURCE, local_day

    day = day or local_day(now)
    rows = conn.execute("SELECT id, key, content, status, target, data, created_at, expires_at FROM memories "
                        "WHERE source = ? AND status = 'candidate' ORDER BY id", (SOURCE,)).fetchall()
    items = []
    for row in rows:
        item = _item(row)
        if include_all or item["day"] == day or local_day(float(item["last_mention_at"] or 0)) == day:
            items.append(item)
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


def record_review_shown(ledger, cfg, trigger: str, now: float, items: list[dict] | None = None) -> dict:
    import json

    from tacit.learn.importance import local_day

    with ledger.write() as conn:
        if items is None:
            items = review_items(conn, now=now)
        review_id = conn.execute("INSERT INTO importance_reviews (day, shown_at, trigger, counts) "
                                 "VALUES (?, ?, ?, ?)",
                                 (local_day(now), now, trigger, json.dumps(counts(items)))).lastrowid
    return {"review_id": review_id, "counts": counts(items)}


def memory_review(cfg, *, trigger: str = "command", now: float | None = None, ledger=None,
                  day: str | None = None, include_all: bool = False) -> dict:
    """``/memory-review``: today's captures grouped, as text for any host.
    The showing is recorded and the nightly notice counts as given."""
    from tacit.learn.importance import local_day, mark_review_offered
    from tacit.learn.lifecycle import _Using

    now = time.time() if now is None else now
    day = day or local_day(now)
    with _Using(cfg, ledger) as led:
        with led.read() as conn:
            items = review_items(conn, now=now, day=day, include_all=include_all)
        shown = record_review_shown(led, cfg, trigger, now, items)
    if day == local_day(now):
        mark_review_offered(cfg, now)
    text = render_review(items, "all pending days" if include_all else day)
    return {"success": True, "text": text, "day": day, "items": items, "counts": counts(items),
            "review_id": shown["review_id"]}


REVIEW_INSTRUCTIONS = (
    "The user asked to review what tacit (the memory extension) noted from the conversation today. "
    "Show them the notes below as they are grouped and ask which to keep, drop or edit. Apply their "
    "answer with one shell command, e.g. `tacit review --keep 12 14 --drop 13 --edit 15 \"new text\"`. "
    "Kept notes go into USER.md/MEMORY.md at once; undecided ones follow the group's default tomorrow.")


def review_for_prompt(cfg, now: float) -> str | None:
    """The ``<memory-review>`` block injected when the user asks for the
    review in a message (read-only; the background records the showing)."""
    from tacit.learn.fixes import _reader
    from tacit.learn.importance import local_day

    try:
        with _reader(cfg).read() as conn:
            items = review_items(conn, now=now)
    except Exception as exc:  # noqa: BLE001 — never break the host
        from tacit.log import log

        log(cfg, "warning", "importance.review", f"review not shown: {type(exc).__name__}: {exc}")
        return None
    return f"<memory-review>\n{REVIEW_INSTRUCTIONS}\n\n{render_review(items, local_day(now))}\n</memory-review>"


# ---------------------------------------------------------------------------
# Deciding
# ---------------------------------------------------------------------------
def _resolve(conn, ref) -> tuple | None:
    from tacit.learn.importance import SOURCE

    ref = str(ref).strip().lstrip("#")
    columns = "id, key, content, status, target, data, applied_text"
    if ref.isdigit():
        row = conn.execute(f"SELECT {columns} FROM memories WHERE id = ? AND source = ?",
                           (int(ref), SOURCE)).fetchone()
    else:
        row = conn.execute(f"SELECT {columns} FROM memories WHERE key = ? AND source = ?",
                           (ref, SOURCE)).fetchone()
    return row


def promote(ledger, cfg, memory_ids, now: float, *, by_user: bool) -> dict:
    """candidate → confirmed → applied (written into USER.md/MEMORY.md)."""
    from tacit.learn import lifecycle

    ids = list(dict.fromkeys(memory_ids))
    if not ids:
        return {"applied": [], "failed": []}
    with ledger.write() as conn:
        conn.executemany("UPDATE memories SET status = 'confirmed', updated_at = ? WHERE id = ? "
                         "AND status IN ('candidate', 'confirmed')", [(now, i) for i in ids])
    notices = lifecycle.finish(ledger, cfg, ids, now)
    if by_user and notices:  # the command's own output already says so
        lifecycle.mark_delivered(ledger, [n["id"] for n in notices], now)
    applied, failed = [], []
    with ledger.read() as conn:
        for memory_id in ids:
            row = conn.execute("SELECT key, status FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if row and row[1] == "applied":
                applied.append(row[0])
            elif row:
                failed.append(row[0])
    return {"applied": applied, "failed": failed}


def decide(cfg, *, keep=(), drop=(), edits=(), ledger=None, now: float | None = None) -> dict:
    """``tacit review --keep/--drop/--edit``. ``edits`` is ``[(ref, text)]``.
    Validates everything first; on any problem nothing changes."""
    import json

    from tacit.learn import lifecycle
    from tacit.scan import first_finding

    now = time.time() if now is None else now
    keep, drop = [str(r) for r in keep], [str(r) for r in drop]
    edits = [(str(r), " ".join(str(t).split())) for r, t in edits]
    if not (keep or drop or edits):
        return {"success": False, "error": "Nothing to do: give --keep, --drop or --edit."}
    with lifecycle._Using(cfg, ledger) as led:
        with led.read() as conn:
            resolved, errors = {}, []
            for ref in [*keep, *drop, *(r for r, _ in edits)]:
                row = _resolve(conn, ref)
                if row is None:
                    errors.append(f"no capture has id or key {ref!r} (see tacit review)")
                elif row[3] == "dismissed" and ref not in drop:
                    errors.append(f"#{row[0]} was dropped or forgotten; teach it again with tacit memories teach")
                else:
                    resolved[ref] = row
        kept_ids = {resolved[r][0] for r in keep if r in resolved}
        dropped_ids = {resolved[r][0] for r in drop if r in resolved}
        for memory_id in kept_ids & dropped_ids:
            errors.append(f"#{memory_id} is both kept and dropped")
        for ref, text in edits:
            if not text:
                errors.append(f"the new text for {ref!r} is empty")
            elif first_finding(text) is not None:
                errors.append(f"the new text for {ref!r} was refused by the scanner: "
                              f"{first_finding(text).reason}")
            elif ref in resolved and resolved[ref][0] in dropped_ids:
                errors.append(f"#{resolved[ref][0]} is both edited and dropped")
        if errors:
            return {"success": False, "error": "; ".join(errors), "errors": errors}

        edited, dropped, kept_keys = [], [], []
        for ref, text in edits:
            memory_id, key, content, status, target, raw, applied_text = resolved[ref]
            data = json.loads(raw or "{}")
            if status == "applied" and applied_text:
                from tacit.stores.memory import MemoryStore

                result = MemoryStore(cfg).replace(target, applied_text, text)
                if not result.get("success"):
                    errors.append(f"#{memory_id}: {result.get('error')}")
                    continue
            data.setdefault("edited_from", content)
            from tacit.learn.importance import _terms

            data["terms"] = " ".join(sorted(_terms(text)))
            with led.write() as conn:
                conn.execute("UPDATE memories SET content = ?, data = ?, updated_at = ?, "
                             "applied_text = CASE WHEN status = 'applied' THEN ? ELSE applied_text END "
                             "WHERE id = ?", (text, json.dumps(data, ensure_ascii=False), now, text, memory_id))
                record_decision(conn, memory_id, key, data, "edit", "user", content, text, now)
            edited.append(key)
        for ref in drop:
            memory_id, key, content, status, _target, raw, _applied = resolved[ref]
            if status == "dismissed":
                dropped.append(key)
                continue
            with led.write() as conn:
                record_decision(conn, memory_id, key, json.loads(raw or "{}"), "drop", "user", content, None, now)
            lifecycle.forget(cfg, key, ledger=led, now=now)
            dropped.append(key)
        for ref in keep:
            memory_id, key, content, _status, _target, raw, _applied = resolved[ref]
            data = json.loads(raw or "{}")
            data["kept"] = True
            with led.write() as conn:
                conn.execute("UPDATE memories SET data = ? WHERE id = ?",
                             (json.dumps(data, ensure_ascii=False), memory_id))
                record_decision(conn, memory_id, key, data, "keep", "user", content, None, now)
            kept_keys.append(key)
        promoted = promote(led, cfg, kept_ids, now, by_user=True)
    for key in promoted["failed"]:
        errors.append(f"{key}: the memory file refused it (scanner or limit); it stays confirmed")
    parts = []
    if promoted["applied"]:
        parts.append(f"kept {len(promoted['applied'])} (now in USER.md/MEMORY.md)")
    if dropped:
        parts.append(f"dropped {len(dropped)}")
    if edited:
        parts.append(f"edited {len(edited)}")
    return {"success": not errors, "kept": promoted["applied"], "dropped": dropped, "edited": edited,
            "errors": errors, "message": ("Review: " + ", ".join(parts) + ".") if parts else "Review: no change.",
            **({"error": "; ".join(errors)} if errors else {})}


# ---------------------------------------------------------------------------
# Defaults for what nobody decided
# ---------------------------------------------------------------------------
def settle_past_days(ledger, cfg, now: float, *, include_today: bool = False) -> dict:
    """Apply the review defaults to undecided captures of earlier days (and
    today with ``include_today``): high → promoted when eligible, low →
    discarded, medium → stays (recorded once as deferred). At most
    ``MAX_PROMOTIONS`` per call (the rest wait for the next heartbeat), and a
    promotion a memory file refused is retried once a day, not at every beat."""
    import json

    from tacit.learn.importance import SOURCE, category_minimums, group_of, local_day

    today = local_day(now)
    minimums = category_minimums(cfg)
    to_promote, discarded, deferred = [], [], []
    with ledger.write() as conn:
        rows = conn.execute("SELECT id, key, content, status, data, created_at FROM memories "
                            "WHERE source = ? AND status IN ('candidate', 'confirmed')", (SOURCE,)).fetchall()
        for memory_id, key, content, status, raw, created in rows:
            data = json.loads(raw or "{}")
            if status == "confirmed":  # promoted before, the file refused it: retry once a day
                if data.get("retried_on") != today and len(to_promote) < MAX_PROMOTIONS:
                    data["retried_on"] = today
                    conn.execute("UPDATE memories SET data = ? WHERE id = ?",
                                 (json.dumps(data, ensure_ascii=False), memory_id))
                    to_promote.append(memory_id)
                continue
            day = data.get("day") or local_day(created)
            if day > today or (day == today and not include_today):
                continue
            importance = float(data.get("effective", data.get("importance", 0.0)))
            group = group_of(importance)
            eligible = (importance >= cfg.importance_threshold
                        and importance >= minimums.get(data.get("category"), 0.0))
            if group == "high" and eligible:
                if len(to_promote) >= MAX_PROMOTIONS:
                    continue  # the rest at the next heartbeat
                record_decision(conn, memory_id, key, data, "promote", "default", content, None, now)
                to_promote.append(memory_id)
            elif group == "low" and not data.get("kept"):
                record_decision(conn, memory_id, key, data, "discard", "default", content, None, now)
                conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
                discarded.append(key)
            elif not data.get("deferred"):
                data["deferred"] = True
                conn.execute("UPDATE memories SET data = ? WHERE id = ?",
                             (json.dumps(data, ensure_ascii=False), memory_id))
                record_decision(conn, memory_id, key, data, "defer", "default", content, None, now)
                deferred.append(key)
    promoted = promote(ledger, cfg, to_promote, now, by_user=False)
    return {"promoted": promoted["applied"], "failed": promoted["failed"], "discarded": discarded,
            "deferred": deferred}


def decisions(ledger, *, day: str | None = None, limit: int = 200) -> list[dict]:
    """Recorded decisions, newest first (``tacit review --history``)."""
    with ledger.read() as conn:
        query = ("SELECT memory_key, day, grp, importance, action, decided_by, content_before, content_after, at "
                 "FROM importance_decisions")
        params: list = []
        if day:
            query += " WHERE day = ?"
            params.append(day)
        rows = conn.execute(query + " ORDER BY id DESC LIMIT ?", [*params, limit]).fetchall()
    keys = ("key", "day", "group", "importance", "action", "decided_by", "before", "after", "at")
    return [dict(zip(keys, r)) for r in rows]

"""The one lifecycle every detector's memories go through.

candidate → confirmed → applied (→ dismissed), in the ledger's ``memories``
table. Detectors (the five usage-pattern rules, habits, and later fix
patterns and importance captures) never move a memory themselves: they hand
``Proposal``s to ``advance`` and this module does the arithmetic, the file
writes, the adaptation log and the one-time notice.

Design decisions
- **The ladder, exactly.** A proposal for a new key is inserted at its base
  confidence when its detector's threshold is met; the observation that
  creates a memory is recorded as its evidence and does *not* also confirm it.
  Each later supporting piece of evidence adds ``+15`` (max 100) and one
  ``times_confirmed``. ``candidate → confirmed`` at ≥ 60;
  ``→ applied`` at ≥ 80 with ≥ 3 confirmations. From 20: confirmed after the
  3rd confirmation (65), applied on the 4th (80).
- **One piece of evidence reinforces one memory at most once.** Evidence rows
  have the primary key ``(memory_id, ref)``; a reinforcement only counts when
  its row is new. This also makes replaying a journal after a crash harmless.
- **Support is specific.** A memory that records a ``plugin`` is only
  supported by evidence from that plugin; the detector decides what else
  "supports" by the key it proposes (same entity, same category, same
  sequence, same hour).
- **Apply = write the file, then mark.** The transaction that reaches the
  threshold only decides; the memory file is written afterwards (never while
  holding the ledger's write lock), and a second short transaction marks the
  memory ``applied`` — guarded by ``status = 'confirmed'``, so two processes
  racing write the (idempotent) entry twice but log one adaptation and one
  notice. If the file refuses (scanner, still over the limit after the
  deterministic merge) the memory stays ``confirmed`` and is retried on its
  next reinforcement. Learned memories never start a child agent: this runs
  inside a learner or ``tacit observe``, which must stay quick.
- **Notices are stored, then delivered once.** A background learner cannot
  reach the user, so every "Memory adapted: …" is a ``notices`` row;
  ``take_notices`` hands pending ones out exactly once (one transaction), and
  ``tacit observe`` prints and marks the ones its own run created.
- **Dismissed is forever.** ``forget`` reverts the adaptation, removes the
  entry from MEMORY.md/USER.md and keeps the row as ``dismissed``, so its key
  is never proposed or reinforced again and it never decays or expires.
- **Decay once per calendar day, on the first ledger event of that day.** A
  ``ledger_meta`` marker holds the last local date maintenance ran; the first
  write transaction of a later date runs it. Deciding from a marker (never
  from "are there observations today?") means the observation just logged
  cannot hide that it is the first. Days with no events do not decay: a
  holiday does not erase what was learned. Taught memories (the user's own
  words) do not decay either.
"""

from __future__ import annotations

import time

STEP = 15
MAX_CONFIDENCE = 100
CONFIRM_AT = 60
APPLY_AT = 80
APPLY_MIN_CONFIRMATIONS = 3
UNUSED_DAYS = 30
DECAY_STEP = 5
DELETE_BELOW = 10
DAY = 86400.0

STATUSES = ("applied", "confirmed", "candidate", "dismissed")

# Other daily maintenance that rides on the same "first event of the day"
# trigger: dotted "module:function(conn, cfg, now)" names. Detectors append.
DAILY_TASKS = ["tacit.learn.habits:prune_events"]


# ---------------------------------------------------------------------------
# Proposals
# ---------------------------------------------------------------------------
class Proposal:
    """What a detector hands the lifecycle for one key.

    ``create`` says the detector's threshold is met (insert if the key is
    new); ``ref``/``session_key`` identify the evidence this proposal brings
    (it reinforces an existing memory once per ref); ``evidence`` is the full
    list of ``(ref, session_key)`` recorded when the memory is created.
    """

    __slots__ = (
        "adaptation",
        "confidence",
        "content",
        "create",
        "data",
        "entity",
        "evidence",
        "key",
        "kind",
        "plugin",
        "ref",
        "session_key",
        "source",
        "step",
        "target",
        "ttl_seconds",
    )

    def __init__(self, key, *, kind, source, content, adaptation, confidence, target="memory",
                 plugin=None, entity=None, data=None, ttl_seconds=None, ref=None,
                 session_key=None, evidence=(), create=False, step=STEP):
        self.key, self.kind, self.source = key, kind, source
        self.content, self.adaptation, self.confidence = content, adaptation, int(confidence)
        self.target, self.plugin, self.entity = target, plugin, entity
        self.data, self.ttl_seconds = data or {}, ttl_seconds
        self.ref, self.session_key = ref, session_key or ref
        self.evidence, self.create, self.step = list(evidence), bool(create), int(step)

    def __repr__(self) -> str:
        return f"Proposal({self.key!r}, create={self.create}, ref={self.ref!r})"


def slugify(text, max_len: int = 40) -> str:
    """Lowercase words joined by '-' (unicode letters kept), for keys."""
    import re

    slug = re.sub(r"[\W_]+", "-", str(text).lower(), flags=re.UNICODE).strip("-")
    slug = slug[:max_len].rstrip("-")
    if not slug:
        import hashlib

        slug = "x" + hashlib.sha1(str(text).encode("utf-8")).hexdigest()[:8]
    return slug


def status_of(conn, key: str) -> str | None:
    row = conn.execute("SELECT status FROM memories WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def advance(conn, proposals, now: float) -> dict:
    """Create or reinforce memories inside the caller's write transaction.

    Returns ``{"created": [keys], "reinforced": [keys], "to_apply": [ids]}``;
    pass ``to_apply`` to ``finish`` after committing.
    """
    import json

    created, reinforced, to_apply = [], [], []
    for p in proposals:
        row = conn.execute(
            "SELECT id, status, confidence, times_confirmed, plugin FROM memories WHERE key = ?",
            (p.key,)).fetchone()
        if row is None:
            if not p.create:
                continue
            confidence = max(0, min(MAX_CONFIDENCE, p.confidence))
            status = "confirmed" if confidence >= CONFIRM_AT else "candidate"
            expires = now + p.ttl_seconds if p.ttl_seconds else None
            cur = conn.execute(
                "INSERT INTO memories (key, kind, source, content, target, status, confidence, "
                "times_confirmed, plugin, entity, adaptation, data, created_at, updated_at, "
                "last_used_at, expires_at) VALUES (?,?,?,?,?,?,?,0,?,?,?,?,?,?,?,?)",
                (p.key, p.kind, p.source, p.content, p.target, status, confidence, p.plugin,
                 p.entity, p.adaptation, json.dumps(p.data, ensure_ascii=False), now, now, now,
                 expires))
            memory_id = cur.lastrowid
            evidence = list(p.evidence)
            if p.ref and all(ref != p.ref for ref, _ in evidence):
                evidence.append((p.ref, p.session_key))
            conn.executemany(
                "INSERT OR IGNORE INTO memory_evidence (memory_id, ref, session_key, role, at) "
                "VALUES (?, ?, ?, 'create', ?)",
                [(memory_id, ref, skey or ref, now) for ref, skey in evidence])
            created.append(p.key)
            continue
        memory_id, status, confidence, times, plugin = row
        if status == "dismissed" or not p.ref:
            continue
        if plugin is not None and p.plugin is not None and plugin != p.plugin:
            continue  # not support: another plugin's run
        cur = conn.execute(
            "INSERT OR IGNORE INTO memory_evidence (memory_id, ref, session_key, role, at) "
            "VALUES (?, ?, ?, 'confirm', ?)", (memory_id, p.ref, p.session_key or p.ref, now))
        if cur.rowcount != 1:
            continue  # this evidence already counted for this memory
        confidence = min(MAX_CONFIDENCE, confidence + p.step)
        times += 1
        if status == "candidate" and confidence >= CONFIRM_AT:
            status = "confirmed"
        conn.execute(
            "UPDATE memories SET confidence = ?, times_confirmed = ?, status = ?, "
            "last_used_at = ?, updated_at = ? WHERE id = ?",
            (confidence, times, status, now, now, memory_id))
        reinforced.append(p.key)
        if status == "confirmed" and confidence >= APPLY_AT and times >= APPLY_MIN_CONFIRMATIONS:
            to_apply.append(memory_id)
    return {"created": created, "reinforced": reinforced, "to_apply": to_apply}


def notice_text(description: str, key: str, sessions: int) -> str:
    phrase = description[4:] if description.lower().startswith("now ") else description
    phrase = phrase[:1].lower() + phrase[1:]
    plural = "" if sessions == 1 else "s"
    return (f"Memory adapted: I'm now {phrase} based on your last {sessions} session{plural}. "
            f"Review with /memory-show; revert with /memory-forget \"{key}\".")


def finish(ledger, cfg, to_apply, now: float | None = None) -> list[dict]:
    """Apply memories that reached the threshold (after the deciding
    transaction committed). Returns the notices created: ``[{id, key, text}]``."""
    from tacit.consolidation import add_entry
    from tacit.log import log
    from tacit.stores.memory import normalise_entry

    now = time.time() if now is None else now
    notices = []
    for memory_id in dict.fromkeys(to_apply):
        with ledger.read() as conn:
            row = conn.execute("SELECT key, content, target, adaptation, status FROM memories "
                               "WHERE id = ?", (memory_id,)).fetchone()
        if row is None or row[4] != "confirmed":
            continue
        key, content, target, adaptation, _ = row
        result = add_entry(cfg, target, content, use_agent=False)
        if not result.get("success"):
            log(cfg, "warning", "learn.lifecycle",
                f"could not apply {key!r} to {target}: {result.get('error')}; stays confirmed")
            continue
        entry = normalise_entry(content)
        orphaned = False
        with ledger.write() as conn:
            cur = conn.execute(
                "UPDATE memories SET status = 'applied', applied_at = ?, applied_text = ?, "
                "updated_at = ? WHERE id = ? AND status = 'confirmed'", (now, entry, now, memory_id))
            if cur.rowcount != 1:
                # another process applied it (fine) or it was forgotten meanwhile
                state = conn.execute("SELECT status FROM memories WHERE id = ?",
                                     (memory_id,)).fetchone()
                orphaned = state is None or state[0] == "dismissed"
            else:
                sessions = conn.execute(
                    "SELECT count(DISTINCT session_key) FROM memory_evidence WHERE memory_id = ?",
                    (memory_id,)).fetchone()[0]
                description = adaptation or f"Now remembering: {content}"
                adaptation_id = conn.execute(
                    "INSERT INTO adaptations (memory_id, memory_key, description, created_at) "
                    "VALUES (?, ?, ?, ?)", (memory_id, key, description, now)).lastrowid
                text = notice_text(description, key, max(1, sessions))
                notice_id = conn.execute(
                    "INSERT INTO notices (text, adaptation_id, created_at) VALUES (?, ?, ?)",
                    (text, adaptation_id, now)).lastrowid
                notices.append({"id": notice_id, "key": key, "text": text})
        if orphaned:
            _remove_entry(cfg, target, entry, key)
    return notices


def submit(ledger, cfg, proposals, now: float | None = None) -> dict:
    """Advance proposals in their own transaction, then apply: the entry
    point for detectors that are not inside an observation's transaction
    (habit mining; fix patterns and importance captures)."""
    now = time.time() if now is None else now
    with ledger.write() as conn:
        removals = run_daily_if_due(conn, cfg, now)
        changes = advance(conn, proposals, now)
    revert_entries(cfg, removals)
    changes["notices"] = finish(ledger, cfg, changes["to_apply"], now)
    return changes


# ---------------------------------------------------------------------------
# Decay, TTL, daily maintenance
# ---------------------------------------------------------------------------
def local_day(now: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(now))


def run_daily_if_due(conn, cfg, now: float) -> list[tuple]:
    """Inside a write transaction: on the first event of a calendar day run
    decay, TTL expiry and the other daily tasks. Returns the memory-file
    entries to remove once the transaction has committed."""
    from tacit.stores.ledger import Ledger

    today = local_day(now)
    last = Ledger.meta_get(conn, "last_maintenance_day")
    if last is not None and last >= today:
        return []  # already ran today (or a replayed older event)
    Ledger.meta_set(conn, "last_maintenance_day", today)
    removals = decay(conn, now)
    import importlib

    for task in DAILY_TASKS:
        module_name, _, func_name = task.partition(":")
        getattr(importlib.import_module(module_name), func_name)(conn, cfg, now)
    return removals


def decay(conn, now: float) -> list[tuple]:
    """−5 for memories unused for 30 days; delete those below 10 and those
    past their TTL (adaptations reverted first). Dismissed and taught memories
    are exempt. Returns ``[(target, applied_text_or_None, key)]`` for every
    deleted memory; ``revert_entries`` removes the file entries after commit."""
    conn.execute(
        "UPDATE memories SET confidence = max(0, confidence - ?), updated_at = ? "
        "WHERE status != 'dismissed' AND source != 'teach' AND last_used_at < ?",
        (DECAY_STEP, now, now - UNUSED_DAYS * DAY))
    doomed = conn.execute(
        "SELECT id, key, target, applied_text, expires_at FROM memories "
        "WHERE status != 'dismissed' AND ((source != 'teach' AND confidence < ?) "
        "OR (expires_at IS NOT NULL AND expires_at <= ?))", (DELETE_BELOW, now)).fetchall()
    removals = []
    for memory_id, key, target, applied_text, expires_at in doomed:
        reason = "expired" if expires_at is not None and expires_at <= now else "decay"
        conn.execute("UPDATE adaptations SET status = 'reverted', reverted_at = ?, reason = ? "
                     "WHERE memory_id = ? AND status = 'active'", (now, reason, memory_id))
        conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
        removals.append((target, applied_text, key))
    return removals


def revert_entries(cfg, removals) -> None:
    """Remove the memory-file entries of deleted memories (after commit)."""
    for target, text, key in removals:
        if text:
            _remove_entry(cfg, target, text, key)


def _remove_entry(cfg, target: str, text: str, key: str) -> dict:
    from tacit.log import log
    from tacit.stores.memory import MemoryStore

    store = MemoryStore(cfg)
    if text not in store.entries(target):
        return {"success": False, "error": "entry no longer in the file (edited or removed by hand)"}
    result = store.remove(target, text)
    if not result.get("success"):
        log(cfg, "warning", "learn.lifecycle",
            f"could not remove {key!r} from {target}: {result.get('error')}")
    return result


# ---------------------------------------------------------------------------
# Notices
# ---------------------------------------------------------------------------
def pending_notices(ledger) -> list[str]:
    """Undelivered one-time notices, oldest first (not marked)."""
    with ledger.read() as conn:
        rows = conn.execute("SELECT text FROM notices WHERE delivered_at IS NULL ORDER BY id")
        return [r[0] for r in rows]


def mark_delivered(ledger, ids=None, now: float | None = None) -> int:
    """Mark notices delivered: the given ids, or every pending one."""
    now = time.time() if now is None else now
    with ledger.write() as conn:
        if ids is None:
            cur = conn.execute("UPDATE notices SET delivered_at = ? WHERE delivered_at IS NULL", (now,))
        else:
            ids = list(ids)
            cur = conn.executemany(
                "UPDATE notices SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL",
                [(now, i) for i in ids])
        return cur.rowcount


def take_notices(ledger, now: float | None = None) -> list[str]:
    """Pending notices, each handed out exactly once (``tacit.stores.notices``)."""
    from tacit.stores.notices import take

    return take(ledger, now)


# ---------------------------------------------------------------------------
# /memory-show, /memory-forget, /memory-teach
# ---------------------------------------------------------------------------
class _Using:
    """``with _Using(cfg, ledger) as ledger:`` — the caller's ledger, or a
    fresh one closed afterwards."""

    def __init__(self, cfg, ledger):
        self.cfg, self.given, self.own = cfg, ledger, None

    def __enter__(self):
        if self.given is not None:
            return self.given
        from tacit.stores.ledger import Ledger

        self.own = Ledger(self.cfg)
        return self.own

    def __exit__(self, *exc):
        if self.own is not None:
            self.own.close()


def list_memories(cfg, *, ledger=None) -> list[dict]:
    """Every memory with its evidence summary, by status then confidence."""
    import json

    order = " ".join(f"WHEN '{s}' THEN {i}" for i, s in enumerate(STATUSES))
    with _Using(cfg, ledger) as led, led.read() as conn:
        rows = conn.execute(
            "SELECT m.key, m.kind, m.source, m.status, m.content, m.target, m.confidence, "
            "m.times_confirmed, m.created_at, m.updated_at, m.last_used_at, m.expires_at, "
            "m.applied_at, m.dismissed_at, m.adaptation, m.data, "
            "count(e.ref), count(DISTINCT e.session_key), max(e.at) "
            "FROM memories m LEFT JOIN memory_evidence e ON e.memory_id = m.id "
            f"GROUP BY m.id ORDER BY CASE m.status {order} END, m.confidence DESC, m.key").fetchall()
    out = []
    for r in rows:
        out.append({
            "key": r[0], "kind": r[1], "source": r[2], "status": r[3], "content": r[4],
            "target": r[5], "confidence": r[6], "times_confirmed": r[7], "created_at": r[8],
            "updated_at": r[9], "last_used_at": r[10], "expires_at": r[11], "applied_at": r[12],
            "dismissed_at": r[13], "adaptation": r[14], "data": json.loads(r[15] or "{}"),
            "evidence": {"observations": r[16], "sessions": r[17], "last_at": r[18]},
        })
    return out


_HEADINGS = {"applied": "Applied ({n}) — in your memory files", "confirmed": "Confirmed ({n})",
             "candidate": "Candidates ({n})", "dismissed": "Dismissed ({n}) — never proposed again"}


def render_memories(memories: list[dict]) -> str:
    if not memories:
        return ("No learned memories yet. tacit learns from repeated runs of your commands, "
                "skills and plugins; teach one directly with /memory-teach \"<text>\".")
    lines = []
    for status in STATUSES:
        group = [m for m in memories if m["status"] == status]
        if not group:
            continue
        lines.append(_HEADINGS[status].format(n=len(group)))
        for m in group:
            ev = m["evidence"]
            last = time.strftime("%Y-%m-%d", time.localtime(ev["last_at"])) if ev["last_at"] else "-"
            in_file = m["applied_at"] and m["status"] != "dismissed"
            where = f", in {'USER.md' if m['target'] == 'user' else 'MEMORY.md'}" if in_file else ""
            lines.append(f"  {m['key']}  [{m['kind']}] confidence {m['confidence']}, "
                         f"confirmed {m['times_confirmed']}×, evidence {ev['observations']} "
                         f"from {ev['sessions']} session(s), last {last}{where}")
            lines.append(f"      {m['content']}")
        lines.append("")
    lines.append("Revert one with /memory-forget \"<key>\" (tacit memories forget KEY); "
                 "teach one with /memory-teach \"<text>\".")
    return "\n".join(lines)


def show_memories(cfg, *, ledger=None) -> str:
    """``/memory-show``: the text listing memories by status."""
    return render_memories(list_memories(cfg, ledger=ledger))


def forget(cfg, key: str, *, ledger=None, now: float | None = None) -> dict:
    """``/memory-forget KEY``: revert the adaptation, remove the entry from
    MEMORY.md/USER.md, mark the memory dismissed (never proposed again)."""
    now = time.time() if now is None else now
    key = (key or "").strip().strip('"').strip("'")
    if not key:
        return {"success": False, "error": "Give the key of a memory (see /memory-show)."}
    with _Using(cfg, ledger) as led:
        with led.write() as conn:
            row = conn.execute("SELECT id, key, status, target, applied_text FROM memories "
                               "WHERE key = ?", (key,)).fetchone()
            if row is None:
                row = conn.execute("SELECT id, key, status, target, applied_text FROM memories "
                                   "WHERE key = ? COLLATE NOCASE", (key,)).fetchone()
            if row is None:
                return {"success": False, "key": key,
                        "error": f"No learned memory has the key {key!r}. "
                                 f"/memory-show (tacit memories) lists the keys."}
            memory_id, key, status, target, applied_text = row
            if status == "dismissed":
                return {"success": True, "key": key, "previous_status": status,
                        "adaptations_reverted": 0, "removed_from": None,
                        "message": f"{key} was already forgotten."}
            conn.execute("UPDATE memories SET status = 'dismissed', dismissed_at = ?, "
                         "updated_at = ? WHERE id = ?", (now, now, memory_id))
            reverted = conn.execute(
                "UPDATE adaptations SET status = 'reverted', reverted_at = ?, reason = 'forget' "
                "WHERE memory_id = ? AND status = 'active'", (now, memory_id)).rowcount
    removed_from, note = None, None
    if applied_text:
        result = _remove_entry(cfg, target, applied_text, key)
        if result.get("success"):
            removed_from = "USER.md" if target == "user" else "MEMORY.md"
        else:
            note = result.get("error")
    message = f"Forgot {key}" + (f" and removed it from {removed_from}" if removed_from else "") + \
        "; it will not be proposed again."
    out = {"success": True, "key": key, "previous_status": status,
           "adaptations_reverted": reverted, "removed_from": removed_from, "message": message}
    if note:
        out["note"] = note
    return out


def teach(cfg, text: str, *, target: str = "memory", ledger=None, now: float | None = None) -> dict:
    """``/memory-teach TEXT``: an explicit memory at confidence 100,
    ``confirmed``, written straight into MEMORY.md (USER.md with
    ``target="user"``). No ladder, no "Memory adapted" notice: the user said it."""
    from tacit.stores.memory import TARGETS, normalise_entry

    now = time.time() if now is None else now
    entry = normalise_entry(text or "")
    if not entry:
        return {"success": False, "error": "Nothing to teach: the text is empty."}
    if target not in TARGETS:
        return {"success": False, "error": f"unknown target {target!r}: use 'memory' or 'user'"}
    base = "taught-" + slugify(entry, 48)
    with _Using(cfg, ledger) as led:
        with led.write() as conn:
            key, n, previous = base, 1, None
            while True:
                row = conn.execute("SELECT id, content, status, target FROM memories WHERE key = ?",
                                   (key,)).fetchone()
                if row is None or (row[1] == entry and row[3] == target):
                    previous = row
                    break
                n += 1
                key = f"{base}-{n}"
            if previous is not None and previous[2] != "dismissed":
                memory_id = previous[0]
                conn.execute("UPDATE memories SET confidence = 100, updated_at = ?, last_used_at = ? "
                             "WHERE id = ?", (now, now, memory_id))
            elif previous is not None:  # taught again after being forgotten: the user decides
                memory_id = previous[0]
                conn.execute("UPDATE memories SET status = 'confirmed', confidence = 100, "
                             "dismissed_at = NULL, updated_at = ?, last_used_at = ? WHERE id = ?",
                             (now, now, memory_id))
            else:
                memory_id = conn.execute(
                    "INSERT INTO memories (key, kind, source, content, target, status, confidence, "
                    "times_confirmed, created_at, updated_at, last_used_at) "
                    "VALUES (?, ?, 'teach', ?, ?, 'confirmed', 100, 0, ?, ?, ?)",
                    (key, "preference" if target == "user" else "fact", entry, target, now, now,
                     now)).lastrowid
                conn.execute("INSERT OR IGNORE INTO memory_evidence (memory_id, ref, session_key, "
                             "role, at) VALUES (?, ?, ?, 'create', ?)",
                             (memory_id, f"teach:{now}", f"teach:{now}", now))
        from tacit.consolidation import add_entry

        result = add_entry(cfg, target, entry, use_agent=False)
        with led.write() as conn:
            if not result.get("success"):
                if previous is None:
                    conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
                else:
                    conn.execute("UPDATE memories SET status = ?, dismissed_at = CASE WHEN ? = "
                                 "'dismissed' THEN ? END WHERE id = ?",
                                 (previous[2], previous[2], now, memory_id))
                return {"success": False, "key": key, "error": result.get("error"),
                        **{k: result[k] for k in ("usage", "over_limit") if k in result}}
            conn.execute("UPDATE memories SET applied_text = ?, applied_at = ? WHERE id = ?",
                         (entry, now, memory_id))
    return {"success": True, "key": key, "status": "confirmed", "confidence": 100,
            "target": target, "message": f"Taught {key}: saved to "
                                         f"{'USER.md' if target == 'user' else 'MEMORY.md'}. "
                                         f"Forget it with /memory-forget \"{key}\".",
            "usage": result.get("usage")}

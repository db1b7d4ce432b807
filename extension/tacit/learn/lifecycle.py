"""The one lifecycle every learner's memories go through: candidate → confirmed → applied
(→ dismissed).

Design notes: docs/design/learn.md#tacitlearnlifecycle"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field

from tacit.app import Tacit
from tacit.consolidation import add_entry
from tacit.learn.captures import local_day
from tacit.log import log
from tacit.projects import project_for
from tacit.stores import candidates, history, notices
from tacit.stores.ledger import Ledger
from tacit.stores.memory import TARGETS, MemoryStore, normalise_entry

STEP = 15
MAX_CONFIDENCE = 100
CONFIRM_AT = 60
APPLY_AT = 80
APPLY_MIN_CONFIRMATIONS = 3
UNUSED_DAYS = 30
DECAY_STEP = 5
DELETE_BELOW = 10
DAY = 86400.0
STATUSES = candidates.STATUSES


# The model
@dataclass(frozen=True, slots=True)
class Proposal:
    """What a detector hands the lifecycle for one key: ``create`` when its threshold is met, ``ref`` /
    ``session_key`` the evidence it brings, ``evidence`` all ``(ref, session_key)`` for a new memory."""

    key: str
    kind: str
    source: str
    content: str
    adaptation: str
    confidence: int
    target: str = "memory"
    plugin: str | None = None
    entity: str | None = None
    data: dict = field(default_factory=dict)
    ttl_seconds: float | None = None
    ref: str | None = None
    session_key: str | None = None
    evidence: tuple = ()
    create: bool = False
    step: int = STEP
    status: str | None = None  # force the initial status (importance captures stay candidates)


@dataclass(frozen=True, slots=True)
class Rung:
    """Where a memory stands on the ladder."""

    confidence: int
    times_confirmed: int
    status: str

    @property
    def ready(self) -> bool:
        return (self.status == "confirmed" and self.confidence >= APPLY_AT
                and self.times_confirmed >= APPLY_MIN_CONFIRMATIONS)


def initial_status(confidence: int) -> str:
    return "confirmed" if confidence >= CONFIRM_AT else "candidate"


def step(rung: Rung, by: int = STEP) -> Rung:
    """One more confirmation."""
    confidence = min(MAX_CONFIDENCE, rung.confidence + by)
    status = rung.status
    if status == "candidate" and confidence >= CONFIRM_AT:
        status = "confirmed"
    return Rung(confidence, rung.times_confirmed + 1, status)


def slugify(text, max_len: int = 40) -> str:
    """Lowercase words joined by '-' (unicode letters kept), for keys."""
    slug = re.sub(r"[\W_]+", "-", str(text).lower(), flags=re.UNICODE).strip("-")
    return slug[:max_len].rstrip("-") or "x" + hashlib.sha1(str(text).encode("utf-8", "replace")).hexdigest()[:8]


def notice_text(description: str, key: str, sessions: int) -> str:
    phrase = description[4:] if description.lower().startswith("now ") else description
    phrase = phrase[:1].lower() + phrase[1:]
    plural = "" if sessions == 1 else "s"
    return (f"Memory adapted: I'm now {phrase} based on your last {sessions} session{plural}. "
            f"Review with /memory-show; revert with /memory-forget \"{key}\".")


# Moving memories along (inside the caller's write transaction)
@dataclass(slots=True)
class Changes:
    created: list = field(default_factory=list)  # keys
    reinforced: list = field(default_factory=list)  # keys
    to_apply: list = field(default_factory=list)  # memory ids


@dataclass(frozen=True, slots=True)
class Applied:
    key: str
    text: str  # the "Memory adapted: …" notice


def advance(conn, proposals, now: float) -> Changes:
    """Create or reinforce memories; pass ``to_apply`` to ``apply``."""
    changes = Changes()
    for p in proposals:
        found = candidates.by_key(conn, p.key)
        if found is None:
            if not p.create:
                continue
            confidence = max(0, min(MAX_CONFIDENCE, int(p.confidence)))
            memory_id = candidates.insert(
                conn, key=p.key, kind=p.kind, source=p.source, content=p.content, target=p.target,
                status=p.status or initial_status(confidence), confidence=confidence, plugin=p.plugin,
                entity=p.entity, adaptation=p.adaptation, data=p.data, now=now,
                expires_at=now + p.ttl_seconds if p.ttl_seconds else None)
            evidence = list(p.evidence)
            if p.ref and all(ref != p.ref for ref, _ in evidence):
                evidence.append((p.ref, p.session_key))
            for ref, session_key in evidence:
                candidates.add_evidence(conn, memory_id, ref, session_key, "create", now)
            changes.created.append(p.key)
            continue
        if found.status == "dismissed" or not p.ref:
            continue
        if found.plugin is not None and p.plugin is not None and found.plugin != p.plugin:
            continue  # not support: another plugin's run
        if not candidates.add_evidence(conn, found.id, p.ref, p.session_key, "confirm", now):
            continue  # this evidence already counted for this memory
        rung = step(Rung(found.confidence, found.times_confirmed, found.status), p.step)
        candidates.reinforce(conn, found.id, confidence=rung.confidence, times=rung.times_confirmed,
                             status=rung.status, now=now)
        changes.reinforced.append(p.key)
        if rung.ready:
            changes.to_apply.append(found.id)
    return changes


def apply(conn, cfg, memory_ids, now: float, *, announce: bool = True) -> list[Applied]:
    """Write confirmed memories into MEMORY.md/USER.md and mark them applied,
    with their adaptation and (``announce``) a queued notice. Written as the
    learner that called (the engine's handler), else as the lifecycle learner."""
    with history.acting(history.declared() or history.Actor(kind="learner", name="lifecycle")):
        return _apply(conn, cfg, memory_ids, now, announce)


def _apply(conn, cfg, memory_ids, now: float, announce: bool) -> list[Applied]:
    out = []
    for memory_id in dict.fromkeys(memory_ids):
        found = candidates.by_id(conn, memory_id)
        if found is None or found.status != "confirmed":
            continue
        project = project_of_candidate(found)
        twin = same_entry(MemoryStore(cfg, project).entries(found.target), found.content)
        if twin is not None:
            # one lesson, one entry: the memory already says it (a child saved the correction, the
            # user added it): this memory is that entry, reinforced, not a second copy
            candidates.mark_applied(conn, memory_id, twin, now)
            continue
        # as the learner (or the user's command) this runs for: the actor it declared (``Tacit.acting``)
        you = Tacit(cfg, actor=history.current_actor())
        result = add_entry(you, found.target, found.content, use_agent=False, project=project)
        if not result.get("success"):
            log(cfg, "warning", "learn.lifecycle",
                f"could not apply {found.key!r} to {found.target}: {result.get('error')}; stays confirmed")
            continue
        if not candidates.mark_applied(conn, memory_id, normalise_entry(found.content), now):
            continue
        description = found.adaptation or f"Now remembering: {found.content}"
        adaptation_id = candidates.record_adaptation(conn, memory_id, found.key, description, now)
        text = notice_text(description, found.key, max(1, candidates.evidence_sessions(conn, memory_id)))
        if announce:
            notices.add(conn, text, adaptation_id=adaptation_id, now=now)
        out.append(Applied(found.key, text))
    return out


def project_of_candidate(found):
    """The project a learned note belongs to (``data["project"]``, its root), or
    None: the user profile and notes learned outside any project are global."""
    root = (found.data or {}).get("project") if found.target != "user" else None
    return project_for(root) if isinstance(root, str) and root else None


def comparable(text: str) -> str:
    """An entry as compared for "says the same": case, spacing and final punctuation ignored."""
    return re.sub(r"\s+", " ", normalise_entry(text or "")).strip().rstrip(".!;:,").casefold()


def same_entry(entries: list[str], content: str) -> str | None:
    """The entry of ``entries`` that says ``content`` (after normalising), or None."""
    wanted = comparable(content)
    return next((e for e in entries if wanted and comparable(e) == wanted), None)


def submit(conn, cfg, proposals, now: float, *, announce: bool = True) -> tuple[Changes, list[Applied]]:
    """Daily maintenance if due, advance, apply: the whole path for one piece of evidence."""
    run_daily_if_due(conn, cfg, now)
    changes = advance(conn, proposals, now)
    return changes, apply(conn, cfg, changes.to_apply, now, announce=announce)


# Decay and TTL, once a day
def run_daily_if_due(conn, cfg, now: float) -> list[str]:
    """On the first event of a calendar day: decay and TTL expiry. Returns
    the keys deleted (their file entries are removed)."""
    today = local_day(now)
    last = Ledger.meta_get(conn, "last_maintenance_day")
    if last is not None and last >= today:
        return []  # already ran today (or a replayed older event)
    Ledger.meta_set(conn, "last_maintenance_day", today)
    return decay(conn, cfg, now)


def decay(conn, cfg, now: float) -> list[str]:
    """−5 for memories unused for 30 days; delete those below 10 and those
    past their TTL (adaptations reverted, file entries removed)."""
    candidates.decay_unused(conn, DECAY_STEP, now - UNUSED_DAYS * DAY, now)
    deleted = []
    for row in candidates.doomed(conn, DELETE_BELOW, now):
        expired = row.expires_at is not None and row.expires_at <= now
        candidates.revert_adaptations(conn, row.id, "expired" if expired else "decay", now)
        candidates.delete(conn, row.id)
        if row.applied_text:  # a note learned in a project is in that project's memory
            remove_entry(cfg, row.target, row.applied_text, row.key, project_of_candidate(row))
        deleted.append(row.key)
    return deleted


def remove_entry(cfg, target: str, text: str, key: str, project=None) -> dict:
    store = MemoryStore(cfg, project)
    if text not in store.entries(target):
        return {"success": False, "error": "entry no longer in the file (edited or removed by hand)"}
    result = store.remove(target, text)
    if not result.get("success"):
        log(cfg, "warning", "learn.lifecycle", f"could not remove {key!r} from {target}: {result.get('error')}")
    return result


# /memory-show, /memory-forget, /memory-teach (hosts and `tacit memories`)
def list_memories(cfg) -> list[dict]:
    with Ledger(cfg) as led, led.read() as conn:
        return candidates.listing(conn)


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


def forget_in(conn, cfg, key: str, now: float) -> dict:
    """Inside a write transaction: dismiss one memory, revert its
    adaptation, remove its file entry."""
    key = (key or "").strip().strip('"').strip("'")
    if not key:
        return {"success": False, "error": "Give the key of a memory (see /memory-show)."}
    found = candidates.by_key(conn, key) or candidates.by_key(conn, key, nocase=True)
    if found is None:
        return {"success": False, "key": key,
                "error": f"No learned memory has the key {key!r}. /memory-show (tacit memories) lists the keys."}
    if found.status == "dismissed":
        return {"success": True, "key": found.key, "previous_status": found.status, "adaptations_reverted": 0,
                "removed_from": None, "message": f"{found.key} was already forgotten."}
    candidates.dismiss(conn, found.id, now)
    reverted = candidates.revert_adaptations(conn, found.id, "forget", now)
    removed_from, note = None, None
    if found.applied_text:
        result = remove_entry(cfg, found.target, found.applied_text, found.key, project_of_candidate(found))
        if result.get("success"):
            removed_from = "USER.md" if found.target == "user" else "MEMORY.md"
        else:
            note = result.get("error")
    message = f"Forgot {found.key}" + (f" and removed it from {removed_from}" if removed_from else "") + \
        "; it will not be proposed again."
    out = {"success": True, "key": found.key, "previous_status": found.status,
           "adaptations_reverted": reverted, "removed_from": removed_from, "message": message}
    if note:
        out["note"] = note
    return out


def forget_matching(cfg, ledger, says, now: float | None = None) -> list[dict]:
    """``tacit forget TEXT``: dismiss every learned memory whose content
    ``says(content)`` is true, whatever learned it: [{id, key, text}]."""
    now = time.time() if now is None else now
    gone = []
    with ledger.write() as conn:
        for row in candidates.live(conn):
            if row.content and says(row.content):
                forget_in(conn, cfg, row.key, now)
                gone.append({"id": row.id, "key": row.key, "text": row.content})
    return gone


def forget(tacit: Tacit, key: str) -> dict:
    """``/memory-forget KEY`` as ``tacit``'s actor: revert the adaptation, remove the entry
    from MEMORY.md/USER.md, mark the memory dismissed (never proposed again)."""
    with history.acting(tacit.require_actor()), history.using(tacit.ledger), tacit.ledger.write() as conn:
        return forget_in(conn, tacit.cfg, key, time.time())


def _taught_where(scope, project) -> str:
    """Where a taught entry went, as /memory-show names the scope."""
    if scope == "user":
        return "your user profile (USER.md)"
    if scope == "project" and project is not None:
        return f"this project's memory ({project.name}, MEMORY.md)"
    return "your global notes (MEMORY.md, every project)"


def teach(tacit: Tacit, text: str, *, target: str = "memory", project=None) -> dict:
    """``/memory-teach TEXT`` as ``tacit``'s actor: a memory at confidence 100, written straight into
    ``project``'s MEMORY.md (the global notes outside a project; USER.md with ``target="user"``), as
    ``tacit memory add`` does; no ladder, no notice; a refused write changes nothing."""
    now = time.time()
    entry = normalise_entry(text or "")
    if not entry:
        return {"success": False, "error": "Nothing to teach: the text is empty."}
    if target not in TARGETS:
        return {"success": False, "error": f"unknown target {target!r}: use 'memory' or 'user'"}
    base = "taught-" + slugify(entry, 48)
    with history.using(tacit.ledger), tacit.ledger.write() as conn:
        key, n = base, 1
        previous = candidates.by_key(conn, key)
        while previous is not None and not (previous.content == entry and previous.target == target):
            n += 1
            key = f"{base}-{n}"
            previous = candidates.by_key(conn, key)
        result = add_entry(tacit, target, entry, use_agent=False, project=project)
        if not result.get("success"):
            return {"success": False, "key": key, "error": result.get("error"),
                    **{k: result[k] for k in ("usage", "over_limit") if k in result}}
        if previous is None:
            memory_id = candidates.insert(
                conn, key=key, kind="preference" if target == "user" else "fact", source="teach",
                content=entry, target=target, status="confirmed", confidence=100, plugin=None, entity=None,
                adaptation=None, data=({"project": project.root} if project and target != "user" else {}),
                now=now, expires_at=None)
            candidates.add_evidence(conn, memory_id, f"teach:{now}", None, "create", now)
        else:  # taught again (maybe after being forgotten): the user decides
            memory_id = previous.id
            candidates.restore_taught(conn, memory_id, now)
        candidates.set_applied_text(conn, memory_id, entry, now)
    scope = tacit.memory(project).resolve(result.get("target") or target)
    entries = tacit.memory(project).entries(scope)
    where = _taught_where(scope, project)
    if entry in entries:  # its number in `tacit memory show`: short, where the key is a sentence long
        short = f"{scope}:{entries.index(entry) + 1}"
        told = f"saved to {where} as entry {short}. Forget it with /memory-forget {short} (tacit forget {short})."
    else:
        told = f"saved to {where}. Forget it with /memory-forget \"{key}\" (tacit memories forget {key})."
    return {"success": True, "key": key, "status": "confirmed", "confidence": 100, "target": target,
            "message": f"Taught {key}: {told}",
            "usage": result.get("usage")}

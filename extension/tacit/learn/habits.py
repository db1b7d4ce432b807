"""Habits: repeated tool and command sequences, mined from action events.

Every ``tool_call`` and ``command`` event is appended to ``action_events``
(session, action, time). Mining groups them by session, in time order, and
counts consecutive steps:

- a **pair** A → B is two consecutive events of one session whose gap is at
  most ``sequential_window_seconds`` (30) and whose actions differ (A → A is a
  repetition, not a sequence);
- a **trigram** A → B → C is three events that are *actually* consecutive,
  both gaps within the window, no adjacent repeats, and A ≠ C (A → B → A is a
  back-and-forth, skipped). Trigrams are never stitched together from two
  pairs seen in different places;
- a pattern seen at least ``habit_min_frequency`` (3) times is a **habit**;
  below that it is **emerging** (``tacit habits status`` shows the progress).

Design decisions
- **Confidence is a proportion.** sessions containing the pattern ÷ sessions
  considered, where the sessions considered are those in which the pattern's
  first action ran (the sessions where it *could* have happened) — so it is
  always within 0..1 and reads as "after A, how often B follows". The same
  number is the suggestion weight: ``suggest`` needs weight ≥ 0.8 and count ≥ 5.
- **Mining recomputes, it never accumulates.** Each run reads every event in
  the retention window (no "first N" cut-off) from a read snapshot, derives
  the table from scratch and swaps it in one short write transaction:
  re-running adds nothing twice, and learners writing meanwhile never wait
  for the mining.
  Events older than ``habit_retention_days`` (60) are pruned first, and by the
  ledger's daily maintenance.
- **Action names carry the program for shell tools** (``Bash:pytest``,
  ``Bash:git``): "Bash → Bash" says nothing, "git → pytest" does. Commands
  are ``/name``. Only the program is kept, never the command line (it may
  hold secrets).
- **A habit can become a workflow memory.** A suggestion-grade habit with at
  least one slash command in it is proposed to the shared lifecycle under the
  same key as rule 4 (``workflow-seq-…``), with one reinforcement per mining
  run that saw a new session. Tool-only habits stay habits: they describe how
  the agent works, and ``suggest`` serves them.
"""

from __future__ import annotations

import os
import time

SUGGEST_MIN_WEIGHT = 0.8
SUGGEST_MIN_COUNT = 5
STALE_AFTER_SECONDS = 900.0  # turn_end re-mines at most this often
ARROW = " → "

SHELL_TOOLS = frozenset({"bash", "shell", "terminal", "run_shell_command", "execute_command",
                         "exec", "run_command", "shell_command"})
_SKIP_PREFIXES = ("sudo", "env", "time", "nice", "nohup", "command", "exec")
_SETUP_COMMANDS = ("cd", "pushd", "popd", "export", "source", ".", "set", "unset")
_SEPARATORS = ("&&", "||", ";", "|")


# ---------------------------------------------------------------------------
# Action events
# ---------------------------------------------------------------------------
def shell_program(command) -> str | None:
    """The program a shell command line runs: ``FOO=1 sudo git push`` → ``git``,
    ``cd src && make`` → ``make`` (navigation and env set-up are skipped)."""
    if not isinstance(command, str):
        return None
    import shlex

    try:
        words = shlex.split(command, comments=False)
    except ValueError:
        words = command.split()
    skipping_segment = False
    for word in words:
        if word in _SEPARATORS:
            skipping_segment = False
            continue
        if skipping_segment:
            continue
        if "=" in word and word.split("=", 1)[0].isidentifier():
            continue  # an environment assignment
        name = os.path.basename(word)
        if name in _SKIP_PREFIXES or word.startswith("-"):
            continue
        if name in _SETUP_COMMANDS:
            skipping_segment = True
            continue
        return name[:60] or None
    return None


def action_for_tool(name: str, args=None) -> str:
    name = str(name or "tool")
    if name.lower() in SHELL_TOOLS and isinstance(args, dict):
        program = shell_program(args.get("command") or args.get("cmd"))
        if program:
            return f"{name}:{program}"
    return name


def action_for_command(name: str) -> str:
    name = str(name or "").strip()
    return name if name.startswith("/") else "/" + name


def record_action_in(conn, session_id: str, action: str, ts: float) -> None:
    conn.execute("INSERT INTO action_events (session_id, action, ts) VALUES (?, ?, ?)",
                 (str(session_id), str(action)[:200], float(ts)))


def record_action(ledger, session_id: str, action: str, ts: float | None = None) -> None:
    with ledger.write() as conn:
        record_action_in(conn, session_id, action, time.time() if ts is None else ts)


def prune_events(conn, cfg, now: float) -> int:
    """Delete action events older than ``habit_retention_days``."""
    cutoff = now - float(cfg.habit_retention_days) * 86400.0
    return conn.execute("DELETE FROM action_events WHERE ts < ?", (cutoff,)).rowcount


# ---------------------------------------------------------------------------
# Mining (a pure function over time-ordered events, then the table)
# ---------------------------------------------------------------------------
class _Stat:
    __slots__ = ("count", "first", "gap_sum", "last", "sessions", "steps")

    def __init__(self, steps):
        self.steps, self.count, self.sessions = steps, 0, {}
        self.gap_sum, self.first, self.last = 0.0, None, None

    def add(self, session, gap, start, end):
        self.count += 1
        self.gap_sum += gap
        self.sessions[session] = max(end, self.sessions.get(session, end))
        self.first = start if self.first is None else min(self.first, start)
        self.last = end if self.last is None else max(self.last, end)


def mine_events(events, window: float, min_frequency: int) -> list[dict]:
    """Mine ``events`` — an iterable of ``(session_id, action, ts)`` ordered by
    session then time — into pattern dicts (habits and emerging)."""
    stats: dict[tuple, _Stat] = {}
    sessions_with_action: dict[str, set] = {}
    current, prev1, prev2 = object(), None, None  # prev1 = last event, prev2 = one before

    def stat(steps):
        found = stats.get(steps)
        if found is None:
            found = stats[steps] = _Stat(steps)
        return found

    for session, action, ts in events:
        if session != current:
            current, prev1, prev2 = session, None, None
        sessions_with_action.setdefault(action, set()).add(session)
        if prev1 is not None:
            a1, t1 = prev1
            gap = ts - t1
            if 0 <= gap <= window and a1 != action:
                stat((a1, action)).add(session, gap, t1, ts)
                if prev2 is not None:
                    a0, t0 = prev2
                    gap0 = t1 - t0
                    if 0 <= gap0 <= window and a0 != a1 and a0 != action:
                        stat((a0, a1, action)).add(session, gap0 + gap, t0, ts)
        prev2, prev1 = prev1, (action, ts)

    out = []
    for steps, s in stats.items():
        considered = len(sessions_with_action.get(steps[0], ())) or 1
        containing = len(s.sessions)
        latest_session = max(s.sessions.items(), key=lambda kv: kv[1])[0]
        out.append({
            "pattern": ARROW.join(steps), "steps": list(steps), "length": len(steps),
            "count": s.count, "sessions": containing, "sessions_considered": considered,
            "confidence": min(1.0, containing / considered),
            "avg_gap": s.gap_sum / s.count, "first_seen": s.first, "last_seen": s.last,
            "status": "habit" if s.count >= min_frequency else "emerging",
            "session_ids": sorted(s.sessions), "latest_session": latest_session,
        })
    out.sort(key=lambda p: (-p["count"], p["pattern"]))
    return out


def _iter_events(conn, since: float, batch: int = 5000):
    cur = conn.execute("SELECT session_id, action, ts FROM action_events WHERE ts >= ? "
                       "ORDER BY session_id, ts, id", (since,))
    while True:
        rows = cur.fetchmany(batch)
        if not rows:
            return
        yield from rows


def mine(ledger, cfg, now: float | None = None) -> dict:
    """Prune, mine every event in the retention window, replace the habits
    table, and propose suggestion-grade command habits as workflow memories."""
    import json

    from tacit.stores.ledger import Ledger

    now = time.time() if now is None else now
    window = float(cfg.sequential_window_seconds)
    min_frequency = int(cfg.habit_min_frequency)
    with ledger.write() as conn:
        pruned = prune_events(conn, cfg, now)
    # Mine from a read snapshot: writers (the learners) are never held up
    # while a large window is being mined; the table swap below is short.
    since = now - float(cfg.habit_retention_days) * 86400.0
    with ledger.read() as conn:
        patterns = mine_events(_iter_events(conn, since), window, min_frequency)
    with ledger.write() as conn:
        conn.execute("DELETE FROM habits")
        conn.executemany(
            "INSERT INTO habits (pattern, steps, length, count, sessions, sessions_considered, "
            "confidence, avg_gap, first_seen, last_seen, status, mined_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [(p["pattern"], json.dumps(p["steps"], ensure_ascii=False), p["length"], p["count"],
              p["sessions"], p["sessions_considered"], p["confidence"], p["avg_gap"],
              p["first_seen"], p["last_seen"], p["status"], now) for p in patterns])
        Ledger.meta_set(conn, "habits_mined_at", now)
    proposals = _workflow_proposals(patterns)
    promoted = {"created": [], "reinforced": [], "notices": []}
    if proposals:
        from tacit.learn.lifecycle import submit

        promoted = submit(ledger, cfg, proposals, now)
    habits = [p for p in patterns if p["status"] == "habit"]
    return {"success": True, "pruned": pruned, "patterns": len(patterns), "habits": len(habits),
            "emerging": len(patterns) - len(habits), "memories_created": promoted["created"],
            "memories_reinforced": promoted["reinforced"],
            "notices": [n["text"] for n in promoted["notices"]]}


def _workflow_proposals(patterns) -> list:
    from tacit.learn.patterns import workflow_key, workflow_proposal

    out = []
    for p in patterns:
        if not (p["status"] == "habit" and p["confidence"] >= SUGGEST_MIN_WEIGHT
                and p["count"] >= SUGGEST_MIN_COUNT and any(s.startswith("/") for s in p["steps"])):
            continue
        key = workflow_key(p["steps"])
        latest = p["latest_session"]
        out.append(workflow_proposal(
            key, p["steps"], source="habits", ref=f"session:{latest}", session_key=latest,
            evidence=[(f"session:{s}", s) for s in p["session_ids"][:50]], create=True))
    return out


def mine_if_stale(ledger, cfg, max_age: float = STALE_AFTER_SECONDS, now: float | None = None):
    from tacit.stores.ledger import Ledger

    now = time.time() if now is None else now
    with ledger.read() as conn:
        last = Ledger.meta_get(conn, "habits_mined_at")
    if last is not None and now - float(last) < max_age:
        return None
    return mine(ledger, cfg, now)


# ---------------------------------------------------------------------------
# Reading: list, suggest, status, clear
# ---------------------------------------------------------------------------
def _rows(conn, where: str = "", params=()) -> list[dict]:
    import json

    rows = conn.execute(
        "SELECT pattern, steps, length, count, sessions, sessions_considered, confidence, "
        f"avg_gap, first_seen, last_seen, status FROM habits {where} "
        "ORDER BY confidence DESC, count DESC, pattern", params).fetchall()
    return [{"pattern": r[0], "steps": json.loads(r[1]), "length": r[2], "count": r[3],
             "sessions": r[4], "sessions_considered": r[5], "confidence": round(r[6], 3),
             "avg_gap": round(r[7], 1), "first_seen": r[8], "last_seen": r[9], "status": r[10]}
            for r in rows]


def list_habits(ledger) -> list[dict]:
    with ledger.read() as conn:
        return _rows(conn, "WHERE status = 'habit'")


def suggest(ledger, current: str) -> list[dict]:
    """What usually follows ``current`` (case-insensitive), for habits with
    weight ≥ 0.8 and count ≥ 5."""
    current = str(current or "").strip()
    with ledger.read() as conn:
        rows = _rows(conn, "WHERE status = 'habit' AND confidence >= ? AND count >= ?",
                     (SUGGEST_MIN_WEIGHT, SUGGEST_MIN_COUNT))
    out = []
    for h in rows:
        if h["steps"][0].lower() == current.lower():
            out.append({"current": h["steps"][0], "next": h["steps"][1], "then": h["steps"][2:],
                        "pattern": h["pattern"], "weight": h["confidence"], "count": h["count"]})
    return out


def status(ledger, cfg) -> dict:
    with ledger.read() as conn:
        events, sessions, oldest = conn.execute(
            "SELECT count(*), count(DISTINCT session_id), min(ts) FROM action_events").fetchone()
        from tacit.stores.ledger import Ledger

        mined_at = Ledger.meta_get(conn, "habits_mined_at")
        habits = _rows(conn, "WHERE status = 'habit'")
        emerging = _rows(conn, "WHERE status = 'emerging'")
    emerging.sort(key=lambda h: (-h["count"], h["pattern"]))
    return {"events": events, "sessions": sessions, "oldest_event": oldest,
            "mined_at": float(mined_at) if mined_at else None,
            "window_seconds": cfg.sequential_window_seconds,
            "min_frequency": cfg.habit_min_frequency, "retention_days": cfg.habit_retention_days,
            "habits": habits, "emerging": emerging}


def clear(ledger) -> dict:
    with ledger.write() as conn:
        events = conn.execute("DELETE FROM action_events").rowcount
        habits = conn.execute("DELETE FROM habits").rowcount
        conn.execute("DELETE FROM ledger_meta WHERE key = 'habits_mined_at'")
    return {"success": True, "events_deleted": events, "habits_deleted": habits,
            "message": f"Cleared {events} action events and {habits} mined patterns."}


def progress_bar(count: int, threshold: int, width: int = 10) -> str:
    threshold = max(1, int(threshold))
    filled = min(width, round(width * count / threshold))
    return "█" * filled + "░" * (width - filled)


def render_list(habits: list[dict]) -> str:
    if not habits:
        return "No habits yet: a sequence becomes a habit after it repeats a few times."
    width = max(len(h["pattern"]) for h in habits)
    lines = [f"Habits ({len(habits)})"]
    for h in habits:
        lines.append(f"  {h['pattern']:<{width}}  ×{h['count']:<4} in {h['sessions']}/"
                     f"{h['sessions_considered']} sessions  confidence {h['confidence']:.2f}  "
                     f"avg gap {h['avg_gap']:.0f}s")
    return "\n".join(lines)


def render_status(info: dict, limit: int = 15) -> str:
    mined = (time.strftime("%Y-%m-%d %H:%M", time.localtime(info["mined_at"]))
             if info["mined_at"] else "never")
    summary = (f"{info['events']:,} action events in {info['sessions']:,} sessions "
               f"(last {info['retention_days']} days; pairs within {info['window_seconds']}s; "
               f"a habit needs {info['min_frequency']}). Last mined: {mined}.")
    lines = [summary, f"Habits: {len(info['habits'])}"]
    for h in info["habits"][:limit]:
        lines.append(f"  ✓ {h['pattern']}  ×{h['count']}  confidence {h['confidence']:.2f}")
    lines.append(f"Emerging: {len(info['emerging'])}")
    for h in info["emerging"][:limit]:
        lines.append(f"  {progress_bar(h['count'], info['min_frequency'])} "
                     f"{h['count']}/{info['min_frequency']}  {h['pattern']}")
    if len(info["emerging"]) > limit:
        lines.append(f"  … and {len(info['emerging']) - limit} more")
    return "\n".join(lines)


def render_suggestions(current: str, suggestions: list[dict]) -> str:
    if not suggestions:
        return f"No suggestion after {current} yet."
    lines = []
    for s in suggestions:
        then = "".join(f" then {t}" for t in s["then"])
        lines.append(f"After {s['current']} you usually run {s['next']}{then} "
                     f"(weight {s['weight']:.2f}, seen {s['count']}×).")
    return "\n".join(lines)

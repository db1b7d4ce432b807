"""Habits: repeated tool and command sequences — the model, no SQL.

Design notes: docs/design/learn.md#tacitlearnhabits"""

from __future__ import annotations

import os
import shlex
import time
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

from tacit.display import middle

SUGGEST_MIN_WEIGHT = 0.8
SUGGEST_MIN_COUNT = 5
HABIT_MIN_SESSIONS = 2  # one session's repeats are a candidate, not a habit
ARROW = " → "
WIDTH = 100  # the text of `tacit habits list|status` fits a terminal this wide (the JSON: full names)

SHELL_TOOLS = frozenset({"bash", "shell", "terminal", "run_shell_command", "execute_command",
                         "exec", "run_command", "shell_command"})
_SKIP_PREFIXES = ("sudo", "env", "time", "nice", "nohup", "command", "exec")
_SETUP_COMMANDS = ("cd", "pushd", "popd", "export", "source", ".", "set", "unset")
_SEPARATORS = ("&&", "||", ";", "|")
MAX_COMMAND_CHARS = 2000  # a shell line is parsed by its head: bounded work on pasted scripts


# Actions
def shell_words(command) -> list[str]:
    """A command line split like a shell would (falls back to whitespace)."""
    if not isinstance(command, str):
        return []
    command = command[:MAX_COMMAND_CHARS]
    try:
        return shlex.split(command, comments=False)
    except ValueError:
        return command.split()


def shell_program(command, words: list[str] | None = None) -> str | None:
    """The program a shell command line runs: ``FOO=1 sudo git push`` → ``git``,
    ``cd src && make`` → ``make`` (navigation and env set-up are skipped).
    ``words``: the line already split by ``shell_words``."""
    skipping_segment = False
    for word in shell_words(command) if words is None else words:
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


def action_for_tool(name, args=None, *, program: str | None = None) -> str:
    """``Bash:git`` for a shell tool (``program``: already found), else the tool's name."""
    name = str(name or "tool")
    if program is None and name.lower() in SHELL_TOOLS and isinstance(args, dict):
        program = shell_program(args.get("command") or args.get("cmd"))
    return f"{name}:{program}" if program else name


def action_for_command(name) -> str:
    name = str(name or "").strip()
    return name if name.startswith("/") else "/" + name


# Patterns completed by one action
@dataclass(frozen=True, slots=True)
class Step:
    action: str
    ts: float


@dataclass(frozen=True, slots=True)
class Occurrence:
    steps: tuple[str, ...]
    gap: float  # the sum of its gaps
    start: float
    end: float

    @property
    def pattern(self) -> str:
        return ARROW.join(self.steps)


def completed(previous: Sequence[Step], current: Step, window: float) -> list[Occurrence]:
    """The pair and trigram ``current`` completes after ``previous`` (the
    session's earlier actions, oldest first; only the last two matter)."""
    if not previous:
        return []
    last = previous[-1]
    gap = current.ts - last.ts
    if not (0 <= gap <= window and last.action != current.action):
        return []
    out = [Occurrence((last.action, current.action), gap, last.ts, current.ts)]
    if len(previous) > 1:
        before = previous[-2]
        gap0 = last.ts - before.ts
        if 0 <= gap0 <= window and before.action != last.action and before.action != current.action:
            out.append(Occurrence((before.action, last.action, current.action), gap0 + gap, before.ts,
                                  current.ts))
    return out


# Habits as read
@dataclass(frozen=True, slots=True)
class Habit:
    pattern: str
    steps: tuple[str, ...]
    length: int
    count: int
    sessions: int
    sessions_considered: int
    confidence: float
    avg_gap: float
    first_seen: float
    last_seen: float
    status: str  # habit | emerging

    def as_dict(self) -> dict:
        data = asdict(self)
        data["steps"] = list(self.steps)
        data["confidence"] = round(self.confidence, 3)
        data["avg_gap"] = round(self.avg_gap, 1)
        return data


def confidence(sessions: int, considered: int) -> float:
    """How often the pattern followed its first action, counting one more session that did not:
    evidence, not a bare ratio — 1 of 1 session is 0.50, 4 of 4 is 0.80, 10 of 10 is 0.91."""
    return sessions / (max(considered, sessions) + 1)


def make_habit(steps, count: int, gap_sum: float, sessions: int, considered: int, first_seen: float,
               last_seen: float, min_frequency: int) -> Habit:
    """A habit repeats ``min_frequency`` times in at least ``HABIT_MIN_SESSIONS`` sessions; else emerging."""
    steps = tuple(steps)
    considered = max(1, considered, sessions)
    grown = count >= min_frequency and sessions >= HABIT_MIN_SESSIONS
    return Habit(ARROW.join(steps), steps, len(steps), count, sessions, considered,
                 confidence(sessions, considered), gap_sum / count if count else 0.0, first_seen, last_seen,
                 "habit" if grown else "emerging")


def suggestion_grade(habit: Habit) -> bool:
    return (habit.status == "habit" and habit.confidence >= SUGGEST_MIN_WEIGHT
            and habit.count >= SUGGEST_MIN_COUNT)


def becomes_workflow(habit: Habit) -> bool:
    """A suggestion-grade habit with a slash command in it."""
    return suggestion_grade(habit) and any(s.startswith("/") for s in habit.steps)


def order(habits: Iterable[Habit]) -> list[Habit]:
    """Best evidence first: confidence, then sessions seen, then count."""
    return sorted(habits, key=lambda h: (-h.confidence, -h.sessions, -h.count, h.pattern))


def suggestions(habits: Iterable[Habit], current: str) -> list[dict]:
    """What usually follows ``current`` (case-insensitive)."""
    current = str(current or "").strip().lower()
    return [{"current": h.steps[0], "next": h.steps[1], "then": list(h.steps[2:]), "pattern": h.pattern,
             "weight": round(h.confidence, 3), "count": h.count}
            for h in order(habits) if suggestion_grade(h) and h.steps[0].lower() == current]


# Text
def progress_bar(count: int, threshold: int, width: int = 10) -> str:
    threshold = max(1, int(threshold))
    filled = min(width, round(width * count / threshold))
    return "█" * filled + "░" * (width - filled)


def fit_steps(steps: Sequence[str], limit: int) -> str:
    """The pattern in at most ``limit`` characters: the longest step names (an MCP tool's
    ``mcp__server__tool``) are cut in the middle to one length, short ones are kept whole."""
    steps = [str(s) for s in steps]
    room = limit - len(ARROW) * (len(steps) - 1)
    if sum(map(len, steps)) <= room:
        return ARROW.join(steps)
    cap = max(1, room // len(steps))
    while sum(min(len(s), cap + 1) for s in steps) <= room:
        cap += 1  # the room short steps leave goes to the long ones
    return ARROW.join(middle(s, cap) for s in steps)


def _pattern(habit: dict, limit: int) -> str:
    return fit_steps(habit.get("steps") or habit["pattern"].split(ARROW), limit)


def render_list(habits: list[dict]) -> str:
    if not habits:
        return "No habits yet: a sequence becomes a habit after it repeats a few times."
    tail = f"  {'count':>5}  {'sessions':>9}  {'confidence':>10}  {'avg gap':>7}"
    room = WIDTH - 2 - len(tail)
    patterns = [_pattern(h, room) for h in habits]
    width = max(len("pattern"), *map(len, patterns))
    lines = [f"Habits ({len(habits)})", f"  {'pattern':<{width}}{tail}"] + [
        f"  {p:<{width}}  {h['count']:>5}  {str(h['sessions']) + '/' + str(h['sessions_considered']):>9}  "
        f"{h['confidence']:>10.2f}  {h['avg_gap']:>6.0f}s" for p, h in zip(patterns, habits)]
    return "\n".join(lines)


def render_status(info: dict, limit: int = 15) -> str:
    oldest = (time.strftime("%Y-%m-%d", time.localtime(info["oldest_event"]))
              if info.get("oldest_event") else "none")
    lines = [f"{info['events']:,} action events in {info['sessions']:,} sessions since {oldest}, "
             "counted as they happen",
             f"(last {info['retention_days']} days; pairs within {info['window_seconds']}s; a habit repeats "
             f"{info['min_frequency']} times in {HABIT_MIN_SESSIONS} sessions).", f"Habits: {len(info['habits'])}"]
    lines += [f"  ✓ {_pattern(h, WIDTH - 40)}  ×{h['count']}  confidence {h['confidence']:.2f}"
              for h in info["habits"][:limit]]
    lines.append(f"Emerging: {len(info['emerging'])}")
    lines += [f"  {progress_bar(h['count'], info['min_frequency'])} {h['count']}/{info['min_frequency']}  "
              f"{_pattern(h, WIDTH - 40)}{'  (1 session)' if h['sessions'] < HABIT_MIN_SESSIONS else ''}"
              for h in info["emerging"][:limit]]
    if len(info["emerging"]) > limit:
        lines.append(f"  … and {len(info['emerging']) - limit} more")
    return "\n".join(lines)


def render_suggestions(current: str, found: list[dict]) -> str:
    if not found:
        return f"No suggestion after {current} yet."
    lines = []
    for s in found:
        then = "".join(f" then {t}" for t in s["then"])
        lines.append(f"After {s['current']} you usually run {s['next']}{then} "
                     f"(weight {s['weight']:.2f}, seen {s['count']}×).")
    return "\n".join(lines)

"""``--since`` for every command: one reading of "when" (docs/guide.md).

``today``, ``yesterday``, an age (``30m`` minutes, ``12h``, ``3d``, ``2w``, ``6mo`` months,
``1y``) or an ISO date/time (local time when no zone is given) → unix seconds.
"""

from __future__ import annotations

import datetime as dt
import re
import time

_AGE = re.compile(r"(\d+)\s*(mo|[mhdwy])")
_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "mo": 30 * 86400, "y": 365 * 86400}


def parse_since(text: str | None, now: float | None = None) -> float | None:
    """None for no limit; ValueError (a message the user can act on) for anything unreadable."""
    if not text:
        return None
    now = time.time() if now is None else now
    word = text.strip().lower()
    midnight = dt.datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
    if word in ("today", "yesterday"):
        return (midnight - dt.timedelta(days=word == "yesterday")).timestamp()
    age = _AGE.fullmatch(word)
    if age:
        return now - int(age.group(1)) * _SECONDS[age.group(2)]
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"--since {text!r}: give a date (2026-11-30), a time (2026-11-30T09:00), today, "
                         "yesterday, or an age (30m, 12h, 3d, 2w, 6mo, 1y)") from None
    return (when.astimezone() if when.tzinfo is None else when).timestamp()

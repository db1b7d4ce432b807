"""Deliver the learners' one-time notices ("Memory adapted: …").

Learners run in the background, where effects cannot reach the user, so
they leave notices in the ledger and touch a marker file. At the next
foreground point — session start or the end of a turn — this handler sees
the marker (one ``stat``: no SQLite on the hook path unless there is
something to say), takes the pending notices exactly once, and returns them
as ``Notify`` effects for the host to show.
"""

from __future__ import annotations

import os

from tacit.events import Notify


def register(engine) -> None:
    engine.on("before_agent_start", deliver_notices, name="notices.session", priority=90)
    engine.on("turn_end", deliver_notices, name="notices.turn", priority=90)


def deliver_notices(event, ctx):
    from tacit.learn import notices_flag_path

    flag = notices_flag_path(ctx.cfg)
    if not os.path.exists(flag):
        return None
    from tacit.learn.lifecycle import take_notices
    from tacit.stores.ledger import LedgerUnavailable

    try:
        os.unlink(flag)  # before taking: a notice created meanwhile re-creates it
    except OSError:
        pass
    try:
        texts = take_notices(ctx.ledger)
    except LedgerUnavailable:
        return None
    return [Notify(text=t) for t in texts]

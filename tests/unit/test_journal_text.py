"""The hook-host journal keeps events whose text is not valid Unicode."""

from __future__ import annotations

import json

from tacit.background import append_journal, journal_path
from tacit.events import MessageEnd, ToolCall, event_from_dict


def test_lone_surrogates_round_trip_through_the_journal(cfg):
    broken = "half an emoji \ud83d and a stray \udc80 byte"
    append_journal(cfg, MessageEnd(session_id="s", role="user", text=broken))
    append_journal(cfg, ToolCall(session_id="s", name="Bash", args={"command": "echo \udcff"}))
    lines = open(journal_path(cfg), "rb").read().splitlines()
    assert len(lines) == 2
    events = [event_from_dict(json.loads(line)) for line in lines]
    assert events[0].text == broken
    assert events[1].args == {"command": "echo \udcff"}

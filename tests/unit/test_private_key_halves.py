"""A private key pasted over several messages of one session (issue 21): every
part is redacted before anything is kept — the END half without state, a
middle part by the session's mark — and secrets never reach the log."""

from __future__ import annotations

import random
from pathlib import Path
import string

from engine_helpers import Recorder as JobRecorder
from tacit.boundary import KEY_MARK, admit, clean_event, opens_key
from tacit.engine import Engine
from tacit.events import BeforeAgentStart, MessageEnd, SessionStart, TurnEnd
from tacit.log import log
from tacit.safety import redact_secrets
from tacit.session import SessionState

_rng = random.Random("key-halves")
LINES = ["".join(_rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(64)) for _ in range(9)]
BEGIN, END = "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"
FIRST = f"here is the deploy key, part 1:\n{BEGIN}\n" + "\n".join(LINES[:3])
MIDDLE = "\n".join(LINES[3:6])
LAST = "\n".join(LINES[6:]) + f"\n{END}\nthat's all of it"


def _kept(event, state):
    return admit(clean_event(event), state, opens_key(event))


def test_the_end_half_alone_is_redacted_without_any_state():
    out = redact_secrets(LAST)
    assert not any(line in out for line in LINES[6:]) and END not in out
    assert out.endswith("that's all of it")


def test_the_middle_of_a_key_is_redacted_by_the_sessions_mark():
    state = SessionState(session_id="s")
    first = _kept(MessageEnd(session_id="s", role="user", text=FIRST), state)
    assert not any(line in first.text for line in LINES[:3]) and state.marks.get(KEY_MARK)
    reply = _kept(MessageEnd(session_id="s", role="assistant", text="Please don't paste keys."), state)
    assert reply.text == "Please don't paste keys." and state.marks.get(KEY_MARK)  # the agent's reply keeps the mark
    middle = _kept(MessageEnd(session_id="s", role="user", text=MIDDLE), state)
    assert middle.text == "[REDACTED:private_key]" and state.marks.get(KEY_MARK)
    same = _kept(TurnEnd(session_id="s", user_text=MIDDLE), state)  # the same prompt reported again
    assert not any(line in same.user_text for line in LINES[3:6])
    last = _kept(BeforeAgentStart(session_id="s", prompt=LAST), state)
    assert not any(line in last.prompt for line in LINES) and "that's all of it" in last.prompt
    assert not state.marks.get(KEY_MARK)
    later = _kept(MessageEnd(session_id="s", role="user", text="AbcdefghIJKLMNOP1234 is the ticket id"), state)
    assert later.text.startswith("AbcdefghIJKLMNOP1234")  # no mark, no redaction


def test_no_part_of_a_key_pasted_over_three_messages_is_kept(cfg):
    engine = Engine(cfg, launcher=JobRecorder()).load_builtins()
    engine.dispatch(SessionStart(session_id="s", id="e0"))
    for n, text in enumerate((FIRST, MIDDLE, LAST), 1):
        engine.dispatch(MessageEnd(session_id="s", role="user", text=text, id=f"u{n}"))
        engine.dispatch(MessageEnd(session_id="s", role="assistant", text="noted", id=f"a{n}"))
        engine.dispatch(TurnEnd(session_id="s", id=f"t{n}"))
    engine.close()
    kept = b"".join(p.read_bytes() for p in Path(cfg.state_dir).rglob("*") if p.is_file())
    assert not any(line.encode() in kept for line in LINES)


def test_the_log_never_holds_a_secret(cfg):
    log(cfg, "error", "test", "failed to parse: the staging pw is hunter2; token ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c")
    text = cfg.log_file.read_text()
    assert "hunter2" not in text and "ghp_Ab3d" not in text and "[REDACTED:password]" in text

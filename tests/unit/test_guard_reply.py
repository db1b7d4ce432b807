"""The pure parts around a stop: the user's answer, a call's key before and
after it ran, and the arguments a guard reads."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.events import TOOL_ARG_CHARS, clip_tool_args
from tacit.guards.outcome import GUARD_ARG_CHARS, call_key, read_reply, tool_call_args

OVERRIDES = ["run it anyway", "Run it anyway.", "just do it anyway please", "ok, do it anyway", "go ahead anyway",
             "go ahead and run it anyway", "sure, run that anyway", "ignore that rule", "override the guard",
             "it's fine, run it", "yes — run it regardless"]
WRONGS = ["no, npm is fine here", "npm is fine", "npm is totally fine here", "`npm` is allowed here",
          "you can use npm", "actually we use npm here", "it's fine to use npm", "that rule is wrong",
          "the guard is outdated", "that lesson no longer applies", "this rule doesn't apply"]
NEITHER = ["yes, go ahead", "ok", "yes", "use pnpm then", "no, use pnpm", "npm is not fine", "we use npm for the docs",
           "npm is fine, but not here", "run it anyway, but only in CI", "why did you stop?", "pnpm is fine",
           "thanks", "", "   ", "run it anyway " + "x" * 300]


@pytest.mark.parametrize("text", OVERRIDES)
def test_overrides(text):
    assert read_reply(text, ["npm"]) == "override"


@pytest.mark.parametrize("text", WRONGS)
def test_wrong_rule(text):
    assert read_reply(text, ["npm"]) == "wrong"


@pytest.mark.parametrize("text", NEITHER)
def test_no_answer(text):
    assert read_reply(text, ["npm"]) is None


def test_a_program_is_named_only_for_what_was_stopped():
    assert read_reply("npm is fine here", ["yarn"]) is None
    assert read_reply("npm is fine here", []) is None
    assert read_reply("npm is fine here", ["npm", "yarn"]) == "wrong"
    assert read_reply("rm is fine", ["(.*)"]) is None  # not a program name: never a pattern


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=300), st.binary(max_size=50), st.none(), st.integers()),
       st.lists(st.text(max_size=20), max_size=4))
def test_read_reply_never_raises(text, programs):
    assert read_reply(text, programs) in (None, "override", "wrong")


def test_a_call_has_the_same_key_before_and_after_it_ran():
    command = "echo x\n" * 900 + "npm install"
    before = tool_call_args({"command": command, "description": "d"})
    after = clip_tool_args({"command": command, "description": "d"})
    assert before["command"] == command and len(after["command"]) == TOOL_ARG_CHARS + 1
    assert call_key("Bash", before) == call_key("Bash", after) == call_key("bash", after)
    assert call_key("Bash", {"command": "npm install"}) != call_key("Bash", {"command": "npm ci"})
    assert call_key("Edit", {"file_path": "/a"}) != call_key("Edit", {"file_path": "/b"})
    assert call_key("local_shell", {"action": {"command": ["npm", "ci"]}}) == call_key(
        "local_shell", {"command": "npm ci"})
    for bad in (None, 3, "x", [], {"command": None}):
        assert isinstance(call_key(bad, bad), str)


def test_tool_call_args_keep_what_the_guards_read():
    huge = "x" * (GUARD_ARG_CHARS + 10)
    args = tool_call_args({"command": huge, "edits": [{"old_string": "a"}], 3: "k"})
    # one character over what the guards read: the scan knows the rest was not read (Call.cut)
    assert len(args["command"]) == GUARD_ARG_CHARS + 1 and args["edits"] == [{"old_string": "a"}] and args["3"] == "k"
    assert tool_call_args(None) == {} and tool_call_args(["a"]) == {}

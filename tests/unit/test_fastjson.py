"""tacit.fastjson: exactly what the json module returns (or raises), without
importing it.

Every check compares with ``json`` itself: the same text out of ``dumps``
for every separator and ``ensure_ascii`` choice, the same value out of
``loads`` for str, bytes and bytearray (UTF-8 with and without a BOM; UTF-16
and UTF-32 go through ``json``), and the same exception type and message for
bad input. The files the hook path writes with it (session state, the
journal) are checked to be byte-identical to what ``json.dumps`` wrote before.
"""

from __future__ import annotations

import enum
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit import fastjson

VALID_SEPARATORS = [fastjson.COMPACT, fastjson.DEFAULT_SEPARATORS, [",", ": "]]
SEPARATORS = VALID_SEPARATORS + [(";", "=")]  # dumps takes any; only valid ones parse back

scalars = (st.none() | st.booleans() | st.integers(-2**200, 2**200) | st.floats()
           | st.text() | st.text(st.characters(codec=None, categories=["Cs", "Co", "Cn", "Zs", "So"])))
json_values = st.recursive(
    scalars,
    lambda inner: (st.lists(inner, max_size=5) | st.tuples(inner, inner)
                   | st.dictionaries(st.text(), inner, max_size=5)
                   | st.dictionaries(st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none(),
                                     inner, max_size=3)),
    max_leaves=30)


def same_value(a, b) -> bool:
    """Equal, with NaN equal to NaN and types compared too (1 is not 1.0)."""
    return repr(a) == repr(b) and type(a) is type(b)


def outcome(fn, *args, **kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 — comparing what each one raises
        return ("raised", type(exc), str(exc))


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from(SEPARATORS), st.booleans())
def test_dumps_is_json_dumps(value, separators, ensure_ascii):
    expected = outcome(json.dumps, value, ensure_ascii=ensure_ascii, separators=separators)
    assert outcome(fastjson.dumps, value, ensure_ascii=ensure_ascii, separators=separators) == expected


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from(VALID_SEPARATORS), st.booleans(), st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_loads_is_json_loads(value, separators, ensure_ascii, padding):
    text = padding + json.dumps(value, ensure_ascii=ensure_ascii, separators=separators) + padding
    expected = json.loads(text)
    for data in (text, text.encode("utf-8", "surrogatepass"), bytearray(text.encode("utf-8", "surrogatepass")),
                 b"\xef\xbb\xbf" + text.encode("utf-8", "surrogatepass")):
        assert same_value(fastjson.loads(data), expected)


@pytest.mark.parametrize("value", [
    {"é€😀": "naïve ☃", "nested": [{"a": [1, [2, [3, {"b": None}]]]}], "empty": [{}, [], ""]},
    "\ud800 lone \udfff surrogates", ["\ud83d\ude00", "\ud83d"],
    2**64, -2**1000, 10**4000, 0, -0.0, 1e308, 5e-324, 1.0000000000000002, float("inf"), float("-inf"),
    float("nan"), [True, False, None], {1: "int key", 2.5: "float key", True: "bool", None: "none"},
    ("a", "tuple"), "\x00\x1f\x7f\u2028\u2029\"\\/",
])
def test_edge_values_round_trip_like_json(value):
    for separators in VALID_SEPARATORS:
        for ensure_ascii in (False, True):
            text = fastjson.dumps(value, ensure_ascii=ensure_ascii, separators=separators)
            assert text == json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)
            assert same_value(fastjson.loads(text), json.loads(text))
            raw = text.encode("utf-8", "surrogatepass")
            assert same_value(fastjson.loads(raw), json.loads(raw))


def test_subclasses_encode_like_json():
    class Flag(enum.IntEnum):
        ON = 1

    class Name(str):
        pass

    class Ratio(float):
        pass

    value = {Name("k"): [Flag.ON, Ratio(0.5), Name("v")], "d": dict(a=1), "l": list((1, 2))}
    assert fastjson.dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("data", [
    "", "   ", "{", "[1,]", '{"a": 1} extra', "nope", "\ufeff{}", "[1] [2]", '{"a" 1}', "'single'",
    '"unterminated', '"bad \\x escape"', '"ctrl \x01 char"', "[" * 100_000, "1" * 5_000,
    b"", b"\xff", b'"\xff"', b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf{}",
    "{}".encode("utf-16"), "[1, 2]".encode("utf-32"), '{"a": "é"}'.encode("utf-16-le"),
    "[1]".encode("utf-16-be"), b'"\xed\xa0\x80"', bytearray(b"[1,"), 5, None, ["[]"],
])
def test_loads_returns_or_raises_what_json_does(data):
    assert outcome(json.loads, data)[:2] == outcome(fastjson.loads, data)[:2]
    expected, got = outcome(json.loads, data), outcome(fastjson.loads, data)
    if expected[0] == "ok":
        assert same_value(got[1], expected[1])
    else:
        assert got == expected  # same type, same message


def test_dumps_raises_what_json_does_and_recovers():
    circular: list = []
    circular.append(circular)
    for bad in ({"a": object()}, {("tuple", "key"): 1}, circular, {1j: 2}, b"bytes", {1, 2}):
        expected = outcome(json.dumps, bad, ensure_ascii=False, separators=(",", ":"))
        assert expected[0] == "raised"
        assert outcome(fastjson.dumps, bad) == expected
    # a failed call leaves nothing behind (a fresh circular-reference check)
    shared = [1]
    assert fastjson.dumps([shared, shared]) == "[[1],[1]]"


def test_no_json_and_no_re_on_import_or_use():
    code = ("import sys\n"
            "from tacit import fastjson\n"
            "v = fastjson.loads(b'\\xef\\xbb\\xbf {\"a\": [1, 2.5, \"\\\\u00e9\", null, true], \"b\": {}}\\n')\n"
            "assert v == {'a': [1, 2.5, 'é', None, True], 'b': {}}, v\n"
            "assert fastjson.dumps(v, separators=fastjson.DEFAULT_SEPARATORS) == "
            "'{\"a\": [1, 2.5, \"é\", null, true], \"b\": {}}'\n"
            "print(sorted(m for m in ('json', 're', 'enum', 'encodings.utf_8_sig') if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_the_adapter_name_still_works():
    from tacit.hosts.claude_code import fastjson as adapter

    assert adapter.loads is fastjson.loads and adapter.dumps is fastjson.dumps


def test_state_files_and_journal_lines_are_byte_identical_to_json(cfg, tmp_path):
    """The hook path switched from json.dumps to fastjson: the files it
    writes must not change by a byte."""
    from tacit.background import append_journal, journal_path
    from tacit.events import MessageEnd, ToolCall, ToolCallRecord, TurnEnd, event_to_dict
    from tacit.state import FileStateStore

    store = FileStateStore(str(tmp_path / "sessions"))
    with store.session("s-1") as state:
        state.begin_turn("no, use pnpm — «naïve» \u2028 😀")
        state.add_tool_call("Bash", False)
        state["marks"]["x.big"] = [2**70, 0.1, float("inf")]
    path = tmp_path / "sessions" / "s-1.json"
    written = path.read_bytes()
    data = json.loads(written)
    assert written == json.dumps(data, ensure_ascii=False).encode("utf-8")
    assert store.peek("s-1").data == data

    events = [MessageEnd(session_id="s-1", role="user", text="é 😀 \"quoted\" \u2028"),
              ToolCall(session_id="s-1", name="Bash", ok=False, args={"command": "npm i"}, error="exit 1"),
              TurnEnd(session_id="s-1", user_text="u", assistant_text="a",
                      tool_calls=(ToolCallRecord(name="Bash", ok=False),))]
    for event in events:
        append_journal(cfg, event)
    lines = open(journal_path(cfg), "rb").read().splitlines(keepends=True)
    assert lines == [(json.dumps(event_to_dict(e), ensure_ascii=False) + "\n").encode("utf-8") for e in events]

"""The Claude Code hook path stays light, and the correction detector's fast
negative never hides a correction.

1. **Imports.** In a fresh interpreter, UserPromptSubmit, PostToolUse and Stop
   hooks run through ``tacit.hosts.hook_entry`` against a realistic store (50
   memory entries, 100 skills, a ledger of observations; no fix pattern and
   no pending notice) and must leave none of the heavy modules in
   ``sys.modules``: each costs more than a millisecond, several cost more than
   the whole budget (a hook's budget is about one interpreter start-up; see
   tests/benchmarks/hooks.py for the timing). Asserted on ``sys.modules``, not
   on time, so it holds on a loaded machine; each hook's effect on the session
   state is checked too, so a hook that silently did nothing cannot pass.
   With fix patterns in the ledger, UserPromptSubmit looks them up and
   injects ``<learned-patterns>`` with nothing heavier than ``_sqlite3`` (and
   the ``functools`` it needs): no ``sqlite3`` package, ``re``, ``math``,
   ``threading``, ``dataclasses`` or fix detector.
2. **The fast negative** (``tacit.detect.correction.might_be_correction``):
   the shipped rule table equals what this file derives from the compiled
   regexes (``python tests/unit/test_hook_imports.py`` prints a new table
   after a cue changes), and it never says "no" where ``detect_correction``
   says "correction": over the labelled set and over generated messages built
   to stress it (quotes and apostrophes that join or split words, typos,
   long messages, the characters ``re`` folds to ASCII letters).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.detect import correction, correction_prefilter
from tacit.detect.correction import detect_correction, might_be_correction

TESTS = Path(__file__).resolve().parents[1]
LABELLED = TESTS / "data" / "corrections.jsonl"
SESSION = "imports-5f0e-4c1a-9d7e-000000000001"

# Never on the hook path: each pulls in a tree of modules (dataclasses ->
# inspect -> ast, dis, tokenize…; typing; pathlib; subprocess; the runtime
# dependencies), or opens SQLite where a marker file says there is nothing.
HEAVY = ("dataclasses", "inspect", "pathlib", "typing", "subprocess", "filelock", "sqlite3", "jinja2",
         "yaml", "frontmatter", "importlib.metadata", "threading", "tempfile", "shutil", "hashlib")
# Not on the light hooks either: json pulls in re and enum (the hook parses
# and writes JSON with tacit.fastjson); re is needed only when a message may
# be a correction.
JSON_AND_RE = ("json", "re", "enum")
DRIVER = ("import sys\n"
          "before = set(sys.modules)\n"
          "from tacit.hosts.hook_entry import run_hook\n"
          "code = run_hook(sys.argv[1:])\n"
          "sys.stderr.write('NEW ' + ' '.join(sorted(set(sys.modules) - before)) + ' EXIT %d' % code)\n")


# ---------------------------------------------------------------------------
# 1. What a hook process imports
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A realistic store, built once: the benchmark's own builder (50 memory
    entries, 100 skills, a ledger of 2,000 observations)."""
    saved_path = list(sys.path)
    sys.path.insert(0, str(TESTS / "benchmarks"))
    try:
        from hooks import make_store

        root = tmp_path_factory.mktemp("hook-imports")
        home = root / "tacit-home"
        info = make_store(home, 2_000)
    finally:
        sys.path[:] = saved_path
    assert info["memory_entries"] == 50 and info["skills"] == 100
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TACIT_", "CLAUDE"))}
    env.update(TACIT_HOME=str(home), HOME=str(root), TACIT_HOST="claude-code",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]))
    yield home, env
    _wait_for_drain(home)


def _wait_for_drain(home: Path, timeout: float = 30.0) -> None:
    """The Stop hook starts a detached ``tacit drain``: let it finish."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        journal = home / "journal.jsonl"
        if not (journal.exists() and journal.stat().st_size) and not list(home.glob("journal.jsonl.*.draining")):
            return
        time.sleep(0.05)


def run_hook(env: dict, event: str, payload: dict) -> tuple[set, str]:
    """(modules the hook imported, its stdout) for one hook process."""
    proc = subprocess.run([sys.executable, "-P", "-c", DRIVER, "claude-code", event],
                          input=json.dumps(payload).encode(), env=env, capture_output=True, timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == 0 and "NEW " in err and err.endswith("EXIT 0"), err[-2000:]
    return set(err.split("NEW ", 1)[1].rsplit(" EXIT", 1)[0].split()), proc.stdout.decode()


def payload(event: str, **fields) -> dict:
    base = {"session_id": SESSION, "transcript_path": "/nonexistent/t.jsonl", "cwd": "/tmp",
            "hook_event_name": event, "prompt_id": "c98e6a81-1b2c-4d5e-8f90-123456789abc",
            "permission_mode": "default"}
    return {**base, **fields}


def session_state(home: Path) -> dict:
    return json.loads((home / "sessions" / f"{SESSION}.json").read_text(encoding="utf-8"))


def test_light_hooks_import_nothing_heavy(store):
    home, env = store
    assert not (home / "fix_patterns.active").exists() and not (home / "notices.pending").exists()

    new, out = run_hook(env, "UserPromptSubmit", payload(
        "UserPromptSubmit", prompt="the tests in tests/test_parser.py fail since the refactor; please find "
                                   "out why and fix the parser, then run the suite"))
    assert out == ""
    assert not new & set(HEAVY + JSON_AND_RE), sorted(new & set(HEAVY + JSON_AND_RE))
    assert "tacit.detect.correction" in new  # it was judged, by the fast negative
    state = session_state(home)
    assert state["user_turns"] == 1 and state["turn"]["open"] and state["pending_correction"] is None

    for event, ok in (("PostToolUse", True), ("PostToolUseFailure", False)):
        fields = {"tool_name": "Bash", "tool_input": {"command": "python -m pytest -q"}, "tool_use_id": "t1"}
        fields.update({"tool_response": {"stdout": "40 passed"}} if ok else {"error": "Exit code 1"})
        new, out = run_hook(env, event, payload(event, **fields))
        assert out == "" and not new & set(HEAVY + JSON_AND_RE), (event, sorted(new & set(HEAVY + JSON_AND_RE)))
        assert session_state(home)["turn"]["tool_calls"][-1] == ["Bash", ok]

    new, out = run_hook(env, "Stop", payload(
        "Stop", last_assistant_message="The parser reads the whole file first; nothing else to change.",
        stop_hook_active=False))
    assert out == "" and not new & set(HEAVY + JSON_AND_RE), sorted(new & set(HEAVY + JSON_AND_RE))
    assert "tacit.spawn" in new  # it started the background drain
    state = session_state(home)
    assert not state["turn"]["open"] and state["turns_since_review"] == 1
    _wait_for_drain(home)
    assert not (home / "logs" / "tacit.log").exists() or " ERROR " not in (home / "logs" / "tacit.log").read_text()


def test_a_correction_is_still_detected_and_imports_only_re(store):
    home, env = store
    new, out = run_hook(env, "UserPromptSubmit", payload("UserPromptSubmit", prompt="no, use pnpm instead of npm"))
    assert out == ""
    assert "re" in new  # this one may be a correction: the detector ran
    assert not new & set(HEAVY + ("json",)), sorted(new & set(HEAVY + ("json",)))
    pending = session_state(home)["pending_correction"]
    assert pending and pending["text"] == "no, use pnpm instead of npm" and pending["rule"] == "weak+directive"
    # close the turn so the session is left consistent
    run_hook(env, "Stop", payload("Stop", last_assistant_message="Switched to pnpm.", stop_hook_active=False))
    _wait_for_drain(home)


PORT_REPLY = ("Found it: the config loader reads `PORT` before `.env` is loaded, so I moved "
              "`load_dotenv()` to the top of main.py. The server now starts on 8080.")
PORT_TITLE = "the server ignores the PORT I put in .env"
# a returning problem the correction check rules out without re (a question would not be)
PORT_AGAIN = "the PORT in my .env file is ignored when main.py starts"
# what the fix-pattern lookup may not bring in either: the sqlite3 package
# (datetime), math, the fix detector (re and its lexicons), and what they pull in
NOT_FOR_THE_LOOKUP = ("math", "datetime", "tacit.detect.fix", "tacit.detect.lazyre")


@pytest.fixture(scope="module")
def store_with_patterns(tmp_path_factory):
    """The realistic store plus 300 fix patterns (the patterns benchmark's
    generator) and one forged from a real reply, which the prompt matches (the
    generator's labelled patterns hold the same fix: it is merged into it)."""
    saved_path = list(sys.path)
    sys.path.insert(0, str(TESTS / "benchmarks"))
    try:
        from hooks import add_fix_patterns, make_store

        root = tmp_path_factory.mktemp("hook-imports-patterns")
        home = root / "tacit-home"
        make_store(home, 2_000)
        add_fix_patterns(home, 300)
    finally:
        sys.path[:] = saved_path
    from tacit.config import load_config
    from tacit.detect.fix import detect_fix
    from tacit.learn import fixes
    from tacit.stores.ledger import Ledger

    cfg = load_config(env={"TACIT_HOME": str(home), "HOME": str(root)})
    with Ledger(cfg) as led:
        assert fixes.forge(led, cfg, detect_fix(PORT_REPLY), title=PORT_TITLE)["action"] in ("created", "merged")
    assert int((home / "fix_patterns.active").read_text()) >= 300
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TACIT_", "CLAUDE"))}
    env.update(TACIT_HOME=str(home), HOME=str(root), TACIT_HOST="claude-code",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]))
    return home, env  # UserPromptSubmit starts no drain: nothing to wait for


def test_the_fix_pattern_injection_imports_only_sqlite_core(store_with_patterns):
    home, env = store_with_patterns
    assert not might_be_correction(PORT_AGAIN)
    new, out = run_hook(env, "UserPromptSubmit", payload("UserPromptSubmit", prompt=PORT_AGAIN))
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("<learned-patterns>") and "load_dotenv() to the top of main.py" in context
    assert "_sqlite3" in new and "tacit.detect.fix_tokens" in new  # the lookup ran, through the lean path
    heavy = set(HEAVY + JSON_AND_RE + NOT_FOR_THE_LOOKUP)
    assert not new & heavy, sorted(new & heavy)
    turn = session_state(home)["marks"]["fixes.turns"][-1]
    assert turn["injected"] and turn["lookup_ms"] > 0
    assert not (home / "logs" / "tacit.log").exists() or " ERROR " not in (home / "logs" / "tacit.log").read_text()


def test_configured_patterns_bypass_the_fast_negative(cfg):
    """A configured list is an arbitrary regex: the detector must run even on
    a message the built-in lists' fast negative rules out."""
    from tacit.engine import Engine
    from tacit.events import MessageEnd

    text = "banana split for the footer please"
    assert not might_be_correction(text)
    for settings_, expected in (({}, None), ({"correction_strong_patterns": [r"\bbanana split\b"]}, "strong")):
        engine = Engine(cfg.with_settings(**settings_))
        engine.load_builtins()
        engine.dispatch(MessageEnd(session_id=f"s{bool(settings_)}", role="user", text=text))
        pending = engine.state_store.peek(f"s{bool(settings_)}")["pending_correction"]
        assert (pending or {}).get("rule") == expected


# ---------------------------------------------------------------------------
# 2. The fast negative: derived from the regexes, never hides a correction
# ---------------------------------------------------------------------------
def load_labelled() -> list[dict]:
    return [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_rule_table_is_derived_from_the_current_regexes():
    derived = derive_prefilter_rules()
    assert correction_prefilter.RULES == derived, (
        "the detector's regexes changed: regenerate RULES in tacit/detect/correction_prefilter.py with "
        "`python tests/unit/test_hook_imports.py`")
    # one rule per thing that can make a correction: 7 strong patterns, 4 weak
    # openers (+ directive), every cue, 4 contrast forms; none without a clause
    assert all(rule and all(clause for clause in rule) for rule in derived)
    assert len(derived) >= len(correction._CUES)


def test_never_hides_a_correction_in_the_labelled_set():
    rows = load_labelled()
    for row in rows:
        for prev in (row["prev_assistant"], None, "I ran npm install and updated the files."):
            if detect_correction(row["text"], prev).is_correction:
                assert might_be_correction(row["text"]), row["text"]
    # and it is worth having: most plain requests are settled without re
    requests = [r["text"] for r in rows if r["kind"] in ("request", "approval", "question")]
    ruled_out = sum(not might_be_correction(t) for t in requests)
    assert ruled_out >= len(requests) // 3, (ruled_out, len(requests))


@pytest.mark.parametrize("text", [
    "the tests in tests/test_parser.py fail since the refactor; please find out why and fix the parser",
    "add pagination to the /api/items endpoint, 50 per page",
    "bump the version to 2.3.0 and update the changelog",
    "write unit tests for the date parsing helpers",
])
def test_plain_requests_are_ruled_out(text):
    assert not detect_correction(text).is_correction
    assert not might_be_correction(text)


@pytest.mark.parametrize("text", [
    "no, use pnpm instead of npm", "I siad tabs", "I toldya, use tabs", "i told u, tabs", "u broke the build", "dont do that",
    "don\u2019t do that", "don`t do that", "that's not what i asked", "why did you delete the file?",
])
def test_corrections_are_never_ruled_out(text):
    assert detect_correction(text, "I ran npm install.").is_correction
    assert might_be_correction(text)


def test_what_it_does_not_judge_goes_to_the_detector():
    long_line = "word " * 130  # one line over FOCUS_EDGE_CHARS, message over FOCUS_FULL_CHARS
    assert len(long_line) > correction.FOCUS_FULL_CHARS
    assert might_be_correction(long_line + "\nadd a test")
    assert might_be_correction(("add a test\n" * 70) + "`x`")  # backtick in a long message
    assert not might_be_correction("add a test\n" * 150)  # long, short lines: still judged
    assert might_be_correction("add a test\n" * 200)  # over _PREFILTER_MAX_CHARS: not worth judging
    assert might_be_correction("add a te\u017ft")  # "ſ" matches s case-insensitively
    assert might_be_correction("a" + "'b" * 12)  # too many cuts in one word
    assert not might_be_correction("") and not might_be_correction(None)


VOCABULARY = sorted({w for row in load_labelled() for w in row["text"].split()})
LABELLED_CORRECTIONS = [row for row in load_labelled() if row["label"]]
STRESS = ["no", "nope", "nooo", "don't", "dont", "do not", "i", "said", "siad", "u", "ur", "toldya", "wrong",
          "actually", "acutally", "stop", "not", "instead", "why", "you", "we", "again", "never", "always",
          "please", "back", "revert", "'", '"', "`", "\u2019", "\u2018", "\u201c", "\u201d", "\ue000", "''",
          "n't", "don'", "a\"b\"c", "d`on`t", "x'y", ",", ".", "?", "!", "\n", "> ", "user:", "<tag>",
          "</tag>", "```", "\u017f", "\u0131", "\u212a", "\u0130", "\u00e9"]


@settings(max_examples=400, deadline=None)
@given(words=st.lists(st.sampled_from(VOCABULARY) | st.sampled_from(STRESS), min_size=1, max_size=16),
       seps=st.lists(st.sampled_from([" ", " ", "", "\n", ", ", "'", '"']), min_size=16, max_size=16),
       prev=st.sampled_from([None, "I ran npm install and added the file.", "Should I commit?"]),
       upper=st.booleans())
def test_never_hides_a_correction_in_generated_messages(words, seps, prev, upper):
    text = "".join(w + s for w, s in zip(words, seps))
    text = text.upper() if upper else text
    if detect_correction(text, prev).is_correction:
        assert might_be_correction(text), text


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_never_hides_a_correction_in_mutated_corrections(seed):
    """Labelled corrections with quote marks, apostrophes, separators and
    special characters inserted, letters dropped or swapped."""
    rng = random.Random(seed)
    row = rng.choice(LABELLED_CORRECTIONS)
    chars = list(row["text"])
    for _ in range(rng.randint(1, 4)):
        pos = rng.randrange(len(chars) + 1)
        roll = rng.random()
        if roll < 0.5:
            chars.insert(pos, rng.choice(["'", '"', "`", "\u2019", "\u2018", "\u201c", "\u201d", "\ue000", "''",
                                          " ", "", "\n", ",", "_", "1", "\u00e9", "\u017f", "\u0131"]))
        elif roll < 0.75 and len(chars) > 1:
            del chars[min(pos, len(chars) - 1)]
        elif len(chars) > 2:
            p = min(pos, len(chars) - 2)
            chars[p], chars[p + 1] = chars[p + 1], chars[p]
    text = "".join(chars)
    if rng.random() < 0.2:  # long messages: the head/tail focus
        text = "\n".join([text] + [rng.choice(LABELLED_CORRECTIONS)["text"] for _ in range(rng.randint(5, 20))])
    prev = row["prev_assistant"] if rng.random() < 0.7 else None
    if detect_correction(text, prev).is_correction:
        assert might_be_correction(text), text



def test_the_fast_negative_is_cheap():
    texts = [row["text"] for row in load_labelled()]
    start = time.perf_counter()
    for text in texts:
        might_be_correction(text)
    per_message_ms = (time.perf_counter() - start) / len(texts) * 1000
    assert per_message_ms < 1.0, per_message_ms  # measured ~0.03 ms; generous for a shared machine


# ---------------------------------------------------------------------------
# Deriving the fast negative's rules from the detector's regexes
# ---------------------------------------------------------------------------
# An atom is a word the message must contain, with a space on each side where
# the regex guarantees a word edge: " said " a whole word, " you" a word's
# start, "ed " a word's end, "no" anywhere (see the comment above
# might_be_correction). A clause holds if any of its atoms occurs; a rule can
# match only if all its clauses hold. The walk over re's parse tree keeps to
# what is certain: literal text (and plain-string branches and repeats,
# spelled out), and edges from \b, ^, $, non-letter characters and
# lookarounds that exclude letters. Everything else adds no clause, which can
# only make the fast negative say "maybe" more often, never wrongly "no".
def derive_prefilter_rules() -> tuple:
    """``correction_prefilter.RULES`` computed from the regexes the detector
    compiles: every rule that can make it say "correction" with the built-in
    lists (strong patterns; weak opener + directive word; each cue; the
    contrast forms), each reduced to clauses of atoms its matches satisfy."""
    c = correction
    patterns = c.default_patterns()
    directive = _regex_cnf(c._directive_re(patterns.directive_words))
    sources = [_regex_cnf(p) for p in patterns.strong]
    sources += [_regex_cnf(p) + directive for p in patterns.weak]
    sources += [_regex_cnf(c._cue_regex(index)) for index in range(len(c._CUES))]
    sources += [_regex_cnf(lazy._get())
                for lazy in (c._NOT_B_ITS_A, c._COPULA_CONTRAST, c._GENERIC_CONTRAST, c._INSTEAD)]
    rules = []
    for cnf in sources:
        rule = _simplify_cnf(cnf)
        if rule not in rules:
            rules.append(rule)
    return tuple(rules)


def format_prefilter_rules(rules: tuple) -> str:
    """``RULES`` as Python source, to paste over the table: one
    rule per line, wrapped between atoms (atoms hold only letters and spaces,
    so ", " never occurs inside one)."""
    out = ["RULES: tuple = ("]
    for rule in rules:
        lines, line = [], "    "
        for piece in (repr(rule) + ",").split(", "):
            if len(line) + len(piece) + 2 > 110 and line.strip():
                lines.append(line.rstrip())
                line = "     "
            line += piece + ", "
        lines.append(line[:-2])
        out.extend(lines)
    out.append(")")
    return "\n".join(out)


def _regex_cnf(compiled) -> list:
    """Clauses (sets of atoms, see above) every match of ``compiled`` satisfies."""
    import re
    from re import _parser

    parsed = _parser.parse(compiled.pattern, compiled.flags)
    return _cnf(list(parsed), 0, 0, bool(parsed.state.flags & re.IGNORECASE))


# Context at a position, as the regex guarantees it: 2 = the neighbouring
# character is not a letter (or there is none), 1 = a word boundary, 0 = unknown.
_SPECIAL_LETTERS = "\u0130\u0131\u017f\u212a"  # match ASCII letters under re.IGNORECASE


def _is_letter(char: str) -> bool:
    return "a" <= char <= "z" or "A" <= char <= "Z" or char in _SPECIAL_LETTERS


def _class_has_letter(items) -> bool:
    from re import _constants as c

    for op, av in items:
        if op is c.NEGATE:
            return True
        if op is c.LITERAL and _is_letter(chr(av)):
            return True
        if op is c.RANGE and (av[0] <= 122 and av[1] >= 65 or any(
                av[0] <= ord(s) <= av[1] for s in _SPECIAL_LETTERS)):
            return True
        if op is c.CATEGORY and av not in (c.CATEGORY_DIGIT, c.CATEGORY_SPACE, c.CATEGORY_LINEBREAK,
                                           c.CATEGORY_NOT_WORD):
            return True
    return False


def _one_class(items):
    """The character class of a one-character sub-pattern, else None."""
    from re import _constants as c

    items = list(items)
    if len(items) != 1:
        return None
    op, av = items[0]
    if op is c.IN:
        return list(av)
    if op is c.LITERAL:
        return [(c.LITERAL, av)]
    return None


def _class_covers_letters(items) -> bool:
    from re import _constants as c

    if items is None or any(op is c.NEGATE for op, _ in items):
        return False
    for op, av in items:
        if op is c.CATEGORY and av is c.CATEGORY_WORD:
            return True
        if op is c.RANGE and av[0] <= 97 and av[1] >= 122:
            return True
    return False


def _edge(items, ctx: int, forward: bool) -> int:
    """The context after ``items`` (forward) or before them (backward), given
    the context on the far side."""
    for op, av in (items if forward else reversed(items)):
        ctx = _edge_item(op, av, ctx, forward)
    return ctx


def _edge_item(op, av, ctx: int, forward: bool) -> int:
    from re import _constants as c

    if op is c.LITERAL:
        return 0 if _is_letter(chr(av)) else 2
    if op is c.IN:
        return 0 if _class_has_letter(av) else 2
    if op is c.AT:
        if av is c.AT_BOUNDARY:
            return max(ctx, 1)
        starts = (c.AT_BEGINNING, c.AT_BEGINNING_LINE, c.AT_BEGINNING_STRING)
        ends = (c.AT_END, c.AT_END_LINE, c.AT_END_STRING)
        return 2 if av in (starts if forward else ends) else ctx
    if op is c.SUBPATTERN:
        return _edge(list(av[3]), ctx, forward)
    if op is c.ATOMIC_GROUP:
        return _edge(list(av), ctx, forward)
    if op is c.BRANCH:
        return min(_edge(list(alt), ctx, forward) for alt in av[1])
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        once = _edge(list(av[2]), 0, forward)
        return min(ctx, once) if av[0] == 0 else once
    if op in (c.ASSERT, c.ASSERT_NOT):
        direction, sub = av
        if (direction < 0) == forward:  # looks at the neighbour on this side
            cls = _one_class(sub)
            if op is c.ASSERT_NOT and _class_covers_letters(cls):
                return 2
            if op is c.ASSERT and cls is not None and not _class_has_letter(cls):
                return 2
        return ctx
    return 0  # any character, a back-reference, …: no guarantee


def _literal_texts(op, av):
    """The strings a plain-literal item can match, each with whether more
    copies may follow it (the open end of ``x+``); None if not plain. An open
    repeat is spelled out: ``o+`` is "o", "oo", "ooo" and "oooo…" (open)."""
    from re import _constants as c

    if op is c.LITERAL:
        return [(chr(av), False)]
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
        sub = list(av[2])
        if not sub or not all(o is c.LITERAL for o, _ in sub):
            return None
        unit, low, high = "".join(chr(a) for _, a in sub), av[0], av[1]
        closed = [(unit * n, False) for n in range(low, min(high, low + 2) + 1)]
        return closed + ([(unit * (low + 3), True)] if high > low + 2 else [])
    if op is c.BRANCH:
        texts = []
        for alt in av[1]:
            if not all(o is c.LITERAL for o, _ in alt):
                return None
            texts.append(("".join(chr(a) for _, a in alt), False))
        return texts
    return None


_MAX_EXPANSIONS = 32  # alternative strings one literal stretch may expand to
_MAX_PRODUCT = 256  # clauses a disjunction may multiply out to before it is summarised


def _words_of(text: str, left: int, right: int) -> list:
    """Atoms for the words of a literal that is always matched whole."""
    atoms, word, bounded = [], "", left >= 1
    for char in text:
        if "a" <= char.lower() <= "z" and char not in _SPECIAL_LETTERS:
            word += char.lower()
        elif char in _SPECIAL_LETTERS:  # may match a letter: the word goes on, unknown
            if word:
                atoms.append((" " if bounded else "") + word)
            word, bounded = "", False
        else:
            if word:
                atoms.append((" " if bounded else "") + word + " ")
            word, bounded = "", True
    if word:
        atoms.append((" " if bounded else "") + word + (" " if right >= 1 else ""))
    return atoms


def _cnf(items: list, left: int, right: int, icase: bool) -> list:
    """Clauses (frozensets of atoms) every match of the sequence ``items``
    satisfies, given the contexts on its left and right: the clauses of two
    readings, each sound on its own — literal words item by item, and
    stretches of literals and plain-string branches expanded into the whole
    strings they match ("(?:no|nope)" parses as "no" + branch["", "pe"],
    which item by item only says "a word starting with no")."""
    return _cnf_pass(items, left, right, icase, False) + _cnf_pass(items, left, right, icase, True)


def _cnf_pass(items: list, left: int, right: int, icase: bool, expand: bool) -> list:
    from re import _constants as c

    clauses: list = []
    i = 0
    while i < len(items):
        op, av = items[i]
        literal = _literal_texts(op, av)
        if literal is not None and op is not c.BRANCH:
            # a stretch of literals and repeats of them (and, expanding,
            # branches of plain strings), read as the whole strings it matches
            j, texts = i, [("", False)]
            while j < len(items):
                step = _literal_texts(*items[j])
                if step is None or (items[j][0] is c.BRANCH and not expand) \
                        or len(texts) * len(step) > _MAX_EXPANSIONS:
                    break
                texts = [(t + u, u_open) for t, _ in texts for u, u_open in step]
                j += 1
                if any(u_open for _, u_open in step):
                    break  # more copies may follow: that text's last word is open
            lctx = _edge(items[:i], left, True)
            rctx = _edge(items[j:], right, False)
            alternatives = [[frozenset([atom]) for atom in _words_of(t, lctx, 0 if t_open else rctx)]
                            for t, t_open in texts]
            if all(alternatives):
                clauses += _or_cnf([_simplify_cnf(alt) for alt in alternatives]) if len(texts) > 1 \
                    else alternatives[0]
            i = j
            continue
        lctx = _edge(items[:i], left, True)
        rctx = _edge(items[i + 1:], right, False)
        if op is c.SUBPATTERN:
            sub_icase = (icase or bool(av[1] & 2)) and not av[2] & 2  # re.IGNORECASE == 2
            clauses += _cnf(list(av[3]), lctx, rctx, sub_icase)
        elif op is c.ATOMIC_GROUP:
            clauses += _cnf(list(av), lctx, rctx, icase)
        elif op is c.BRANCH:
            alternatives = [_simplify_cnf(_cnf(list(alt), lctx, rctx, icase)) for alt in av[1]]
            if alternatives and all(alternatives):
                clauses += _or_cnf(alternatives)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            sub = list(av[2])
            once_l, once_r = _edge(sub, 0, True), _edge(sub, 0, False)
            # later copies sit next to earlier ones, not next to the context
            inner_l = lctx if av[1] == 1 else min(lctx, once_l)
            inner_r = rctx if av[1] == 1 else min(rctx, once_r)
            clauses += _cnf(sub, inner_l, inner_r, icase)
        i += 1
    return clauses


def _strength(clause) -> tuple:
    """How rarely a clause is satisfied, roughly: its weakest atom's length
    (a space counts), then fewer atoms."""
    return (min(len(atom) for atom in clause), -len(clause))


def _or_cnf(alternatives: list) -> list:
    """CNF of a disjunction of CNFs: every clause picking one clause from
    each alternative (when that stays small), else the union of each
    alternative's strongest clause."""
    import itertools

    size = 1
    for cnf in alternatives:
        size *= len(cnf)
    if size <= _MAX_PRODUCT:
        return [frozenset().union(*combo) for combo in itertools.product(*alternatives)]
    return [frozenset().union(*(max(cnf, key=_strength) for cnf in alternatives))]


def _simplify_cnf(clauses) -> tuple:
    """Sorted, without duplicates or clauses implied by a smaller one; the
    strongest clauses first, so a message fails a rule as early as possible."""
    unique = sorted(set(map(frozenset, clauses)), key=lambda cl: (len(cl), sorted(cl)))
    kept: list = []
    for clause in unique:
        if not any(other <= clause for other in kept):
            kept.append(clause)
    kept.sort(key=lambda cl: (tuple(-x for x in _strength(cl)), sorted(cl)))
    return tuple(tuple(sorted(clause)) for clause in kept)


if __name__ == "__main__":
    print(format_prefilter_rules(derive_prefilter_rules()))

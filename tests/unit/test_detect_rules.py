""""Writes a rule or nothing": tacit phrases a durable rule exactly, or returns None.

Where no agent checks what tacit writes, a rule must be one tacit can phrase
itself — never the user's words, never a one-off task.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.detect.analysis import analyse
from tacit.detect.rules import phrase
from tacit.detect.text import normalise

DEV_SERVER = "The dev server is running at http://localhost:3000 — open it in your browser."

RULES = [
    # the terse forms
    ("pnpm not npm here", "I ran `npm install`.", "Use pnpm, not npm."),
    ("5173 not 3000", DEV_SERVER, "The dev server runs on port 5173, not 3000."),
    ("single quotes pls", None, "Use single quotes."),
    ("always use TypeScript", None, "Always use TypeScript."),
    # more standing rules
    ("no, use pnpm", "Installing with npm…", "Use pnpm."),
    ("use uv instead of pip", None, "Use uv, not pip."),
    ("tabs not spaces", None, "Use tabs, not spaces."),
    ("no semicolons pls", None, "Don't use semicolons."),
    ("never force-push to main", None, "Never force-push to main."),
    ("from now on, ask me before pushing", None, "Ask the user before pushing."),
    ("we use pnpm here", None, "This project uses pnpm."),
    ("prefer vitest over jest", None, "Prefer Vitest over Jest."),
    ("dont add comments", None, "Don't add comments."),
    ("I'm on Windows", None, "The user is on Windows."),
    ("i use the fish shell", None, "The user uses the fish shell."),
    ("Always write commit messages in the imperative", None, "Always write commit messages in the imperative."),
    ("never make manual changes to generated files ffs", None, "Never make manual changes to generated files."),
]
NO_RULE = [
    # one-off UI / task instructions
    ("make the sign up form look better on mobile", None),
    ("add a dark mode toggle to the settings page", None),
    ("move the button to the right of the checkbox", None),
    ("dont clone it", "I'll clone the repository first."),
    # the user's words as they stand: a complaint, not a rule tacit can phrase
    ("why did you add another utils file, helpers.ts exists", "I created src/utils/date.ts."),
    ("there are aleady applescripts do do this", "I'll write an AppleScript that toggles the dock."),
    ("This isn't exactly what I wanted", "Done! The landing page now has a hero section."),
    # pointing words: the rule depends on what "that" is
    ("always do that", None),
    ("never do this again", None),
    # names that are not names
    ("red not blue", "I made the button blue."),
    ("this not that", None),
    # numbers that are not ports
    ("Today is November 29th, 2025, not 2024", None),
    ("5173 not 3000", None),
    # a reason or a second sentence: the extra words may change the rule
    ("use pnpm because the lockfile is pnpm-lock.yaml and CI expects it", None),
    ("use pnpm. also fix the tests", None),
    ("dont use the type any. Everything must be typed", None),
    ("always group by wallet, do not allow user to query groupBy", None),
    ("should we use pnpm?", None),
    ("", None),
]


@pytest.mark.parametrize("text,prev,expected", RULES)
def test_rules_tacit_can_phrase(text, prev, expected):
    assert analyse(text, prev).rule == expected


@pytest.mark.parametrize("text,prev", NO_RULE)
def test_everything_else_gets_no_rule(text, prev):
    assert analyse(text, prev).rule is None


def test_a_phrased_rule_is_a_lesson():
    analysis = analyse("pnpm not npm here", "I ran `npm install`.")
    assert analysis.is_correction  # it rejects what the agent just did
    assert analysis.category == "preference" and analysis.highlight


def test_what_the_rule_rejects():
    found = phrase("pnpm not npm here", "pnpm not npm here", "npm install done")
    assert found.rejected == "npm" and found.rejects_prev and not found.rejection
    assert phrase("no, use pnpm", "no, use pnpm").rejection


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.one_of(st.none(), st.text(max_size=100)))
def test_a_rule_is_always_a_short_sentence_of_its_own(text, prev):
    found = phrase(text, normalise(text)[0], prev)
    if found is not None:
        rule = found.text
        assert rule[0].isupper() and rule.endswith(".") and len(rule) <= 160
        assert "\n" not in rule


@pytest.mark.parametrize("bad", [None, 5, b"use pnpm", "\ud800use pnpm"])
def test_bad_input_has_no_rule(bad):
    assert analyse(bad).rule is None

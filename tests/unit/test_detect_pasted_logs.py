"""What counts as a pasted log line (issue 22, tenth round: the out-of-fold errors).

A line with few letters is dropped as a log before the message is judged; a short line of words
and numbers ("its 5173 not 3000") is the user's own words, and dropping it left the message
empty, so it was read as ``quoted-only`` and never judged. Log lines proper stay logs."""

from __future__ import annotations

from tacit.detect.analysis import analyse
from tacit.detect.features import read
from tacit.detect.text import focus_text, is_log_line, strip_quoted


def test_a_line_of_words_and_numbers_is_prose_not_a_log():
    # the example: after "Started on port 3000." it was gated out as quoted-only
    reading = read("its 5173 not 3000", "Started on port 3000.")
    assert reading.skipped is None and reading.focus == "its 5173 not 3000"
    verdict = analyse("its 5173 not 3000", "Started on port 3000.").correction
    assert verdict.is_correction and verdict.rule != "quoted-only"  # the rule against what the agent did
    assert not is_log_line("set it to 1.5 not 2.25")


def test_numbers_with_units_paths_and_symbols_are_still_logs():
    assert is_log_line("total 4096 1532 0.042s")
    assert is_log_line("  1  src/a.ts:71  2  3  4  5")
    assert is_log_line("12:01 200 4521 88")  # one word or none: not prose
    # d-u90948 (tune): a traceback's marker line is dropped, the user's line kept
    text = "    ^^^^^^^^^^^^^^^^^^^^^^^^\nyou broke the import again"
    assert focus_text(strip_quoted(text)) == "you broke the import again"

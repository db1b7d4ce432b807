"""tacit.guards.reason: the one line the agent or the user reads."""

from __future__ import annotations

from dataclasses import replace

from tacit.guards.derive import derive_guard
from tacit.guards.match import GuardSet, normalize_call
from tacit.guards.model import Guard
from tacit.guards.reason import reason

ROOT = "/repo"


def hit_for(text, tool, args, scope="project", gid=3, action=None):
    spec = derive_guard(text)
    guard = Guard(replace(spec, action=action) if action else spec, gid, scope, ROOT if scope == "project" else None)
    hits = GuardSet([guard]).check(normalize_call(tool, args, ROOT))
    assert len(hits) == 1
    return hits[0]


def test_deny_quotes_the_lesson_the_alternative_and_how_to_lift_it():
    hit = hit_for("we use pnpm here, never npm", "Bash", {"command": "npm install left-pad"},
                  action="deny")
    assert reason(hit, date="2026-12-01") == (
        'tacit: stopped `npm install left-pad`, this project\'s rule: "we use pnpm here, never npm"; '
        "use pnpm instead (you said so on 2026-12-01; to lift it: tacit guard remove 3)")


def test_ask_reads_as_a_question():
    hit = hit_for("we use pnpm here, never npm", "Bash", {"command": "npm i"})
    text = reason(hit, date="2026-12-01")
    assert text == ('tacit: `npm i` goes against this project\'s rule "we use pnpm here, never npm"; '
                    "use pnpm instead. Run it anyway? (you said so on 2026-12-01; to lift it: "
                    "tacit guard remove 3)")
    assert reason(hit, action="deny").startswith("tacit: stopped `npm i`")


def test_ask_after_a_lesson_with_its_own_full_stop_has_no_second_one():
    """Claude Code 2.1.197 showed `… AGENTS.md:5 "Never run `git push --force`; ask a maintainer first.". Run
    it anyway?`: the quoted rule's full stop, then ours."""
    hit = hit_for("Never run git push --force; ask a maintainer first.", "Bash",
                  {"command": "git push --force origin main"})
    text = reason(hit)
    assert '"Never run git push --force; ask a maintainer first." Run it anyway? (' in text, text


def test_edits_global_rules_ids_and_dates_are_optional():
    hit = hit_for("don't touch migrations/", "Edit", {"file_path": "/repo/db/migrations/1.py"})
    assert "a change to `db/migrations/1.py`" in reason(hit)
    assert reason(hit).endswith("(you said so; to lift it: tacit guard remove 3)")
    assert reason(hit, guard_id=12, by_user=False, date="May 1").endswith(
        "(saved as a lesson on May 1; to lift it: tacit guard remove 12)")
    sudo = hit_for("never use sudo", "Bash", {"command": "sudo ls"}, scope="global", gid=None)
    assert 'your rule "never use sudo"' in reason(sudo)
    assert reason(sudo).endswith("(you said so)")


def test_always_one_bounded_line():
    text = "never use npm, use pnpm"
    guard = Guard(derive_guard(text), 1, "project", ROOT)
    long_command = "npm install " + " ".join(f"pkg{i}" for i in range(200)) + "\nnpm run build"
    hits = GuardSet([guard]).check(normalize_call("Bash", {"command": long_command}, ROOT))
    line = reason(hits[0], date="2026-12-01\nnoon")
    assert "\n" not in line and len(line) < 400

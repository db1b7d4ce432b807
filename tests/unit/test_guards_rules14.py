"""Readings from a fourteenth probe of real rule lines (probe C1 of tests/data/guard_probe_rules14.jsonl),
one table per form: "bare `python`" is the program called by its name (not a venv's, not through `uv run`),
a rule's verb said as a label ("**Never Use**: …"), a bold rule heading said again after a colon, an
adjective before a path not to commit ("actual .env files"), a fact said after the rule as its reason
(", npm audit fix has broken things before") and an emphasis between commas ("Never, ever, edit …"). Each line names its repository; calls run through the public
API: derive_guards / rules_in, then GuardSet.check of normalize_call."""

from __future__ import annotations

import pytest

from tacit.guards import derive_guards
from tacit.guards.model import CommandMatch
from test_guards_sweep7 import _line, _stops

# "bare <program>": the program by its own name; a path to one or an environment's runner is the way asked for
BY_NAME_LINES = [
    # vishnu2kmohan/mcp-server-langgraph .claude/CLAUDE.md
    ("**ALWAYS use the project virtual environment. NEVER use bare `python` commands.**\n",
     ["python -m pytest tests/", "python script.py"],
     [".venv/bin/python -m pytest tests/", "uv run python script.py", "poetry run python x.py"]),
]
BY_NAME_LESSONS = [
    ("never use bare python", ["python x.py"], [".venv/bin/python x.py", "uv run python x.py"]),
    ("never use bare `pytest` or `pip` commands", ["pytest tests/", "pip install requests"],
     ["uv run pytest tests/", ".venv/bin/pytest tests/", ".venv/bin/python -m pytest tests/"]),
    ("don't use raw python3", ["python3 -m http.server"], ["venv/bin/python3 -m http.server"]),
    # with a subcommand "bare" stays "with nothing after it"; "without arguments" is that too
    ("never run a bare `pnpm test`", ["pnpm test"], ["pnpm test packages/a"]),
    ("never run make without arguments", ["make"], ["make build"]),
]

# "**Never Use**: X": the verb said as a label reads as the clause it starts
VERB_LABEL_LINES = [
    # vishnu2kmohan/mcp-server-langgraph .github/CLAUDE.md
    ("**Never Use**: Bare `python`, `python3`, `pytest`, or `pip` commands (these use system Python).\n",
     ["python script.py", "pytest tests/", "pip install requests"],
     ["uv run --frozen pytest tests/", ".venv/bin/python script.py"]),
    ("- **Do not edit**: `src/generated/`\n", ["E:src/generated/api.ts"], ["E:src/api.ts"]),
]

# "**Do not X**: Never X …": the heading is a title, the rule after it is the one read
HEADING_LINES = [
    # zachmueller/notor AGENTS.md (the heading's own reading dropped `node_modules/`)
    ("- **Do not commit build artifacts**: Never commit `node_modules/`, `main.js`, or other generated files to "
     "version control.\n", ["git add node_modules/obsidian/index.js", "git add main.js"], ["git add src/main.ts"]),
    ("- **No force pushes**: never run `git push --force`\n", ["git push --force origin x"], ["git push origin x"]),
]

# lessons, one form after another: (lesson, calls it stops, calls it lets through)
LESSONS = [
    # an adjective before the path not to commit
    # vishnu2kmohan/mcp-server-langgraph .cursorrules: "- Never commit actual .env files"
    ("Never commit actual .env files", ["git add .env"], ["git add .env.example"]),
    ("never commit the real `.env`", ["git add .env"], ["git add src/app.py"]),
    ("don't commit local .env files", ["git add .env"], ["git add README.md"]),
    # a fact said after the rule, with no "it"/"because" before it, is the rule's reason
    ("never commit .env files, npm audit fix has broken things before", ["git add .env"], ["git add a.py"]),
    ("never run `npm audit fix`, npm audit fix has broken things before", ["npm audit fix"], ["npm audit"]),
    ("don't edit `dist/`, .env holds the prod keys", ["E:dist/app.js"], ["E:src/app.js"]),
    # an emphasis set off by commas or dashes after the negation (probe A: "Never under any circumstances run …")
    ("Never, under any circumstances, run `git push --force`", ["git push --force origin x"], ["git push origin x"]),
    ("Never, ever, edit `dist/`", ["E:dist/app.js"], ["E:src/app.js"]),
    ("Do NOT, for any reason, edit `dist/`", ["E:dist/app.js"], ["E:src/app.js"]),
    ("never - ever - commit .env files", ["git add .env"], ["git add a.py"]),
    # a lesson that ends with a command in double quotes keeps its closing quote (it was stripped as the
    # lesson's own, and the command read as nothing); a lesson typed in quotes is still unwrapped
    ('Never run "git clean -fd"', ["git clean -fd"], ["git clean -n"]),
    ('don\'t run "npm publish"', ["npm publish"], ["npm pack"]),
    ('"never run git clean"', ["git clean -fd"], ["git status"]),
    ("'never edit dist/'", ["E:dist/app.js"], ["E:src/app.js"]),
    # "avoid" with a kind of command and the commands named: the commands (tune R455's form, typed right)
    ("Avoid destructive operations like `git reset`, `git clean`, etc.", ["git reset --hard", "git clean -fd"],
     ["git status"]),
    ("avoid destructive commands such as `rm -rf`", ["rm -rf build"], ["rm build/a.o"]),
]

CASES = ([("line", *c) for c in BY_NAME_LINES + VERB_LABEL_LINES + HEADING_LINES]
         + [("lesson", *c) for c in BY_NAME_LESSONS + LESSONS])


@pytest.mark.parametrize("kind, text, stopped, fine", CASES)
def test_reading(kind, text, stopped, fine):
    specs = _line(text) if kind == "line" else list(derive_guards(text))
    assert specs, text
    assert _stops(specs, stopped + fine) == [True] * len(stopped) + [False] * len(fine), text


@pytest.mark.parametrize("lesson", ["never mix tabs and spaces, black formats the code", "never use bare URLs",
                                    "Never, unless asked, edit `dist/`",
                                    "Never, under any circumstances, edit `dist/` unless asked",
                                    "try to avoid commands like `git reset`",
                                    "Avoid operations like `git reset` unless asked"])
def test_no_guard(lesson):
    """A fact after a lesson that is no rule makes none; "bare" before no program is no command."""
    assert derive_guards(lesson) == ()


def test_bare_program_is_by_name_and_bare_command_alone():
    """"bare `python`" narrows to the program's own name; "a bare `pnpm test`" to the command alone."""
    (by_name,) = derive_guards("never use bare `python`")
    assert by_name.match == CommandMatch(("python",), (), (), True, by_name=True)
    (alone,) = derive_guards("never run a bare `pnpm test`")
    assert alone.match == CommandMatch(("pnpm",), ("test",), (), True, True)


def test_banned_fact_is_no_reason():
    """", yarn is banned too" is no reason of the rule before it: the rule's guard stays."""
    programs = {p for spec in derive_guards("never use npm, yarn is banned too") for p in spec.match.programs}
    assert "npm" in programs


def test_reason_as_fact_keeps_the_bare_guards():
    """The same guard with and without the fact after it."""
    bare = derive_guards("use uv for everything, never bare python or python3")
    told = derive_guards("use uv for everything, never bare python or python3, a human reviews the changes")
    assert bare and [s.match for s in bare] == [s.match for s in told]

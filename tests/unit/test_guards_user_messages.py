"""Rules as people type them to a coding agent, from real user messages (the tune repositories of
../shared/data/real/user.jsonl; each case names its message id): the rules that hold derive their guard,
and one-off requests, questions, pasted logs and code derive none (issue 19)."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call

ROOT = "/repo"
CO_AUTHORED = 'git commit -m "fix: x" -m "Co-Authored-By: Claude <noreply@anthropic.com>"'
# how Claude Code writes a commit message: a heredoc read by `cat` in a command substitution
CO_AUTHORED_HEREDOC = ("git commit -m \"$(cat <<'EOF'\nfix: x\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n"
                       "EOF\n)\"")


def _stops(text: str, command: str) -> bool:
    guards = GuardSet([Guard(s, id=i, scope="project", project_root=ROOT) for i, s in enumerate(derive_guards(text))])
    return bool(guards.check(normalize_call("Bash", {"command": command}, ROOT, project_root=ROOT)))


# (message id, the message or a short excerpt of it, calls it stops, close calls it lets through)
STOPS = [
    ("d-u00254", "use uv instead of python or python3", ["python train.py", "python3 -m pytest"],
     ["uv run python train.py", "uv run train.py", "uv pip install numpy"]),
    ("d-u03408", "use uv instead of python", ["python train.py"], ["uv run python train.py"]),
    # "with X not with Y": a request for commands that holds "from now on"
    ("d-u90978", "give me command with uv run not with python, from now on", ["python train.py"],
     ["uv run train.py", "uv run python train.py"]),
    # a co-author trailer said with no "trailer", or as a verb, or as what the agent is
    ("d-u04703", "Never include a Co-Authored-By in your commits", [CO_AUTHORED, CO_AUTHORED_HEREDOC],
     ["git commit -m 'fix: x'", "git log --format=%an"]),
    ("d-u04597", "please write up a pr for these changes. Do not co-author the commits or pr", [CO_AUTHORED],
     ["git commit -m 'fix: x'", "gh pr create --fill"]),
    ("d-u02776", "Give me a good conventional commit message to use for these changes. Do not include yourself "
     "as a coauthor", [CO_AUTHORED_HEREDOC], ["git commit -m 'feat: y'"]),
]

# phrasings of the same rules as people type them: run-on, no punctuation, a correction's "no", a typo
PHRASINGS = [
    ("dont use npm use bun", ["npm install"], ["bun install"]),
    ("dont use yarn use npm", ["yarn add x"], ["npm install x"]),
    ("stop using pip install use uv add", ["pip install x"], ["uv add x"]),  # it stopped nothing
    ("dont run npm run dev use the vscode task", ["npm run dev"], ["npm run build"]),
    ("dont run nvm use 18", ["nvm use 18"], ["nvm ls"]),  # "use" is nvm's own: one order
    ("no npm, pnpm", ["npm install"], ["pnpm install"]),  # it read "no npm, pnpm" as a list and stopped pnpm
    ("no use pnpm not npm", ["npm install"], ["pnpm install"]),
    ("we're using pnpm not npm", ["npm install"], ["pnpm install"]),
    ("never run python directly, always uv run", ["python x.py"], ["uv run python x.py"]),
    ("dont run python directly", ["python x.py"], ["uv run python x.py", "poetry run python x.py"]),
    ("*.token or *.secret should never be commited", ["git add api.token", "git add prod.secret"],
     ["git add src/a.py"]),
    ("never add Co-Authored-By to commits", [CO_AUTHORED], ["git commit -m x"]),
]

# messages that must give no guard: one-off requests, permissions, questions, code asked for, pasted output
NOTHING = [
    ("d-u04605", "dont make any changes or do anything besides commit and push this to github"),
    ("d-u02550", "no don't do anything, just respotre the changed file"),
    ("d-u00355", "not this meachine in another dont run any command give me the command i will run my cloud terminal"),
    ("d-u04894", "use uv if you need to"),
    ("d-u90676", "We should use bun to create an actual binary executable"),
    ("d-u00744", "use uv"),
    ("d-u02930", "make sure that you dont actually build this roject. it builds in ci"),
    ("d-u02683", "do not create more migration, instead, update the old one and clear the database and rerun the "
     "migration."),
    ("d-u00036", 'rather than running "make validate", run "make validate-ui" which will be faster as we are '
     "focusing on the frontend only."),
    ("d-u03933", "create a copy of the ~/.claude/statusline.sh script that uses fish shell scripting instead of "
     "bash. save it to ~/.claude/statusline.fish"),
    ("d-u05244", "re-write the pre-push and post-push files so that they use `#!/bin/sh` instead of "
     "`#!/usr/bin/env powershell` powershell"),
    ("d-u03844", "error: failed to push some refs to 'https://github.com/fifteens-dev/fifteen.git'\nhint: Updates "
     "were rejected because the remote contains work that you do not\nhint: have locally. If you want to integrate "
     "the remote changes, use\nhint: 'git pull' before pushing again."),
    ("d-u04723", "Warning: DeprecationWarning: `search` method is deprecated and will be removed in the future. "
     "Use `query_points` instead."),
    ("d-u90150", "how do i stop server?"),
    ("d-u04348", "no, I don't want snap on my hosts.  so I will likely pivot though I do hate to give up the name."),
]


@pytest.mark.parametrize("mid, text, stops, fine", STOPS, ids=[c[0] for c in STOPS])
def test_a_rule_in_a_user_message_stops_its_calls(mid, text, stops, fine):
    assert derive_guards(text), mid
    for command in stops:
        assert _stops(text, command), (mid, command)
    for command in fine:
        assert not _stops(text, command), (mid, command)


@pytest.mark.parametrize("text, stops, fine", PHRASINGS, ids=[c[0] for c in PHRASINGS])
def test_a_rule_typed_loosely_stops_the_same_calls(text, stops, fine):
    for command in stops:
        assert _stops(text, command), command
    for command in fine:
        assert not _stops(text, command), command


@pytest.mark.parametrize("mid, text", NOTHING, ids=[c[0] for c in NOTHING])
def test_a_request_question_or_pasted_output_gives_no_guard(mid, text):
    assert derive_guards(text) == (), mid


def test_a_cat_writing_a_file_is_no_commit_message():
    text = "Never include a Co-Authored-By in your commits"
    assert not _stops(text, "cat <<EOF > notes.txt\nCo-Authored-By: x\nEOF\ngit commit -m \"$(date)\"")
    assert not _stops(text, "git commit -m \"$(cat <<'EOF'\nfix: x\n\nno trailer\nEOF\n)\"")


def test_a_typo_inside_backticks_stays_as_written():
    [spec] = derive_guards("never commit `commited.txt`")
    assert spec.match.patterns == ("commited.txt",)

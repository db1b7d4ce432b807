"""Readings from a sixth sweep of real AGENTS.md / CLAUDE.md rule lines, of the ones written with no backticks
or quotes ("Never commit secrets, .env files, or credentials" · "NEVER run npm install, npm update, npx cap sync").
The index the lines were found in (find_string) names no repository; each case names the hit it comes from."""

from __future__ import annotations

import pytest

from test_guards_sweep import _check
from test_guards_sweep4 import _specs


# (file text, commands it stops, commands it lets through)
STOPS = [
    # a commit list of kinds (secrets, credentials) with an unquoted path among them: the path, not the rest
    # (find_string hits 52518753302, 53624518951, 37807862746: "## Rules" lists of CLAUDE.md-style files)
    ("- Never commit secrets, .env files, or credentials\n",
     ["git add .env", "git add config/prod.env"], ["git add src/app.py", "git commit -m x", "git add .env.example"]),
    # find_string hit 62202912674 (a NestJS starter's AGENTS.md, "## Git")
    ("- Never commit .env, secrets, or build artifacts.\n", ["git add .env"], ["git add src/main.ts", "git commit -m x"]),
    # find_string hit 58154370171: two paths among the kinds
    ("- Never commit .env, secrets, .dshx/, or machine-absolute paths.\n",
     ["git add .env", "git add .dshx/state.json"], ["git add README.md"]),
    # find_string hit 53111788296 ("### Git" of a CLAUDE.md)
    ("- Never commit .env files, API keys, or SQLite databases.\n", ["git add .env"], ["git add app.db.md"]),
    # "add" may be of a label: its unquoted words stay labels, no paths
    ("don't add the type/bug, type/feature or type/task labels", ["gh issue create --label type/bug"],
     ["git add type/bug", "gh issue create --label docs"]),
    ("Never commit node_modules, build output, or secrets", ["git add node_modules/x/index.js"], ["git add src/x.js"]),
    # a list of commands with an act of its own last (find_string hit 12524037727, "CRITICAL RULES:")
    ("- NEVER run npm install, npm run dev, or create new projects\n",
     ["npm install", "npm run dev"], ["npm run build", "npm test"]),
    # … or a kind the commands are of last (find_string hit 53195216104, "### Anti-Patterns")
    ("- NEVER run git pull, git fetch, git push, git merge, or any remote-syncing command\n",
     ["git pull", "git fetch origin", "git push origin x", "git merge main"], ["git status", "git commit -m x"]),
    ("Never run git reset, git clean, or any other destructive commands", ["git reset --hard", "git clean -fd"],
     ["git status"]),
    # two rules joined by "and never" with no comma (find_string hit 70400012837, an agent's system prompt)
    ("- Never use sudo and never touch files outside the workspace.\n", ["sudo apt install x"], ["apt list"]),
    ("Never run npm install and never run npm publish", ["npm install", "npm publish"], ["npm test"]),
    # find_string hit 70086007040 ("## Prohibitions"): a kind said with what it does
    ("- Never run rm -rf, git push --force, git reset --hard, or any command that deletes untracked work.\n",
     ["rm -rf build", "git push --force origin x", "git reset --hard HEAD~1"], ["rm a.txt", "git reset --soft HEAD~1"]),
    # find_string hit 54170350791: a kind with no "any"
    ("- NEVER run rm -rf, sudo, or network commands.\n", ["rm -rf x", "sudo ls"], ["curl https://x.dev", "rm x"]),
    # find_string hit 44077423878 ("PACKAGE MANAGER:")
    ("- Never use npm, pnpm, ts-node, or anything of that sort.\n", ["npm install", "pnpm add x", "ts-node a.ts"],
     ["yarn add x", "bun run a.ts"]),
    # "any" before the program's commands (find_string hit 71652527388, "## Hard rules")
    ("- Do NOT run any git commands.\n", ["git status", "git commit -m x"], ["ls", "npm test"]),
    # a program's commands with a flag: any of them with it (find_string hit 68863060700, a PR command's rules;
    # it read "commands" as git's subcommand and stopped nothing)
    ("- Never use git commands with the -i flag (like git rebase -i or git add -i) since they require "
     "interactive input which is not supported\n", ["git rebase -i main", "git add -i"], ["git rebase main", "git add a.py"]),
    # "the" before the PR (find_string hit 54109560704, "## IMPORTANT RULES" of a ship command)
    ("- NEVER merge the PR. Only create it.\n", ["gh pr merge 12 --squash"], ["gh pr create --fill", "gh pr view 12"]),
    # a place a reading takes stays every item's
    ("Never run npm install or npm test in the src folder", ["cd src && npm install"], ["npm install"]),
    # two acts on one unquoted path (as "never modify, stage, or commit `.env.local`" with the path quoted)
    ("Never edit or commit .env files", ["git add .env"], ["git add src/a.py"]),
    ("Never modify or commit package-lock.json", ["git add package-lock.json"], ["git add package.json"]),
    # a list of commands with no "or" (find_string hit 57933835535)
    ("- NEVER run npm install, npm update, npx cap sync\n",
     ["npm install", "npm update", "npx cap sync"], ["npm run build", "npx cap open ios"]),
]


# lines that must give no guard at all
NOTHING = [
    "Never commit secrets, .env files, or credentials without asking",  # an exception
    "Never commit secrets or .env files unless told to",
    "Never commit secrets, tokens, or credentials",  # kinds only: no path
    "never commit code, e.g. fixes, or docs",
    "Never run git push, git merge, or any commands without asking",  # the exception reaches every item
    "Never use sudo and never run rm -rf unless asked",  # the exception of the second rule vetoes the line
    "never run any git commands without asking",
    "never run any commands",
    "Never edit or commit .env files unless asked",
    # find_string hit 53305758286 ("## Working Directory"): the place after the last item may hold for every
    # item; it stopped every npm install
    "- Never run npm install, npm run dev, or any build commands from a parent directory",
    # find_string hit 71037810203: a qualified install is no guard (stays so)
    "- NEVER run npm install from WSL's Linux Node. Native modules built for Linux break on Windows and vice versa.",
]


@pytest.mark.parametrize("text, stopped, fine", STOPS + [(rule, None, None) for rule in NOTHING])
def test_reading(text, stopped, fine):
    specs = _specs(text)
    if stopped is None:  # a line of NOTHING
        assert specs == [], text
    else:
        assert all(_check(specs, c) for c in stopped) and not any(_check(specs, c) for c in fine), text


def test_a_list_ending_in_a_word_that_is_also_a_program_stays_no_list():
    # "make" is a program and a word: "never use git commit --amend, make new commits" orders a new commit
    specs = _specs("never use git commit --amend, make new commits")
    assert _check(specs, "git commit --amend")
    assert not _check(specs, "make new")


def test_the_rule_after_and_never_is_read_with_no_comma():
    specs = _specs("Work on a branch and never commit to main")
    assert [s.describe() for s in specs] == [s.describe() for s in _specs("Never commit to main")]
    assert specs

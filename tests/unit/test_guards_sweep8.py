"""Readings from an eighth sweep ("rules that hold"): a rule said under a number, a known form with "all",
a command said in capitals, a quoted glob in a mixed list, sudo narrowed to one program, and not switching
branches. Each case quotes a real instruction-file line (by its find_string hit) or the bare lesson a person
would type. Calls run through the public API: derive_guards / rules_in, then GuardSet.check of normalize_call."""

from __future__ import annotations

import pytest

from tacit.guards import derive_guards
from test_guards_sweep7 import _line, _stops

# (file text, calls it stops, calls it lets through)
LINES = [
    # find_string hit 61494333779: a numbered item with two sentences
    ("4. Stage explicit paths only. Never use `git add -A`.\n", ["git add -A"], ["git add src/a.ts"]),
    # find_string hits 56714559406, 66832485411, 62477005517: "all" is pm2's own argument, not prose
    ("- Do not run `pm2 delete all`.\n", ["pm2 delete all"], ["pm2 delete myapp", "pm2 list"]),
    ("**Never** run `pm2 delete all`, `pm2 kill`, or `pm2 stop all`. Those stop every product on this VPS.\n",
     ["pm2 delete all", "pm2 kill", "pm2 stop all"], ["pm2 delete smebuze-api", "pm2 stop smebuze-api"]),
    # find_string hit 70707037246: the quoted item of a mixed list is a make target prefix
    ("- Never run sops or `make secrets-*`.\n", ["sops -d secrets.enc.yaml", "make secrets-pull"],
     ["make test", "make secret"]),
    # find_string hit 60280820302: sudo narrowed to npm stops sudo running npm, not every sudo
    # (nor npm run plainly, a rule of its own)
    ("- **Use nvm ALWAYS** - NEVER install Node globally, NEVER use `sudo npm`\n",
     ["sudo npm install -g x", "sudo -E npm ci"], ["sudo apt-get install x", "npm install", "sudo -u www npx serve"]),
    # find_string hits 58456739076, 58103387161, 70626159942: leaving the branch (to another, a new one or a
    # detached HEAD) is switching; restoring a file with checkout is not, nor checking out the branch already current
    ("- Stay on `cursor/ox-eventloop-2ac0`. Never checkout another branch.\n",
     ["git checkout main", "git switch dev", "git checkout -b other", "git switch -c x", "git checkout v1.2.0"],
     ["git checkout -- a.py", "git checkout src/a.py", "git status", "git branch -a",
      "git checkout cursor/ox-eventloop-2ac0 @cursor/ox-eventloop-2ac0", "git -C ../other checkout main"]),
    ("Never touch another agent's worktree. Never checkout another branch.\n", ["git checkout main"],
     ["git checkout -- ."]),
    ("   (below). Never switch branches. Never push. Never `reset --hard`, never\n", ["git switch main", "git push"],
     ["git restore a.py", "git checkout HEAD -- a.py"]),
    # find_string hit 53395473265
    ("- **Permission errors with npm** \u2014 Never use `sudo npm install -g`. Use nvm instead.\n",
     ["sudo npm install -g x"], ["npm install -g x", "sudo chown -R me ~/.npm"]),
]

# numbers before a rule say where it sits, not what it says (each also before "Never run drizzle-kit push")
_MARKS = ["### 2.1 ", "2.1 ", "#### 2.1.3 ", "3) ", "a) ", "1\ufe0f\u20e3 ", "Step 4: "]

# bare lessons, as typed to an agent: (lesson, calls it stops, calls it lets through)
BARE = [(mark + "Never use `git add -A`", ["git add -A"], ["git add a.py"]) for mark in _MARKS] + [
    (mark + "never run drizzle-kit push", ["npx drizzle-kit push"], ["npx drizzle-kit generate"]) for mark in _MARKS] + [
    # "all" of a known form
    ("never run pm2 delete all", ["pm2 delete all"], ["pm2 delete myapp", "pm2 restart myapp"]),
    ("never run pm2 stop all", ["pm2 stop all"], ["pm2 stop myapp"]),
    # shouting is emphasis; a one-letter flag, a path and a mixed-case name keep their case
    ("NEVER RUN GIT PUSH --FORCE", ["git push --force", "git push --force origin x"], ["git push origin x"]),
    ("never run `PRISMA MIGRATE RESET`", ["npx prisma migrate reset"], ["npx prisma migrate dev"]),
    ("NEVER RUN GIT ADD -A", ["git add -A"], ["git add a.py"]),
    ("NEVER EDIT `src/Generated/API.ts`", ["E:src/Generated/API.ts"], ["E:src/generated/api.ts"]),
    ("don't use sudo for npm installs", ["sudo npm install x", "sudo npm i -g x"], ["sudo apt-get install x", "npm install x"]),
    ("never run pip with sudo", ["sudo pip install x", "sudo -H pip3 install x"], ["pip install x", "sudo apt install x"]),
    # find_string hit 56597569526 (a memory guide's example correction)
    ("Don't use sudo for Docker commands, user is in docker group", ["sudo docker ps"], ["docker ps", "sudo systemctl restart x"]),
    ("don't switch branches", ["git checkout main", "git switch dev"], ["git checkout -- a.py", "git status"]),
    ("never change branches", ["git switch -"], ["git branch new-one", "git checkout ."]),
    # an exception in a following sentence with an order of its own, before an act the rule does not name, is that
    # order's (its second sentence: find_string hit 70070695354)
    ("Never run `git push --force`. Fix flagged warnings/violations before committing, unless they are pre-existing "
     "and unrelated to the current change.", ["git push --force"], ["git push origin x"]),
    ("never run `make secrets-*`", ["make secrets-pull", "make secrets-"], ["make secret", "make test"]),
]

# lines that must give no guard at all
NOTHING = [
    "3.11 is the python we use",
    "never run pm2 delete all apps",  # "all apps" is prose, not pm2's argument
    "never run git add all",  # `git add all` is no form of git add
    "never run `make *`",  # every target: no prefix
    "never run `sudo -u postgres psql`",  # sudo's options and a user: no program to narrow to
    "don't use sudo for the first command",  # no program
    # the following sentence's exception is about the rule's own act (committing, pushing): it still vetoes
    "Never commit to main. Fix flagged warnings/violations before committing, unless they are pre-existing.",
    "Never push to main. Unless it is a hotfix.",
    # find_string hits 68733287952, 17052884187: a case the check cannot see
    "Never switch branches in another agent's directory or remove a worktree that contains unreviewed work.",
    "- \u274c **NEVER switch branches when starting a new task** - the user has already set up the branch",
]


@pytest.mark.parametrize("kind, text, stopped, fine", [("line", *c) for c in LINES] + [("lesson", *c) for c in BARE])
def test_reading(kind, text, stopped, fine):
    specs = _line(text) if kind == "line" else list(derive_guards(text))
    assert specs, text
    assert (_stops(specs, stopped), _stops(specs, fine)) == ([True] * len(stopped), [False] * len(fine)), text


@pytest.mark.parametrize("text", NOTHING)
def test_no_guard(text):
    assert _line(text + "\n") == [] and list(derive_guards(text)) == [], text


def test_sql_in_capitals_stays_a_statement():
    # `DROP TABLE` is no program named drop: lowering a shouted command leaves SQL as it was
    assert [s.describe() for s in derive_guards("never run `DROP TABLE`")] == ["SQL: drop table"]

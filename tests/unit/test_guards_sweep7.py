"""Readings from a seventh sweep: a fresh probe of real rule lines (and the bare lesson a person would type
for each: "never push to main", "don't run npm audit") from repositories tacit had not seen. Each case
names the repository and file, or the find_string hit when the index named none. Calls run through the
public API: derive_guards / rules_in, then GuardSet.check of normalize_call."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.instructions import rules_in

ROOT = "/repo"


def _call(call: str, known: set):
    """``cmd`` (Bash), ``cmd @branch`` (Bash on that branch), ``E:path`` (Edit), ``W:path`` (Write, a new file)."""
    if call[:2] in ("E:", "W:"):
        tool = "Edit" if call[0] == "E" else "Write"
        args = {"file_path": f"{ROOT}/{call[2:]}", **({"content": "x\n"} if tool == "Write" else {})}
        return normalize_call(tool, args, ROOT, project_root=ROOT, exists=known.__contains__)
    command, _, branch = call.partition(" @")
    return normalize_call("Bash", {"command": command}, ROOT, project_root=ROOT, branch=branch or None,
                          exists=known.__contains__)


def _stops(specs, calls) -> list[bool]:
    guards = GuardSet([Guard(spec, id=i, scope="project", project_root=ROOT) for i, spec in enumerate(specs)])
    known = {f"{ROOT}/{c[2:]}" for c in calls if c.startswith("E:")}
    return [bool(guards.check(_call(c, known))) for c in calls]


def _line(text: str) -> list:
    return [rule.spec for rule in rules_in(text, "AGENTS.md")]


# (file text, calls it stops, calls it lets through)
LINES = [
    # patelajk2319-hcp/kubernetes-vault-stack CLAUDE.md, "## Critical Git Safety Rules": a bold bullet is its own rule,
    # not a lead-in for sub-bullets (it derived nothing)
    ("- **NEVER push to main**\n", ["git push origin main"], ["git push origin feature/x"]),
    ("- **NEVER commit to main**\n", ["git commit -m x @main"], ["git commit -m x @feature/x"]),
    # … and one that points at what follows stays a lead-in
    ("- **Never edit these files**\n  - `gen/api.ts`\n", ["E:gen/api.ts"], ["E:src/api.ts"]),
    # 10aburnett/DigitalPromoCodes CLAUDE.md: a warning sign, an adverb and two halves joined by a dash
    ("### ❌ ABSOLUTELY FORBIDDEN COMMANDS - NEVER USE:\n- `npx prisma db push --force-reset` ❌\n"
     "- `npx prisma migrate reset` ❌\n",
     ["npx prisma db push --force-reset", "npx prisma migrate reset"], ["npx prisma db push", "npx prisma migrate dev"]),
    # swombat/helix_kit .claude/agent-database-safety-rules.md (its lead-in, shortened): "execute" opens a list
    ("**NEVER execute these commands:**\n- `rails db:drop`\n", ["rails db:drop", "bundle exec rails db:drop"],
     ["rails db:migrate", "bundle exec rails db:migrate"]),
    # worldcoin/terraform-aws-nlb agents.md: who, then "MUST NOT use:"; the list before it ("MAY use:") stays allowed
    ("- Local / AI suggestions MAY use:\n    - terraform plan\n- Local / AI suggestions MUST NOT use:\n"
     "    - terraform apply\n    - terraform import\n",
     ["terraform apply -auto-approve", "terraform import aws_lb.x arn:x"], ["terraform plan", "terraform init"]),
    # BANCS-Norway/home docs/claude/git-safety.md: a gerund under "### Forbidden Operations"
    ("### Forbidden Operations\n\n- ❌ Skipping git hooks (`--no-verify`)\n", ["git commit --no-verify -m x"],
     ["git commit -m x"]),
    # blueraai/bluera-knowledge CLAUDE.md: "no-" of `--no-verify` is no negation of the bullet; "on Git commits"
    ("## NEVER\n\n* use `--no-verify` on Git commits; this anti-pattern completely circumvents the code protections\n",
     ["git commit --no-verify -m x"], ["git commit -m x", "git push --no-verify"]),
    # bbabkin/nrghax CLAUDE.md: a path from the project root
    ("- `/prisma/migrations/` - Migration history (DO NOT EDIT)\n", ["E:prisma/migrations/1_init/migration.sql"],
     ["E:prisma/schema.prisma"]),
    # find_string hit 1582257068 (a DEPLOYMENT.md's "Important Rules")
    ("1. **ALWAYS edit `/functions/src/index.ts`** - NEVER edit `/functions/lib/index.js`\n", ["E:functions/lib/index.js"],
     ["E:functions/src/index.ts"]),
    # find_string hits 68842375415, 71646257766: "on this project" is every call here
    ("### Never run `docker compose down` on this project\n", ["docker compose down"], ["docker compose up -d"]),
    ("> **IMPORTANT**: Never use `npx wrangler deploy` on this project.\n", ["npx wrangler deploy"], ["npx wrangler dev"]),
    # find_string hits 52704230187, 55739051112: the alternatives in parentheses (only the first was guarded)
    ("All builds must go through the Makefile. **Never run `go build` (or `go install`) directly\n",
     ["go build", "go install ./cmd/x"], ["make build", "go vet ./..."]),
    ("- **Don't run `npm audit` (or `cargo audit`, `pip-audit`, etc.) automatically.** Output is noisy and slow.\n",
     ["npm audit", "cargo audit", "pip-audit"], ["npm test", "cargo test"]),
    # find_string hit 60011657982: a kind said with what it does ends the quoted list
    ("- Agents MUST NOT run `git commit` or `git push` or any command that modifies remote repository history.\n",
     ["git commit -m x", "git push"], ["git add a.py", "git status"]),
    # joernpreuss/mssgpie CLAUDE.md: what the agent never does, said of it
    ("- **IMPORTANT**: Claude NEVER commits - only the user commits\n", ["git commit -m x"], ["git add a.py"]),
    # LionHeartFrank/franknav-portfolio-v2 .agent/workflows/pnpm-only.md
    ("This project uses `pnpm` as its exclusive package manager. `npm` and `yarn` should **never** be used or "
     "suggested.\n", ["npm install", "yarn add react"], ["pnpm install", "pnpm dev"]),
    # find_string hit 53592822125 ("Rule 6: No Privilege Escalation")
    ("NEVER use `sudo`, `su`, `doas` or privilege escalation.\n", ["sudo apt install x", "su -", "doas ls"], ["ls"]),
    # known misses of earlier sweeps
    ("Never use vim, nano, or `crontab -e`\n", ["vim a.txt", "nano a.txt", "crontab -e"], ["crontab -l", "cat a.txt"]),
    ("NEVER force push or use destructive git commands\n", ["git push --force origin x", "git push -f"],
     ["git push origin x"]),
    ("Never commit private keys (*.pem, *.key)\n", ["git add server.pem", "git add certs/tls.key"],
     ["git add server.crt", "git add src/keys.py"]),
    ("NEVER create standalone session docs: `docs/SESSION-*.md`\n", ["W:docs/SESSION-2024-01.md"],
     ["W:docs/guide.md", "E:docs/index.md"]),
    ("Never run git commit/push/pull/merge/rebase\n",
     ["git commit -m x", "git push", "git pull", "git merge dev", "git rebase main"], ["git status", "git log"]),
    # `cd` runs nothing a matcher sees: the folder is where no command runs (listing it from outside is fine)
    ("Do not `cd` into `x`\n", ["cd x && npm test", "cd x/sub && make"], ["ls x", "npm test", "cd y && ls"]),
    # the acts on the branch that have a shape (pushing, committing); switching and merging have none yet
    ("never switch, merge, rebase, push, or commit to main\n", ["git push origin main", "git commit -m x @main"],
     ["git push origin feature/x", "git commit -m x @feature/x"]),
    ("Never merge locally to `main` and force-push\n", ["git push --force origin main"],
     ["git push origin main", "git push --force origin feature/x"]),
    # lucidfrontier45/tinys3cli AGENTS.md, "Strict Policy: No Commits": git's acts said as nouns
    ("**Do not perform any git commits, pushes, or version control actions.** Your responsibility ends at preparing "
     "the code changes.\n", ["git commit -m x", "git push"], ["go test ./...", "git status"]),
    # a second, smaller probe read after the fixes (find_string hit 71557855842): a script named "package" is
    # that script, not "any package" (the guard was on every `npm run`)
    ("  - Never push. Never run `npm run package`. Never set `AGENT_STREAM_LIVE`.\n", ["git push", "npm run package"],
     ["npm run build", "npm run dev"]),
]

# bare lessons, as typed to an agent: (lesson, calls it stops, calls it lets through)
BARE = [
    ("don't push, pull or rebase", ["git push", "git pull", "git rebase main"], ["git commit -m x", "git fetch"]),
    ("never run go test ./...", ["go test ./..."], ["go vet ./...", "go build ./..."]),  # the dots are the argument
    ("never commit .venv/ or __pycache__/", ["git add .venv/x", "git add pkg/__pycache__/a.pyc"], ["git add pkg/a.py"]),
    ("never use --no-verify on commits", ["git commit --no-verify -m x"], ["git commit -m x"]),
    ("never create new .md files", ["W:docs/notes.md"], ["E:README.md", "W:src/x.py"]),
    ("don't run npm run dev/npm run build", ["npm run dev", "npm run build"], ["npm test", "npm run lint"]),
    ("never run rails db:drop", ["rails db:drop", "bundle exec rails db:drop"], ["bundle exec rails db:migrate"]),
    ("never use sudo, su or doas", ["sudo ls", "su -", "doas ls"], ["ls"]),
]

# lines that must give no guard at all
NOTHING = [
    # find_string hit 55458860967: what a repository lacks, no rule
    "No git remote.",
    "time; last commit `342c7c6` (post-4.1 BTC spacing). No git remote. Do not commit unless the user asks.",
    # a heading whose verb has an object is no list of things not to use
    "### Tests that must not use the network\n\n- `pytest tests/unit`",
    # a word of code among quoted names is no tool
    "never use globals, `eval` or `exec`",
    "Do not push, pull, or rebase unless explicitly requested.",  # wesm/agentsview AGENTS.md: an exception
    "never cd into ../other",  # outside the project: no folder of it
    # find_string hit 831017912: a database schema's table, no file
    "- Never modify `auth.users` directly",
    # find_string hit 54913504487: "without flagging it" is a case the check cannot see, as "without asking"
    "- Never modify `docs/PRD.md` or `docs/architecture.md` without flagging it — they are the source",
]


@pytest.mark.parametrize("text, stopped, fine", LINES)
def test_line(text, stopped, fine):
    specs = _line(text)
    assert specs, text
    assert all(_stops(specs, stopped)), (text, stopped)
    assert not any(_stops(specs, fine)), (text, fine)


@pytest.mark.parametrize("lesson, stopped, fine", BARE)
def test_bare_lesson(lesson, stopped, fine):
    specs = list(derive_guards(lesson))
    assert all(_stops(specs, stopped)), (lesson, stopped)
    assert not any(_stops(specs, fine)), (lesson, fine)


@pytest.mark.parametrize("text", NOTHING)
def test_no_guard(text):
    assert _line(text + "\n") == [], text


def test_a_slashed_word_is_a_list_of_commands_not_one():
    # `git commit/push/pull/merge/rebase` was one command that never fires
    assert [s.describe() for s in derive_guards("never run `git commit/push`")] == \
        [s.describe() for s in derive_guards("never run `git commit` or `git push`")]

"""Issue 19, a sweep of real AGENTS.md / CLAUDE.md rule lines (repositories tacit had not seen; each
case names the repository and file): the line as written, with a reason, politely or as a
correction stops what the bare line stops; a line with an exception still derives nothing."""

from __future__ import annotations

import pytest

from tacit.guards import derive_guards
from test_guards_sweep import _check

# how people type the same lesson ({r}: the rule, {l}: the rule lower-cased first)
FORMS = [
    "{r}",
    "{r} — it breaks the release build",
    "{r}, because the release build depends on it",
    "{r} (the lockfile breaks)",
    "{r}; CI does it",
    "{r}. It breaks the release build.",
    "IMPORTANT: {r}",
    "please {l}",
    "{r}, thanks",
    "{r} | breaks the lockfile",
    "{r} / too slow",
    "{r}. Usually breaks CI.",
    "{r}, tell me instead",
    "{r}, it might corrupt the lockfile",  # a hedge in the reason is none of the rule's
    "{r}, because it fails when the cache is cold",
    "Since the release build depends on it, {l}",
    "oh and {l}",
]

# (source, real line, commands or edits it stops, ones it lets through); an edit is "edit:<path>"
STOPS = [
    # i37532/GymLog AGENTS.md: a colon after the verb, the list of commands after it
    ("- NEVER run: `git add`, `git commit`, `git push`, `git reset`, `git rebase`, `git merge`.",
     ["git add -A", "git push origin main", "git rebase main"], ["git status", "git log --oneline"]),
    # mycell6611phone/VOIDE Agents/AGENTS.md: "touch:" with a lead-in before the cue ("IMPORTANT: never touch: …")
    ("> - Never touch: `packages/**/dist/**`, `build/**`, `out/**`.",
     ["edit:build/app.js", "edit:packages/ui/dist/index.js"], ["edit:src/app.ts"]),
    # soohyunme/openclaw-cloud-quickstarter RULES.md: "to any branch" is every push, not a branch named "any";
    # "execute" is "run"
    ("- **NEVER** execute `git push` to any branch.", ["git push origin feature/x", "git push"], ["git status"]),
    # nighlabs/songify CLAUDE.md: a following "If …, do Y instead" sentence is the rule's own, reason or not
    ("- Never force push. If a commit needs fixing, create a new commit instead.",
     ["git push --force origin feat", "git push -f"], ["git push origin feat"]),
    # zing3d-labs/openscad-toolkit CLAUDE.md
    ("- **Never amend commits** (`git commit --amend`). If a fix is needed after a commit, create a new commit.",
     ["git commit --amend -m x"], ["git commit -m x"]),
    # LukeCali-949/defaultnextjsapp AGENTS.md
    ("- **Use pnpm only.** Never run `npm install`, `npm i`, `npx`, or `yarn`.", ["npm install", "npx tsc"],
     ["pnpm install"]),
    # jfi/dotfiles claude/CLAUDE.md: "things" pushed is any push
    ("- Don't push things to main branches - create PRs.", ["git push origin main"], ["git push origin feat/x"]),
    # nazt/weyermann-malt-productpage CLAUDE_safety.md
    ("-   Never use `git clean -f`.", ["git clean -f"], ["git clean -n"]),
    # KotaHusky/Homepage CLAUDE.md: `DROP TABLE` in the list is a SQL statement, not a program named DROP
    ("- **NEVER** run: `rm -rf`, `git push --force`, `git reset --hard`, `DROP TABLE`",
     ["rm -rf build", "git push --force", "git reset --hard HEAD~1", "psql -c 'DROP TABLE users'"],
     ["git push", "psql -c 'SELECT 1'"]),
    # LukeCali-949/defaultnextjsapp AGENTS.md: "a `x` or `y` file" after "create or commit"
    ("- Do **not** create or commit a `package-lock.json` or `yarn.lock` file.",
     ["git add package-lock.json", "git add yarn.lock", "edit:yarn.lock"], ["git add src/a.ts", "edit:src/a.ts"]),
    # bannoscakes/bannoscakes-ordak-ui CLAUDE.md: "dev" is a branch every git-flow project has, like "develop"
    ("- Never commit directly to dev", [], []),
    ("5. Never push directly to `dev` or `main`", ["git push origin dev", "git push origin main"],
     ["git push origin feat/x"]),
    # Pyrothiefprojects/sceneforge CLAUDE.md: "to git" is where every commit and push goes
    ("- NEVER commit or push to git — the user handles all git operations themselves",
     ["git commit -m x", "git push origin feat/x"], ["git status"]),
]


# (source, real line, commands it stops, commands it lets through): a label before the rule
LABELLED = [
    # pyrex41/dt_video CLAUDE.md: after "CRITICAL:" the rule read as a reason ("This project …" opens one)
    ("**CRITICAL: This project uses `pnpm`, NOT `npm`.**", ["npm install"], ["pnpm install"]),
    # daidr/minecraft-skin-renderer claude.md: "for all commands" narrows nothing
    ("- Use `bun` instead of `npm` for all commands", ["npm run build"], ["bun run build"]),
]


@pytest.mark.parametrize("label", ["{r}", "IMPORTANT: {r}", "Note: {r}", "- **Important:** {r}"])
@pytest.mark.parametrize("line,stops,passes", LABELLED)
def test_a_label_before_a_real_rule_line_changes_nothing(line, stops, passes, label):
    rule = line.lstrip("- ").strip("*").replace("CRITICAL: ", "")
    specs = derive_guards(label.format(r=rule))
    assert specs and all(_check(specs, command=c) for c in stops)
    assert not any(_check(specs, command=c) for c in passes)
    assert {repr(s.match) for s in specs} == {repr(s.match) for s in derive_guards(line)}


def _stops(specs, act: str) -> bool:
    return _check(specs, edit=act[5:]) if act.startswith("edit:") else _check(specs, command=act)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("line,stops,passes", STOPS)
def test_a_real_rule_line_stops_the_same_however_it_is_typed(line, stops, passes, form):
    rule = line.lstrip("> -0123456789.").strip().rstrip(".")
    specs = derive_guards(form.format(r=rule, l=rule[:1].lower() + rule[1:]))
    assert {repr(s.match) for s in specs} == {repr(s.match) for s in derive_guards(line)}
    assert all(_stops(specs, act) for act in stops)
    assert not any(_stops(specs, act) for act in passes)


@pytest.mark.parametrize("text,stops,passes", [
    # the lesson typed after the mycell6611phone/VOIDE line: no backticks, the globs stay globs
    ("never touch packages/**/dist/**, build/**, out/**", ["edit:packages/ui/dist/a.js", "edit:out/x"],
     ["edit:packages/ui/src/a.ts"]),
    ("never touch: packages/**/dist/**, build/**, out/**", ["edit:packages/ui/dist/a.js"], ["edit:src/a.ts"]),
    # said as a correction: "no, don't …", "I told you not to …", "stop force pushing"
    ("no, don't touch: `build/**`, `out/**`", ["edit:build/a.js"], ["edit:src/a.ts"]),
    ("I told you not to touch: `build/**`, `out/**`", ["edit:out/a.js"], ["edit:src/a.ts"]),
    ("stop force pushing — this can destroy commit history", ["git push --force"], ["git push"]),
    ("never push directly to dev or main", ["git push origin dev"], ["git push origin feat/x"]),
    # jeanschmidt/pytorch-cloud CLAUDE.md: "even if" without a comma is no exception; suggesting is no act
    ("4. **NEVER use terraform** even if explicitly asked", ["terraform apply"], ["tofu apply"]),
    ("1. **NEVER run or suggest `terraform` commands**", ["terraform plan"], ["tofu plan"]),
    ("never commit a .env file", ["git add .env"], ["git add .env.example"]),
    ("never use npm / yarn", ["npm install", "yarn add x"], ["pnpm install"]),  # a slash between tools: a list
    # the i37532/GymLog line typed without backticks or a last "or": every item is a git command
    ("never run git add, git commit, git push, git reset, git rebase, git merge",
     ["git add -A", "git merge main", "git push"], ["git status"]),
    # the nighlabs/songify and BernardinD/PhotoWordFind rules said as a correction: the harm, then "don't"
    ("force pushing to main breaks CI. just don't.", ["git push --force origin main"], ["git push origin main"]),
    ("committing `lib/apiSecretKeys.dart` leaks secrets. never do it.", ["git add lib/apiSecretKeys.dart"],
     ["git add lib/main.dart"]),
    ("running `npm install` is a no-go", ["npm install"], ["pnpm install"]),
    # hayyaun/tg-bots AI_CONTEXT.md: "etc." after the commands named in the aside
    ("DO NOT run database migrations (`prisma migrate dev`, etc.)", ["npx prisma migrate dev"], ["npx prisma generate"]),
])
def test_typed_and_said_forms_of_the_real_lines(text, stops, passes):
    specs = derive_guards(text)
    assert specs and all(_stops(specs, act) for act in stops)
    assert not any(_stops(specs, act) for act in passes)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("line", [
    # papay0/appily-web CLAUDE.md
    "- Never `git push` unless I tell you to do it",
    # deviantintegral/har AGENTS.md
    "1. Never use `git commit --no-verify` unless asked for directly by the user.",
    # soltana-tech/.github .claude/rules/git.md
    "- Never force push unless explicitly asked",
    # the nighlabs/songify line with a way to do it anyway: the "if" is an exception again
    "Never force push. If you must, do it with --force-with-lease",
    "NEVER run: `make deploy` unless I ask",
    # a label before a rule with an exception: still vetoed
    "IMPORTANT: This project uses `pnpm`, not `npm`, unless CI asks for npm",
])
def test_an_exception_still_vetoes_with_a_reason_or_politeness(line, form):
    rule = line.lstrip("> -0123456789.").strip().rstrip(".")
    assert derive_guards(form.format(r=rule, l=rule[:1].lower() + rule[1:])) == ()


@pytest.mark.parametrize("line", [
    "Never push to any other branch.",  # "other" than which: no branch named, no push stopped
    "Never commit to any branch.",  # a commit to every branch is no branch rule (and no branch named "any")
    "Don't add a `.env` file",  # "add a file" is making one, not staging it
    "Never run: tests in watch mode",
    "Never run `pnpm test`. Usually it's fine to skip it.",  # a sentence that lets it, not a harm
    "Never run `pnpm test`, unless I ask, tell me instead",
    "running `make deploy` breaks prod unless CI is green. don't.",  # the exception in the harm still vetoes
    "the release build breaks. don't.",  # no act named
    "never touch `build/**`, it's usually fine to skip though",  # a reason that lets it keeps the hedge
    "Never touch `build/**`, might be ok",
    "never run `DROP TABLE users`",  # no program named DROP (and no SQL shape with a table name yet)
])
def test_no_guard_from_what_names_no_exact_act(line):
    assert all("'any'" not in repr(s.match) for s in derive_guards(line))
    assert derive_guards(line) == ()

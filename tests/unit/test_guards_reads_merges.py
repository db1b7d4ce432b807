"""Two kinds of real rule no guard could hold (issue 19): reading a secret file ("never read `.env`",
"never open .env", "never cat .env.local") and merging into a branch ("never merge into main").
Each line is quoted from a public instruction file: the find_string hit names it when the index named
no repository. Calls run through the public API: rules_in / derive_guards, then GuardSet.check of
normalize_call, in each host's own tool names."""

from __future__ import annotations

import json

import pytest

from guard_helpers import Session, engine_for, git_repo, remember
from tacit.boundary import WITHHELD_REASON
from tacit.guards import Guard, GuardSet, derive_guards, normalize_call, reason
from tacit.guards.instructions import rules_in

ROOT = "/repo"


def _call(call: str, host_read: tuple = ("Read", "file_path")):
    """``cmd`` (Bash), ``cmd @branch`` (Bash on that branch), ``R:path`` (the host's read tool),
    ``E:path`` (Edit)."""
    if call[:2] in ("R:", "E:"):
        tool, key = host_read if call[0] == "R" else ("Edit", "file_path")
        return normalize_call(tool, {key: f"{ROOT}/{call[2:]}"}, ROOT, project_root=ROOT)
    command, _, branch = call.partition(" @")
    return normalize_call("Bash", {"command": command}, ROOT, project_root=ROOT, branch=branch or None)


def _stops(specs, calls, host_read: tuple = ("Read", "file_path")) -> list[bool]:
    guards = GuardSet([Guard(spec, id=i, scope="project", project_root=ROOT) for i, spec in enumerate(specs)])
    return [bool(guards.check(_call(c, host_read))) for c in calls]


def _line(text: str) -> list:
    return [rule.spec for rule in rules_in(text, "AGENTS.md")]


# (file text, calls it stops, calls it lets through)
READS = [
    # find_string hit 71640632466 (a subagent brief's rules)
    ("Never git commit or push (the orchestrator integrates). Never read .env.\n",
     ["R:.env", "cat .env", "R:apps/api/.env.local", "grep KEY .env", "source .env", "cp .env /tmp/x", "wc -l < .env"],
     ["R:.env.example", "cat .env.example", "R:src/app.py", "echo A=1 >> .env.example", "E:src/app.py"]),
    # find_string hits 55937500817, 35317629261, 69485768147: the files named, beside a kind the check cannot tell
    ("- Do not read .env files or secrets.\n", ["R:.env", "cat .env.local"], ["R:.env.example", "R:src/secrets.py"]),
    ("   - NEVER read .env files or files likely containing secrets\n", ["R:.env"], ["R:.env.sample"]),
    ("- Never read `.env` files or secret values; the public repos hold none.\n", ["R:.env"], ["R:README.md"]),
    # a second probe, read after the first fixes: find_string hits 68653077896, 63459380801 (the files named
    # among kinds of secret), 61742427131, 55511270651, 53582940191, 68728146087 ("into context": every read's)
    ("- Read `AGENTS.md`. Do not read `.env`, saved authentication files, or environment values.\n", ["R:.env"],
     ["R:AGENTS.md"]),
    ("- Do not read `.env` files, credential stores, or private keys.\n", ["R:.env"], ["R:src/a.py"]),
    ("- **Restricted Actions**: DO NOT read `.env` files or `.ssh` directory.\n", ["R:.env", "R:.ssh/id_rsa"],
     ["R:lib/main.dart"]),
    ("- Do not read `.env`.\n", ["R:.env", "cat .env"], ["R:.env.example"]),
    ("Do not edit anything in `infra/`. Do not edit `.github/workflows/`. Do not read `.env` files. Do not commit "
     "secrets. Do not push to `main` directly.\n", ["R:.env", "E:infra/main.tf", "git push origin main"],
     ["R:infra/main.tf"]),
    ("Never cat `.env` into context (it prints secrets). Use a script that reports only\n", ["cat .env", "R:.env"],
     ["source .env"]),
    # find_string hit 52603546311 ("ERROR FIXES" prompt): the rule, then the ways it is broken
    ("- STRICT RULE: NEVER read .env files. No cat on .env, no readFiles on .env, no grep on .env.\n",
     ["R:.env", "cat .env", "grep API_KEY .env", "rg -n KEY .env.local"], ["R:.env.example", "grep -r foo src"]),
    # find_string hit 53847198126 (.claude/commands plan): the template stays readable
    ("Never read .env. For env-dependent phases, inspect .env.example for required keys and the code/scripts "
     "that populate or consume them.\n", ["R:.env", "head -5 .env", "tail .env"],
     ["R:.env.example", "cat .env.example", "cat scripts/setup.sh"]),
    # find_string hit 56293414213 (a plan's rules)
    ("- Conventional commits, NO Co-Authored-By trailer. Env var names only, never values; don't Read .env.\n",
     ["R:.env", "less .env"], ["R:.env.example", "R:server/vendor/vendorResolve.ts"]),
    # find_string hit 54063125462 ("## Environment Notes")
    ("- Never read `.env` files — reference `environment.yaml` for variable documentation\n",
     ["R:.env", "cat .env", "bat .env.production"], ["R:environment.yaml", "cat environment.yaml"]),
    # find_string hit 2284697027 ("## Security Rules")
    ("- **Never read `.env` contents** — reference file paths only, never inline token values\n",
     ["R:.env", "more .env"], ["ls -la", "R:src/config.py"]),
    # find_string hits 70882212766, 57967858699: "open"
    ("Never open .env. Follow CLAUDE.md.\n", ["R:.env", "less .env", "vim .env"], ["R:CLAUDE.md", "cat CLAUDE.md"]),
    ("NEVER open .env. Never run the harness against the live box.\n", ["R:.env", "cat .env"], ["R:agent.py"]),
    # find_string hit 62587601401: "Use .env.example only" is the allowed file
    ("- Do not include secrets. Never open .env. Use .env.example only.\n", ["R:.env", "cat .env"],
     ["R:.env.example", "cat .env.example"]),
    # find_string hit 71428333625
    ("Read only `AGENTS.md` (for venv/conventions). Own ONLY `exam_app/**` and `exam/**`. Never open .env; no git.\n",
     ["R:.env"], ["R:AGENTS.md", "R:exam_app/server.py"]),
    # find_string hit 45297907908: cat is the display; sourcing it loads the values and shows nothing
    ("  - **Never cat .env:** Use `source .env` internally, never display contents\n", ["cat .env", "R:.env"],
     ["source .env", ". ./.env", "./check_env.sh"]),
    # find_string hit 67136689426 (a run log's "Brief addition")
    ("Brief addition for next spawn: never cat .env.local (w8-02 agent leaked DB creds into its transcript; consider "
     "rotating the Neon password).\n", ["cat .env.local", "R:.env.local"], ["cat .env.example", "R:.env.example"]),
    # find_string hit 68362704261: the rule's own glob covers every .env file
    ("Never enter a password anywhere; never read .env* or .mcp.json.\n",
     ["R:.env", "R:.env.production", "R:.mcp.json", "cat .mcp.json", "jq . .mcp.json"], ["R:package.json"]),
]

MERGES = [
    # find_string hit 53854012238 (quoting a CLAUDE.md's rule 7)
    ("Never push to main, never merge to main. Only the user merges to main manually after QA\n",
     ["git push origin main", "git merge develop @main", "gh pr merge 12 --squash",
      "git checkout main && git merge develop @develop"],
     ["git merge main @develop", "git push origin develop", "git merge develop @"]),
    # find_string hit 71370110408 (a status file's header)
    ("> Branch: V12_UiUx_ClickUp — NEVER merge to main.\n",
     ["git merge V12_UiUx_ClickUp @main", "git checkout main && git merge V12_UiUx_ClickUp @V12_UiUx_ClickUp",
      "git switch main; git merge --no-ff x @x"],
     ["git merge main @V12_UiUx_ClickUp", "git pull @V12_UiUx_ClickUp", "git merge --abort @main",
      "git checkout main @x", "git merge-base main HEAD @main"]),
    # find_string hit 56495835428 ("**Hard rules:**")
    ("- Never merge to main. Only the human merges.\n", ["git merge x @main", "gh pr merge 3 --squash"],
     ["gh pr create --base main", "git merge main @x", "gh pr view 3"]),
    # find_string hit 8923927118: a heading, its items the allowed acts
    ("### Agents NEVER Merge to Main\n- ✅ Agents work on feature branches\n- ✅ Agents push branches to GitHub\n",
     ["git merge x @main"], ["git push origin feature/x", "git merge main @feature/x"]),
    # find_string hits 68404796883, 61255515888
    ("- Do not modify another agent's worktree.\n- Do not merge into main.\n",
     ["git merge feat @main", "git switch main && git merge feat @feat"], ["git merge main @feat", "git merge feat @dev"]),
    ("Report branch, commit hash, validation, and remote tracking status. Do not merge into main.\n",
     ["git merge x @main"], ["git merge main @x"]),
    # find_string hit 68974066728
    ("- Extend tools, never fork; INDEX row + twin for any new option. Do NOT merge into main; do NOT write RULINGS.\n",
     ["git merge x @main"], ["git merge main @x"]),
    # find_string hit 71141816358 ("SURGICAL RULE")
    ("Do not merge into main or push main. Change nothing else.\n", ["git merge x @main", "git push origin main"],
     ["git push origin x", "git merge main @x"]),
    # find_string hit 56225731760 ("## Git Workflow"): every merge the agent makes is automatic
    ("Never merge into main automatically.\n", ["git merge x @main"], ["git merge main @x"]),
    # find_string hit 70451943875
    ("- Never edit, stage or commit in either main tree; never merge into main. Work only where your job says.\n",
     ["git merge x @main"], ["git merge main @x"]),
    # find_string hit 22228059410 (a Copilot agent prompt): both names
    ("Hard rules:\n- NEVER merge into main/master.\n", ["git merge x @main", "git merge x @master"],
     ["git merge main @x", "git merge master @x"]),
    # find_string hit 70237706120
    ("  - never merge into main, never push, never commit `.meta` files.\n",
     ["git merge box/a @main", "git push", "git add Assets/x.meta"], ["git merge main @box/a", "git add Assets/x.cs"]),
    # find_string hit 59519321629 (a session brief)
    ("Never merge into main yourself.\n", ["git merge x @main", "gh pr merge 4"], ["git merge main @x"]),
    # find_string hit 71539006580 (a handoff)
    ("Read this first when resuming. Branch `claude/serene-sagan-2qgi8e`. Never merge into main,\n"
     "never open a pull request. Commit and push after every step.\n",
     ["git merge claude/serene-sagan-2qgi8e @main", "gh pr create"],
     ["git push origin claude/serene-sagan-2qgi8e", "git merge main @claude/serene-sagan-2qgi8e"]),
    # the second probe: find_string hits 71218934893, 70093185193 (the agent's own branch)
    ("   `origin/main`, never from another `claude/*` branch. Never merge into `main`. Open no\n",
     ["git merge claude/x @main"], ["git merge main @claude/x"]),
    ("- Branch `plan-29-admin-errors` from that base. Never push; never merge into `main` (the owner merges).\n",
     ["git push", "git merge plan-29-admin-errors @main"], ["git merge main @plan-29-admin-errors"]),
    # find_string hits 70998521080, 67264364020, 57987607765, 53853541150, 56775410680: a PR merge, any branch
    ("- Never merge PRs (user only)\n", ["gh pr merge 5"], ["gh pr create", "git merge main @x"]),
    ("- NEVER merge PRs - merging is the user's responsibility\n", ["gh pr merge 5 --squash"], ["gh pr create"]),
    ("1. **Never merge PRs** — report merge-ready only (universal Rule 0).\n", ["gh pr merge 5"], ["gh pr checks 5"]),
    ("- **NEVER merge PRs.** Only humans merge PRs. Stop at \"PR is ready for merge\".\n", ["gh pr merge 5"],
     ["gh pr view 5"]),
    ("- Never merge PRs (the user merges).\n", ["gh pr merge 5 --auto"], ["gh pr create"]),
]

# bare lessons, as typed to an agent
BARE = [
    ("Never read or modify files in `secrets/`", ["R:secrets/a.json", "E:secrets/a.json"], ["R:src/a.py"]),
    ("never print the contents of `.env`", ["cat .env"], ["source .env"]),
    ("don't merge PRs into main", ["git merge x @main", "gh pr merge 2"], ["git merge main @x"]),
    ("Never read or edit .env files", ["R:.env", "E:.env", "cat .env", "R:config/.env.local", "cat *.env"],
     ["R:.env.example", "R:.env.sample", "cat .env.example"]),
    ("don't read `.env`", ["R:.env", "sed -n 1p .env", "awk 1 .env", "cat < .env", "diff .env.example .env",
                           "grep -n -A 2 KEY .env", "rg -e KEY -e X .env", "export $(grep -v '^#' .env | xargs)",
                           "cat .env*", "head config/.e?v"],
     ["R:.env.example", "E:.env", "cp .env.example .env", "cat .env.example > .env", "cat > .env <<'EOF'\nA=1\nEOF",
      "grep -rn '.env' src", "rg -g '!.env' KEY", "ls -la .env", "test -f .env", "echo .env >> .gitignore",
      "sed -i 's/a/b/' .env", "git add .env.example", "R:src", "cat *", "cat *.example", "cat src/*.py"]),
    ("do not open secrets/*", ["R:secrets/prod.json", "cat secrets/a.key"], ["R:src/secrets.py", "ls secrets"]),
    ("never look at `credentials.json`", ["R:credentials.json", "jq . credentials.json", "R:config/credentials.json"],
     ["R:package.json", "ls"]),
    ("never print .env", ["cat .env"], ["source .env", "cat .env.example"]),
    ("never merge to main", ["git merge x @main", "gh pr merge 7", "git merge -m msg --no-ff x @main"],
     ["git merge main @x", "git merge --ff-only origin/main @main", "git merge @main", "git merge @{u} @main",
      "gh pr merge --help", "git -C ../other merge x @main", "git log --merges @main"]),
    ("don't merge into `main`", ["git merge x @main"], ["git merge main @x"]),
    # "locally": a merge on this machine; a PR merge is not one
    ("never merge locally to main", ["git merge x @main"], ["gh pr merge 7", "git merge main @x"]),
    ("never merge to `main` or `release/*`", ["git merge x @release/1.2", "git merge x @main"], ["git merge x @dev"]),
    # acts listed with reading or merging: each its own guard
    ("never read, edit or commit `.env`", ["R:.env", "E:.env", "git add .env"], ["R:.env.example", "git add a.py"]),
    ("never switch, merge, rebase, push, or commit to main", ["git merge x @main", "git push origin main"],
     ["git merge main @x", "git switch main"]),
    ("never push or merge to main", ["git merge x @main", "git push origin main"], ["git merge main @x"]),
    ("never merge into develop", ["git merge x @develop"], ["gh pr merge 7", "git merge develop @x"]),
]

# what only edits: reading stays allowed
EDIT_ONLY = [
    ("Never edit .env files", ["E:.env"], ["R:.env", "cat .env"]),
    ("never touch .env", ["E:.env"], ["R:.env", "cat .env"]),
]

# lines that must give no guard of these kinds
NOTHING = [
    # what is read is no file, or not named
    "never print `console.log`",
    "Never display `user.password`",
    "never read secrets or keys",
    "never open `index.html` in a browser",
    "don't open a PR without tests",
    "never read the whole file",
    # find_string hit 68945251355: the rule allows what a guard of the file would stop (bash grep)
    "3. NEVER open .env with Read/file tools — bash grep/cut only.",
    # find_string hits 63158768732, 70701228902: what code does, not the agent
    "- **Config access:** Always via `config_loader.get_config()`; never read `.env` or `api_config.json` directly "
    "in step files.",
    "There are no network calls and no keys. Settings never read `.env`.",
    # a rule about one branch said of it, not every merge into main (find_string hits 47855500048,
    # 55846306108, 59218679998): no guard rather than one that stops merging other work
    "- Optional `solutions`: aggregate branch for all solutions; never merge into `main`.",
    "- **`automation-state`** — Orphan branch. State data only (`state-data/{account}/album-{album_id}/`). "
    "Automated commits from workflow runs; never merge into `main`.",
    "**Local workspace:** `d:\\GHL_Montfort` on branch **`local-root`** (app under `ghl-react/`) — never merge into `main`",
    # code, not the agent (find_string hits 71567306606, 61471698768: what goes into artifacts)
    "These commands do not read `.env`\nautomatically; Docker Compose does.",
    "| Secret leakage into evidence | Privacy checklist; redact env dumps; never cat `.env` into artifacts |",
    # exceptions (find_string hits 68804461958, 57729380558, 59778283778, 65899501343, 69119425204, 13437118525)
    "> Rule: read before work, update after work. Never merge to main/master until tested and explicitly approved.",
    "- Never merge to main without a passing pipeline",
    "Do not merge to main until the user explicitly asks.",
    "- `main` — clean until v1.0, do not merge to main without explicit instruction",
    "Never merge into main without explicit user approval after preview review.",
    "- **Rules:** NEVER merge PRs without user approval (zero exceptions)",
]


def _kinds(specs) -> set:
    return {s.kind for s in specs}


@pytest.mark.parametrize("text, stopped, fine", READS + MERGES)
def test_line(text, stopped, fine):
    specs = _line(text)
    assert specs, text
    assert all(_stops(specs, stopped)), (text, list(zip(stopped, _stops(specs, stopped))))
    assert not any(_stops(specs, fine)), (text, list(zip(fine, _stops(specs, fine))))


@pytest.mark.parametrize("lesson, stopped, fine", BARE + EDIT_ONLY)
def test_bare_lesson(lesson, stopped, fine):
    specs = list(derive_guards(lesson))
    assert all(_stops(specs, stopped)), (lesson, list(zip(stopped, _stops(specs, stopped))))
    assert not any(_stops(specs, fine)), (lesson, list(zip(fine, _stops(specs, fine))))


@pytest.mark.parametrize("text", NOTHING)
def test_no_guard(text):
    specs = _line(text + "\n") + list(derive_guards(text))
    assert not _kinds(specs) & {"path_read", "git_merge"} and not any(_stops(specs, ["R:.env", "git merge x @main"])), \
        (text, [s.describe() for s in specs])


@pytest.mark.parametrize("host_read", [("Read", "file_path"), ("read", "path"), ("read_file", "path"),
                                       ("Grep", "path"), ("search_files", "path")])
def test_each_hosts_read_tool(host_read):
    # Claude Code Read/Grep, pi read, Hermes read_file/search_files (Codex reads through its shell)
    specs = list(derive_guards("never read `.env`"))
    assert _stops(specs, ["R:.env", "R:.env.example", "R:src"], host_read) == [True, False, False]


def test_codex_shell_read_is_stopped():
    specs = list(derive_guards("never read `.env`"))
    guards = GuardSet([Guard(s, id=0, scope="project", project_root=ROOT) for s in specs])
    call = normalize_call("exec_command", {"cmd": ["bash", "-lc", "cat .env | head"]}, ROOT, project_root=ROOT)
    assert [h.subject for h in guards.check(call)] == ["cat .env"]


def test_guard_round_trips_and_says_what_it_stops():
    [read] = derive_guards("never read `.env`")
    [merge] = derive_guards("never merge to main")
    assert (read.kind, read.describe()) == ("path_read", "reading .env")
    assert (merge.kind, merge.describe()) == ("git_merge", "git merge into main")
    for spec in (read, merge):
        assert type(spec).from_dict(json.loads(json.dumps(spec.to_dict()))) == spec


def test_the_reason_names_the_read():
    [spec] = derive_guards("never read `.env`")
    guards = GuardSet([Guard(spec, id=4, scope="project", project_root=ROOT)])
    [tool] = guards.check(_call("R:apps/.env.local"))
    [shell] = guards.check(_call("cat .env | head"))
    assert reason(tool).startswith('tacit: reading `apps/.env.local` goes against this project\'s rule "never read')
    assert reason(shell).startswith("tacit: `cat .env` goes against")


def test_guard_test_cli_stops_a_read(cfg, run, web):
    remember(cfg, web, "never read `.env`, it holds the keys")
    code, out, _ = run("guard", "test", "cat .env", "--json")
    data = json.loads(out)
    assert code == 0 and data["fires"] is True and data["guards"][0]["kind"] == "path_read"
    code, out, _ = run("guard", "test", "cat .env.example", "--json")
    assert json.loads(out)["fires"] is False
    code, out, _ = run("guard", "test", "--read", "config/.env.local", "--json")
    [hit] = json.loads(out)["guards"]
    assert code == 0 and hit["subject"] == "config/.env.local" and hit["reason"].startswith("tacit: reading `config")
    code, out, _ = run("guard", "test", "--read", ".env", "--edit", ".env", "--json")
    assert code == 1 and "one of them" in json.loads(out)["error"]


@pytest.mark.parametrize("host, tool, key", [("claude-code", "Read", "file_path"), ("pi", "read", "path"),
                                             ("hermes", "read_file", "path"), ("codex", "Bash", None)])
def test_each_host_is_stopped_before_the_read_runs(cfg, tmp_path, host, tool, key):
    # the engine on the host's own tool call (Codex reads through its shell), with the lesson saved in memory
    web = git_repo(tmp_path / "web")
    remember(cfg, web, "never read `.env`, it holds the production keys")
    engine = engine_for(cfg, host)
    try:
        session = Session(engine, web, sid=host, host=host)
        read = (lambda p: session.call(name=tool, args={key: str(web / p)})) if key else \
            (lambda p: session.call(f"cat {p}"))
        stopped, fine = read(".env"), read(".env.example")
        assert stopped.ask or stopped.block
        # a reason naming `cat .env` fails the context gate (an exfiltration pattern): the call is still stopped
        assert "never read `.env`" in stopped.reason if key else stopped.reason == WITHHELD_REASON
        assert not fine.ask and not fine.block
    finally:
        engine.close()


def test_guard_add_read_pattern_by_hand(run):
    code, out, _ = run("guard", "add", "read:.env, secrets/", "--because", "the keys live there", "--scope", "global",
                       "--json")
    assert code == 0 and json.loads(out)["guard"]["kind"] == "path_read"
    code, out, _ = run("guard", "test", "cat secrets/prod.json", "--json")
    assert code == 0 and json.loads(out)["fires"] is True
    code, out, _ = run("guard", "test", "--edit", ".env", "--json")
    assert json.loads(out)["fires"] is False  # a read guard leaves changing the file to edit rules

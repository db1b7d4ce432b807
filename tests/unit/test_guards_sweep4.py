"""Readings from a fourth sweep of real instruction files tacit had not seen, of the kinds other than
AGENTS.md and CLAUDE.md (.cursorrules, .cursor/rules/*.mdc, .windsurfrules, .clinerules, GEMINI.md,
CONVENTIONS.md, CLAUDE.local.md, .github/copilot-instructions.md and .github/instructions/*.md); each
case names the repository and file it comes from."""

from __future__ import annotations

import pytest

from tacit.guards.instructions import rules_in
from tacit.guards.spans import span_specs
from test_guards_sweep import _check


def _specs(text: str) -> list:
    return [r.spec for r in rules_in(text)]


# (file text, commands it stops, commands it lets through)
STOPS = [
    # lassestilvang/todo-swe-1-5 .windsurf/rules/package-manager.md, under "**Commands to use:**": no verb, two to stop
    ("- `bun install` instead of `npm install` or `yarn install`\n",
     ["npm install", "yarn install"], ["bun install", "npm view react", "yarn --version"]),
    ("- `bun test` instead of `npm test` or `yarn test`\n", ["npm test", "yarn test"], ["bun test", "npm ci"]),
    ("- `bun add <package>` instead of `npm install <package>` or `yarn add <package>`\n",
     ["npm install react", "yarn add react"], ["bun add react"]),
    # hiromaily/docs-ssot .cursor/rules/git.mdc: the flag said before the verb
    ("- **Do not use `--force` push to `main` or `master`** under any circumstances.\n",
     ["git push --force origin main", "git push -f origin master"], ["git push origin main", "git push --force origin x"]),
    # 7ringuy4n/hermes-stack .cursor/rules/git.mdc: what is pushed, said between the verb and the branch
    ("- **Never** `git push` new commits directly to `main`.\n", ["git push origin main"], ["git push origin feature/x"]),
    ("Never push your changes to `main`.", ["git push origin main"], ["git push origin dev"]),
    # Abhinand20/agentFlow .cursor/rules/git-workflow.mdc: the branch named with no "to"
    ("6. **Merge** — user merges after review; do not force-push `main`.\n",
     ["git push --force origin main"], ["git push origin main", "git push --force origin feature/x"]),
    ("Never force-push main or develop.", ["git push -f origin develop"], ["git push -f origin x"]),
    # CyrusNajmabadi/Fabrica .cursor/rules/git-workflow.mdc: "even" before the verb
    ("- Do not even attempt `git push origin master` — it will be rejected and wastes time.\n",
     ["git push origin master"], ["git push origin feature/x"]),
    # DvirBaumel8/servers_poker .cursor/rules/environment-config.mdc: a fronted object's rule in parentheses,
    # a list of names on the lines below; it stopped every commit
    ("**Secrets** (never commit, use env vars or secret manager):\n- JWT_SECRET\n", [], ["git commit -m x"]),
    ("- `.env` — never commit, use `.env.example`\n", ["git add .env"], ["git add .env.example"]),
    # blendsdk/fluentui-mcp .clinerules/agents.md, a list after "Never use:"
    ("- ❌ Never use: `npm install`, `npm run`, `npx`\n- ✅ Always use: `yarn install`, `yarn run`, `yarn`\n",
     ["npm install", "npm run build", "npx tsc"], ["yarn install", "npm view react"]),
    # Code-Munkiz/ham .cursor/rules/ham-direct-main-workflow.mdc: the quoted paths of "Never stage:"
    ("4. **Never stage**: `.cursor/settings.json`, `desktop/live-smoke/`, repomix outputs, build artifacts.\n",
     ["git add .cursor/settings.json", "git add desktop/live-smoke/a.png"], ["git add src/a.py"]),
    ("Never run: `make deploy`", ["make deploy"], ["make test"]),
    # lines that still guard beside the readings above
    ('Never run "make deploy".', ["make deploy"], ["make test"]),  # a command in quotes stays one
    ('Never run "git reset --hard" here.', ["git reset --hard HEAD~1"], ["git reset --soft HEAD~1"]),
    ("There are no exceptions: never run `npm publish`.", ["npm publish"], ["npm pack"]),  # a rule beside the fact
    ("Use `./run.sh`, not `./build.sh`.", ["./build.sh"], ["./run.sh"]),  # a script over another stays one
    ("use `make test`, not `./scripts/test.sh`", ["./scripts/test.sh"], ["make test"]),
    ("No python, use uv.", ["python x.py"], ["uv run x.py"]),  # a program in lower case is the program
    ("Docker: never run `docker system prune`.", ["docker system prune -af"], ["docker ps"]),  # a tool, no file
    ("NEVER run `pnpm dev` directly", ["pnpm dev"], ["pnpm build"]),  # a word after the span that leaves it whole
    # TransitOPS/gtfs-planner .clinerules/git.md: "..." stands for any argument
    ('Never use `git commit -m "..."`.', ["git commit -m 'fix: x'"], ["git commit -F msg.txt"]),
    ("Never run `npm install …` here.", ["npm install left-pad"], ["npm ci"]),
]


@pytest.mark.parametrize("text, stopped, fine", STOPS)
def test_stops(text, stopped, fine):
    specs = _specs(text)
    assert all(_check(specs, c) for c in stopped)
    assert not any(_check(specs, c) for c in fine)


# lines that must give no guard at all
@pytest.mark.parametrize("rule", [
    # higherorderfunctor/nix-agentic-tools .github/instructions/kiro-wrapper.instructions.md: a phrase in quotes
    'Two different rules, for two different reasons — do not "make them consistent":',
    'Do not "fix it" by hand.',
    # same repository, kiro-wrapper.instructions.md: what a sandbox lacks, not a rule
    "- The FHS `/usr/bin` holds **exactly 233 entries** — coreutils, shadow, and the three `kiro-cli*` binaries. "
    "There is **no `node`, no `python3`, no `perl`.**",
    "There are no `npm` scripts here, only a Makefile.",
    # same repository, overlays.instructions.md: code over a file, no command over a script
    "- `vu = import ../lib.nix` (one level up), not `./lib.nix`.",
    # justincranford/cryptoutil 04-01.deployment.instructions.md: the language, the files written in it
    "4. **No Python under cicd_lint**: `internal/apps-tools/cicd_lint/` is pure Go. No Python scripts, modules, or helpers.",
    "NO Python under `internal/apps-tools/cicd_lint/`: The `cicd_lint` tool is pure Go.",
    # hiromaily/docs-ssot .cursor/rules/go.mdc: code, not commands
    "- `any` instead of `interface{}`",
    "- `t.Context()` in tests instead of `context.Background()`",
    "Never use: `any`, `unknown`",  # code names after the colon
    # justincranford/cryptoutil 04-01.deployment.instructions.md: what a Dockerfile says, and a kind of healthcheck
    "- Dockerfile HEALTHCHECK: Use built-in PS-ID `livez` CLI targeting admin port 9090 (NEVER the `health` CLI on "
    "public port 8080, NEVER wget/curl)",
    "- **Distroless images** (e.g. `otel/opentelemetry-collector-contrib`): NEVER use `wget`/`curl` healthchecks — set "
    "`disable: true` and use a sidecar Alpine container with wget for readiness signaling",
    "Makefile: never call `npm` directly, use `pnpm`.",
])
def test_nothing(rule):
    assert _specs(rule) == []


def test_the_refused_span_reading_stops_before_the_way_to_do_it():
    specs = span_specs("never call `npm` directly, use `pnpm`.")
    assert _check(specs, "npm install")
    assert not _check(specs, "pnpm install")

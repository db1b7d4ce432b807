"""Readings from a second sweep of real instruction files tacit had not seen (repositories outside
tests/data/guard_rules_real.jsonl; each case names the repository and file it comes from)."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.instructions import rules_in
from tacit.guards.model import CommitMatch
from test_guards_sweep import _check, test_stops as _stops

ROOT = "/r"


def _specs(text: str) -> list:
    return [r.spec for r in rules_in(text)]


# 0x3k/projd .claude/CLAUDE.md: the branches are named elsewhere, "these" is none of them
@pytest.mark.parametrize("rule", [
    "- **Protected branches**: Never commit directly to these branches. Always work on a feature branch.",
    "never push to those branches",
    "never commit to such branches",
])
def test_a_pointing_word_is_no_branch_name(rule):
    assert all(s.match != CommitMatch(("these",)) for s in _specs(rule))
    assert not any("these" in getattr(s.match, "branches", ()) or "those" in getattr(s.match, "branches", ())
                   or "such" in getattr(s.match, "branches", ()) for s in _specs(rule))


# 0xEchoPhantom/notion-lite .github/copilot-instructions.md: "#### 🛑 NEVER COMMIT DIRECTLY - High Risk
# Changes" over an example that commits on a feature branch: straight to the shared branch, not any commit
@pytest.mark.parametrize("rule", [
    "#### \U0001f6d1 NEVER COMMIT DIRECTLY - High Risk Changes",
    "never commit directly",
    "Never commit directly, open a PR instead.",
])
def test_commit_directly_is_a_commit_on_the_shared_branch(rule):
    specs = _specs(rule)
    assert [s.match for s in specs] == [CommitMatch(("main", "master"))]


def test_push_directly_is_a_push_to_the_shared_branch():
    specs = _specs("Don't push directly")
    assert _check(specs, "git push origin main")
    assert not _check(specs, "git push origin feature/x")


def test_commit_directly_to_a_named_branch_keeps_its_name():
    assert [s.match for s in derive_guards("never commit directly to `develop`")] == [CommitMatch(("develop",))]


# 4DA-Systems/4DA .cursor/rules/project.mdc: "## Never Commit" over a list of files; the heading is a
# title, the bullets are the rules
def test_a_bare_never_commit_heading_is_no_rule_its_bullets_are():
    text = ("## Never Commit\n\n- `data/settings.json` — contains user API keys.\n"
            "- `data/*.db` — runtime databases\n")
    rules = rules_in(text)
    assert [r.line for r in rules] == [3, 4]
    specs = [r.spec for r in rules]
    assert not _check(specs, "git commit -m 'fix: x'")
    assert _check(specs, "git add data/settings.json && git commit -m x")


def test_a_heading_with_its_object_is_still_a_rule():
    assert [r.line for r in rules_in("## Never commit `.env`\n")] == [1]


# 0xquinto/dossier .claude/CLAUDE.md: "Never write to `research/` root — always write under
# `research/runs/$RUN_ID/`": only the folder's top level is refused, which no path pattern says
@pytest.mark.parametrize("rule", [
    "- Never write to `research/` root \u2014 always write under `research/runs/$RUN_ID/`",
    "- Never write to `runs/` root \u2014 always write under `runs/$RUN_ID/`",
    "never edit the `docs/` top-level",
])
def test_a_folder_root_gives_no_guard(rule):
    assert _specs(rule) == []


# CreativeCodersTeam/Core CLAUDE.md, 0xquinto/managed-agents .claude/CLAUDE.md (its "Never `git add .`"
# form is left unread), 0Bu/daikin-altherma-esp32-style orders: one quoted command over another
@pytest.mark.parametrize("rule, stopped, fine", [
    ("- Stage files by name, not `git add -A` or `git add .` \u2014 those can sweep in secrets or large binaries.",
     ["git add -A", "git add .", "git add --all"], ["git add src/a.py", "git commit -m x"]),
    ("Use `git add <file>`, not `git add -A`", ["git add -A"], ["git add src/a.py"]),
    ("Use `git mv`, not `mv`", ["mv a.py b.py"], ["git mv a.py b.py"]),
])
def test_one_quoted_command_over_another(rule, stopped, fine):
    _stops(rule, stopped, fine)  # as a line of an instruction file: derives, stops these, passes those


@pytest.mark.parametrize("rule", [
    "`npm test` runs unit tests, not `npm run e2e`",  # a statement, no order
    "Use `Result<T>`, not `unwrap()`",  # code
    # coollabsio/coolify AGENTS.md: the arguments are examples
    "Use `php artisan make:test --pest SomeFeatureTest` instead of `php artisan make:test --pest Feature/SomeFeatureTest`.",
])
def test_no_quoted_command_over_another(rule):
    assert all("e2e" not in s.match.subcommands and "Feature/SomeFeatureTest" not in getattr(s.match, "subcommands", ())
               for s in derive_guards(rule))
    assert not any(_check(derive_guards(rule), c) for c in ("npm run e2e", "php artisan make:test --pest Feature/X"))


def test_the_guard_that_would_stop_the_way_is_not_made_here():
    from tacit.guards.derive import _run
    from tacit.guards.quoted_over import quoted_over
    assert quoted_over("use `npm run test`, not `npm run`", "x", _run) == []
    assert [s.match.flags for s in quoted_over("use `git add <file>`, not `git add -A`", "x", _run)] == [("-A",)]


# CreativeAcer/PermiX CLAUDE.md: "Never create new `.html` files — all views are panels inside `index.html`"
@pytest.mark.parametrize("rule", [
    "- **Never create new `.html` files** \u2014 all views are panels inside `index.html`",
    "- One single-page app shell: `index.html` \u2014 do not create additional `.html` files",
])
def test_new_files_of_a_kind(rule):
    specs = _specs(rule)
    guards = GuardSet([Guard(s, id=i, scope="project", project_root=ROOT) for i, s in enumerate(specs)])

    def stops(tool: str, path: str) -> bool:
        return bool(guards.check(normalize_call(tool, {"file_path": f"{ROOT}/{path}"}, ROOT, project_root=ROOT,
                                                exists=lambda p: p.endswith("/index.html"))))
    assert stops("Write", "views/settings.html")
    assert not stops("Edit", "index.html")  # the file that is there
    assert not stops("Write", "views/settings.js")


def test_new_files_of_no_kind_give_no_guard():
    assert derive_guards("Never create new `docs` files") == ()


# 2sem/TagForge CLAUDE.md: "Never edit `.xcodeproj` files directly." (Tuist generates them): a long
# extension is one too, and the bundle's insides are its files
def test_a_long_extension_is_every_such_file():
    specs = _specs("This project uses Tuist for project generation. Never edit `.xcodeproj` files directly.")
    assert _check(specs, edit="TagForge.xcodeproj/project.pbxproj")
    assert not _check(specs, edit="Project.swift")


# Creative-Planning/pyfabric CLAUDE.md and 10U-Labs/wan-synthesizer CLAUDE.md wrap their prose at ~72 columns
def test_a_hard_wrapped_sentence_is_read_whole():
    text = ("Version is derived from git tags via hatch-vcs. Do NOT manually edit\n"
            "version strings. The file `src/pyfabric/_version.py` is auto-generated\n"
            "and must not be committed.\n")
    rules = rules_in(text)
    assert [r.line for r in rules] == [1]
    assert _check([r.spec for r in rules], "git add src/pyfabric/_version.py")
    assert not _check([r.spec for r in rules], "git add src/pyfabric/cli.py")


def test_a_wrapped_list_of_prohibitions_and_its_exception():
    text = ("Work goes straight to `main` as direct commits. Do not create a feature\n"
            "branch, do not open a pull request, and do not structure advice around a\n"
            "review cycle.\n")
    specs = _specs(text)
    assert _check(specs, "gh pr create --fill") and not _check(specs, "gh pr view 3")
    # 0Bu/daikin-altherma-esp32 AGENTS.md: the exception is on the next line, and now seen
    text = ("- Keep history linear as described in `CONTRIBUTING.md`. Never force-push, rewrite shared history, or\n"
            "  bypass branch protection unless the user explicitly requested and understood that exact action.\n")
    assert rules_in(text) == []


def test_lines_of_rules_are_not_joined():
    text = "never run `make deploy`, it ships the whole fleet to production\nnever edit `dist/`, it is built\n"
    assert [r.line for r in rules_in(text)] == [1, 2]


# 0Bu/daikin-altherma-esp32 AGENTS.md (read whole): a list of acts, each with its own object
def test_the_exact_acts_of_a_list():
    specs = _specs("Never read the credential store, run `git credential fill`, or print an authentication token.")
    assert _check(specs, "git credential fill") and not _check(specs, "git status")


@pytest.mark.parametrize("rule", [
    "- Never commit, print, or upload API keys, bearer tokens, cloud credentials, or tokens.",  # one object for all
    "never read the logs, run `git credential fill`, or print tokens without asking",  # a qualifier
])
def test_a_list_whose_acts_share_an_object_or_a_qualifier(rule):
    assert not _check(_specs(rule), "git commit -m x") and not _check(_specs(rule), "git credential fill")


# Creative-Planning/pyfabric CLAUDE.md: the passive rule after what the file is
@pytest.mark.parametrize("rule", [
    "The file `src/pyfabric/_version.py` is auto-generated and must not be committed.",
    "`src/pyfabric/_version.py` is auto-generated and must not be committed.",
])
def test_a_generated_file_must_not_be_committed(rule):
    assert _check(_specs(rule), "git add src/pyfabric/_version.py")
    assert not _check(_specs(rule), "git add src/pyfabric/cli.py")


# CreativeCodersTeam/Core CLAUDE.md: "Don't commit files that look like secrets (.env, credentials.json,
# *.pem)." (its next line, "If the user explicitly asks, warn first.", is an exception: no guard there)
@pytest.mark.parametrize("rule", [
    "Don't commit files that look like secrets (.env, credentials.json, *.pem).",
    "never commit secrets (`.env`, `credentials.json`, `*.pem`)",
])
def test_the_named_secret_files(rule):
    specs = _specs(rule)
    for call in ("git add .env", "git add config/credentials.json", "git add certs/server.pem"):
        assert _check(specs, call), call
    assert not _check(specs, "git add src/app.py") and not _check(specs, "git add .env.example")


def test_the_named_secret_files_with_their_exception():
    text = ("- Don't commit files that look like secrets (.env, credentials.json, *.pem). If\n"
            "  the user explicitly asks, warn first.\n")
    assert rules_in(text) == []


# kyverno/kyverno AGENTS.md: two described objects of one edit, each quoted in prose
def test_two_described_objects_of_one_edit():
    specs = _specs("- **Generated code:** Never edit files matching `zz_generated.*` or content in `pkg/client/` "
                   "manually. Run `make codegen-all` instead.")
    assert _check(specs, edit="api/v1/zz_generated.deepcopy.go") and _check(specs, edit="pkg/client/clientset/x.go")
    assert not _check(specs, edit="pkg/engine/engine.go") and not _check(specs, "make codegen-all")
    assert derive_guards("never use `git stash` or `any` casts") == ()  # a quoted list stays its own reading


# AIcodeAcademy/full_stack_blueprint .cursor/rules: "This project is based on `bun` instead of `npm` or `node`"
def test_a_project_based_on_one_tool_instead_of_another():
    specs = _specs("This project is based on `bun` instead of `npm` or `node`")
    assert _check(specs, "npm install") and _check(specs, "node server.js")
    assert not _check(specs, "bun install") and not _check(specs, "bun run server.ts")
    assert derive_guards("The app is based on React instead of Vue") == ()


# traefik/traefik AGENTS.md: the examples after "notably", one of them "everything under" a folder
def test_generated_files_notably():
    specs = _specs("- Do not hand-edit generated files \u2014 notably `**/zz_generated*.go`, everything under "
                   "`pkg/provider/kubernetes/crd/generated/`, and `webui/static/`. Regenerate them via `make generate`.")
    for path in ("pkg/config/zz_generated.deepcopy.go", "pkg/provider/kubernetes/crd/generated/x/y.go",
                 "webui/static/index.html"):
        assert _check(specs, edit=path), path
    assert not _check(specs, edit="pkg/config/dynamic.go") and not _check(specs, "make generate")


# 0xquinto/managed-agents .claude/CLAUDE.md: "Never `git add .` or `-A`": the flag of the command before it
def test_a_bare_flag_after_a_quoted_command():
    specs = _specs("- Always `git add <specific paths>`. Never `git add .` or `-A` \u2014 adjacent untracked files "
                   "include `.DS_Store`, `docs/api-reference/`, and pitch decks.")
    assert _check(specs, "git add .") and _check(specs, "git add -A")
    assert not _check(specs, "git add agents/a.md")
    assert derive_guards("never use `-A` or `git add .`") == ()  # a flag with no command before it


# 4DA-Systems/4DA CLAUDE.md ("… and never `--no-verify` past it": the "past it" stays unread, a manner)
def test_a_flag_said_with_no_verb_is_used():
    specs = derive_guards("never `--no-verify`")
    assert _check(specs, "git commit --no-verify -m x") and not _check(specs, "git commit -m x")
    assert derive_guards("never `--no-verify` past it") == ()


# 7span/laravel-boilerplate .cursor/rules/laravel-boost.mdc, coollabsio/coolify AGENTS.md: "all Artisan commands"
# was a program "Artisan" with a subcommand "commands", which no call matched
@pytest.mark.parametrize("rule, stopped, fine", [
    ("Pass `--no-interaction` to all Artisan commands to ensure they work without user input.",
     ["php artisan migrate", "php artisan make:model Post"],
     ["php artisan migrate --no-interaction", "php artisan --version", "composer install"]),
    ("pass `--frozen` to all uv commands", ["uv sync", "uv add httpx"], ["uv sync --frozen", "uv --version"]),
])
def test_a_flag_every_command_of_a_program_must_have(rule, stopped, fine):
    _stops(rule, stopped, fine)

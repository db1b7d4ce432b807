"""General readings of rule lines (docs/guards.md, "How a line is read"):
a conditional order before a prohibition does not veto it, a prohibition
of two objects is read one object at a time, and a comma before an order
or a plain statement ends the rule clause. Each: what it stops, what it
lets through, and what must still derive nothing."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, normalize_call
from tacit.guards.derive import derive_guards
from tacit.guards.instructions import rules_in

ROOT = "/home/u/proj"


def guard_set(line: str) -> GuardSet:
    rules = rules_in(line, "AGENTS.md")
    assert rules, f"no guard from {line!r}"
    return GuardSet([Guard(r.spec, i + 1, "project", ROOT, f"AGENTS.md:{i + 1}") for i, r in enumerate(rules)])


def stops(guards: GuardSet, tool: str, arg: str) -> bool:
    args = {"command": arg} if tool == "Bash" else {"file_path": f"{ROOT}/{arg}"}
    return bool(guards.check(normalize_call(tool, args, ROOT, project_root=ROOT)))


def assert_reads(line: str, stopped, passed) -> None:
    """The line's guards stop every (tool, arg) in ``stopped`` and none in ``passed``."""
    guards = guard_set(line)
    for tool, arg in stopped:
        assert stops(guards, tool, arg), (line, arg)
    for tool, arg in passed:
        assert not stops(guards, tool, arg), (line, arg)


# --- a conditional order before the prohibition -------------------------------------------
ORDERED = [
    ("When modifying `manifests/`, always run `make build` and verify the generated output before committing. "
     "Never hand-edit files under `cmd/flux/manifests/`.",
     [("Edit", "cmd/flux/manifests/source-controller.yaml")],
     [("Edit", "manifests/bases/source-controller/kustomization.yaml"), ("Bash", "make build")]),
    ("After editing any workflow `.md` source, run `gh aw compile` to regenerate it. NEVER hand-edit `.lock.yml` files.",
     [("Edit", ".github/workflows/triage.lock.yml")],
     [("Edit", ".github/workflows/triage.md"), ("Bash", "gh aw compile")]),
    ("After changing CLI options in `src/cli.ts`, run `pnpm docs:cli` and commit the regenerated `docs/cli.md`; "
     "never edit that file by hand",
     [("Edit", "docs/cli.md"), ("Write", "docs/cli.md")],
     [("Edit", "src/cli.ts"), ("Read", "docs/cli.md")]),
]


ORDERED.append(("If the lockfile is out of date, run `pnpm install` to update it. Never edit `pnpm-lock.yaml`.",
                [("Edit", "pnpm-lock.yaml")], [("Bash", "pnpm install"), ("Read", "pnpm-lock.yaml")]))


@pytest.mark.parametrize("line,stopped,passed", ORDERED)
def test_a_conditional_order_before_the_rule_does_not_veto_it(line, stopped, passed):
    assert_reads(line, stopped, passed)


@pytest.mark.parametrize("line", [
    "When the dev server is running, never run `pnpm build`.",  # the condition is the rule's own
    "If you need to publish, ask a maintainer first. Never run `npm publish`.",  # a permission, not an order
    "When in doubt, you may edit `dist/`. Never edit `dist/` otherwise.",
    "If the build is red, run `make fix` or skip it. Never push to `main`.",  # the order lets something through
    "If you need to publish, run `npm run build` first. Never run `npm publish`.",  # a step before the act
    "When a release is needed, run `make release` and then push the tag. Never push to `main`.",
    "When publishing, run the npm publish script. Never run `npm publish`.",  # the order names what is stopped
])
def test_conditions_that_scope_or_permit_still_veto(line):
    assert derive_guards(line) == ()
    assert rules_in(line, "AGENTS.md") == []


# --- a prohibition of two objects ------------------------------------------------------------
EITHER = [
    ("- Do not bypass git hooks or CI checks (`--no-verify`, `[skip ci]`, etc.).",
     [("Bash", 'git commit --no-verify -m "fix"'), ("Bash", "git push --no-verify origin fix")],
     [("Bash", 'git commit -m "fix"'), ("Bash", "git push origin fix")]),
    ("Don't edit `dist/` or run `npm publish`.",
     [("Edit", "dist/index.js"), ("Bash", "npm publish")],
     [("Edit", "src/index.ts"), ("Bash", "npm pack")]),
]


@pytest.mark.parametrize("line,stopped,passed", EITHER)
def test_each_object_of_a_prohibition_is_a_rule(line, stopped, passed):
    assert_reads(line, stopped, passed)


def test_a_list_whose_phrase_names_two_objects():
    guards = guard_set("- Never commit, push, or create issues or PRs.")
    for command in ('git commit -m "x"', "git push origin x", 'gh issue create --title "x"', 'gh pr create --fill'):
        assert stops(guards, "Bash", command), command
    assert not stops(guards, "Bash", "gh pr view 12")


@pytest.mark.parametrize("line", [
    "- Never create an issue or pull request without the user's explicit instruction.",  # the tail reaches back
    "Don't use `any` or `unknown` as types.",  # neither is a program
    "Never commit secrets or PII.",
    "Do not use system python or pip.",  # "system" may qualify both
    "Do not bump dependencies or change CI workflows unless asked.",
    # a real AGENTS.md line (a fresh probe): "commit" ends "the same edit or commit", it is no act;
    # "never commit" asked at every commit
    "4. **Never mix unrelated changes** in the same edit or commit",
])
def test_objects_without_a_shape_or_with_a_qualifier_derive_nothing(line):
    assert rules_in(line, "AGENTS.md") == []


# --- a comma before an order or a statement ends the rule --------------------------------------
@pytest.mark.parametrize("lesson,path", [
    ("don't hand-edit Cargo.lock, let cargo manage it", "Cargo.lock"),
    ("never modify PublicAPI.Shipped.txt, maintainers do that at release time", "PublicAPI.Shipped.txt"),
    ("don't edit dist/, just rebuild it", "dist/"),
])
def test_a_reason_after_a_comma_is_not_part_of_the_rule(lesson, path):
    specs = derive_guards(lesson)
    assert len(specs) == 1 and specs[0].match.patterns == (path,)


def test_let_a_human_know_stays_part_of_its_condition():
    line = ("DO NOT try to bypass it by creating draft PRs. If you cannot create a pull request, let a human know "
            "that you will not breach this repository's policy.")
    guards = guard_set(line)
    assert stops(guards, "Bash", 'gh pr create --draft --title "x"')
    assert not stops(guards, "Bash", 'gh pr create --title "x"')


# --- what a tool makes ---------------------------------------------------------------------------
GENERATED = [
    ("The `infra/` directory contains AWS CDK code that **generates** the CloudFormation templates shipped in "
     "`templates/ecs/`. The JSON files there are build artifacts — do not edit them directly.",
     [("Edit", "templates/ecs/worker.json")], [("Edit", "infra/worker/stack.py"), ("Read", "templates/ecs/worker.json")]),
    ("- `docs/cli.md` is generated from `cmd/` — edit the Go source instead.",
     [("Edit", "docs/cli.md"), ("Write", "docs/cli.md")], [("Edit", "cmd/root.go"), ("Read", "docs/cli.md")]),
    ("- `src/api/*.cs` files are generated; edit the templates instead.",
     [("Edit", "src/api/Client.cs")], [("Edit", "src/Client.cs"), ("Edit", "templates/client.cs.tt")]),
    ("`schema.graphql` is generated by `make schema`; edit `schema/*.graphql` instead",
     [("Edit", "schema.graphql")], [("Edit", "schema/user.graphql")]),
]


@pytest.mark.parametrize("line,stopped,passed", GENERATED)
def test_a_made_file_is_not_edited(line, stopped, passed):
    assert_reads(line, stopped, passed)


@pytest.mark.parametrize("line", [
    "Edit `docs/` instead of the wiki.",  # no made file
    "`README.md` is generated, please edit it carefully",  # no order to edit the source instead
    "`pnpm` is built in; use `npm` instead",  # not a path, and no edit
    "The generator writes files; edit the templates instead.",  # no path named
])
def test_statements_about_made_files_without_a_rule_derive_nothing(line):
    assert rules_in(line, "AGENTS.md") == []


# --- merging a branch into the working branch -------------------------------------------------------
@pytest.mark.parametrize("line", [
    "- **Rebase, don't merge:** Never merge `main` into the feature branch; rebase onto the latest `main`.",
    "Never merge main into your branch, rebase instead",
])
def test_merging_the_base_branch_in(line):
    guards = guard_set(line)
    for command in ("git merge main", "git merge origin/main", "git merge --no-ff main", "git merge upstream/main",
                    'git merge -m "sync with main" main', "git merge --no-ff -m 'Merge main' origin/main",
                    "git merge -X theirs main", "git merge --strategy ort --no-edit main", "git merge -F msg.txt main",
                    "git -C repo merge --no-ff main", "git merge --message=sync main", "git merge feature-y main"):
        assert stops(guards, "Bash", command), (line, command)
    for command in ("git merge --abort", "git rebase main", "git merge feature-x", "git merge main-fix",
                    "git push --force-with-lease origin feature-x", "git merge -m main feature-x",
                    "git merge -X main feature-x", "git commit -m main", "git log --merges main"):
        assert not stops(guards, "Bash", command), (line, command)


@pytest.mark.parametrize("line", [
    "Never merge PRs into `main` without a review.",  # gh pr merge, with an exception
    "Don't merge `main` into release branches unless asked.",
    "Never merge changes you don't understand into your branch.",
])
def test_merge_rules_that_are_not_a_branch_merge(line):
    assert not any(getattr(r.spec.match, "subcommands", ())[:1] == ("merge",) and r.spec.match.programs == ("git",)
                   for r in rules_in(line, "AGENTS.md"))


# --- a folder the line says is closed ------------------------------------------------------------------
@pytest.mark.parametrize("line,stopped,passed", [
    ("- **`.claude/agents/` is deprecated.** Do not create new agent files",
     [("Write", ".claude/agents/test-runner.md")], [("Read", ".claude/agents/reviewer.md"), ("Edit", "AGENTS.md")]),
    ("`legacy/` is frozen. Don't add new code there.",
     [("Write", "legacy/new_module.py"), ("Edit", "legacy/old.py")], [("Edit", "src/new_module.py")]),
])
def test_a_closed_folder_takes_no_new_files(line, stopped, passed):
    assert_reads(line, stopped, passed)


@pytest.mark.parametrize("line", [
    "`old/` is deprecated. Prefer `new/`.",  # no prohibition
    "`old/` is deprecated. Do not create new files in `lib/` either.",  # two paths: the rule names its own
    "The old API is deprecated. Do not create new agent files.",  # no folder
    "`old/` is deprecated. Do not create new tickets.",  # not files
])
def test_closed_folder_lines_without_that_rule(line):
    assert not any(getattr(r.spec.match, "patterns", ()) == ("old/",) for r in rules_in(line, "AGENTS.md"))


# --- a push to a repository named owner/name ---------------------------------------------------------
def test_a_push_target_written_owner_slash_name_is_also_a_repository():
    guards = guard_set("- Do not push directly to `open-telemetry/opentelemetry-rust`. Push to a fork.")
    assert stops(guards, "Bash", "git push https://github.com/open-telemetry/opentelemetry-rust.git HEAD:main")
    assert stops(guards, "Bash", "git push git@github.com:open-telemetry/opentelemetry-rust fix")
    for command in ("git push origin fix", "git push https://github.com/alice/opentelemetry-rust.git fix",
                    "git push https://github.com/open-telemetry/opentelemetry-rust-contrib.git fix"):
        assert not stops(guards, "Bash", command), command


def test_a_push_target_with_a_host_is_a_repository_only():
    guards = guard_set("Never push to `github.com/dotnet/orleans`.")
    assert stops(guards, "Bash", "git push git@github.com:dotnet/orleans.git feature/x")
    assert stops(guards, "Bash", "git push https://github.com/dotnet/orleans feature/x")
    assert not stops(guards, "Bash", "git push https://github.com/alice/orleans.git feature/x")
    assert not stops(guards, "Bash", "git push origin feature/x")


def test_a_branch_with_a_slash_stays_a_branch():
    guards = guard_set("Never push to `release/v2`.")
    assert stops(guards, "Bash", "git push origin release/v2")
    assert not stops(guards, "Bash", "git push origin main")
    assert [r.spec.match.remotes for r in rules_in("Never push to `release/v2`.", "AGENTS.md")] == [()]


def test_just_an_order_after_a_comma_is_not_part_of_the_rule():
    specs = derive_guards("never amend commits, just make a new one")
    assert [(s.match.programs, s.match.flags) for s in specs] == [(("git",), ("--amend",))]


@pytest.mark.parametrize("lesson", [
    "never amend commits, just make a new one if you can",
    "Never merge `main` into your branch, rebase instead when possible",
    "don't hand-edit `Cargo.lock`, let cargo manage it unless you must",
    "never modify `a.txt`, maintainers do that usually",
])
def test_a_hedge_in_the_order_split_off_the_rule_still_vetoes(lesson):
    assert derive_guards(lesson) == ()


# --- git acts sharing a target, programs named with their job, a branch pushed ---------------------
@pytest.mark.parametrize("line,stopped,passed", [
    ("- **Never commit or push directly to `main`.** Work on a branch.",
     [('git commit -m "x"', "main"), ("git push origin main", "feature"), ("git push", "main")],
     [('git commit -m "x"', "feature"), ("git push origin feature", "feature")]),
    ("never push or commit to main or master",
     [("git push origin master", "x"), ('git commit -am "x"', "master")],
     [("git push origin develop", "develop")]),
    # "main/master": two branches (the guard was on a branch named "main/master" and stopped nothing)
    ("### Never Do\n\n- Force push to main/master branch",
     [("git push --force origin main", "x"), ("git push -f origin master", "x")],
     [("git push origin main", "x"), ("git push --force origin feature", "feature")]),
    ("never push directly to main/master",
     [("git push origin main", "x"), ("git push origin master", "x")], [("git push origin feature", "feature")]),
])
def test_git_acts_that_share_a_target(line, stopped, passed):
    guards = guard_set(line)
    for command, branch in stopped:
        assert guards.check(normalize_call("Bash", {"command": command}, ROOT, project_root=ROOT, branch=branch)), command
    for command, branch in passed:
        assert not guards.check(normalize_call("Bash", {"command": command}, ROOT, project_root=ROOT, branch=branch)), command


@pytest.mark.parametrize("line", [
    "Never commit or push to a branch you don't own",  # no exact branch
    "Do not commit or push to `main` unless asked",  # an exception
])
def test_shared_targets_that_are_not_exact(line):
    assert rules_in(line, "AGENTS.md") == []


def test_programs_named_with_their_job():
    guards = guard_set("Don't use `rm`, `rmdir` or `unlink` to delete files or folders; move them to the trash.")
    for command in ("rm build.log", "rm -rf dist", "rmdir empty", "unlink a.lock"):
        assert stops(guards, "Bash", command), command
    for command in ("mv build.log .trash/", "ls dist", "git rm --cached a.txt"):
        assert not stops(guards, "Bash", command), command
    assert stops(guard_set("never use `mv` for renaming files"), "Bash", "mv a.ts b.ts")
    assert stops(guard_set("never use `kill -9` to stop processes"), "Bash", "kill -9 4242")


@pytest.mark.parametrize("line", [
    "Don't use `cp` to copy secrets.",  # a narrower object than the job
    "Never use `git` to delete files.",  # not the program's job
    "Do not use `sed` to edit files.",
    "never use `rm` to remove the build output",
])
def test_a_program_named_with_another_job_or_object(line):
    assert rules_in(line, "AGENTS.md") == []


@pytest.mark.parametrize("line", ["Never push `main` to the remote.", "- **Never push `main`** to GitHub.",
                                  "never push main to origin"])
def test_a_branch_pushed_to_the_remote(line):
    guards = guard_set(line)
    assert stops(guards, "Bash", "git push origin main")
    assert not stops(guards, "Bash", "git push origin feature-x")


def test_no_verify_to_skip_several_kinds_of_hooks():
    guards = guard_set("Never pass `--no-verify` to skip the pre-commit or pre-push hooks.")
    assert stops(guards, "Bash", 'git commit --no-verify -m "x"')
    assert stops(guards, "Bash", "git push --no-verify origin x")
    assert not stops(guards, "Bash", 'git commit -m "x"')


# --- acts sharing a quoted object, "never touch:" lists, any `x/` folder, the flag that sets a rule apart ----
def test_acts_sharing_a_quoted_object():
    guards = guard_set("- **Do not create or commit `package-lock.json`**; this repo uses bun.")
    assert guards.check(normalize_call("Write", {"file_path": f"{ROOT}/package-lock.json"}, ROOT, project_root=ROOT))
    assert stops(guards, "Bash", "git add package-lock.json")
    assert not stops(guards, "Bash", "git add bun.lock")
    assert rules_in("never create or use `yarn.lock`", "AGENTS.md") == []  # "use" a lockfile: no exact act


def test_a_verb_and_a_colon_before_a_list_of_paths():
    guards = guard_set("- Never touch: `packages/**/dist/**`, `build/**`, `out/**`.")
    for path in ("packages/a/dist/index.js", "build/x.o", "out/app"):
        assert stops(guards, "Edit", path), path
    assert not stops(guards, "Edit", "src/index.ts")


def test_any_folder_of_that_name():
    guards = guard_set("- Do not create, modify, or delete anything under any `dist/` directory.")
    assert stops(guards, "Edit", "dist/a.js") and stops(guards, "Edit", "packages/x/dist/a.js")
    assert not stops(guards, "Edit", "src/dist.ts")


def test_a_later_order_that_names_the_command_but_not_its_flag():
    line = "- **Never amend commits** (`git commit --amend`). If a fix is needed after a commit, create a new commit."
    guards = guard_set(line)
    assert stops(guards, "Bash", "git commit --amend --no-edit")
    assert not stops(guards, "Bash", 'git commit -m "fix"')
    # a later sentence that names the flag itself still vetoes
    assert rules_in("Never use `npm install --force`. If install fails, run `npm install --force` after asking.",
                    "AGENTS.md") == []


# --- "shared branches" names no branch: main and master are the ones every project shares ---------------
@pytest.mark.parametrize("line", ["Never run `git push --force` on shared branches.",
                                  "never force push to protected branches"])
def test_force_push_to_shared_branches_guards_main_and_master_not_a_branch_named_shared(line):
    guards = guard_set(line)
    assert stops(guards, "Bash", "git push --force origin main")
    assert stops(guards, "Bash", "git push -f origin master")
    assert not stops(guards, "Bash", "git push --force origin shared")
    assert not stops(guards, "Bash", "git push --force origin my-feature")
    assert not stops(guards, "Bash", "git push origin main")  # only the force push is the rule


def test_a_quoted_branch_named_shared_stays_that_branch():
    guards = guard_set("Never push to the `shared` branch.")
    assert stops(guards, "Bash", "git push origin shared")
    assert not stops(guards, "Bash", "git push origin main")


# --- "use python3, not python": a virtualenv's bin/python is the python3 it was made from ----------------
def test_python3_over_python_lets_a_virtualenv_interpreter_through():
    guards = GuardSet([Guard(s, i + 1, "project", ROOT, "lesson") for i, s in
                       enumerate(derive_guards("Use python3, not python."))])
    assert stops(guards, "Bash", "python -m pytest")
    assert stops(guards, "Bash", "/usr/bin/python x.py")
    assert stops(guards, "Bash", "myvenv/bin/python x.py")  # only the usual virtualenv folder names
    for cmd in (".venv/bin/python -m pytest", "venv/bin/python x.py", f"{ROOT}/.venv/bin/python x.py",
                "cd src && ../.venv/bin/python -m tool"):
        assert not stops(guards, "Bash", cmd), cmd


def test_a_rule_against_python_itself_still_stops_the_virtualenv_interpreter():
    guards = GuardSet([Guard(s, i + 1, "project", ROOT, "lesson") for i, s in
                       enumerate(derive_guards("never run python, use uv run"))])
    assert stops(guards, "Bash", ".venv/bin/python -m pytest")
    assert stops(guards, "Bash", "python -m pytest")


# --- a branch glob said as branches: `release/*` ------------------------------------------------------
@pytest.mark.parametrize("line,stopped,passed", [
    ("Never push to `release/*` branches.",
     [("Bash", "git push origin release/1.2"), ("Bash", "git push origin HEAD:release/2.0")],
     [("Bash", "git push origin main"), ("Bash", "git push origin feature/release")]),
    ("never force push to `release-*`",
     [("Bash", "git push -f origin release-3")],
     [("Bash", "git push origin release-3"), ("Bash", "git push -f origin main")]),
])
def test_a_branch_glob_is_matched_as_a_glob(line, stopped, passed):
    assert_reads(line, stopped, passed)


def test_a_branch_glob_for_commits_and_rebases():
    [commit] = derive_guards("never commit to `release/*` branches")
    [rebase] = derive_guards("never rebase onto `release/*`")
    guards = GuardSet([Guard(commit, 1, "project", ROOT, "l1"), Guard(rebase, 2, "project", ROOT, "l2")])
    on = dict(branch="release/1.2")
    assert guards.check(normalize_call("Bash", {"command": "git commit -m x"}, ROOT, project_root=ROOT, **on))
    assert not guards.check(normalize_call("Bash", {"command": "git commit -m x"}, ROOT, project_root=ROOT,
                                           branch="main"))
    assert guards.check(normalize_call("Bash", {"command": "git rebase release/1.2"}, ROOT, project_root=ROOT))
    assert not guards.check(normalize_call("Bash", {"command": "git rebase main"}, ROOT, project_root=ROOT))


def test_an_unquoted_glob_not_said_as_branches_derives_nothing():
    assert derive_guards("never push to release/*") == ()


def test_a_pattern_guard_may_name_a_branch_glob():
    from tacit.guards.patterns import spec_from_pattern
    spec = spec_from_pattern("push:release/*", "release branches are cut by CI")
    guards = GuardSet([Guard(spec, 1, "project", ROOT, "cli")])
    assert stops(guards, "Bash", "git push origin release/4.1")
    assert not stops(guards, "Bash", "git push origin main")


# --- "or any other command that …": the tail adds nothing to match ---------------------------------------
@pytest.mark.parametrize("line,stopped,passed", [
    ("Do NOT run `git push`, `cdk deploy`, `aws lambda update-function-code`, or any other command that modifies "
     "the live AWS environment. Suggest the commands for the human to run instead.",
     [("Bash", "git push origin main"), ("Bash", "cdk deploy MyStack"), ("Bash", "aws lambda update-function-code --zip-file x")],
     [("Bash", "cdk synth"), ("Bash", "aws s3 ls")]),
    ("never run npm install or any other command that changes the lockfile",
     [("Bash", "npm install left-pad")], [("Bash", "npm test")]),
])
def test_a_tail_naming_the_like_leaves_the_items(line, stopped, passed):
    assert_reads(line, stopped, passed)


def test_a_tail_naming_the_like_keeps_its_exception():
    assert rules_in("never run `git push` or any other command that touches prod unless asked", "AGENTS.md") == []


def test_an_indented_code_block_is_no_rule_but_an_indented_list_paragraph_is():
    text = ("# Rules\n\nSome text.\n\n    Never run `make delta`.\n\n- Never run `make alpha`.\n\n"
            "    Never run `make beta`.\n\n    - Never run `make nested`.\n")
    assert [r.spec.describe() for r in rules_in(text, "AGENTS.md")] == ["`make alpha`", "`make beta`", "`make nested`"]


def test_a_lone_act_after_a_place_without_an_article_is_still_an_act():
    """"to main or force-push": only a noun phrase ("the same edit") takes the lone word in."""
    kinds = [str(s.match) for s in derive_guards("Don't push to main or force-push")]
    assert len(kinds) == 2 and "force_only=True" in kinds[1]
    assert [str(s.match) for s in derive_guards("Never push to the main branch or commit")] == [
        str(derive_guards("Never push to the main branch")[0].match)]


def test_no_direct_push_to_main_is_a_push_rule():
    """A real AGENTS.md line (a fresh probe): "direct" before a push or a commit changes nothing about
    what to stop, as "directly" does not; "No direct push to main" derived nothing."""
    [rule] = rules_in("9. **No direct push to main.** Always feature branch + PR.\n", "AGENTS.md")
    assert rule.spec.match == derive_guards("Never push to main")[0].match

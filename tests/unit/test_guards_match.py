"""tacit.guards.match: host tool calls → Call; guards checked against it."""

from __future__ import annotations

import pytest

from tacit.events import ToolCall
from tacit.guards.derive import derive_guard
from tacit.guards.match import (Call, GuardSet, check, compile_pattern, normalize_call,
                                program_names, push_targets)
from tacit.guards.model import CommandMatch, Guard, GuardSpec, PathMatch, PushMatch, SudoMatch

ROOT = "/home/u/web"


def guard(text, gid=1, scope="project", root=ROOT):
    spec = derive_guard(text)
    assert spec is not None, text
    return Guard(spec, gid, scope, root if scope == "project" else None, "test")


def fired(guards, tool, args, cwd=ROOT, **kw):
    return [hit.guard.id for hit in GuardSet(guards).check(normalize_call(tool, args, cwd, **kw))]


def bash(guards, command, cwd=ROOT, **kw):
    return fired(guards, "Bash", {"command": command}, cwd, **kw)


NPM = guard("we use pnpm here, never npm")


# --------------------------------------------------------------------------- normalize_call
@pytest.mark.parametrize("tool, args", [
    ("Bash", {"command": "npm i"}),
    ("bash", {"command": "npm i"}),
    ("terminal", {"command": "npm i"}),
    ("exec_command", {"cmd": "npm i"}),
    ("shell", {"command": ["bash", "-lc", "npm i"]}),
    ("shell", {"command": ["npm", "i"]}),
    ("local_shell", {"action": {"type": "exec", "command": ["npm", "i"]}}),
])
def test_every_host_shell_tool(tool, args):
    call = normalize_call(tool, args, ROOT)
    assert "npm" in [inv.program for inv in call.invocations]
    assert fired([NPM], tool, args) == [1]


@pytest.mark.parametrize("tool, args", [
    ("Edit", {"file_path": f"{ROOT}/migrations/a.py", "old_string": "a", "new_string": "b"}),
    ("Write", {"file_path": f"{ROOT}/migrations/a.py", "content": "x"}),
    ("MultiEdit", {"file_path": f"{ROOT}/migrations/a.py", "edits": []}),
    ("NotebookEdit", {"notebook_path": f"{ROOT}/migrations/a.ipynb"}),
    ("write_file", {"path": "migrations/a.py", "content": "x"}),
    ("patch", {"mode": "replace", "path": "migrations/a.py"}),
    ("patch", {"mode": "patch", "patch": "*** Begin Patch\n*** Update File: migrations/a.py\n*** End Patch"}),
    ("edit", {"path": "migrations/a.py"}),
    ("write", {"path": f"{ROOT}/migrations/a.py"}),
    ("apply_patch", {"input": "*** Begin Patch\n*** Add File: migrations/a.py\n+x\n*** End Patch"}),
])
def test_every_host_edit_tool(tool, args):
    call = normalize_call(tool, args, ROOT)
    assert [w.path for w in call.writes] == [f"{ROOT}/migrations/a.py".replace(".py", ".ipynb")
                                             if tool == "NotebookEdit" else f"{ROOT}/migrations/a.py"]
    assert fired([guard("don't touch migrations/")], tool, args) == [1]


def test_workdir_overrides_cwd():
    call = normalize_call("exec_command", {"cmd": "npm i", "workdir": "packages/ui"}, ROOT)
    assert call.cwd == f"{ROOT}/packages/ui"
    call = normalize_call("terminal", {"command": "npm i", "workdir": "/tmp"}, ROOT)
    assert call.invocations[0].cwd == "/tmp"


@pytest.mark.parametrize("tool, args", [
    ("Read", {"file_path": f"{ROOT}/migrations/a.py"}), ("Grep", {"pattern": "npm"}),
    ("Unknown", {"command": "npm i"}), (None, None), ("Bash", None), ("Bash", {"command": 3}),
    ("Edit", {"file_path": 3}), ("Edit", {"file_path": "rel/x"}),
])
def test_other_tools_and_bad_args_give_an_empty_call(tool, args):
    call = normalize_call(tool, args, None)
    assert call.invocations == ()
    assert call.writes == ()
    assert GuardSet([NPM, guard("don't touch migrations/", 2)]).check(call) == []


# --------------------------------------------------------------------------- commands
@pytest.mark.parametrize("command, expect", [
    ("npm install", [1]), ("npm i left-pad", [1]), ("npm run build", [1]), ("npm ci", [1]),
    ("cd app && npm install", [1]), ("/usr/bin/npm i", [1]), ("npm.cmd install", [1]),
    ("sudo npm i -g x", [1]), ("bash -c 'npm i'", [1]),
    ("pnpm install", []), ("pnpm add npm", []), ("npx jest", []), ("echo npm install", []),
    ("grep -r npm .", []), ("cat npm-debug.log", []), ('git commit -m "drop npm"', []),
    ("npm --version", []), ("npm -v", []), ("npm help", []), ("npm install --help", []),
    ("npm publish --dry-run", []), ("which npm", []), ("docker run node npm ci", []),
])
def test_program_guard(command, expect):
    assert bash([NPM], command) == expect


def test_project_guard_never_fires_outside_its_root():
    assert bash([NPM], "npm install", cwd="/home/u/other") == []
    assert bash([NPM], "npm install", cwd="/home/u/web2") == []  # shared prefix, other folder
    assert bash([NPM], "cd /home/u/other && npm install") == []
    assert bash([NPM], "cd /home/u/web && npm install", cwd="/tmp") == [1]
    assert bash([NPM], "npm install", cwd=f"{ROOT}/deep/inside") == [1]


def test_project_guard_without_a_root_fires_nowhere():
    no_root = Guard(NPM.spec, 9, "project", None)
    assert bash([no_root], "npm install") == []


def test_global_guard_fires_everywhere():
    sudo = guard("never use sudo", scope="global")
    assert bash([sudo], "sudo apt update", cwd="/tmp") == [1]
    assert bash([sudo], "echo x | sudo tee /etc/hosts", cwd="/") == [1]
    assert bash([sudo], "sudoedit /etc/hosts", cwd="/") == [1]
    assert bash([sudo], "doas reboot", cwd="/") == [1]
    assert bash([sudo], "echo sudo; man sudo; which sudo", cwd="/") == []


@pytest.mark.parametrize("command, expect", [
    ("pip install x", [1]), ("pip3 install x", [1]), ("pip3.12 install x", [1]),
    ("python3 -m pip install x", [1]), ("uv run pip install x", [1]),
    ("uv pip install x", []), ("pipx install x", []), ("pip-compile", []), ("pip -V", []),
])
def test_program_families(command, expect):
    assert bash([guard("use uv, not pip")], command) == expect


def test_python_is_not_python3_but_python3_covers_minor_versions():
    assert bash([guard("use python3, not python")], "python3 x.py") == []
    assert bash([guard("use python3, not python")], "python x.py") == [1]
    assert bash([guard("use python, not python3")], "python3.12 x.py") == [1]
    assert program_names("python3.12") == ("python3.12", "python3")
    assert program_names("pip3") == ("pip3", "pip")
    assert program_names("docker-compose") == ("docker-compose", "docker")


def test_runners_and_wrappers_reach_the_tool():
    jest = guard("use vitest, not jest")
    for command in ("npx jest", "pnpm jest", "pnpm exec jest", "yarn dlx jest", "bunx jest",
                    "./node_modules/.bin/jest --ci", "CI=1 npx --yes jest@29"):
        assert bash([jest], command) == [1], command
    assert bash([jest], "pnpm test") == []  # a script: its contents are not known
    assert bash([jest], "jest --version") == []


def test_subcommands_and_aliases():
    tf = guard("don't run terraform apply")
    assert bash([tf], "terraform apply") == [1]
    assert bash([tf], "terraform -chdir=envs/prod apply -auto-approve") == [1]
    assert bash([tf], "terraform plan") == []
    assert bash([tf], "terraform apply --help") == []
    publish = guard("don't run `npm install`")
    assert bash([publish], "npm i x") == [1]
    assert bash([publish], "npm isntall x") == [1]
    assert bash([publish], "npm ci") == []
    kube = guard("never run kubectl delete")
    assert bash([kube], "kubectl -n prod delete pod x") == [1]
    assert bash([kube], "kubectl --context prod delete ns x") == [1]
    assert bash([kube], "kubectl get pods") == []
    prune = guard("never run docker system prune")
    assert bash([prune], "docker system prune -af") == [1]
    assert bash([prune], "docker image prune") == []


def test_target_runners_match_any_target():
    deploy = guard("never run make deploy")
    assert bash([deploy], "make deploy") == [1]
    assert bash([deploy], "make -C envs/prod lint deploy ENV=prod") == [1]
    assert bash([deploy], "make deploy-docs") == []
    assert bash([deploy], "make -n deploy") == []


def test_flags_with_aliases_and_clusters():
    rmrf = guard("never run rm -rf", scope="global")
    for command in ("rm -rf x", "rm -fr x", "rm -r -f x", "rm -Rf x", "rm --recursive --force x",
                    "rm -rfv x", "find . -exec rm -rf {} +"):
        assert bash([rmrf], command) == [1], command
    for command in ("rm -f x", "rm -r x", "rm x", "echo rm -rf", "rm -- -rf"):
        assert bash([rmrf], command) == [], command
    goget = guard("never run go get -u")
    assert bash([goget], "go get -u=patch ./...") == [1]
    assert bash([goget], "go get ./...") == []


# --------------------------------------------------------------------------- git push
MAIN = guard("never push to main or master", scope="global")
FORCE = guard("never run git push --force", 2, scope="global")


@pytest.mark.parametrize("command, branch, expect", [
    ("git push origin main", None, [1]),
    ("git push origin HEAD:main", None, [1]),
    ("git push origin feat:main", None, [1]),
    ("git push origin +main", None, [1, 2]),
    ("git push origin refs/heads/main", None, [1]),
    ("git push origin :main", None, [1]),
    ("git push origin --delete main", None, [1]),
    ("git push --all origin", None, [1]),
    ("git push -u origin master", None, [1]),
    ("git -C /repo push origin main", None, [1]),
    ("git push origin main --force", None, [1, 2]),
    ("git push origin main:backup", None, []),
    ("git push origin feature/main", None, []),
    ("git push origin maintenance", None, []),
    ("git push origin HEAD:refs/for/main", None, []),
    ("git push origin v1.0", None, []),
    ("git push --tags", "main", []),
    ("git push --dry-run origin main", None, []),
    ("git push -n origin main", None, []),
    ("git push", None, []),
    ("git push", "main", [1]),
    ("git push origin", "main", [1]),
    ("git push origin HEAD", "main", [1]),
    ("git push", "feat/x", []),
    ("git push -f", "feat/x", [2]),
    ("git push --force-with-lease", "feat/x", [2]),
    ("git push origin +feat/x", None, [2]),
    ("git subtree push --prefix dist origin main", None, [1]),
    ("echo git push origin main", None, []),
    ("git pull origin main", None, []),
])
def test_push(command, branch, expect):
    assert bash([MAIN, FORCE], command, branch=branch) == expect


def test_the_current_branch_is_only_used_inside_the_call_project():
    assert bash([MAIN], "cd /elsewhere && git push", branch="main", project_root=ROOT) == []
    assert bash([MAIN], "cd sub && git push", branch="main", project_root=ROOT) == [1]


def test_push_targets():
    assert push_targets(("git", "push", "origin", "a", "b:c"), None) == (False, frozenset({"a", "c"}), "origin")
    assert push_targets(("git", "status"), None) is None


def test_project_push_guard_is_scoped():
    gh = guard("never push to gh-pages")
    assert bash([gh], "git push origin gh-pages") == [1]
    assert bash([gh], "git push origin gh-pages", cwd="/other") == []
    assert bash([gh], "git -C /home/u/web push origin gh-pages", cwd="/other") == [1]


# --------------------------------------------------------------------------- paths
def edit(guards, path, cwd=ROOT, **kw):
    return fired(guards, "Edit", {"file_path": path}, cwd, **kw)


def test_a_name_without_a_slash_matches_at_any_depth():
    mig = guard("don't touch migrations/")
    assert edit([mig], f"{ROOT}/migrations/0001.py") == [1]
    assert edit([mig], f"{ROOT}/db/migrations/x.py") == [1]
    assert edit([mig], f"{ROOT}/src/migrations_helper.py") == []
    assert edit([mig], f"{ROOT}/premigrations/x.py") == []
    assert edit([mig], f"{ROOT}/src/../migrations/x.py") == [1]
    assert edit([mig], "/home/u/other/migrations/x.py") == []
    assert edit([mig], "/home/u/web2/migrations/x.py") == []


def test_a_slash_inside_anchors_at_the_root():
    mig = guard("don't touch prisma/migrations/")
    assert edit([mig], f"{ROOT}/prisma/migrations/a/migration.sql") == [1]
    assert edit([mig], f"{ROOT}/migrations/a.sql") == []
    assert edit([mig], f"{ROOT}/apps/x/prisma/migrations/a.sql") == []
    assert edit([mig], f"{ROOT}/prisma/migrations_old/a.sql") == []


def test_file_patterns():
    env = guard("never edit .env")
    assert edit([env], f"{ROOT}/.env") == [1]
    assert edit([env], f"{ROOT}/config/.env") == [1]
    assert edit([env], f"{ROOT}/.env.example") == []
    assert edit([env], f"{ROOT}/.envrc") == []
    lock = guard("never edit *.lock")
    assert edit([lock], f"{ROOT}/yarn.lock") == [1]
    assert edit([lock], f"{ROOT}/yarn.lock.bak") == []


def test_shell_writes_hit_path_guards_and_reads_do_not():
    mig = guard("don't touch migrations/")
    assert bash([mig], "echo x >> migrations/a.sql") == [1]
    assert bash([mig], "rm -rf migrations") == [1]
    assert bash([mig], "cd migrations && echo > a.sql") == [1]
    assert bash([mig], "cat migrations/a.sql; ls migrations; grep -r x migrations") == []
    assert bash([mig], "cp migrations/a.sql /tmp/") == []


def test_absolute_and_home_patterns():
    hosts = Guard(GuardSpec(PathMatch(("/etc/hosts",)), "x"), 1, "global")
    assert edit([hosts], "/etc/hosts", cwd="/tmp") == [1]
    assert edit([hosts], "/etc/hosts.allow", cwd="/tmp") == []
    ssh = Guard(GuardSpec(PathMatch(("~/.ssh/",)), "x"), 2, "global")
    gs = GuardSet([ssh], home="/home/u")
    assert [h.guard.id for h in gs.check(normalize_call("Edit", {"file_path": "/home/u/.ssh/config"}, "/"))] == [2]
    assert GuardSet([ssh]).check(normalize_call("Edit", {"file_path": "/home/u/.ssh/config"}, "/")) == []


def test_global_relative_pattern_reads_the_call_project():
    env = Guard(GuardSpec(PathMatch((".env",)), "x"), 1, "global")
    assert edit([env], "/srv/app/.env", cwd="/srv/app/sub", project_root="/srv/app") == [1]
    assert edit([env], "/srv/app/.env", cwd="/srv/app") == [1]
    assert edit([env], "/srv/other/.env.local", cwd="/srv/app") == []


@pytest.mark.parametrize("pattern, usable", [
    ("migrations/", True), ("./schema.sql", True), ("**/*.gen.ts", True), ("[ab].txt", True),
    ("", False), ("../x", False), ("~/x", False), (".", False), (None, False),
])
def test_compile_pattern(pattern, usable):
    assert (compile_pattern(pattern) is not None) == usable


def test_globs():
    gen = Guard(GuardSpec(PathMatch(("src/**/*.gen.ts",)), "x"), 1, "project", ROOT)
    assert edit([gen], f"{ROOT}/src/a.gen.ts") == [1]
    assert edit([gen], f"{ROOT}/src/x/y/a.gen.ts") == [1]
    assert edit([gen], f"{ROOT}/lib/a.gen.ts") == []


# --------------------------------------------------------------------------- check()
def test_check_accepts_lists_guardsets_and_tool_call_events():
    event = ToolCall(session_id="s", name="Bash", args={"command": "npm i"}, cwd=ROOT)
    assert [h.guard.id for h in check([NPM], event)] == [1]
    assert [h.guard.id for h in check(GuardSet([NPM]), event)] == [1]
    assert [h.guard.id for h in check((NPM,), normalize_call("Bash", {"command": "npm i"}, ROOT))] == [1]
    assert check([NPM], ToolCall(session_id="s", name="Bash", args={"command": "pnpm i"}, cwd=ROOT)) == []


@pytest.mark.parametrize("guards, call", [
    (None, Call("Bash", ROOT)), ([None, 3, "x"], Call("Bash", ROOT)), ([NPM], None),
    ([NPM], object()), (3, Call("Bash", ROOT)),
])
def test_check_never_raises(guards, call):
    assert check(guards, call) == []


def test_one_hit_per_guard_in_guard_order_with_subjects():
    mig = guard("don't touch migrations/", 5)
    rmrf = guard("never run rm -rf", 2, scope="global")
    hits = GuardSet([mig, rmrf]).check(normalize_call("Bash", {"command": "rm -rf migrations; rm -rf migrations/x"}, ROOT))
    assert [(h.guard.id, h.subject, h.command) for h in hits] == [
        (5, "rm -rf migrations", True), (2, "rm -rf migrations", True)]
    hits = GuardSet([mig]).check(normalize_call("Edit", {"file_path": f"{ROOT}/migrations/a.py"}, ROOT))
    assert [(h.subject, h.path, h.command) for h in hits] == [("migrations/a.py", f"{ROOT}/migrations/a.py", False)]


def test_user_made_guards():
    bare = Guard(GuardSpec(CommandMatch(("npm",)), "no npm"), 1, "global")
    assert bash([bare], "npm --version") == [1]  # allow_info off: even information stops
    push_any = Guard(GuardSpec(PushMatch(), "no pushes"), 2, "global")
    assert bash([push_any], "git push") == [2]
    assert bash([push_any], "git push --dry-run") == []
    sudo = Guard(GuardSpec(SudoMatch(("sudo",)), "x"), 3, "global")
    assert bash([sudo], "doas x") == []

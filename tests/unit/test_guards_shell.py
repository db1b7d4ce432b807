"""tacit.guards.shell: command lines → programs run and paths written."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.guards.shell import DYN, patch_paths, program_name, scan

CWD = "/repo"


def programs(command, cwd=CWD, **kw):
    return [inv.program for inv in scan(command, cwd, **kw).invocations]


def argvs(command, cwd=CWD, **kw):
    return [inv.argv for inv in scan(command, cwd, **kw).invocations]


def writes(command, cwd=CWD, **kw):
    return [w.path for w in scan(command, cwd, **kw).writes]


def inv_of(command, program, cwd=CWD, **kw):
    found = [inv for inv in scan(command, cwd, **kw).invocations if inv.program == program]
    assert found, f"{program} not run by {command!r}"
    return found[0]


# --------------------------------------------------------------------------- lexing
@pytest.mark.parametrize("command, expected", [
    ("npm install", [("npm", "install")]),
    ('echo "npm install"', [("echo", "npm install")]),
    ("echo 'a b' c\\ d", [("echo", "a b", "c d")]),
    ("a && b || c; d | e & f", [("a",), ("b",), ("c",), ("d",), ("e",), ("f",)]),
    ("a\nb", [("a",), ("b",)]),
    ("a |& b", [("a",), ("b",)]),
    ("npm \\\n  install", [("npm", "install")]),
    ("pnpm i # npm install", [("pnpm", "i")]),
    ("echo a#b", [("echo", "a#b")]),
    ("echo $'a\\tb'", [("echo", "a\tb")]),
    ('"npm" install', [("npm", "install")]),
    ("FOO=1 BAR='x y' npm ci", [("npm", "ci")]),
    ("{ npm i; }", [("npm", "i")]),
    ("if npm test; then echo ok; fi", [("npm", "test"), ("echo", "ok")]),
    ("! npm test", [("npm", "test")]),
])
def test_words_and_separators(command, expected):
    assert argvs(command) == expected


def test_heredoc_body_is_data_and_the_line_after_it_runs():
    command = "cat > notes.md <<'EOF'\nnpm install\nEOF\nls -la"
    assert programs(command) == ["cat", "ls"]
    assert writes(command) == ["/repo/notes.md"]


def test_heredoc_with_dash_strips_tabs_from_the_delimiter():
    assert programs("cat <<-END\n\tnpm i\n\tEND\nls") == ["cat", "ls"]


def test_heredoc_fed_to_a_shell_runs():
    assert programs("bash <<'EOF'\nnpm install\nEOF") == ["bash", "npm"]
    assert programs("sh <<< 'npm ci'") == ["sh", "npm"]


def test_command_substitutions_run_in_their_own_subshell():
    assert programs("echo $(npm bin)") == ["npm", "echo"]
    assert programs("echo `npm root -g`") == ["npm", "echo"]
    assert programs('echo "x $(npm ls) y"') == ["npm", "echo"]
    assert programs("diff <(npm ls) <(pnpm ls)") == ["npm", "pnpm", "diff"]
    # a cd inside $( … ) does not leak out
    assert inv_of("echo $(cd /tmp; pwd) && npm i", "npm").cwd == "/repo"


def test_dynamic_words_are_marked_and_arithmetic_is_skipped():
    argv = inv_of("echo $HOME ${X:-y} $((1 + 2))", "echo").argv
    assert argv == ("echo", DYN, DYN, DYN)
    assert programs("$NPM install") == [""]


def test_fd_prefixes_and_duplications_are_not_words_or_writes():
    assert argvs("ls 2>/dev/null >> log.txt 2>&1") == [("ls",)]
    assert writes("ls 2>/dev/null >> log.txt 2>&1") == ["/dev/null", "/repo/log.txt"]
    assert writes("echo 2 > out") == ["/repo/out"]
    assert argvs("echo 2 > out") == [("echo", "2")]


def test_unterminated_quotes_run_to_the_end():
    assert argvs("echo 'unterminated") == [("echo", "unterminated")]
    assert argvs('npm install "left-pad') == [("npm", "install", "left-pad")]
    assert programs("echo $(npm i") == ["npm", "echo"]


# --------------------------------------------------------------------------- cd
def test_cd_is_followed_within_a_sequence():
    assert inv_of("cd app && npm install", "npm").cwd == "/repo/app"
    assert inv_of("cd /tmp/x; npm i", "npm").cwd == "/tmp/x"
    assert inv_of("cd app/../lib && npm i", "npm").cwd == "/repo/lib"


def test_a_subshell_cd_ends_with_the_subshell():
    scanned = scan("(cd sub; rm -rf build) && touch a", CWD)
    assert [w.path for w in scanned.writes] == ["/repo/sub/build", "/repo/a"]


def test_unknown_cd_keeps_the_last_folder_but_marks_it_inexact():
    inv = inv_of('cd "$DIR" && npm i', "npm")
    assert inv.cwd == "/repo" and inv.cwd_exact is False
    # relative writes are not resolved against a folder we do not know
    assert writes('cd "$DIR" && rm -f x && cd /tmp && rm -f y') == ["/tmp/y"]


def test_cd_home_needs_a_home():
    assert inv_of("cd ~/proj && npm i", "npm", home="/home/u").cwd == "/home/u/proj"
    assert inv_of("cd ~/proj && npm i", "npm").cwd_exact is False


# --------------------------------------------------------------------------- wrappers
@pytest.mark.parametrize("command, program, argv, via", [
    ("sudo -u app npm i -g pnpm", "npm", ("npm", "i", "-g", "pnpm"), ("sudo",)),
    ("doas pip install x", "pip", ("pip", "install", "x"), ("doas",)),
    ("env -i FOO=1 npm ci", "npm", ("npm", "ci"), ("env",)),
    ("time nice -n 5 timeout 10 npm test", "npm", ("npm", "test"), ("time", "nice", "timeout")),
    ("nohup npm run dev", "npm", ("npm", "run", "dev"), ("nohup",)),
    ("stdbuf -oL npm test", "npm", ("npm", "test"), ("stdbuf",)),
    ("command npm install", "npm", ("npm", "install"), ("command",)),
    ("exec npm start", "npm", ("npm", "start"), ("exec",)),
    ("xargs -n 1 npm install", "npm", ("npm", "install"), ("xargs",)),
    ("cross-env NODE_ENV=test jest", "jest", ("jest",), ("cross-env",)),
    ("npx --yes jest@29 --watch", "jest", ("jest", "--watch"), ("npx",)),
    ("pnpm exec jest --ci", "jest", ("jest", "--ci"), ("pnpm",)),
    ("pnpm dlx create-vite demo", "create-vite", ("create-vite", "demo"), ("pnpm",)),
    ("pnpm jest", "jest", ("jest",), ("pnpm",)),
    ("yarn dlx @biomejs/biome check", "biome", ("biome", "check"), ("yarn",)),
    ("npm exec -- vitest", "vitest", ("vitest",), ("npm",)),
    ("bunx vitest", "vitest", ("vitest",), ("bunx",)),
    ("uvx ruff check .", "ruff", ("ruff", "check", "."), ("uvx",)),
    ("uv run --with black black .", "black", ("black", "."), ("uv",)),
    ("uv run -m pytest", "pytest", ("pytest",), ("uv",)),
    ("poetry run pytest -q", "pytest", ("pytest", "-q"), ("poetry",)),
    ("python3 -m pip install x", "pip", ("pip", "install", "x"), ("python3",)),
    ("corepack pnpm install", "pnpm", ("pnpm", "install"), ("corepack",)),
    ("bash -c 'cd web && npm ci'", "npm", ("npm", "ci"), ("bash",)),
    ("sh -ec 'npm ci'", "npm", ("npm", "ci"), ("sh",)),
    ("eval npm install", "npm", ("npm", "install"), ("eval",)),
    ("su -c 'apt install x'", "apt", ("apt", "install", "x"), ("su",)),
    ("watch -n 5 npm test", "npm", ("npm", "test"), ("watch",)),
    ("npx -c 'npm install'", "npm", ("npm", "install"), ("npx",)),
])
def test_wrappers_are_seen_through(command, program, argv, via):
    inv = inv_of(command, program)
    assert inv.argv == argv
    assert inv.via == via


def test_lookups_and_script_files_run_nothing_inside():
    assert programs("command -v npm") == ["command"]
    assert programs("which npm") == ["which"]
    assert programs("bash build.sh") == ["bash"]
    assert programs("python3 -c 'import os'") == ["python3"]
    assert programs("pnpm test") == ["pnpm"]  # a script tacit cannot see
    assert programs("yarn add react") == ["yarn"]
    assert programs("uv pip install x") == ["uv"]


def test_containers_and_remote_hosts_are_not_seen_through():
    assert programs("docker run --rm node:20 npm ci") == ["docker"]
    assert programs("ssh prod 'sudo reboot'") == ["ssh"]
    assert programs("kubectl exec web -- npm test") == ["kubectl"]


def test_find_exec_runs_on_paths_below_the_start():
    scanned = scan("find migrations -name '*.pyc' -exec rm -f {} +", CWD)
    assert [inv.argv for inv in scanned.invocations][1] == ("rm", "-f", "migrations/{}")
    assert [w.path for w in scanned.writes] == ["/repo/migrations/{}"]


def test_env_chdir_moves_the_inner_command():
    assert inv_of("env -C web npm i", "npm").cwd == "/repo/web"


def test_argv_lists_from_codex():
    assert programs(["bash", "-lc", "npm i"]) == ["bash", "npm"]
    assert programs(["npm", "ci"]) == ["npm"]
    assert programs([1, 2]) == []


# --------------------------------------------------------------------------- program names
@pytest.mark.parametrize("word, name", [
    ("/usr/local/bin/npm", "npm"), ("npm.cmd", "npm"), ("C:\\node\\NPM.CMD", "npm"),
    ("./node_modules/.bin/jest", "jest"), ("pnpm", "pnpm"), ("python3.12", "python3.12"),
    ("", ""), (DYN, ""),
])
def test_program_name(word, name):
    assert program_name(word) == name


# --------------------------------------------------------------------------- writes
@pytest.mark.parametrize("command, paths", [
    ("echo x > a.txt", ["/repo/a.txt"]),
    ("echo x >> a.txt", ["/repo/a.txt"]),
    ("echo x &> a.txt", ["/repo/a.txt"]),
    ("echo x >| a.txt", ["/repo/a.txt"]),
    ("cat < in.txt", []),
    ("tee -a a b < x", ["/repo/a", "/repo/b"]),
    ("cp src/a.py dst/", ["/repo/dst"]),
    ("cp -t dst a b", ["/repo/dst"]),
    ("mv old new", ["/repo/old", "/repo/new"]),
    ("rm -rf build dist", ["/repo/build", "/repo/dist"]),
    ("touch a b", ["/repo/a", "/repo/b"]),
    ("mkdir -p -m 700 x/y", ["/repo/x/y"]),
    ("truncate -s 0 .env", ["/repo/.env"]),
    ("ln -s ../shared link", ["/repo/link"]),
    ("sed -i 's/a/b/' f.py", ["/repo/f.py"]),
    ("sed -i '' 's/a/b/' f.py", ["/repo/f.py"]),
    ("sed -i.bak -e 's/a/b/' f.py g.py", ["/repo/f.py", "/repo/g.py"]),
    ("sed 's/a/b/' f.py", []),
    ("perl -pi -e 's/a/b/' f.py", ["/repo/f.py"]),
    ("perl -i -pe 's/a/b/' f.py", ["/repo/f.py"]),
    ("dd if=/dev/zero of=disk.img", ["/repo/disk.img"]),
    ("curl -o out.json https://x", ["/repo/out.json"]),
    ("curl https://x", []),
    ("wget -O - https://x", []),
    ("find build -delete", ["/repo/build"]),
    ("git rm -r old", ["/repo/old"]),
    ("git checkout main -- a.py", ["/repo/a.py"]),
    ("git checkout main", []),
    ("rsync -av src/ host:/srv/", []),
    ("rsync -av src/ backup/", ["/repo/backup"]),
    ("sudoedit /etc/hosts", ["/etc/hosts"]),
    ("sudo -e /etc/hosts", ["/etc/hosts"]),
    ("echo x | sudo tee /etc/hosts", ["/etc/hosts"]),
    ("cat a.txt", []),
    ("grep -r x migrations/", []),
    ("rm ~/x", []),
])
def test_writes(command, paths):
    assert writes(command) == paths


def test_writes_normalise_dotdot_and_home():
    assert writes("echo > a/../b/c.txt") == ["/repo/b/c.txt"]
    assert writes("rm ~/x", home="/home/u") == ["/home/u/x"]


def test_apply_patch_through_the_shell():
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Add File: b/c.py\n+z\n*** End Patch"
    assert writes(["apply_patch", patch]) == ["/repo/a.py", "/repo/b/c.py"]
    assert writes(f"apply_patch <<'EOF'\n{patch}\nEOF") == ["/repo/a.py", "/repo/b/c.py"]


def test_patch_paths():
    text = ("*** Begin Patch\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@\n"
            "*** Delete File: old.txt\n*** End Patch")
    assert patch_paths(text) == ["src/a.py", "src/b.py", "old.txt"]
    assert patch_paths("no patch here") == []
    assert patch_paths(None) == []


# --------------------------------------------------------------------------- bad input
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("ab npm$()`'\"\\;&|<>\n{}#=~/-") + ["<<EOF\n", "EOF\n",
                                                                          "bash -c ", "\ud800"]),
                max_size=60).map("".join))
def test_never_raises(text):
    scanned = scan(text, CWD, home="/home/u")
    for inv in scanned.invocations:
        assert isinstance(inv.argv, tuple)
    for write in scanned.writes:
        assert write.path.startswith("/")


@pytest.mark.parametrize("command", [None, 3, b"npm i", {"a": 1}, "", "   ", "\x00npm i"])
def test_odd_input_gives_an_empty_or_harmless_scan(command):
    scan(command, CWD)
    scan(command, None)
    scan("npm i", "relative/cwd")


@pytest.mark.parametrize("big", ["$(" * 5000, "(" * 50000, "'" * 100001, "a " * 100000,
                                 "bash -c '" * 2000, "`" * 10000, "<<EOF\n" * 10000,
                                 "eval " * 20000, "npm i; " * 20000, "sudo " * 20000])
def test_huge_input_is_bounded(big):
    start = time.perf_counter()
    scanned = scan(big, CWD)
    # A loose bound that only a blow-up (quadratic or worse) crosses; speed itself is measured in
    # tests/benchmarks/guards.py, not here (0.3-0.8 s idle; a shared machine under load doubles it).
    assert time.perf_counter() - start < 10.0
    assert len(scanned.invocations) <= 2100

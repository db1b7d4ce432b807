"""Children cannot lose memory (tacit.children.integrity), with real child
processes: ``child_command`` in config.toml runs a small Python script that
does what a misbehaving (or well-behaved) agent would — garbage in MEMORY.md,
entries deleted by editing the file, ``tacit memory remove``, a rewritten
config.toml, a hang killed mid-write, a deleted skill folder — and
``run_job`` runs it exactly as for a real agent. A Hermes-host child (a fake
``hermes`` on PATH, the default command) writes the shared file directly
like Hermes's own memory tool: recorded as its change, not restored.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest
from engine_helpers import write_config
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit import changes
from tacit.app import USER, Tacit
from tacit.children import integrity
from tacit.children.commands import build_command
from tacit.children.launch import run_job_id
from tacit.children.runner import run_job
from tacit.config import load_config
from tacit.fsutil import lock_for
from tacit.hosts import spec as host_specs
from tacit.projects import forget_cache, project_for
from tacit.stores import history
from tacit.stores.ledger import Ledger
from tacit.stores.memory import ENTRY_DELIMITER, MemoryStore, project_dir
from tacit.stores.sessions import insert_job
from tacit.stores.skill_scopes import ScopedSkills
from tacit.stores.skills import SkillStore


def undo(cfg, change_id: int) -> dict:
    """``tacit memory undo`` as you."""
    with Tacit(cfg).as_actor(USER) as you:
        return changes.undo(you, change_id)


PRELUDE = '''\
import fcntl, json, os, shutil, subprocess, sys, time
from pathlib import Path

HOME = Path(os.environ["TACIT_HOME"])
GLOBAL = HOME / "memories" / "MEMORY.md"
SEP = "\\n§\\n"


def tacit(*args, stdin=None):
    proc = subprocess.run([sys.executable, "-P", "-m", "tacit", *args], input=stdin,
                          capture_output=True, text=True)
    print(proc.stdout, proc.stderr)
    return proc.returncode


def entries(path):
    return [e.strip() for e in Path(path).read_text().split(SEP) if e.strip()]


def write_directly(path, kept):
    Path(path).write_text(SEP.join(kept))  # no lock, no tacit: what a file tool does


def path_of(scope):
    proc = subprocess.run([sys.executable, "-P", "-m", "tacit", "memory", "show", "--json", "--scope", scope],
                          capture_output=True, text=True)
    return Path(json.loads(proc.stdout)["path"])

'''
CORRECTION = "no, use pnpm instead of npm"  # a rule tacit phrases exactly
STACK = ["The project uses pnpm.", "Tests live in tests/unit.", "Deploys run on Tuesdays.",
         "The dev server runs on port 5173."]


@pytest.fixture
def shop(tmp_path) -> Path:
    """A project folder (outside git: the folder is the project)."""
    folder = tmp_path / "shop"
    folder.mkdir()
    forget_cache()
    return folder


@pytest.fixture
def child(tacit_home, tacit_env, tmp_path):
    """``child(body, **settings)``: config.toml runs a Python script made of
    PRELUDE + body as the child agent; returns the Config."""

    def make(body: str, **settings):
        script = tmp_path / "child.py"
        script.write_text(PRELUDE + textwrap.dedent(body), encoding="utf-8")
        write_config(tacit_home, child_command=f"{sys.executable} {script} {{prompt_file}}", **settings)
        return load_config(env=tacit_env)

    return make


def job(kind="review", cwd=None, host="claude-code", job_id=None, **variables):
    return {"id": job_id or f"job-{kind}", "kind": kind, "session_id": "s1", "host": host,
            "cwd": None if cwd is None else str(cwd), "variables": variables or {"reason": "3 turns"}}


def rows(cfg, group=None) -> list[history.Change]:
    with Ledger(cfg) as ledger:
        found = history.group_of(ledger, group) if group else history.changes(ledger, limit=500)
    return list(reversed(found))  # oldest first


def child_records(cfg) -> list[dict]:
    return [json.loads(line) for line in cfg.children_log.read_text().splitlines()]


def project_store(cfg, folder) -> MemoryStore:
    return MemoryStore(cfg, project_for(str(folder)))


# ---------------------------------------------------------------------------
# garbage
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("garbage,why", [
    ("binary", "not valid UTF-8"),
    ("log", "one entry"),  # a pasted build log: one "entry" over the whole limit
    ("sloppy", "no longer §-separated entries"),
])
def test_garbage_in_memory_is_put_back_kept_aside_and_the_run_fails(child, garbage, why):
    cfg = child(f'''
        garbage = {{
            "binary": b"\\n\\xff\\xfe\\x00 not utf-8 \\xc3\\x28",
            "log": ("\\n§\\nBUILD LOG:\\n" + "\\n".join(f"[{{n:04d}}] chunk {{n}} ok" for n in range(400))).encode(),
            "sloppy": "\\n§\\n\\n\\nhalf an entry\\n §  \\n".encode(),
        }}[{garbage!r}]
        with open(GLOBAL, "ab") as handle:
            handle.write(garbage)
        print("Edited MEMORY.md directly.")
    ''', memory_char_limit=2200)
    store = MemoryStore(cfg)
    store.add("global", STACK[0])
    store.add("global", STACK[1])
    before = cfg.memory_file.read_bytes()

    record = run_job(cfg, job("review"))

    assert cfg.memory_file.read_bytes() == before
    (aside,) = cfg.memories_dir.glob("MEMORY.md.child-garbage.*")
    assert aside.read_bytes().startswith(before) and len(aside.read_bytes()) > len(before)
    assert stat.S_IMODE(aside.stat().st_mode) == 0o600
    assert record["ok"] is False and record["exit"] == 0 and record["nothing_to_save"] is False
    (line,) = record["restored"]
    assert line.startswith(f"MEMORY.md (global): {why}") and line.endswith(f"kept in {aside.name}")
    assert child_records(cfg)[-1]["restored"] == record["restored"]
    (restore,) = [r for r in rows(cfg, "job:job-review") if r.action == "restore"]
    assert (restore.actor.kind, restore.actor.name, restore.target) == ("learner", "integrity", str(cfg.memory_file))
    assert restore.before == restore.after == STACK[:2]  # nothing for undo to put back: the garbage is aside
    assert MemoryStore(cfg).remove("global", "pnpm")["success"]  # the drift guard is satisfied again


def test_a_child_killed_mid_garbage_write_leaves_the_file_as_it_was(child):
    cfg = child('''
        with open(GLOBAL, "wb") as handle:  # truncates: a half-written binary blob
            handle.write(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00\\x00\\rIHDR\\xff\\xd8")
            handle.flush()
            os.fsync(handle.fileno())
            print("writing...", flush=True)
            time.sleep(600)
    ''', child_timeout_seconds=2)
    store = MemoryStore(cfg)
    for entry in STACK:
        store.add("global", entry)
    before = cfg.memory_file.read_bytes()

    record = run_job(cfg, job("review"))

    assert record["killed"] is True and record["ok"] is False, json.dumps(record)
    assert cfg.memory_file.read_bytes() == before
    (line,) = record["restored"]
    assert line.startswith("MEMORY.md (global): not valid UTF-8; put back, the child's text kept in ")
    (aside,) = cfg.memories_dir.glob("MEMORY.md.child-garbage.*")
    assert aside.read_bytes().startswith(b"\x89PNG")
    assert [r.action for r in rows(cfg, "job:job-review")] == ["restore"]


# ---------------------------------------------------------------------------
# vanished entries
# ---------------------------------------------------------------------------


def test_entries_deleted_by_editing_the_file_are_put_back_where_they_were(child, shop):
    cfg = child('''
        target = path_of("project")
        write_directly(target, [e for e in entries(target) if "Tests" in e] + ["Use Node 20."])
    ''')
    store = project_store(cfg, shop)
    for entry in STACK:
        store.add("project", entry)

    record = run_job(cfg, job("review", cwd=shop))

    assert record["ok"] is False and record["restored"] == ["MEMORY.md (project): 3 entries put back"]
    # back in their places; what the child added directly is kept, as its own change
    assert store.entries("project") == [STACK[0], STACK[1], STACK[2], STACK[3], "Use Node 20."]
    edit, restore = rows(cfg, "job:job-review")
    assert record["recorded_edits"] == [f"MEMORY.md (project): 1 entry added by editing the file; kept, "
                                        f"recorded as the child's change (#{edit.id})"]
    assert (edit.action, edit.actor.kind, edit.actor.name, edit.actor.session_id) == ("edit", "child", "review", "s1")
    assert edit.removed() == [STACK[0], STACK[2], STACK[3]] and edit.added() == ["Use Node 20."]
    assert restore.action == "restore" and restore.added() == [STACK[0], STACK[2], STACK[3]]
    assert restore.project == edit.project == project_for(str(shop)).main_root


def test_an_entry_removed_through_tacit_stays_removed(child, shop):
    cfg = child('''
        sys.exit(tacit("memory", "remove", "--scope", "project", "pnpm"))
    ''')
    store = project_store(cfg, shop)
    for entry in STACK:
        store.add("project", entry)

    record = run_job(cfg, job("review", cwd=shop))

    assert record["ok"] is True and "restored" not in record and "recorded_edits" not in record
    assert store.entries("project") == STACK[1:]
    (remove,) = rows(cfg, "job:job-review")
    assert remove.action == "remove" and remove.actor.kind == "child" and remove.removed() == [STACK[0]]


def test_recorded_removals_stay_removed_and_the_direct_one_comes_back(child, shop):
    """A batch gets a group of its own (not the job's): the rows of the file
    after the snapshot decide, whoever's group they are in."""
    cfg = child('''
        ops = [{"action": "remove", "target": "project", "old_text": "Tests"},
               {"action": "replace", "target": "project", "old_text": "Tuesdays", "content": "Deploys run on Fridays."}]
        assert tacit("memory", "batch", "-", stdin=json.dumps(ops)) == 0
        target = path_of("project")
        write_directly(target, [e for e in entries(target) if "5173" not in e])
    ''')
    store = project_store(cfg, shop)
    for entry in STACK:
        store.add("project", entry)

    record = run_job(cfg, job("review", cwd=shop))

    assert record["restored"] == ["MEMORY.md (project): 1 entry put back"]
    assert store.entries("project") == [STACK[0], "Deploys run on Fridays.", STACK[3]]


def test_undoing_the_run_gives_back_the_state_before_it(child):
    """The child's direct edit is recorded as its own before the restore, so
    one undo of the job's group reverts its recorded add, the direct edit and
    the restore together — not re-delete what was put back."""
    cfg = child('''
        assert tacit("memory", "add", "--scope", "global", "Use Node 20.") == 0
        write_directly(GLOBAL, [e for e in entries(GLOBAL) if "pnpm" not in e and "Tests" not in e])
    ''')
    store = MemoryStore(cfg)
    for entry in STACK:
        store.add("global", entry)

    record = run_job(cfg, job("review"))
    assert record["restored"] == ["MEMORY.md (global): 2 entries put back"]
    assert store.entries("global") == [*STACK, "Use Node 20."]
    group = rows(cfg, "job:job-review")
    assert [r.action for r in group] == ["add", "edit", "restore"]

    result = undo(cfg, group[-1].id)
    assert result["success"], result
    assert store.entries("global") == STACK
    assert store.remove("global", "Tuesdays")["success"]  # a clean file afterwards


def test_a_direct_deletion_noticed_as_a_hand_edit_is_still_put_back_and_undone_with_the_run(child):
    """The child deletes entries by editing the file, then calls tacit: the
    store records the deletion as a hand edit before the add. That row is not
    trusted to remove entries, and the child's row keeps the run's undo whole."""
    cfg = child('''
        write_directly(GLOBAL, [e for e in entries(GLOBAL) if "pnpm" not in e] + ["Use Node 20."])
        assert tacit("memory", "add", "--scope", "global", "Use Yarn never.") == 0
    ''')
    store = MemoryStore(cfg)
    for entry in STACK:
        store.add("global", entry)

    record = run_job(cfg, job("review"))

    assert record["restored"] == ["MEMORY.md (global): 1 entry put back"]
    assert store.entries("global") == [*STACK, "Use Node 20.", "Use Yarn never."]
    hand = [r for r in rows(cfg) if r.actor.kind == "hand"]
    assert [(r.action, r.removed()) for r in hand] == [("edit", [STACK[0]])]
    assert [r.action for r in rows(cfg, "job:job-review")] == ["add", "edit", "restore"]
    assert record["recorded_edits"][0].startswith("MEMORY.md (global): 1 entry added by editing the file")

    assert undo(cfg, rows(cfg, "job:job-review")[0].id)["success"]
    assert store.entries("global") == STACK


def test_a_removal_another_session_makes_during_the_run_is_not_put_back(child):
    """Rows of any actor after the snapshot count: here the main agent's
    session removes an entry through tacit while the child runs."""
    cfg = child('''
        agent = json.dumps({"kind": "agent", "name": "shell", "session_id": "main", "host": "claude-code"})
        proc = subprocess.run([sys.executable, "-P", "-m", "tacit", "memory", "remove", "--scope", "global",
                               "Tuesdays"], env={**os.environ, "TACIT_ACTOR": agent}, capture_output=True)
        assert proc.returncode == 0, proc.stdout
    ''')
    store = MemoryStore(cfg)
    for entry in STACK:
        store.add("global", entry)

    record = run_job(cfg, job("review"))

    assert record["ok"] is True and "restored" not in record
    assert store.entries("global") == [STACK[0], STACK[1], STACK[3]]
    assert rows(cfg, "job:job-review") == []


def test_team_memory_and_project_skills_are_protected_too(child, shop):
    (shop / ".tacit").mkdir()
    (shop / ".tacit" / "MEMORY.md").write_text(ENTRY_DELIMITER.join(STACK[:2]))
    cfg = child('''
        team = path_of("team")
        write_directly(team, entries(team)[1:])
        skills = path_of("project").parent / "skills"
        shutil.rmtree(skills / "seed-db")
    ''')
    project = project_for(str(shop))
    assert project.is_shared
    skill = ScopedSkills(cfg, project).store("project").create("seed-db", "Seed the dev database.", SKILL_BODY)
    assert skill["success"], skill

    record = run_job(cfg, job("review", cwd=shop))

    assert record["restored"] == ["MEMORY.md (team): 1 entry put back",
                                  "skill seed-db (project): deleted without `tacit skill delete`; put back"]
    assert (shop / ".tacit" / "MEMORY.md").read_text() == ENTRY_DELIMITER.join(STACK[:2])
    assert Path(skill["path"]).is_file()


def test_a_file_whose_lock_stays_busy_is_reported_unchecked_and_fails_the_run(child, monkeypatch):
    cfg = child('''
        with open(GLOBAL, "ab") as handle:
            handle.write(b"\\xff")
    ''')
    MemoryStore(cfg).add("global", STACK[0])
    monkeypatch.setattr(integrity, "lock_for", lambda path: lock_for(path, timeout=0.2))
    with lock_for(cfg.memory_file):  # another writer that never lets go
        record = run_job(cfg, job("review"))
    assert record["ok"] is False and "restored" not in record
    assert record["unchecked"] == [f"{cfg.memory_file}: not checked, its lock stayed busy"]


# ---------------------------------------------------------------------------
# config.toml
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["rewrite", "delete"])
def test_a_child_never_changes_config(child, tacit_home, tmp_path, how):
    runs = tmp_path / "runs.txt"
    pwned = tmp_path / "pwned"
    evil = f'child_command = "touch {pwned}"\nchild_enabled = true\n'
    cfg = child(f'''
        with open({str(runs)!r}, "a") as handle:
            handle.write("ran\\n")
        config = HOME / "config.toml"
        if {how!r} == "rewrite":
            config.write_text({evil!r})
        else:
            config.unlink()
    ''')
    original = cfg.config_file.read_bytes()
    os.chmod(cfg.config_file, 0o640)

    record = run_job(cfg, job("review"))

    assert cfg.config_file.read_bytes() == original
    assert stat.S_IMODE(cfg.config_file.stat().st_mode) == 0o640
    what = "changed" if how == "rewrite" else "deleted"
    assert record["ok"] is False and record["restored"] == [f"config.toml: put back as it was (the child {what} it)"]
    (restore,) = [r for r in rows(cfg) if r.scope == "config"]
    assert restore.action == "restore" and restore.group == ""  # outside the job's group: undo knows no config
    assert restore.after == original.decode() and (restore.before is None) == (how == "delete")

    # the next job runs the command the user configured, not the child's
    again = run_job(load_config(env={**cfg.env, "TACIT_HOME": cfg.home_str}), job("review", job_id="job-2"))
    assert again["mode"] == "agent" and again["restored"] == record["restored"]
    assert runs.read_text() == "ran\nran\n" and not pwned.exists()


def test_a_link_the_child_puts_in_place_of_a_file_or_folder_is_never_written_through(child, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "bashrc").write_text("export PATH=/usr/bin\n")
    cfg = child(f'''
        config = HOME / "config.toml"
        config.unlink()
        config.symlink_to({str(outside / "bashrc")!r})
        shutil.rmtree(HOME / "memories")
        (HOME / "memories").symlink_to({str(outside)!r})
        (Path({str(outside)!r}) / "MEMORY.md").write_text("planted")
    ''')
    original = cfg.config_file.read_bytes()
    MemoryStore(cfg).add("global", STACK[0])

    record = run_job(cfg, job("review"))

    assert not cfg.config_file.is_symlink() and cfg.config_file.read_bytes() == original  # the link replaced
    assert (outside / "bashrc").read_text() == "export PATH=/usr/bin\n"
    assert (outside / "MEMORY.md").read_text() == "planted"
    assert {p.name for p in outside.iterdir()} == {"bashrc", "MEMORY.md"}  # not even a lock file
    assert record["ok"] is False and record["restored"] == ["config.toml: put back as it was (the child changed it)"]
    (line,) = record["unchecked"]
    assert line.startswith(f"{cfg.memory_file}: not put back: {cfg.memories_dir} now leads to {outside}")


# ---------------------------------------------------------------------------
# skills
# ---------------------------------------------------------------------------

SKILL_BODY = ("## When to Use\nWhen deploying.\n\n## Procedure\n1. Build.\n2. Ship.\n\n"
              "## Pitfalls\nNone yet.\n\n## Verification\nIt is live.\n")


def make_skill(cfg) -> Path:
    result = SkillStore(cfg).create("deploy-app", "Deploy the web app to production.", SKILL_BODY)
    assert result["success"], result
    folder = Path(result["path"]).parent
    (folder / "references").mkdir()
    (folder / "references" / "hosts.md").write_text("prod: web-1\n")
    return folder


def test_a_deleted_skill_folder_comes_back_with_its_files(child):
    cfg = child('''
        shutil.rmtree(HOME / "skills" / "deploy-app")
    ''')
    folder = make_skill(cfg)
    text = (folder / "SKILL.md").read_bytes()

    record = run_job(cfg, job("skill"))

    assert record["ok"] is False
    assert record["restored"] == ["skill deploy-app (global): deleted without `tacit skill delete`; put back"]
    assert (folder / "SKILL.md").read_bytes() == text
    assert (folder / "references" / "hosts.md").read_text() == "prod: web-1\n"
    assert SkillStore(cfg).view("deploy-app")["success"]
    assert [(r.action, r.actor.kind) for r in rows(cfg, "job:job-skill")] == [("skill_delete", "child"),
                                                                             ("restore", "learner")]


def test_a_skill_deleted_through_tacit_stays_deleted(child):
    cfg = child('''
        sys.exit(tacit("skill", "delete", "deploy-app", "--scope", "global"))
    ''')
    folder = make_skill(cfg)

    record = run_job(cfg, job("skill"))

    assert record["ok"] is True and "restored" not in record
    assert not folder.exists() and list((cfg.skills_dir / ".trash").iterdir())


def test_a_skill_md_left_unparseable_is_put_back_and_a_clean_edit_is_kept(child):
    cfg = child('''
        skills = HOME / "skills"
        (skills / "deploy-app" / "SKILL.md").write_text("# deploy\\nno frontmatter any more\\n")
        other = skills / "release" / "SKILL.md"
        other.write_text(other.read_text().replace("Tag.", "Tag and push."))
    ''')
    folder = make_skill(cfg)
    SkillStore(cfg).create("release", "Cut a release.", SKILL_BODY.replace("Ship.", "Tag."))
    text = (folder / "SKILL.md").read_bytes()

    record = run_job(cfg, job("skill"))

    assert (folder / "SKILL.md").read_bytes() == text
    (aside,) = folder.glob("SKILL.md.child-garbage.*")
    assert aside.read_text() == "# deploy\nno frontmatter any more\n"
    (line,) = record["restored"]
    assert line.startswith("skill deploy-app (global): SKILL.md no longer parses (no frontmatter")
    assert "Tag and push." in (cfg.skills_dir / "release" / "SKILL.md").read_text()  # parses: kept
    (edit,) = [r for r in rows(cfg, "job:job-skill") if r.action == "skill_edit"]
    assert record["recorded_edits"] == [f"skill release (global): changed by writing the file; recorded as the "
                                        f"child's change (#{edit.id})"]
    assert record["ok"] is False


# ---------------------------------------------------------------------------
# Hermes: its own tools write the shared files
# ---------------------------------------------------------------------------


@pytest.fixture
def fake_hermes(tmp_path, tacit_env, monkeypatch):
    """``hermes`` on PATH: the default Hermes child command runs it."""

    def install(body: str):
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir(exist_ok=True)
        # tacit runs Hermes's entry point (hermes_cli.main) with the prompt from stdin, so the
        # fake is that module too, found through PYTHONPATH
        code = PRELUDE + textwrap.dedent(HERMES_ARGV) + textwrap.dedent(body)
        package = tmp_path / "fake-hermes" / "hermes_cli"
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text("")
        (package / "main.py").write_text(f"CODE = {code!r}\n\n\ndef main():\n"
                                         "    exec(compile(CODE, 'fake-hermes', 'exec'), {'__name__': '__main__'})\n"
                                         "    return 0\n", encoding="utf-8")
        script = bin_dir / "hermes"
        script.write_text(f"#!{sys.executable}\nimport sys\nfrom hermes_cli.main import main\nsys.exit(main())\n",
                          encoding="utf-8")
        script.chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.setenv("PYTHONPATH", str(package.parent))
        tacit_env["PYTHONPATH"] = str(package.parent)
        tacit_env["PATH"] = f"{bin_dir}{os.pathsep}{tacit_env['PATH']}"
        return load_config(env=tacit_env)

    return install


HERMES_ARGV = '''
    # the default command: hermes -z PROMPT -t memory,skills --usage-file FILE, the prompt from stdin
    assert sys.argv[1].startswith("--oneshot=") and sys.argv[sys.argv.index("-t") + 1] == "memory,skills", sys.argv
'''
MEMORY_TOOL = '''
    with open(str(GLOBAL) + ".lock", "a+") as lock:  # Hermes's memory tool takes the same flock
        fcntl.flock(lock, fcntl.LOCK_EX)
        kept = [e for e in entries(GLOBAL) if "Tuesdays" not in e] + ["Staging deploys need a VPN."]
        tmp = GLOBAL.with_name(".MEMORY.md.hermes")
        tmp.write_text(SEP.join(kept))
        os.replace(tmp, GLOBAL)
'''


def test_a_hermes_child_writing_through_its_memory_tool_is_recorded_not_restored(fake_hermes):
    cfg = fake_hermes(MEMORY_TOOL)
    assert not cfg.child_command
    store = MemoryStore(cfg)
    for entry in STACK:
        store.add("global", entry)

    record = run_job(cfg, job("review", host="hermes"))

    assert record["ok"] is True and "restored" not in record, json.dumps(record)
    assert record["command"][0] == "hermes"
    assert store.entries("global") == [STACK[0], STACK[1], STACK[3], "Staging deploys need a VPN."]
    assert record["recorded_edits"][0].startswith("MEMORY.md (global): changed by its own memory tool")
    (edit,) = rows(cfg, "job:job-review")
    assert (edit.action, edit.actor.kind, edit.actor.host) == ("edit", "child", "hermes")
    assert edit.removed() == [STACK[2]] and edit.added() == ["Staging deploys need a VPN."]


def test_a_hermes_child_still_cannot_leave_garbage_or_change_config(fake_hermes):
    cfg = fake_hermes('''
        with open(GLOBAL, "ab") as handle:
            handle.write(b"\\xff\\xfe")
        (HOME / "config.toml").write_text("child_command = 'sh'\\n")
    ''')
    store = MemoryStore(cfg)
    store.add("global", STACK[0])
    before = cfg.memory_file.read_bytes()

    record = run_job(cfg, job("review", host="hermes"))

    assert cfg.memory_file.read_bytes() == before and not cfg.config_file.exists()
    assert record["ok"] is False
    assert record["restored"][0] == "config.toml: removed (the child created it)"
    assert record["restored"][1].startswith("MEMORY.md (global): not valid UTF-8; put back")


def test_the_same_direct_edit_by_a_hermes_host_child_command_is_restored(child):
    """A ``child_command`` may run anything: only the default Hermes command
    counts as Hermes's own tools."""
    cfg = child(MEMORY_TOOL)
    store = MemoryStore(cfg)
    for entry in STACK:
        store.add("global", entry)

    record = run_job(cfg, job("review", host="hermes"))

    assert record["restored"] == ["MEMORY.md (global): 1 entry put back"]
    assert store.entries("global") == [*STACK, "Staging deploys need a VPN."]


# ---------------------------------------------------------------------------
# the run's outcome
# ---------------------------------------------------------------------------


def test_a_correction_whose_child_had_to_be_undone_gets_the_deterministic_fallback(child):
    cfg = child('''
        GLOBAL.parent.mkdir(parents=True, exist_ok=True)
        GLOBAL.write_bytes(b"\\xff")
    ''')
    record = run_job(cfg, job("correction", correction=CORRECTION))
    assert record["ok"] is False and record["restored"]
    assert record["fallback"]["mode"] == "deterministic" and record["fallback"]["saved"]
    # no project: the rule goes to the user profile or the global notes, as its category says
    store = MemoryStore(cfg)
    assert store.entries("user") + store.entries("global") == record["fallback"]["saved"]


def test_the_job_row_records_what_was_put_back(child):
    cfg = child('''
        write_directly(GLOBAL, [])
    ''')
    MemoryStore(cfg).add("global", STACK[0])
    with Ledger(cfg) as ledger, ledger.write() as conn:
        insert_job(conn, job("review", job_id="job-row"))
    record = run_job_id(cfg, "job-row")
    with Ledger(cfg) as ledger, ledger.read() as conn:
        status, saved = conn.execute("SELECT status, record FROM jobs WHERE id = 'job-row'").fetchone()
    assert status == "failed" and json.loads(saved)["restored"] == record["restored"] == [
        "MEMORY.md (global): 1 entry put back"]


def test_a_child_that_changes_nothing_leaves_no_trace(child, shop):
    cfg = child('''
        print("Nothing to save.")
    ''')
    MemoryStore(cfg).add("global", STACK[0])
    make_skill(cfg)
    count = len(rows(cfg))
    record = run_job(cfg, job("review", cwd=shop))
    assert record["ok"] is True and record["nothing_to_save"] is True
    assert not {"restored", "recorded_edits", "unchecked"} & set(record)
    assert len(rows(cfg)) == count
    # no lock file, no project folder created for a project memory that does not exist
    assert not project_dir(cfg, project_for(str(shop))).exists()


# ---------------------------------------------------------------------------
# the pieces
# ---------------------------------------------------------------------------


def test_snapshot_copies_what_a_child_may_change_within_its_caps(cfg, shop, monkeypatch):
    store = project_store(cfg, shop)
    store.add("project", STACK[0])
    store.add("user", "Maya prefers short answers.")
    folder = make_skill(cfg)
    big = folder / "references" / "big.bin"
    big.write_bytes(b"x" * 5000)
    monkeypatch.setattr(integrity, "MAX_FILE_BYTES", 4096)

    snap = integrity.snapshot(cfg, job("review", cwd=shop))

    assert {m.scope: m.file.data for m in snap.memory} == {
        "user": b"Maya prefers short answers.", "global": None, "project": STACK[0].encode()}
    (skill,) = snap.skills
    assert [Path(f.path).name for f in skill.files] == ["SKILL.md", "hosts.md"]
    assert snap.skipped == (str(big),) and snap.config is not None and snap.config.data is None
    assert snap.history_id == rows(cfg)[-1].id and not snap.own_tools and snap.problem == ""


def test_parse_memory_follows_the_drift_guard():
    assert integrity.parse_memory(None, 100) == ([], None)
    assert integrity.parse_memory(b"", 100) == ([], None)
    assert integrity.parse_memory("a\n§\nb".encode(), 100) == (["a", "b"], None)
    assert integrity.parse_memory("\ufeffa".encode("utf-8"), 100) == (["a"], None)
    assert integrity.parse_memory(b"\xc3\x28", 100)[1] == "not valid UTF-8"
    assert integrity.parse_memory("a\n§\n\nb".encode(), 100)[1] == "no longer §-separated entries"
    assert "larger than the whole limit" in integrity.parse_memory(b"x" * 101, 100)[1]
    assert integrity.parse_memory(ENTRY_DELIMITER.join(["x" * 60] * 3).encode(), 100)[1] is None


entry_lists = st.lists(st.text(alphabet="abcdefgh ", min_size=1, max_size=6).map(str.strip).filter(bool),
                       unique=True, max_size=12)


@settings(max_examples=300, deadline=None)
@given(before=entry_lists, now=entry_lists)
def test_reconcile_without_records_loses_nothing(before, now):
    plan = integrity.reconcile(before, [], now)
    assert set(plan.entries) == set(before) | set(now) and len(plan.entries) == len(set(plan.entries))
    assert [e for e in plan.entries if e in now] == now  # what the child left keeps its order
    assert set(plan.vanished) == set(before) - set(now) and set(plan.direct) == set(now) - set(before)


@settings(max_examples=300, deadline=None)
@given(before=entry_lists, data=st.data())
def test_reconcile_puts_deleted_entries_back_in_their_places(before, data):
    """The child deleted some entries and appended others, without reordering."""
    kept = [e for e in before if data.draw(st.booleans())]
    new = [e for e in data.draw(entry_lists) if e not in before]
    plan = integrity.reconcile(before, [], kept + new)
    assert plan.entries == (*before, *new)


def change(action, before, after, kind="child"):
    return history.Change(id=1, at=0.0, action=action, scope="global", target="M", before=before, after=after,
                          actor=history.Actor(kind=kind))


def test_reconcile_trusts_recorded_changes_but_not_hand_edits():
    before = ["a", "b", "c", "d"]
    recorded = [change("remove", before, ["a", "c", "d"]), change("replace", ["a", "c", "d"], ["a", "C", "d"])]
    plan = integrity.reconcile(before, recorded, ["a", "C"])
    assert plan.entries == ("a", "C", "d") and plan.vanished == ("d",) and plan.direct == ()
    hand = [change("edit", before, ["b", "c", "d", "x"], kind="hand"), change("add", ["b", "c", "d", "x"],
                                                                           ["b", "c", "d", "x", "y"])]
    plan = integrity.reconcile(before, hand, ["b", "c", "d", "x", "y"])
    assert plan.entries == ("a", "b", "c", "d", "x", "y") and plan.vanished == ("a",) and plan.direct == ("x",)
    agent = [change("edit", before, ["b", "c", "d"], kind="agent")]  # Hermes's main session, recorded
    assert integrity.reconcile(before, agent, ["b", "c", "d"]).vanished == ()


def test_snapshot_and_verify_never_raise(cfg, tmp_path):
    for bad in ({}, {"id": None, "cwd": 42}, {"id": "x", "cwd": str(tmp_path / "missing"), "host": object()}):
        snap = integrity.snapshot(cfg, bad)
        verdict = integrity.verify(cfg, bad, snap)
        assert isinstance(verdict, integrity.Verdict)
    failed = integrity.verify(cfg, {}, integrity.Snapshot(job_id="j", own_tools=False, history_id=None,
                                                          problem="snapshot failed: OSError"))
    assert failed.ok is False and failed.unchecked == ("snapshot failed: OSError",) and failed.restored == ()


def test_hermes_tools_are_its_own_only_with_the_default_command(cfg):
    assert integrity.own_tools(cfg, {"host": "hermes"}) is True
    assert integrity.own_tools(cfg, {"host": "claude-code"}) is False
    assert integrity.own_tools(cfg.with_settings(child_command="hermes -z {prompt}"), {"host": "hermes"}) is False


def test_the_claude_child_has_no_edit_or_write_tool(cfg, tmp_path):
    argv = build_command(cfg, "claude-code", {"id": "j", "variables": {}}, "save it", tmp_path).argv
    assert argv[argv.index("--tools") + 1] == "Bash,Read"
    allowed = argv[argv.index("--allowedTools") + 1].split(",")
    assert allowed[0] == "Bash(tacit:*)" and allowed[1].startswith("Bash(") and allowed[1].endswith(":*)")
    assert allowed[2] == f"Read(/{cfg.home_str}/**)" and len(allowed) == 3
    assert not any("Edit" in a or "Write" in a for a in host_specs.get("claude-code").child_command)

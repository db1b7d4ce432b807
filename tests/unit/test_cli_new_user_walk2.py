"""A second walk through README.md and docs/guide.md as a new user: each test is one defect
found that way, run in-process from a git repository as ``tacit ARGS`` would (the first walk's
are in test_cli_new_user_walk.py)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def one_json(out: str) -> dict:
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    return json.loads(lines[0])


@pytest.mark.parametrize("args", [("memory", "log", "--limit", "0"), ("memory", "log", "--limit", "-3"),
                                  ("cost", "--days", "-5"), ("cost", "--days", "0"),
                                  ("search", "pnpm", "--limit", "0"), ("stats", "--days", "nan")])
def test_a_count_of_zero_or_less_is_a_usage_error(run, args):
    """`memory log --limit 0` showed one change and `cost --days -5` reported one day: a count
    that cannot mean anything was quietly read as 1 instead of being refused."""
    run("memory", "add", "Use pnpm in this repository.")
    run("memory", "add", "Node 20 is required.")
    code, out, err = run(*args)
    assert code == 2 and out == "" and "give a number above 0" in err, (out, err)
    code, out, _ = run(*args, "--json")
    data = one_json(out)
    assert code == 2 and data["success"] is False and "above 0" in data["error"], data


def test_a_positive_limit_still_limits(run):
    run("memory", "add", "Use pnpm in this repository.")
    run("memory", "add", "Node 20 is required.")
    code, out, _ = run("memory", "log", "--limit", "1", "--json")
    assert code == 0 and [c["text"] for c in one_json(out)["changes"]] == ["Node 20 is required."]


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\u0085"])
def test_a_line_separator_in_an_entry_is_a_line_break(run, cfg, brk):
    """U+2028/U+2029/U+0085 went into MEMORY.md raw: tacit's own reader splits lines at '\\n' only,
    so 'x<U+2028>§<U+2028>y' passed the separator check, yet every reader that splits lines as
    Python's str.splitlines does saw a '§' line there and two entries. Read as '\\n', it is refused."""
    code, _, err = run("memory", "add", f"Deploy notes{brk}§{brk}more")
    assert code == 1 and "'§' on a line of its own" in err, err
    code, out, _ = run("memory", "add", f"Release steps:{brk}1. tag{brk}2. push", "--json")
    assert code == 0, out
    code, out, _ = run("memory", "show", "--scope", "project", "--json")
    scope = one_json(out)
    assert scope["entries"] == ["Release steps:\n1. tag\n2. push"]
    raw = open(scope["path"], encoding="utf-8").read()
    assert brk not in raw and raw.splitlines() == raw.split("\n"), repr(raw)


def test_a_file_written_with_a_raw_separator_is_not_a_hand_edit(run, cfg):
    """A file an older tacit wrote with a raw U+2028 is read as the same entries with '\\n': the next
    save must not record a "hand edit" the user never made."""
    run("memory", "add", "Use pnpm in this repository.")
    code, out, _ = run("memory", "show", "--scope", "project", "--json")
    path = one_json(out)["path"]
    from tacit.stores import history
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("Use pnpm in this repository.\n§\nold\u2028entry")
    history.record(cfg, action="add", scope="project", target=path, before=["Use pnpm in this repository."],
                   after=["Use pnpm in this repository.", "old\u2028entry"], project="",
                   actor=history.Actor(kind="user", name="cli"))
    code, out, _ = run("memory", "add", "Node 20 is required.")
    assert code == 0, out
    code, out, _ = run("memory", "log", "--json")
    assert [c["action"] for c in one_json(out)["changes"]] == ["add", "add", "add"]


def test_changes_after_a_corrupt_ledger_go_on_numbering(run, cfg):
    """After a corrupt ledger was moved aside, change ids began again at #1: `memory undo 2` from an
    old notice then undid another change. They go on after the highest id the old one shows."""
    import os

    for text in ("Use pnpm in this repository.", "Node 20 is required.", "The dev server is on 5173."):
        run("memory", "add", text)
    for suffix in ("", "-wal", "-shm"):  # what Ledger._recover does with a corrupt one
        if os.path.exists(f"{cfg.ledger_path}{suffix}"):
            os.replace(f"{cfg.ledger_path}{suffix}", f"{cfg.ledger_path}.corrupt-20261201T000000{suffix}")
    code, out, _ = run("memory", "add", "Deploy with make ship.")
    assert code == 0 and out.rstrip().endswith("(undo: tacit memory undo 4)"), out
    code, out, _ = run("doctor")
    assert "numbers started again" not in out, out


def test_guards_after_a_corrupt_ledger_keep_no_old_number(run, cfg):
    """Guard ids began again at 1 in the fresh ledger too: the hand-made guards came back from
    guards.json in another order, so `tacit guard remove 1` from an old notice lifted another guard."""
    run("memory", "add", "Use pnpm in this repository, never npm.")
    run("guard", "add", "terraform apply", "--because", "Infrastructure goes through the ops PR.")
    code, out, _ = run("guard", "list", "--json")
    before = {g["id"]: g["because"] for g in one_json(out)["guards"]}
    assert sorted(before) == [1, 2], before
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(f"{cfg.ledger_path}{suffix}"):
            os.replace(f"{cfg.ledger_path}{suffix}", f"{cfg.ledger_path}.corrupt-20261201T000000{suffix}")
    code, out, _ = run("guard", "list", "--json")
    after = {g["id"]: g["because"] for g in one_json(out)["guards"]}
    assert sorted(after.values()) == sorted(before.values()) and min(after) > max(before), (before, after)
    code, _, err = run("guard", "remove", "1")
    assert code == 1 and "no guard '1'" in err, err


def test_an_unreadable_corrupt_ledger_is_told_by_doctor(run, cfg):
    """When the ledger moved aside cannot be read at all, numbering cannot go on: doctor says the
    numbers started again, so an old undo number is checked before it is used."""
    run("memory", "add", "Use pnpm in this repository.")
    for suffix in ("-wal", "-shm"):
        if os.path.exists(f"{cfg.ledger_path}{suffix}"):
            os.remove(f"{cfg.ledger_path}{suffix}")
    cfg.ledger_path.write_bytes(b"not a database " * 500)
    code, out, _ = run("memory", "add", "Node 20 is required.")
    assert code == 0 and "(undo: tacit memory undo 1)" in out, out
    assert list(cfg.state_dir.glob("ledger.db.corrupt-*"))
    code, out, _ = run("doctor", "--json")
    assert any("change and guard numbers started again at 1" in w for w in one_json(out)["warnings"]), out


def test_sharing_a_skill_moves_it_whole(run, tmp_path):
    """`tacit share --skill` made a new skill of the body: its `created` date and version began
    again, and its supporting files (references/…) went to the trash with the project copy."""
    body = tmp_path / "body.md"
    body.write_text("## When to Use\nA release.\n\n## Procedure\n1. `pnpm test`.\n")
    code, out, _ = run("skill", "create", "--name", "release", "--description", "Cut a release",
                       "--body-file", str(body), "--json")
    path = one_json(out)["path"]
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    import re
    text = re.sub(r"(?m)^created: .*$", "created: '2025-03-04T05:06:07Z'", text)
    text = re.sub(r"(?m)^version: .*$", "version: 1.4.2", text)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.makedirs(os.path.join(os.path.dirname(path), "references"))
    with open(os.path.join(os.path.dirname(path), "references", "api.md"), "w", encoding="utf-8") as handle:
        handle.write("The release API.\n")
    assert run("share", "init")[0] == 0
    code, out, _ = run("share", "--skill", "release", "--json")
    assert code == 0, out
    code, out, _ = run("skill", "view", "release", "--json")
    shared = one_json(out)
    assert "/.tacit/skills/release/" in shared["path"]
    assert "created: '2025-03-04T05:06:07Z'" in shared["content"] and "version: 1.4.2" in shared["content"]
    code, out, _ = run("skill", "view", "release", "--file", "references/api.md", "--json")
    assert code == 0 and "The release API." in out, out


def test_a_huge_team_memory_is_read_only_in_part_and_doctor_says_so(run, web):
    """A clone's 100 MB `.tacit/MEMORY.md` was read whole by every session start, `memory show`
    and doctor (32 s and 400 MB for a snapshot): it is read up to entries.MAX_FILE_BYTES, doctor
    names it, and a write that would rewrite only its first part is refused."""
    from tacit.stores.entries import MAX_FILE_BYTES

    assert run("share", "init")[0] == 0
    team = web / ".tacit" / "MEMORY.md"
    entry = "Run the release from the main branch only, after the tests pass. "
    count = MAX_FILE_BYTES // len(entry) + 2000
    team.write_text("\n§\n".join(f"{entry}{n}" for n in range(count)), encoding="utf-8")
    code, out, _ = run("doctor", "--json")
    data = one_json(out)
    assert code == 1 and any(f"{team} is {team.stat().st_size:,} bytes" in p for p in data["problems"]), data
    code, out, _ = run("memory", "show", "--scope", "team", "--json")
    shown = one_json(out)["entries"]
    assert shown[0] == f"{entry}0" and 0 < len(shown) < count and shown[-1].startswith(entry), len(shown)
    size = team.stat().st_size
    code, _, err = run("memory", "add", "--scope", "team", "Tag releases vX.Y.Z.")
    assert code == 1 and "will not rewrite it" in err and team.stat().st_size == size, err
    code, out, _ = run("memory", "snapshot")
    assert code == 0 and f"{entry}0" in out


def test_guard_test_says_when_guards_are_off(run, cfg, monkeypatch):
    """With `guards_enabled = false` (configuration.md: "Off: nothing is stopped") `tacit guard
    test "npm install"` still answered that the guard would stop it, and nothing said otherwise."""
    run("memory", "add", "Use pnpm in this repository, never npm.")
    cfg.config_file.write_text("guards_enabled = false\n", encoding="utf-8")
    code, out, _ = run("guard", "test", "npm install")
    assert code == 0 and "Guards are off (guards_enabled = false in config.toml): nothing is stopped." in out, out
    code, out, _ = run("guard", "test", "npm install", "--json")
    data = one_json(out)
    assert data["fires"] is True and data["guards_enabled"] is False
    cfg.config_file.write_text("", encoding="utf-8")
    code, out, _ = run("guard", "test", "npm install")
    assert code == 0 and "guard 1 (ask)" in out and "Guards are off" not in out, out
    monkeypatch.setenv("TACIT_GUARDS_ENABLED", "0")  # it said "in config.toml" whatever had set it
    code, out, _ = run("guard", "test", "npm install")
    assert "Guards are off (guards_enabled = false in environment TACIT_GUARDS_ENABLED)" in out, out


def test_a_project_install_needs_a_real_project_folder(run, tmp_path):
    """`tacit install pi --scope project --project-dir /typo` made the typo's folders and installed
    there; in the home folder (never a project) it wrote the user-scope plugin folder, which a
    later `tacit uninstall claude-code` then took for the user install."""
    from pathlib import Path

    home = Path(os.environ["HOME"])
    missing = tmp_path / "no-such" / "repo"
    code, out, _ = run("install", "pi", "--scope", "project", "--project-dir", str(missing), "--json")
    data = one_json(out)
    assert code == 1 and "no such folder" in data["error"] and not missing.parent.exists(), data
    code, _, err = run("install", "claude-code", "--scope", "project", "--project-dir", str(home))
    assert code == 1 and "your home folder, never a project" in err and not (home / ".claude").exists(), err
    code, out, _ = run("install", "pi", "--scope", "project")  # from inside the repository: fine
    assert code == 0 and "(project scope)" in out, out
    assert run("uninstall", "pi", "--scope", "project")[0] == 0
    app = home / "app"
    app.mkdir()
    code, out, _ = run("install", "pi", "--scope", "project", "--project-dir", "~/app")  # quoted: no shell expanded it
    assert code == 0 and (app / ".pi" / "extensions" / "tacit" / "index.ts").exists(), out
    assert not Path("~").exists()  # not a literal '~' folder here
    assert run("uninstall", "pi", "--scope", "project", "--project-dir", "~/app")[0] == 0


def test_search_says_since_when_it_looked(run):
    """`tacit search port --since 2025-03-13` answered "0 exchanges for "port" in all projects." as
    if there were none at all; --host is said in that line, --since was not."""
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "docs" / "examples" / "claude-code-session.jsonl"
    folder = Path(os.environ["HOME"]) / ".claude" / "projects" / "-home-maya-code-invoicely"
    folder.mkdir(parents=True)
    shutil.copy(examples, folder / examples.name)
    code, out, _ = run("search", "port", "5173", "--all-projects", "--since", "2025-03-13")
    assert code == 0 and out.startswith('0 exchanges for "port 5173" in all projects, since 2025-03-13 00:00.'), out
    code, out, _ = run("search", "port", "5173", "--all-projects", "--since", "2025-03-12")
    assert code == 0 and out.startswith('2 exchanges for "port 5173" in all projects, since 2025-03-12'), out
    assert "the **port** is **5173** not 3000" in out


def test_a_pasted_page_is_named_not_repeated_whole(run):
    """`tacit memory why` and `tacit search` given a whole pasted page (100,000 chars) printed it
    back whole in their one-line answer."""
    page = "word " * 20_000
    code, _, err = run("memory", "why", page)
    assert code == 1 and "none ever did" in err and len(err) < 400, len(err)
    code, out, _ = run("search", page, "--all-projects")
    assert code == 0 and out.startswith("0 exchanges for") and len(out) < 400, len(out)


@pytest.mark.parametrize("brk", ["\u2028", "\f", "\x85"])
def test_an_instruction_line_is_numbered_as_editors_number_it(run, web, brk):
    """AGENTS.md was split with str.splitlines: a U+2028 or form feed inside line 1 made the rule on
    line 3 'AGENTS.md:4' in the guard's reason and listing, and `--line AGENTS.md:N` named another line."""
    (web / "AGENTS.md").write_text(f"# Rules{brk}for agents\n\n- Never run `make deploy`.\n", encoding="utf-8")
    code, out, _ = run("guard", "list")
    assert code == 0 and "from the repository's AGENTS.md:3" in out, out
    code, out, _ = run("guard", "test", "make deploy")
    assert "AGENTS.md:3" in out, out


def test_a_clones_memory_cannot_drive_the_terminal(run, web):
    """A team MEMORY.md or AGENTS.md a clone brought is untrusted, yet `tacit memory show` and
    `tacit guard list` printed its escape sequences raw: a line could retitle or clear the terminal
    (OSC 0, CSI 2J). The agent's copy was cleaned; the person's is now too."""
    assert run("share", "init")[0] == 0
    (web / ".tacit" / "MEMORY.md").write_text("Ship on Fridays.\x1b]0;pwned\x07\x1b[2J\rgone", encoding="utf-8")
    (web / "AGENTS.md").write_text("- Never run `make deploy`.\x1b[2J\n", encoding="utf-8")
    for args in (("memory", "show", "--scope", "team"), ("guard", "list"), ("memory", "snapshot")):
        code, out, err = run(*args)
        assert code == 0 and "\x1b" not in out + err and "\r" not in out + err, (args, out)
    code, out, _ = run("memory", "show", "--scope", "team")
    assert "1. Ship on Fridays.\n     gone" in out, out  # the \r is a line ending there
    code, out, _ = run("memory", "show", "--scope", "team", "--json")  # --json keeps the text as it is
    assert one_json(out)["entries"] == ["Ship on Fridays.\x1b]0;pwned\x07\x1b[2J\ngone"]


def test_a_quoted_tilde_project_is_the_same_project_for_every_command(run):
    """`--project "~/src/app"` (quoted, so no shell expanded it) was accepted: `memory add` found the
    project, but `guard list` and `off --status` read the literal '~' and said "no project"."""
    from pathlib import Path

    from guard_helpers import git_repo

    git_repo(Path(os.environ["HOME"]) / "src" / "app")
    code, out, _ = run("memory", "add", "--project", "~/src/app", "Use pnpm in this repository, never npm.")
    assert code == 0 and "[project:" in out, out
    code, out, _ = run("guard", "list", "--project", "~/src/app")
    assert code == 0 and "Guards that apply in app" in out and "`npm` (any use)" in out, out
    code, out, _ = run("off", "--status", "--project", "~/src/app")
    assert code == 0 and "tacit is on for" in out and "/src/app" in out, out

"""What a new user walking through docs/guide.md ran into: each test is one
defect found that way (wrong text, a ``--json`` answer that is not the
contract's object, an undo that did not restore), run in-process from a git
repository as ``tacit ARGS`` would."""

from __future__ import annotations

import json
import shutil

import pytest
from guard_helpers import git_repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def one_json(out: str) -> dict:
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    data = json.loads(lines[0])
    assert isinstance(data, dict) and next(iter(data)) == "success", data
    return data


def test_guard_test_json_says_success_first(run):
    run("memory", "add", "we use pnpm here, never npm")
    for command in ("npm install", "pnpm add zod"):
        code, out, _ = run("guard", "test", command, "--json")
        data = one_json(out)
        assert code == 0 and data["success"] is True and data["fires"] is (command == "npm install")


def test_memories_json_without_a_ledger_is_one_object(run, cfg):
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    cfg.ledger_path.mkdir()  # a folder where the ledger should be
    code, out, _ = run("memories", "--json")
    data = one_json(out)
    assert code == 1 and data["success"] is False and "ledger" in data["error"]


def test_a_project_folder_that_does_not_exist_is_refused(run, cfg, tmp_path):
    """A typo in --project wrote the note to the global notes (no project there), seen in every project."""
    missing = tmp_path / "no-such-folder"
    code, out, _ = run("memory", "add", "--project", str(missing), "Deploy with make ship.", "--json")
    data = one_json(out)
    assert code == 1 and data["success"] is False and str(missing) in data["error"]
    assert not cfg.memory_file.exists() or "make ship" not in cfg.memory_file.read_text()
    code, _, err = run("guard", "list", "--project", str(missing))
    assert code == 1 and "no such folder" in err


def test_a_move_is_one_change_and_one_undo_puts_it_back(run, cfg):
    """A move was two unrelated rows (add there, remove here): undoing the one a user found left a copy."""
    run("memory", "add", "Node 20 is required (see .nvmrc).")
    code, out, _ = run("memory", "move", "Node 20", "--to", "global")
    assert code == 0 and out.startswith("Moved from project to global.") and "tacit memory undo" in out
    undo_id = out.rsplit("tacit memory undo ", 1)[1].strip(" ).\n")
    code, out, _ = run("memory", "undo", undo_id)
    assert code == 0, out
    code, out, _ = run("memory", "show", "--json")
    scopes = one_json(out)["scopes"]
    assert scopes["project"]["entries"] == ["Node 20 is required (see .nvmrc)."]
    assert scopes["global"]["entries"] == []


def test_doctor_counts_and_checks_the_project_skills_too(run, tmp_path):
    """doctor read the global skills folder only: a project skill broken by a hand edit went unreported."""
    body = tmp_path / "body.md"
    body.write_text("## When to Use\nA release.\n\n## Procedure\n1. `pnpm test`.\n")
    code, out, _ = run("skill", "create", "--name", "release", "--description", "Cut a release",
                       "--body-file", str(body), "--json")
    assert code == 0, out
    path = one_json(out)["path"]
    code, out, _ = run("doctor", "--json")
    assert one_json(out)["skills"]["count"] == 1
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("---\nname: release\ndescription: [unclosed\n---\nbody\n")
    code, out, _ = run("doctor")
    assert code == 1 and "Skills: 0 (1 unreadable)" in out and f"skill {path}" in out


def test_undoing_a_change_twice_names_that_change(run):
    """The undo a forget printed, run twice: the refusal named another row of its group, not the one asked."""
    run("memory", "add", "The dev server runs on port 5173.")
    run("memory", "add", "--scope", "user", "The dev server runs on port 5173 for me.")
    code, out, _ = run("forget", "dev server runs on port 5173", "--json")
    printed = one_json(out)["message"].rsplit("tacit memory undo ", 1)[1].rstrip(".")
    assert code == 0 and run("memory", "undo", printed)[0] == 0
    code, _, err = run("memory", "undo", printed)
    assert code == 1 and err.startswith(f"tacit: change #{printed} was already undone by #"), err


def test_a_skill_not_found_names_every_folder_looked_in(run, cfg):
    """In a project, `skill view` looks in the project's, the team's and the global skills, but its
    refusal named only the global folder, as if the project's had not been searched."""
    code, _, err = run("skill", "view", "nope")
    assert code == 1 and str(cfg.skills_dir) in err and "projects" in err, err


def test_calling_an_ask_guard_wrong_does_not_say_it_was_demoted(run):
    """A first strike on a guard that already asks said "demoted to ask", which changed nothing."""
    run("guard", "add", "terraform apply", "--because", "Infrastructure goes through the ops PR.")
    code, out, _ = run("guard", "wrong", "1")
    assert code == 0 and "demoted" not in out and "1 strike" in out, out
    run("guard", "set", "1", "--action", "deny")
    code, out, _ = run("guard", "wrong", "1")
    assert code == 0 and "demoted to ask" in out, out


def test_status_with_an_unusable_ledger_still_shows_memory_and_names_it(run, cfg):
    """`tacit status` failed whole (exit 1, one error line) when the ledger could not be opened; it is
    the one screen that should show memory and say what is wrong (cli.md: exit 0, problems the verdict)."""
    run("memory", "add", "Use pnpm in this repository.")
    cfg.ledger_path.unlink()
    cfg.ledger_path.mkdir()  # a folder where the ledger should be
    code, out, _ = run("status")
    assert code == 0 and "Memory (web):" in out and "ledger" in out.split("Problems", 1)[1], out
    code, out, _ = run("status", "--json")
    data = one_json(out)
    assert code == 0 and data["success"] is True and any("ledger" in p for p in data["problems"])


def test_a_save_the_history_could_not_record_says_so(run, cfg):
    """With the ledger unusable an add printed a plain "Entry added." (no undo id, no reason): the
    change is not in the history and cannot be undone, and the user was not told."""
    run("memory", "add", "Use pnpm in this repository.")
    cfg.ledger_path.unlink()
    cfg.ledger_path.mkdir()  # a folder where the ledger should be
    code, out, _ = run("memory", "add", "Node 20 is required.")
    assert code == 0 and out.startswith("Entry added.") and "not in the history" in out, out


def test_doctor_tells_of_a_memory_file_far_over_its_limit(run, cfg):
    """A hand edit leaving MEMORY.md four times over its limit got a ✓ and "100%" from doctor, though a
    session leaves half its entries out unread (guide: When memory is full)."""
    run("memory", "add", "--scope", "global", "Use pnpm everywhere.")
    path = cfg.memory_file
    path.write_text("\n§\n".join(f"entry {n} " + "x" * 200 for n in range(40)), encoding="utf-8")
    code, out, _ = run("doctor")
    assert "far over its limit" in out.split("Worth knowing:", 1)[-1] and str(path) in out, out
    code, out, _ = run("doctor", "--json")
    assert any("far over its limit" in w for w in one_json(out)["warnings"])


def test_skill_list_keeps_a_two_line_description_on_its_skills_line(run):
    """A description holding a newline broke `tacit skill list` into a line that looked like another skill."""
    code, out, _ = run("skill", "create", "--name", "two-lines", "--description", "line one\nline two")
    assert code == 0, out
    code, out, _ = run("skill", "list")
    assert code == 0 and out.splitlines() == ["two-lines  v1.0.0  line one line two"], out


def test_an_agents_md_saved_with_a_bom_keeps_its_first_rule(run, web):
    """An editor's byte-order mark glued to line 1 hid that line's rule (the other lines still counted)."""
    (web / "AGENTS.md").write_bytes(b"\xef\xbb\xbfNever run `make one`.\r\nNever run `make two`.\r\n")
    for target in ("one", "two"):
        code, out, _ = run("guard", "test", f"make {target}", "--json")
        assert code == 0 and one_json(out)["fires"] is True, (target, out)


def test_a_memory_file_saved_with_crlf_line_endings_keeps_its_entries_apart(run, cfg):
    """USER.md saved by a Windows editor read as one entry holding the '§' lines: removing one entry by a
    word of it removed them all."""
    run("memory", "add", "--scope", "user", "Prefers tabs.")
    cfg.user_file.write_bytes("Prefers tabs.\r\n§\r\nLikes short answers.\r\n".encode())
    code, out, _ = run("memory", "show", "--scope", "user", "--json")
    assert one_json(out)["entries"] == ["Prefers tabs.", "Likes short answers."]
    code, out, _ = run("memory", "remove", "--scope", "user", "tabs")
    assert code == 0, out
    assert cfg.user_file.read_text(encoding="utf-8") == "Likes short answers."


def test_a_separator_line_with_a_trailing_space_is_still_a_separator(run, cfg):
    """'§ ' (an editor's trailing space) was read as text inside one big entry, so a remove by a word of
    the first entry removed the second too; now the entries are read apart and the file, not clean, is not
    rewritten (as with blank lines around a '§')."""
    run("memory", "add", "--scope", "user", "Prefers tabs.")
    cfg.user_file.write_text("Prefers tabs.\n§ \nLikes short answers.", encoding="utf-8")
    code, out, _ = run("memory", "show", "--scope", "user", "--json")
    assert one_json(out)["entries"] == ["Prefers tabs.", "Likes short answers."]
    code, _, err = run("memory", "remove", "--scope", "user", "tabs")
    assert code == 1 and "Refusing to rewrite" in err
    assert cfg.user_file.read_text(encoding="utf-8") == "Prefers tabs.\n§ \nLikes short answers."


def test_sharing_a_skill_is_one_change_and_one_undo_puts_it_back(run, web):
    """`share --skill` was two unrelated rows (created in the team's, deleted from the project's) with
    no undo id printed; undoing the one a user found left the skill in one scope or the other."""
    run("share", "init")
    run("skill", "create", "--name", "release", "--description", "Cut a release")
    code, out, _ = run("share", "--skill", "release")
    assert code == 0 and "tacit memory undo" in out, out
    undo_id = out.rsplit("tacit memory undo ", 1)[1].strip(" ).\n")
    code, out, _ = run("memory", "undo", undo_id)
    assert code == 0 and "2 changes" in out, out
    code, out, _ = run("skill", "list", "--json")
    assert [(s["name"], s["scope"]) for s in one_json(out)["skills"]] == [("release", "project")]


def test_a_batch_file_that_is_not_utf8_is_refused_like_stdin(run, tmp_path, cfg):
    """A Latin-1 batch file was read with its bad bytes replaced: 'café' was saved as 'caf\\ufffd';
    the same batch on stdin was refused."""
    batch = tmp_path / "batch.json"
    batch.write_bytes(b'[{"action": "add", "target": "global", "content": "caf\xe9 au lait"}]')
    code, out, _ = run("memory", "batch", str(batch), "--json")
    data = one_json(out)
    assert code == 1 and "not valid UTF-8" in data["error"], data
    assert not cfg.memory_file.exists() or "\ufffd" not in cfg.memory_file.read_text(encoding="utf-8")


def test_json_given_before_the_action_still_answers_json(run):
    """`tacit memory --json show` printed text: the action's own --json (false) overwrote the group's."""
    run("memory", "add", "Use pnpm in this repository.")
    for args in (("memory", "--json", "show"), ("guard", "--json", "list"), ("memory", "--json", "log")):
        code, out, _ = run(*args)
        assert code == 0 and one_json(out)["success"] is True, (args, out)
    code, out, _ = run("memory", "add", "--", "--json")  # after "--" it is the entry's text
    assert code == 0 and out.startswith("Entry added."), out


def test_status_says_when_tacit_is_off_here(run, web):
    """After `tacit off`, the one-screen `tacit status` looked as usual ("Learned since yesterday:
    nothing"), with no word that tacit keeps and learns nothing here."""
    run("off")
    code, out, _ = run("status")
    assert code == 0 and "Off here:" in out and "tacit on" in out, out
    code, out, _ = run("status", "--json")
    assert "tacit off" in one_json(out)["off"]
    run("on")
    code, out, _ = run("status")
    assert "Off here" not in out


def test_memory_show_indents_the_later_lines_of_an_entry(run):
    """A two-line entry's second line "1. pnpm test" was printed at the margin, reading as entry 1."""
    run("memory", "add", "Use pnpm in this repository.")
    run("memory", "add", "Release steps:\n1. pnpm test\n2. pnpm version minor")
    code, out, _ = run("memory", "show", "--scope", "project")
    assert out.splitlines()[2:] == ["  1. Use pnpm in this repository.", "  2. Release steps:",
                                    "     1. pnpm test", "     2. pnpm version minor"], out


def test_a_team_memory_file_linked_out_of_the_repository_is_not_read(run, web, tmp_path):
    """A clone whose .tacit/MEMORY.md is a link to a file of yours (~/.bash_history, say) had that file's
    text shown as team memory and put into every session's context."""
    private = tmp_path / "private.txt"
    private.write_text("export AWS_PROFILE=prod\ncd /srv/secret-project", encoding="utf-8")
    (web / ".tacit" / "skills").mkdir(parents=True)
    (web / ".tacit" / "MEMORY.md").symlink_to(private)
    code, out, _ = run("memory", "snapshot")
    assert code == 0 and "secret-project" not in out, out
    code, _, err = run("memory", "add", "--scope", "team", "x")
    assert code == 1, err
    code, out, _ = run("doctor")
    assert code == 1 and "outside the repository" in out, out
    assert private.read_text(encoding="utf-8").endswith("secret-project")


def test_skill_list_without_a_version_says_so_not_none(run, cfg):
    """A hand-written SKILL.md with no `version:` was listed as 'vNone'."""
    folder = cfg.skills_dir / "by-hand"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: by-hand\ndescription: Written by hand\n---\nbody\n")
    code, out, _ = run("skill", "list")
    assert code == 0 and "by-hand  v?  Written by hand" in out, out
    code, out, _ = run("skills")
    assert code == 0 and "- by-hand (v?, updated ?): Written by hand" in out, out


def test_a_team_skills_folder_linked_out_of_the_repository_is_not_read(run, web, tmp_path):
    """A clone's .tacit/skills linked to a folder of yours listed (and indexed) its skills as the team's."""
    outside = tmp_path / "outside" / "leak"
    outside.mkdir(parents=True)
    (outside / "SKILL.md").write_text("---\nname: leak\ndescription: from outside the repository\n---\nbody\n")
    (web / ".tacit").mkdir()
    (web / ".tacit" / "MEMORY.md").write_text("The API lives in packages/api.")
    (web / ".tacit" / "skills").symlink_to(outside.parent)
    code, out, _ = run("skill", "list")
    assert code == 0 and "leak" not in out, out


def test_memory_log_names_the_project_of_a_change_made_in_another(run, tmp_path):
    """`tacit memory log` lists every project's changes, but a row said only "project": a change to
    another repository's memory read as one to this one's."""
    other = git_repo(tmp_path / "other")
    run("memory", "add", "--project", str(other), "Other uses yarn.")
    run("memory", "add", "Use pnpm in this repository.")
    code, out, _ = run("memory", "log")
    rows = [line for line in out.splitlines() if line.startswith("#")]
    assert "project (other)" in rows[1] and "(other)" not in rows[0] and " project " in rows[0], out


def test_an_entry_that_is_part_of_another_can_still_be_replaced(run):
    """Entries "5" and "The dev server runs on port 5173.": every substring of "5" is in both, so
    `replace` and `remove` refused it whatever text was given; the whole entry now picks it."""
    run("memory", "add", "The dev server runs on port 5173.")
    run("memory", "add", "5")
    code, out, err = run("memory", "replace", "5", "Node 20 is required.")
    assert code == 0, err
    code, out, _ = run("memory", "show", "--scope", "project", "--json")
    assert one_json(out)["entries"] == ["The dev server runs on port 5173.", "Node 20 is required."]
    code, _, err = run("memory", "remove", "port")
    assert code == 0, err
    run("memory", "add", "Node 20 is required. Node 20.")
    code, _, err = run("memory", "move", "Node 20 is required.", "--to", "global")
    assert code == 0, err


def test_an_add_refused_after_consolidating_says_what_the_consolidation_did(run):
    """Over the limit, add consolidates first; when the entry still did not fit, the refusal said only
    "MEMORY.md is at 30/2,200" (the count before the merge) and not that two entries had been merged."""
    run("memory", "add", "Use pnpm here.")
    run("memory", "add", "use pnpm here")
    code, _, err = run("memory", "add", "z" * 2190)
    assert code == 1 and "is at 14/2,200" in err and "consolidated" in err and "tacit memory log" in err, err


def test_a_forget_that_could_not_rewrite_does_not_say_no_entry_says_it(run, cfg, web):
    """An entry saying it, in a file tacit will not rewrite (blank lines around a '§'): the answer began
    "Nothing removed: no memory entry says …", untrue, and ended in '..'."""
    run("memory", "add", "Use pnpm here.")
    path = next((cfg.state_dir / "projects").glob("web-*")) / "MEMORY.md"
    path.write_text("Use pnpm here.\n\n§\n\nNever deploy from a laptop.", encoding="utf-8")
    code, _, err = run("forget", "deploy from a laptop")
    assert code == 1 and "no memory entry says" not in err and "could not be changed" in err, err
    assert not err.rstrip().endswith(".."), err
    code, out, _ = run("forget", "deploy from a laptop", "--json")
    data = one_json(out)
    assert code == 1 and data["success"] is False and "could not be changed" in data["error"], data


def test_a_body_file_holding_a_whole_skill_md_is_refused(run, tmp_path):
    """`skill create --body-file SKILL.md` with a file written whole by hand put its frontmatter into
    the body: the skill showed two frontmatter blocks, the second one's name and description unused."""
    whole = tmp_path / "SKILL.md"
    whole.write_text("---\nname: release\ndescription: Cut a release\n---\n## When to Use\nA release.\n")
    code, _, err = run("skill", "create", "--name", "release", "--description", "Cut a release",
                       "--body-file", str(whole))
    assert code == 1 and "frontmatter" in err, err
    body = tmp_path / "body.md"
    body.write_text("---\n\n## When to Use\nA release, after a horizontal rule.\n")
    code, _, err = run("skill", "create", "--name", "release", "--description", "Cut a release",
                       "--body-file", str(body))
    assert code == 0, err


def test_forget_in_a_session_that_could_not_rewrite_tells_the_agent_why(cfg):
    """"forget that …" typed in a session, its entry in a file tacit will not rewrite: the agent was told
    "it failed: None."."""
    from tacit.engine import Engine
    from tacit.events import MessageEnd

    cfg.user_file.parent.mkdir(parents=True, exist_ok=True)
    cfg.user_file.write_text("Use pnpm here.\n\n§\n\nThe staging box is called mercury.", encoding="utf-8")
    engine = Engine(cfg).load_builtins()
    result = engine.dispatch(MessageEnd(session_id="s1", host="claude-code", role="user",
                                        text="forget that the staging box is called mercury"))
    engine.close()
    told = " ".join(i.text for i in result.context)
    assert "it failed" in told and "None" not in told and "Refusing to rewrite" in told, told


def test_learn_with_nothing_readable_answers_an_error_sentence(run, tmp_path):
    """`tacit learn --json` of a path that does not exist: success false, exit 1, but no "error"."""
    code, out, _ = run("learn", str(tmp_path / "nope.jsonl"), "--json")
    data = one_json(out)
    assert code == 1 and data["success"] is False and "nope.jsonl" in data["error"], data


def test_memory_why_indents_the_later_lines_of_an_entry(run):
    """As in `memory show`: a later line of a multi-line entry printed at the margin."""
    run("memory", "add", "Release steps:\n1. pnpm test")
    code, out, _ = run("memory", "why", "Release steps")
    assert code == 0 and out.splitlines()[:2] == ["[project] Release steps:", "          1. pnpm test"], out

"""A third walk as a new user, after the second bug hunt: each test is one defect found that
way, run in-process from a git repository as ``tacit ARGS`` would (the earlier walks are in
test_cli_new_user_walk.py and test_cli_new_user_walk2.py)."""

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


def test_an_abbreviated_option_is_a_usage_error(run, tmp_path):
    """argparse took any unique prefix of an option: `tacit skill patch --content x` was read as
    `--content-file x` and answered "no such file: x", as if the text were a file name."""
    body = tmp_path / "body.md"
    body.write_text("## When to Use\nA release.\n\n## Procedure\n1. `pnpm test`.\n")
    assert run("skill", "create", "--name", "release", "--description", "Cut a release",
               "--body-file", str(body))[0] == 0
    code, out, err = run("skill", "patch", "release", "--section", "Procedure", "--content", "x")
    assert code == 2 and out == "" and "required: --content-file" in err and "no such file" not in err, err
    code, out, _ = run("skill", "patch", "release", "--section", "Procedure", "--content", "x", "--json")
    data = one_json(out)
    assert code == 2 and data["success"] is False and data["error"].startswith("usage: "), data
    code, out, _ = run("memory", "add", "Use pnpm.", "--sco", "global", "--json")  # a sub-command's option
    assert code == 2 and "unrecognized arguments: --sco" in one_json(out)["error"], out
    code, out, _ = run("memory", "show", "--json")  # the whole option still works
    assert code == 0 and one_json(out)["success"] is not False, out


def test_doctor_says_a_data_folder_under_a_file_cannot_be_made(run, monkeypatch, tmp_path):
    """TACIT_HOME=~/notes.txt/tacit (a file on the way): doctor marked every folder "ok" — they
    were missing, so it probed only their parent, and with no parent folder it probed nothing."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("not a folder\n")
    monkeypatch.setenv("TACIT_HOME", str(blocker / "tacit"))
    code, out, _ = run("doctor")
    assert code == 1 and f"✗ data folder: {blocker}/tacit (cannot be created: {blocker} is not a folder" in out, out
    code, out, _ = run("doctor", "--json")
    storage = one_json(out)["storage"]
    assert storage["data folder"]["ok"] is False and storage["skills"]["ok"] is False, storage
    monkeypatch.setenv("TACIT_HOME", str(tmp_path / "new" / "deeper" / "tacit"))  # missing, but can be made
    code, out, _ = run("doctor", "--json")
    assert one_json(out)["storage"]["data folder"]["ok"] is True, out


EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "examples")


def test_learned_runs_name_the_host_they_came_from_in_cost(run):
    """`tacit learn --apply` with no agent ran its jobs with no host: `tacit cost` put them all under
    "?". They are that transcript's sessions (claude-code), or "learn" for tacit's own JSONL."""
    code, out, _ = run("learn", os.path.join(EXAMPLES, "claude-code-session.jsonl"), "--apply", "--no-progress")
    assert code == 0 and "correction save" in out, out
    code, out, _ = run("learn", os.path.join(EXAMPLES, "session.jsonl"), "--apply", "--no-progress")
    assert code == 0, out
    code, out, _ = run("cost", "--json")
    by_host = one_json(out)["by_host"]
    assert "?" not in by_host and by_host["claude-code"]["runs"] >= 3 and by_host["learn"]["runs"] >= 2, by_host
    code, out, _ = run("cost")
    assert "\n  ?  " not in out and "claude-code" in out, out


def test_an_exclusion_from_the_environment_is_said_to_come_from_there(run, monkeypatch, web, cfg):
    """TACIT_EXCLUDE="~/work/*" kept a project off, and `tacit off --status` / `tacit on` sent the
    person to look for "exclude = … in config.toml", a file that had no such line."""
    monkeypatch.setenv("TACIT_EXCLUDE", f"{web.parent}/*")
    code, out, _ = run("off", "--status")
    assert code == 0 and f"('{web.parent}/*' in the environment's TACIT_EXCLUDE)" in out, out
    assert "config.toml" not in out, out
    code, out, _ = run("on")
    assert f"but '{web.parent}/*' in the environment's TACIT_EXCLUDE still keeps it off" in out, out
    monkeypatch.delenv("TACIT_EXCLUDE")
    cfg.config_file.write_text(f'exclude = ["{web.parent}/*"]\n', encoding="utf-8")
    code, out, _ = run("off", "--status")
    assert f"(exclude = '{web.parent}/*' in {cfg.config_file})" in out, out


def _example_in(web, tmp_path, name: str, **replace) -> str:
    """docs/examples/session.jsonl as a session of ``web``, with some of its texts replaced."""
    with open(os.path.join(EXAMPLES, "session.jsonl"), encoding="utf-8") as handle:
        text = handle.read().replace("/home/sam/src/orders-api", str(web))
    for old, new in replace.items():
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_learn_apply_says_what_it_saved_in_a_project_and_what_it_could_not(run, web, tmp_path):
    """A tacit JSONL session says its folder once (session_start): the later lines had no cwd, so
    a correction "in this repo" went to the global notes; saved in the project, the report said
    "Memory unchanged." (only USER.md and the global MEMORY.md were compared); and a correction it
    could not phrase was "→ done (deterministic)" though nothing was saved."""
    path = _example_in(web, tmp_path, "orders.jsonl", **{
        "we dont use poetry anymore, it's uv now. uv lock": "no, use pnpm not npm in this repo"})
    code, out, _ = run("learn", path, "--apply", "--no-progress")
    assert code == 0 and f"Added to the project memory of {web}:\n  + \"Use pnpm, not npm.\"" in out, out
    assert "Memory unchanged." not in out, out
    assert "validation goes in the pydant…\"  → nothing saved: no rule tacit can phrase exactly (an agent can)" in out, out
    code, out, _ = run("memory", "show", "--scope", "project", "--json")
    assert one_json(out)["entries"] == ["Use pnpm, not npm."], out
    code, out, _ = run("memory", "show", "--scope", "global", "--json")
    assert one_json(out)["entries"] == [], out
    code, out, _ = run("learn", path, "--apply", "--no-progress")  # again: nothing new
    assert code == 0 and "Memory unchanged." in out, out


def test_review_after_learn_says_where_the_notes_are(run):
    """`tacit learn --apply` notes what the replayed session said on that session's day; `tacit
    review` right after answered "nothing was noted" and nothing more, as if learn had noted nothing."""
    code, out, _ = run("learn", os.path.join(EXAMPLES, "claude-code-session.jsonl"), "--apply", "--no-progress")
    assert code == 0, out
    code, out, _ = run("review")
    assert code == 0 and "nothing was noted" in out and "undecided note(s) from other days wait: " \
        "`tacit review --all`" in out, out
    code, out, _ = run("review", "--all", "--json")
    data = one_json(out)
    assert data["items"] and "from other days" not in data["text"], data["text"]
    assert any("the port is 5173 not 3000" in item["content"] for item in data["items"]), data["items"]


CHILD = '''
import subprocess, sys
prompt = open(sys.argv[1], encoding="utf-8").read()
if "skill" in prompt.lower():
    body = sys.argv[1] + ".body.md"
    open(body, "w", encoding="utf-8").write("## When to Use\\nAn export.\\n\\n## Procedure\\n1. `pnpm test`.\\n")
    subprocess.run([sys.executable, "-m", "tacit", "skill", "create", "--name", "export-button", "--description",
                    "Add an export button next to the filter dropdown", "--body-file", body], capture_output=True)
    print("Created the skill export-button.")
else:
    print("Nothing to save.")
'''


def test_learn_apply_says_which_skills_its_agent_made(run, web, tmp_path, cfg):
    """With an agent, a skill extraction (or review) made a skill, and `tacit learn --apply` said
    only "Memory unchanged.": the new skill was in `tacit skill list` and nowhere in the report."""
    from learn_helpers import transcript_with_an_agent

    session = transcript_with_an_agent(cfg, web, tmp_path, CHILD)
    code, out, _ = run("learn", session, "--apply", "--no-progress")
    assert code == 0 and "skill extraction: 12 tool calls in one turn" in out and "→ done (agent)" in out, out
    assert "Skills created: export-button (project) (`tacit skill view NAME`)." in out, out
    code, out, _ = run("skill", "list", "--json")
    assert [s["name"] for s in one_json(out)["skills"]] == ["export-button"], out


def test_learn_with_a_host_whose_agent_is_missing_says_so(run, monkeypatch):
    """`tacit learn --apply --host codex` without codex installed skipped the reviews and said to
    pass "--host claude-code|codex|hermes|pi", the very flag that was given."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    if shutil.which("codex", path="/usr/bin:/bin"):
        pytest.skip("codex is installed here")
    code, out, _ = run("learn", os.path.join(EXAMPLES, "claude-code-session.jsonl"), "--apply", "--host", "codex",
                       "--no-progress")
    assert code == 0 and "and codex's cannot run here: `codex` is not found on PATH." in out, out
    assert "(--host claude-code|" not in out, out
    code, out, _ = run("learn", os.path.join(EXAMPLES, "claude-code-session.jsonl"), "--apply", "--host", "codex",
                       "--no-progress", "--json")
    assert one_json(out)["no_agent"] == "`codex` is not found on PATH", out


def test_a_correction_saved_without_an_agent_consolidates_a_full_file_first(run, web, tmp_path, cfg):
    """The no-agent correction save called the store's add directly: with the project memory full
    of an entry its longer twin contains, the rule was refused, where `tacit memory add` (and
    docs/memory.md) merge the duplicates first and retry once. Refused, the report said why."""
    cfg.config_file.write_text("project_char_limit = 100\n", encoding="utf-8")
    for text in ("Tests: run make test.", "Tests: run make test before pushing, always.", "The API lives in app/api."):
        assert run("memory", "add", text)[0] == 0
    path = _example_in(web, tmp_path, "full.jsonl", **{
        "we dont use poetry anymore, it's uv now. uv lock": "no, use pnpm not npm in this repo"})
    code, out, _ = run("learn", path, "--apply", "--no-progress")
    assert code == 0 and "+ \"Use pnpm, not npm.\"" in out, out
    code, out, _ = run("memory", "show", "--scope", "project", "--json")
    assert one_json(out)["entries"] == ["Tests: run make test before pushing, always.", "The API lives in app/api.",
                                        "Use pnpm, not npm."], out
    cfg.config_file.write_text("project_char_limit = 60\n", encoding="utf-8")  # no room whatever is merged
    path = _example_in(web, tmp_path, "fuller.jsonl", **{"fastapi-orders-2025-06-02": "another",
        "we dont use poetry anymore, it's uv now. uv lock": "no, use yarn not npm in this repo"})
    code, out, _ = run("learn", path, "--apply", "--no-progress")
    assert "→ not saved: 'Use yarn, not npm.': MEMORY.md is at 93/60 chars" in out, out


def test_learn_reports_every_scope_a_run_changed(run, web, tmp_path):
    """The memory of a session's project is compared from before its first job; the global notes
    and USER.md stay compared from the start: what an earlier session saved there is reported."""
    anywhere = _example_in(web, tmp_path, "a.jsonl", **{str(web): "", "fastapi-orders-2025-06-02": "first",
        "we dont use poetry anymore, it's uv now. uv lock": "no, use pnpm not npm in this repo"})
    here = _example_in(web, tmp_path, "b.jsonl", **{"fastapi-orders-2025-06-02": "second",
        "we dont use poetry anymore, it's uv now. uv lock": "no, use yarn not npm in this repo"})
    with open(here, "a", encoding="utf-8") as handle:  # a line whose session id is no string: refused, no crash
        handle.write('{"kind": "turn_end", "session_id": ["x"], "cwd": "/tmp"}\n')
    code, out, _ = run("learn", anywhere, here, "--apply", "--no-progress")
    assert code == 0 and "Added to MEMORY.md:\n  + \"Use pnpm, not npm.\"" in out, out
    assert f"Added to the project memory of {web}:\n  + \"Use yarn, not npm.\"" in out, out
    assert "1 malformed line skipped" in out, out

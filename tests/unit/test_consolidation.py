"""Consolidation without an agent: the deterministic merge, add-with-retry,
``/memory-consolidate`` and ``/memory-skills`` (functions and CLI)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tacit.consolidation import add_entry, consolidate_all, consolidate_target
from tacit.app import USER, Tacit
from tacit.slash import memory_consolidate, memory_skills
from tacit.stores.memory import MemoryStore, merge_duplicates, plan_merge


def you_of(cfg):
    """The front door of ``cfg`` acting as you."""
    return Tacit(cfg).as_actor(USER)


def test_plan_merge_merges_exact_duplicates_modulo_case_space_and_punctuation():
    kept, merges = plan_merge(["Use pnpm.", "Tests in tests/unit", "use  PNPM", "tests in tests/unit!"])
    assert kept == ["Use pnpm.", "Tests in tests/unit"]
    assert [m["why"] for m in merges] == ["duplicate", "duplicate"]


def test_plan_merge_keeps_the_fuller_of_two_overlapping_entries_at_the_first_position():
    entries = ["The API runs on port 8080", "Deploy on Tuesdays",
               "The API runs on port 8080 behind nginx", "Maya likes tabs"]
    kept, merges = plan_merge(entries)
    assert kept == ["The API runs on port 8080 behind nginx", "Deploy on Tuesdays", "Maya likes tabs"]
    assert merges == [{"kept": "The API runs on port 8080 behind nginx",
                       "dropped": "The API runs on port 8080", "why": "contained"}]


def test_plan_merge_never_touches_distinct_or_tiny_entries():
    entries = ["Use pnpm", "Use pnpm workspaces for the monorepo", "Prefers tabs", "Prefers spaces in YAML",
               "Never force-push main", "Always rebase feature branches"]
    kept, merges = plan_merge(entries)
    # "Use pnpm" (2 words) is too short to be judged contained in another entry
    assert kept == entries and merges == []


def test_merge_duplicates_rewrites_the_file_atomically_and_reports(cfg):
    store = MemoryStore(cfg)
    for e in ["The project uses pnpm", "Deploys on Tuesdays", "the project uses pnpm.",
              "Deploys on Tuesdays after the standup"]:
        store.add("memory", e)
    report = merge_duplicates(MemoryStore(cfg), "memory")
    assert report["merged"] == 2 and report["still_over"] is False
    assert cfg.memory_file.read_text() == "The project uses pnpm\n§\nDeploys on Tuesdays after the standup"
    again = merge_duplicates(MemoryStore(cfg), "memory")
    assert again["merged"] == 0


def test_an_overflowing_add_merges_duplicates_then_retries_once(cfg):
    small = cfg.with_settings(memory_char_limit=120)
    store = MemoryStore(small)
    assert store.add("memory", "Build with pnpm build in the web folder")["success"]
    # a hand edit left a near-duplicate behind
    cfg.memory_file.write_text(cfg.memory_file.read_text() + "\n§\nbuild with pnpm build in the web folder.")
    result = add_entry(you_of(small), "memory", "Staging resets nightly at 02:00 UTC and more")
    assert result["success"], result
    assert result["consolidation"]["mode"] == "deterministic"
    assert result["consolidation"]["merge"]["merged"] == 1
    assert store.entries("memory") == ["Build with pnpm build in the web folder",
                                       "Staging resets nightly at 02:00 UTC and more"]


def test_when_merging_cannot_make_room_the_original_error_returns_and_nothing_is_lost(cfg):
    small = cfg.with_settings(user_char_limit=100)
    prefs = ["Prefers short answers", "Never use emojis in commits", "Wants tests before refactors"]
    store = MemoryStore(small)
    for p in prefs:
        assert store.add("user", p)["success"]
    direct = store.add("user", "Works in Berlin, UTC+1, mornings only")
    result = add_entry(you_of(small), "user", "Works in Berlin, UTC+1, mornings only")
    assert result["success"] is False and result["error"] == direct["error"]
    assert result["consolidation"]["merge"]["merged"] == 0
    assert store.entries("user") == prefs  # no preference dropped to make room


def test_auto_consolidate_off_returns_the_plain_error(cfg):
    small = cfg.with_settings(memory_char_limit=40, auto_consolidate=False)
    MemoryStore(small).add("memory", "a" * 30)
    result = add_entry(you_of(small), "memory", "b" * 20)
    assert result["success"] is False and "consolidation" not in result


def test_consolidate_all_skips_empty_targets_and_reports_usage(cfg):
    MemoryStore(cfg).add("memory", "The project uses pnpm")
    MemoryStore(cfg).add("memory", "the project uses pnpm!")  # not an exact duplicate: both stored
    result = consolidate_all(you_of(cfg), use_agent=False, force=True)
    user, memory = result["reports"]  # the scopes in order: user, global (no project here)
    assert user == {"target": "user", "skipped": "empty"}
    assert memory["target"] == "global"
    assert memory["mode"] == "deterministic" and memory["merge"]["merged"] == 1
    assert memory["before"].endswith("/2,200 chars") and memory["after"] != memory["before"]
    assert "global:" in result["message"] and "user: skipped (empty)" in result["message"]


def test_memory_consolidate_text_flags_a_file_still_over_its_limit(cfg):
    MemoryStore(cfg).add("memory", "x" * 150)
    MemoryStore(cfg).add("memory", "y" * 150)
    over = cfg.with_settings(memory_char_limit=200)  # the limit was lowered after the fact
    result = memory_consolidate(you_of(over), use_agent=False)
    text = result["text"]
    assert text.startswith("Memory consolidation:")
    assert "- global: 100% — 303/200 chars → 100% — 303/200 chars (deterministic)" in text
    assert "still over the limit" in text and "- user: skipped (empty)" in text


def test_consolidate_target_inside_a_child_never_starts_an_agent(tacit_env):
    from tacit.config import load_config

    child = load_config(env={**tacit_env, "TACIT_CHILD": "1",
                             "TACIT_CHILD_COMMAND": "/bin/false {prompt_file}"})
    MemoryStore(child).add("memory", "one two three four")
    report = consolidate_target(you_of(child), "memory", use_agent=True)
    assert report["mode"] == "deterministic"


def test_memory_skills_lists_skills_with_their_files(cfg):
    from tacit.stores.skills import SkillStore

    empty = memory_skills(cfg)
    assert "(none yet" in empty["text"]
    SkillStore(cfg).create("release-procedure", "Cut a release: run the tests, tag, push.")
    bad = cfg.skills_dir / "broken-skill"
    bad.mkdir(parents=True)
    (bad / "SKILL.md").write_text("no frontmatter at all")
    listing = memory_skills(cfg)
    assert "release-procedure (v" in listing["text"]
    assert str(cfg.skills_dir / "release-procedure" / "SKILL.md") in listing["text"]
    assert "Cut a release" in listing["text"]


def test_consolidate_and_skills_commands(cfg, tacit_env):
    MemoryStore(cfg).add("memory", "The project uses pnpm")
    MemoryStore(cfg).add("memory", "the project uses pnpm.")
    run = lambda *a: subprocess.run([sys.executable, "-m", "tacit.cli", *a], env=tacit_env,
                                    capture_output=True, text=True, timeout=60)
    proc = run("consolidate", "--deterministic", "--force", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["success"] and data["reports"][1]["merge"]["merged"] == 1
    assert MemoryStore(cfg).entries("memory") == ["The project uses pnpm"]
    text = run("consolidate", "--deterministic", "--force")
    assert text.returncode == 0 and text.stdout.startswith("Memory consolidation:")
    skills = run("skills")
    assert skills.returncode == 0 and skills.stdout.startswith("Skills in ")


def test_consolidate_with_nothing_near_its_limit_says_so_and_starts_no_child(cfg, tmp_path):
    marker = tmp_path / "child-ran"
    child = tmp_path / "child.py"
    child.write_text(f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n")
    with_child = cfg.with_settings(child_command=f"{sys.executable} {child}")
    MemoryStore(cfg).add("memory", "The project uses pnpm")  # 1% of the limit
    result = memory_consolidate(you_of(with_child))
    assert result["text"].startswith("Nothing to consolidate: no memory is near its limit")
    assert not marker.exists()
    full = with_child.with_settings(memory_char_limit=25)  # now 84% full
    memory_consolidate(you_of(full))
    assert marker.exists()


def test_an_entry_longer_than_the_whole_limit_consolidates_nothing(cfg, tacit_env, tmp_path):
    """`tacit memory add` of an entry longer than the whole limit started a consolidation child that
    rewrote memory at 4% of its limit (merging entries), then refused the entry anyway: no
    consolidation could have made room for it."""
    marker = tmp_path / "child-ran"
    child = tmp_path / "child.py"
    child.write_text(f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n")
    (cfg.state_dir / "config.toml").write_text(f'child_command = "{sys.executable} {child}"\n')
    store = MemoryStore(cfg)
    for entry in ("The project uses pnpm", "the project uses pnpm.", "Deploys on Tuesdays"):
        store.add("memory", entry)
    before = cfg.memory_file.read_bytes()
    proc = subprocess.run([sys.executable, "-m", "tacit", "memory", "add", "--scope", "global", "x" * 2300,
                           "--json"], env=tacit_env, capture_output=True, text=True, timeout=60)
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and "longer than the whole limit" in out["error"], out
    assert "consolidation" not in out and not marker.exists(), "no child for an entry no room could take"
    assert cfg.memory_file.read_bytes() == before, "the duplicates stay: nothing was merged"


def test_a_consolidation_whose_child_fails_says_why(cfg, tacit_env, tmp_path):
    """`tacit consolidate` with a child that crashed (or hung, or wrote garbage) said only
    "(agent-failed+deterministic)": that it failed, never why."""
    child = tmp_path / "child.py"
    child.write_text("import sys; sys.stderr.write('model overloaded, try later\\n'); sys.exit(3)\n")
    (cfg.state_dir / "config.toml").write_text(f'child_command = "{sys.executable} {child}"\n')
    MemoryStore(cfg).add("memory", "The project uses pnpm")
    before = cfg.memory_file.read_bytes()
    proc = subprocess.run([sys.executable, "-m", "tacit", "consolidate", "--force"], env=tacit_env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "the background agent failed (it exited 3: model overloaded, try later)" in proc.stdout, proc.stdout
    out = json.loads(subprocess.run([sys.executable, "-m", "tacit", "consolidate", "--force", "--json"],
                                    env=tacit_env, capture_output=True, text=True, timeout=60).stdout)
    assert out["reports"][1]["child_failed"] == "it exited 3: model overloaded, try later", out
    assert cfg.memory_file.read_bytes() == before


FULL = ["Build with pnpm build in the web folder", "Staging resets nightly at 02:00 UTC"]


def full_add_with_child(cfg, tacit_env, tmp_path, code: str, budget: str = "") -> tuple[bytes, dict]:
    """The global notes full (a 120-char limit) and a consolidation child running ``code``: ``tacit memory
    add`` of one more entry; (the file before, the refusal). The child must have failed."""
    child = tmp_path / "child.py"
    child.write_text(code)
    (cfg.state_dir / "config.toml").write_text(f'child_command = "{sys.executable} {child}"\n'
                                               "memory_char_limit = 120\n" + budget)
    for entry in FULL:
        assert MemoryStore(cfg.with_settings(memory_char_limit=120)).add("memory", entry)["success"]
    before = cfg.memory_file.read_bytes()
    proc = subprocess.run([sys.executable, "-m", "tacit", "memory", "add", "--scope", "global", "--json",
                           "Deploys go out on Tuesdays after the standup meeting"],
                          env=tacit_env, capture_output=True, text=True, timeout=60)
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and out["consolidation"]["child_ok"] is False, out
    return before, out


def test_a_full_add_whose_consolidation_child_fails_is_told_and_counted(cfg, tacit_env, tmp_path):
    """`tacit memory add` on a full scope ran a consolidation child that exited 3: the refusal said only
    "Consolidate: merge … then retry" (never that tacit had tried, nor why it failed), and the run had no
    jobs row, so `tacit cost` showed 0 runs and its spend never counted against the daily budget."""
    before, out = full_add_with_child(
        cfg, tacit_env, tmp_path, "import sys; print('garbage {{{'); sys.stderr.write('model overloaded\\n'); "
                                  "sys.exit(3)\n")
    assert "the background agent failed: it exited 3: model overloaded; nothing was lost" in out["error"], out
    assert cfg.memory_file.read_bytes() == before
    cost = json.loads(subprocess.run([sys.executable, "-m", "tacit", "cost", "--json"], env=tacit_env,
                                     capture_output=True, text=True, timeout=60).stdout)
    assert cost["totals"]["runs"] == 1 and [r["kind"] for r in cost["runs"]] == ["consolidate"], cost
    assert cost["runs"][0]["ok"] is False


def test_a_consolidation_child_that_writes_garbage_is_told_as_failed_even_when_the_file_grew(cfg, tacit_env,
                                                                                             tmp_path):
    """A child exited 0 after replacing MEMORY.md with garbage: tacit put the entries back (and kept the
    child's text as its change), then the refusal said "tacit consolidated it first", never that it failed."""
    _before, out = full_add_with_child(
        cfg, tacit_env, tmp_path, "import os, pathlib\n"
                                  "path = pathlib.Path(os.environ['TACIT_HOME'], 'memories', 'MEMORY.md')\n"
                                  "path.write_text('garbage ' * 3)\n")
    assert "but the background agent failed: what it wrote was put back" in out["error"], out
    assert "see tacit memory log" in out["error"] and "tacit consolidated it first" not in out["error"]
    assert MemoryStore(cfg).entries("memory")[:2] == FULL  # nothing lost
    # the run is in `tacit cost` with what it changed; a run with no host was shown "(, 0 tokens)"
    shown = subprocess.run([sys.executable, "-m", "tacit", "cost"], env=tacit_env, capture_output=True, text=True,
                           timeout=60).stdout
    assert "1 background run," in shown and " consolidate (?, 0 tokens): #" in shown, shown


def test_a_full_add_over_the_daily_budget_says_the_budget_stopped_the_consolidation(cfg, tacit_env, tmp_path):
    """The day's budget was spent: no consolidation child started and the runner merged duplicates instead,
    but the report said mode "agent", child_ok true, and the refusal never named the budget."""
    from tacit.stores.ledger import Ledger
    from tacit.stores.sessions import insert_job

    now = time.time()
    with Ledger(cfg) as ledger, ledger.write() as conn:  # a review earlier today spent 500 tokens
        insert_job(conn, {"id": "j1", "kind": "review", "session_id": "s1", "host": "claude-code", "created": now})
        conn.execute("UPDATE jobs SET status = 'done', finished_at = ?, record = ? WHERE id = 'j1'",
                     (now, json.dumps({"ok": True, "mode": "agent", "spend": {"tokens": 500, "usd": None}})))
    marker = tmp_path / "child-ran"
    _before, out = full_add_with_child(cfg, tacit_env, tmp_path, f"open({str(marker)!r}, 'w').close()\n",
                                       budget="child_daily_tokens = 100\n")
    report = out["consolidation"]
    assert report["mode"] == "deterministic" and report["over_budget"] == "500 of 100 tokens", report
    assert "today's budget is spent (500 of 100 tokens); `tacit cost` shows the spend" in out["error"], out
    assert not marker.exists() and MemoryStore(cfg).entries("memory") == FULL

"""The skill store on the file system: reading SKILL.md bytes, the trash and
its retention, the modes of what tacit creates, and odd input to the index."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tacit.service.housekeeping import DAY, remove_older
from tacit.stores import skill_catalog
from tacit.stores.skill_format import MAX_SKILL_BYTES, MAX_SKILL_CHARS
from tacit.stores.skills import SkillStore


@pytest.fixture
def store(cfg) -> SkillStore:
    return SkillStore(cfg)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def write(cfg, folder: str, content: str | bytes) -> Path:
    path = Path(cfg.skills_dir) / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


# ---------------------------------------------------------------------------
# reading the bytes
# ---------------------------------------------------------------------------
def test_reader_reads_the_whole_file_whatever_size_the_stat_said(tmp_path: Path):
    path = tmp_path / "SKILL.md"
    path.write_bytes(b"x" * 5000)
    for stated in (0, 1, 4999, 5000, 5001, 20000):
        assert skill_catalog.read_skill_file(path, stated) == ("x" * 5000, None)


def test_reader_problems(tmp_path: Path):
    # refused unread when the stat says too large
    assert "too large: 400,001 bytes" in skill_catalog.read_skill_file(tmp_path / "absent",
                                                                 MAX_SKILL_BYTES + 1)[1]
    assert "cannot read" in skill_catalog.read_skill_file(tmp_path / "absent", 10)[1]
    assert "cannot read" in skill_catalog.read_skill_file(tmp_path, 10)[1]  # a folder
    # a file that grew past the limit after its stat is refused, read no further
    grown = tmp_path / "grown.md"
    grown.write_bytes(b"y" * (MAX_SKILL_BYTES + 5000))
    assert "too large" in skill_catalog.read_skill_file(grown, 100)[1]
    # characters, not bytes, count: 100,000 two-byte characters are within the limit
    wide = tmp_path / "wide.md"
    wide.write_bytes("é".encode() * MAX_SKILL_CHARS)
    text, problem = skill_catalog.read_skill_file(wide, os.path.getsize(wide))
    assert problem is None and len(text) == MAX_SKILL_CHARS
    wide.write_bytes("é".encode() * (MAX_SKILL_CHARS + 1))
    assert "100,001 characters" in skill_catalog.read_skill_file(wide, os.path.getsize(wide))[1]
    binary = tmp_path / "binary.md"
    binary.write_bytes(b"---\nname: a\x00\n---\n")
    assert "NUL" in skill_catalog.read_skill_file(binary, os.path.getsize(binary))[1]
    latin = tmp_path / "latin.md"
    latin.write_bytes("---\nname: café\n---\n".encode("latin-1"))
    assert "offset 13" in skill_catalog.read_skill_file(latin, os.path.getsize(latin))[1]


def test_one_bad_date_does_not_blank_the_index(store, cfg):
    """PyYAML raises ValueError (not YAMLError) for a date that does not exist."""
    store.create("good-one", "Still indexed.")
    write(cfg, "bad-date", "---\nname: bad-date\ndescription: d\nupdated: 2025-02-30\n---\nbody\n")
    assert "- good-one: Still indexed." in store.index_text()
    (problem,) = store.list()["problems"]
    assert problem["path"].endswith("bad-date/SKILL.md") and "bad YAML" in problem["reason"]


def test_hand_written_yaml_types_are_listed_as_json_friendly_values(store, cfg):
    write(cfg, "typed", "---\nname: typed\ndescription: d\nversion: 1.2\n"
                        "updated: 2025-01-02T03:04:05Z\n---\nbody\n")
    (skill,) = store.list()["skills"]
    assert skill["version"] == "1.2" and skill["updated"] == "2025-01-02T03:04:05+00:00"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400) | st.text(max_size=300).map(lambda t: ("---\n" + t).encode(
    "utf-8", "surrogatepass")))
def test_any_bytes_in_a_skill_file_are_listed_or_reported(cfg, data):
    path = write(cfg, "fuzzed", data)
    try:
        store = SkillStore(cfg)
        listing = store.list()
        assert listing["success"]
        names = [s["name"] for s in listing["skills"]]
        reported = [p["path"] for p in listing["problems"]]
        assert names == ["fuzzed"] or reported == [str(path)]
        assert isinstance(store.index_text(), str)
    finally:
        path.unlink()


@pytest.mark.parametrize("budget", ["600", None, -5, 0, 10**9])
def test_index_budget_odd_values(store, budget):
    store.create("a-skill", "Something to index.")
    text = store.index_text(budget)
    assert isinstance(text, str)
    if budget == -5 or budget == 0:
        assert text == ""


def test_index_budget_that_is_not_a_number_gives_empty_text_and_a_log_line(store, cfg):
    store.create("a-skill", "Something to index.")
    assert store.index_text("lots") == ""
    assert "skills.index_text" in Path(cfg.log_file).read_text(encoding="utf-8")


# ---------------------------------------------------------------------------
# the trash
# ---------------------------------------------------------------------------
def test_trash_holds_one_entry_per_deleted_skill_dated_by_the_delete(store, cfg):
    store.create("old-skill", "Last edited long ago.")
    folder = Path(cfg.skills_dir) / "old-skill"
    (folder / "references").mkdir()
    (folder / "references" / "notes.md").write_text("notes", encoding="utf-8")
    long_ago = time.time() - 90 * DAY
    os.utime(folder, (long_ago, long_ago))
    first = store.delete("old-skill")
    store.create("old-skill", "Created again.")
    second = store.delete("old-skill")
    trash = Path(cfg.skills_dir) / ".trash"
    entries = sorted(trash.iterdir())
    # directly under .trash: one folder per delete, each a whole skill folder
    assert [str(e) for e in entries] == sorted([first["trash_path"], second["trash_path"]])
    assert all(e.is_dir() and (e / "SKILL.md").is_file() for e in entries)
    assert (Path(first["trash_path"]) / "references" / "notes.md").is_file()
    assert all(time.time() - e.stat().st_mtime < 60 for e in entries)  # dated by the delete
    assert mode_of(trash) == 0o700
    # the service's retention keeps them for trash_retention_days after the delete
    assert remove_older(str(trash), time.time(), cfg.trash_retention_days) == 0
    assert remove_older(str(trash), time.time() + 31 * DAY, cfg.trash_retention_days) == 2
    assert list(trash.iterdir()) == []
    assert "old-skill" not in store.index_text()


def test_the_trash_is_never_a_skill(store, cfg):
    store.create("gone", "Deleted.")
    store.delete("gone")
    listing = store.list()
    assert listing["skills"] == [] and listing["problems"] == []


# ---------------------------------------------------------------------------
# modes
# ---------------------------------------------------------------------------
def test_what_tacit_creates_is_private(store, cfg):
    assert not Path(cfg.skills_dir).exists()
    store.create("private", "Created by tacit.")
    skills_dir = Path(cfg.skills_dir)
    assert mode_of(skills_dir) == 0o700
    assert mode_of(skills_dir / "private") == 0o700
    assert mode_of(skills_dir / "private" / "SKILL.md") == 0o600
    locks = Path(cfg.state_dir) / "locks"
    assert mode_of(locks) == 0o700 and mode_of(locks / "skill-private.lock") == 0o600
    store.install_starters()
    assert mode_of(skills_dir / "saving-memories") == 0o700
    assert mode_of(skills_dir / "saving-memories" / "SKILL.md") == 0o600


def test_a_mode_a_person_chose_is_kept_on_rewrite(store, cfg):
    store.create("shared", "Readable by the group.")
    path = Path(cfg.skills_dir) / "shared" / "SKILL.md"
    os.chmod(path, 0o640)
    assert store.patch("shared", "Pitfalls", "None.")["success"]
    assert mode_of(path) == 0o640

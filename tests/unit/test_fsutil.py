"""fsutil.free_name: the one "find a free name to set a file aside" helper, and its callers."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tacit.fsutil import free_name
from tacit.stores.memory import MemoryStore


def test_a_free_base_is_returned_as_it_is_in_the_type_it_came(tmp_path: Path):
    assert free_name(tmp_path / "x.bak") == tmp_path / "x.bak"
    assert isinstance(free_name(tmp_path / "x.bak"), Path)
    assert free_name(str(tmp_path / "x.bak")) == str(tmp_path / "x.bak")
    assert isinstance(free_name(str(tmp_path / "x.bak")), str)


def test_a_collision_takes_the_next_free_number_and_overwrites_nothing(tmp_path: Path):
    folder = tmp_path / "memories"
    folder.mkdir()
    base = folder / "MEMORY.md.bak.20260101T000000"
    taken = {base: "first", Path(f"{base}.1"): "second", Path(f"{base}.3"): "fourth"}
    for path, text in taken.items():
        path.write_text(text)
    assert free_name(base) == Path(f"{base}.2")
    Path(f"{base}.2").write_text("third")
    assert free_name(base) == Path(f"{base}.4")
    assert {p: p.read_text() for p in taken} == taken  # looking never touched a file
    assert sorted(os.listdir(folder)) == sorted(p.name for p in [*taken, Path(f"{base}.2")])


def test_separator_and_first_number_are_the_callers(tmp_path: Path):
    (tmp_path / "skill-S").mkdir()
    assert free_name(tmp_path / "skill-S", sep="-", first=2) == tmp_path / "skill-S-2"


def test_a_dangling_link_counts_as_taken(tmp_path: Path):
    base = tmp_path / "ledger.db.corrupt-S"
    os.symlink(tmp_path / "gone", base)
    assert free_name(str(base)) == f"{base}.1"
    assert os.path.islink(base) and not (tmp_path / "gone").exists()


def test_two_drift_backups_in_one_second_keep_both_copies(cfg, monkeypatch):
    """MemoryStore's drift backup through free_name: ``<file>.bak.<stamp>``, then ``.1``."""
    monkeypatch.setattr(time, "strftime", lambda *_a: "20260101T000000")
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    store = MemoryStore(cfg)
    backups = []
    for text in ("one\n§\n\n\n§\nby hand", "two\n§\n\n\n§\nby hand again"):
        cfg.memory_file.write_text(text)
        result = store.remove("memory", "by hand")
        assert not result["success"]
        backups.append((result["drift_backup"], text))
    name = cfg.memory_file.name
    assert [Path(b).name for b, _ in backups] == [f"{name}.bak.20260101T000000", f"{name}.bak.20260101T000000.1"]
    assert [Path(b).read_text() for b, _ in backups] == [t for _, t in backups]

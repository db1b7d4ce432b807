"""Benchmark: building the skill catalog and index.

Run as a script (not collected by pytest):

    python tests/benchmarks/skill_index.py            # 200 skills, 15 repeats
    python tests/benchmarks/skill_index.py --skills 1000
    python tests/benchmarks/skill_index.py --quick    # 50 skills, 3 repeats (CI smoke run)

Every figure is measured in one process on the same freshly written files (so
the page cache is equally warm for all of them), samples interleaved, and
printed as a ratio to the **baseline measured in the same run**: merely
reading the bytes of every SKILL.md (``open(path, "rb").read()``) from a
precomputed list of paths.

- **cold**: a new ``SkillStore`` building its catalog and index text, with
  the content scanner's memos emptied — what a fresh process (or a new
  session's store) pays. It lists the folder, stats, reads, decodes, parses
  the frontmatter with python-frontmatter (PyYAML's C loader), checks it,
  scans the description and renders the index. Imports and compiled regexes
  are kept: they are paid once per process, see the separate-process figures.
- **warm**: ``index_text()`` again on the same store — the catalog and the
  text are kept in memory until ``refresh()``.
- **after refresh()**: what the service pays when its watcher sees a file
  change (the scanner's memos stay full).
- **new session's snapshot**: ``store.session().snapshot()`` on a store whose
  catalog is built — what a session start costs in the service when the
  engine hands out session stores with ``session()``.
- the parts of a cold build, for the profile: python-frontmatter parsing the
  texts alone, the scanner alone on the descriptions (memos emptied first),
  and a cold build with the scanner stubbed out.

Each figure is the median over the repeats. ``main(argv)`` returns 0: timing
on a shared machine is a report, not a gate.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tacit.safety import scanner as scan
from tacit.config import load_config
from tacit.stores import skill_catalog, skills
from tacit.stores.skill_format import parse_skill, render_skill

_WORDS = ("deploy build test release migrate database cache docker compose kubernetes "
          "staging production rollback lint format python node package version branch "
          "commit review api schema index query logs metrics alert backup restore secret "
          "config env service queue worker cron retry timeout proxy certificate").split()


def _sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(_WORDS) for _ in range(words))
    return text[:1].upper() + text[1:] + "."


def make_skills(skills_dir: Path, count: int, seed: int = 7) -> list[Path]:
    """Write ``count`` realistic skills (description 60–300 chars, body 1–4 KB)
    the way the store writes them; returns their SKILL.md paths."""
    rng = random.Random(seed)
    paths = []
    for i in range(count):
        name = f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-{i:04d}"
        description = _sentence(rng, rng.randint(8, 40))[:300]
        if rng.random() < 0.2:
            description = "Use when: " + description  # a colon: needs quoting in YAML
        sections = []
        for title in ("When to Use", "Procedure", "Pitfalls", "Verification"):
            lines = [f"{n}. {_sentence(rng, rng.randint(6, 18))}" for n in range(1, rng.randint(3, 8))]
            sections.append(f"## {title}\n\n" + "\n".join(lines))
        body = f"# {name}\n\n" + "\n\n".join(sections)
        stamp = f"2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T12:00:00Z"
        meta = {"name": name, "description": description, "version": f"1.{rng.randint(0, 5)}.0",
                "created": stamp, "updated": stamp}
        folder = skills_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "SKILL.md"
        path.write_text(render_skill(meta, body), encoding="utf-8")
        paths.append(path)
    return paths


def _read_all(paths: list[str]) -> int:
    total = 0
    for path in paths:
        with open(path, "rb") as handle:
            total += len(handle.read())
    return total


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure_in_process(cfg, paths: list[Path], repeats: int) -> dict[str, float]:
    """Median seconds of each figure (see the module docstring)."""
    str_paths = [str(p) for p in paths]
    texts = [p.read_text(encoding="utf-8") for p in paths]
    descriptions = [parse_skill(t)[0]["description"] for t in texts]
    expected = skills.SkillStore(cfg).index_text()  # import and compile everything once
    samples: dict[str, list[float]] = {key: [] for key in (
        "read", "cold", "warm", "refresh", "session", "cold_no_scan", "parse", "scanner")}

    def cold() -> skills.SkillStore:
        scan.clear_memo()
        store = skills.SkillStore(cfg)
        samples["cold"].append(_timed(store.index_text))
        return store

    def cold_without_scanner() -> None:
        real = skill_catalog.scan_text
        skill_catalog.scan_text = lambda _text: None  # the build's own work
        try:
            samples["cold_no_scan"].append(_timed(skills.SkillStore(cfg).index_text))
        finally:
            skill_catalog.scan_text = real

    def scanner_alone() -> None:
        scan.clear_memo()  # as in a cold build
        samples["scanner"].append(_timed(lambda: [skill_catalog.scan_text(d) for d in descriptions]))

    for n in range(repeats):
        steps = [
            lambda: samples["read"].append(_timed(lambda: _read_all(str_paths))),
            cold_without_scanner,
            lambda: samples["parse"].append(_timed(lambda: [parse_skill(t) for t in texts])),
            scanner_alone,
        ]
        for step in (steps if n % 2 else reversed(steps)):
            step()
        store = cold()
        samples["warm"].append(_timed(store.index_text))
        samples["session"].append(_timed(lambda: store.session().snapshot()))
        store.refresh()
        samples["refresh"].append(_timed(store.index_text))
        assert store.index_text() == expected, "the index changed between builds"
    return {key: statistics.median(values) for key, values in samples.items()}


_CHILD_READ = "import sys\nfor p in open(sys.argv[1]).read().split('\\n'):\n    open(p,'rb').read()\n"
_CHILD_INDEX = ("import sys\nfrom tacit.config import load_config\n"
                "from tacit.stores.skills import SkillStore\n"
                "SkillStore(load_config(env={'TACIT_HOME': sys.argv[1], 'HOME': sys.argv[1]}))"
                ".index_text()\n")


def measure_processes(home: Path, paths: list[Path], repeats: int) -> dict[str, float]:
    """Median wall time of whole processes (interpreter start-up and imports included)."""
    list_file = home / "paths.txt"
    list_file.write_text("\n".join(str(p) for p in paths))
    # Children cache their bytecode in a private folder (as an installed
    # package would have it precompiled), never in the source tree.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")

    def run(code: str, arg: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code, arg], check=True, env=env)
        return time.perf_counter() - start

    run(_CHILD_INDEX, str(home))  # compile and cache the bytecode once
    samples: dict[str, list[float]] = {"read": [], "index": []}
    for _ in range(repeats):
        samples["read"].append(run(_CHILD_READ, str(list_file)))
        samples["index"].append(run(_CHILD_INDEX, str(home)))
    return {key: statistics.median(values) for key, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="50 skills, 3 repeats")
    parser.add_argument("--skills", type=int, help="number of skills (default 200)")
    parser.add_argument("--repeats", type=int, help="repeats per figure (default 15)")
    parser.add_argument("--no-processes", action="store_true",
                        help="skip the separate-process figures")
    args = parser.parse_args(argv)
    count = args.skills or (50 if args.quick else 200)
    repeats = args.repeats or (3 if args.quick else 15)

    with tempfile.TemporaryDirectory(prefix="tacit-skill-bench-") as tmp:
        home = Path(tmp)
        cfg = load_config(env={"TACIT_HOME": str(home), "HOME": str(home)})
        paths = make_skills(Path(cfg.skills_dir), count)
        total_bytes = sum(os.path.getsize(p) for p in paths)
        f = measure_in_process(cfg, paths, repeats)
        index = skills.SkillStore(cfg).index_text()
        base = f["read"]
        print(f"skill index benchmark: {count} skills, {total_bytes / 1024:.0f} KiB of SKILL.md, "
              f"median of {repeats} runs; index {len(index)} chars "
              f"(budget {cfg.skill_index_budget})")
        rows = (("read the files' bytes (baseline)", "read"),
                ("cold: new store, catalog + index", "cold"),
                ("warm: index_text() again", "warm"),
                ("after refresh()", "refresh"),
                ("new session's snapshot (warm family)", "session"),
                ("cold, scanner stubbed out", "cold_no_scan"),
                ("  parsing alone (frontmatter)", "parse"),
                ("  the scanner alone", "scanner"))
        for label, key in rows:
            print(f"  {label:<36} {f[key] * 1000:9.3f} ms  {f[key] / base:7.3f}x")
        print(f"  cold, per skill: {f['cold'] / count * 1e6:.1f} µs")
        if not args.no_processes:
            proc = measure_processes(home, paths, max(3, repeats // 3))
            print("  separate processes (interpreter start-up and imports included):")
            print(f"    python reading the files      {proc['read'] * 1000:8.1f} ms   1.00x")
            print(f"    tacit index (a CLI process)   {proc['index'] * 1000:8.1f} ms  "
                  f"{proc['index'] / proc['read']:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

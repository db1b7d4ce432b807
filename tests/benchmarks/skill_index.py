"""Benchmark: building the skill index for 1,000 skills.

Run as a script (not collected by pytest):

    python tests/benchmarks/skill_index.py            # 1,000 skills, 9 repeats
    python tests/benchmarks/skill_index.py --quick    # 100 skills, 3 repeats (CI smoke run)

What is measured, all in one process on the same freshly written files (so the
operating system's page cache is equally warm for every figure):

- **read**: merely reading the bytes of every SKILL.md (``open(path, "rb")``,
  ``read()``, close) from a precomputed list of paths — the baseline the
  targets are ratios to.
- **read (os.read)**: the same bytes read the cheapest way Python can
  (``os.open``, one ``os.read`` of the known size + 1, ``os.close``) — the
  store reads this way, so the cold ratio is also printed against this floor,
  for information.
- **cold**: ``SkillStore.index_text()`` with every cache cleared: the store's
  in-process memos emptied, its JSON cache files deleted and the content
  scanner's memos (trigger words per token, rules per set of words) emptied —
  what a fresh process pays on a folder it never indexed. It lists the folder,
  stats, reads, decodes, parses the frontmatter, checks it, scans the
  description, renders the index and writes the cache files. (Imports and the
  scanner's compiled regexes are kept: they are the same for every build and
  are counted in the separate-process figures.)
- **warm (cache file)**: in-process memo emptied but the JSON cache files kept —
  what a fresh hook process pays when no skill changed since the last build.
- **warm (memo)**: a second build in the same process.
- **cold, scanner stubbed out**: the cold build with the content scanner
  replaced by a no-op — the index build's own work; and **the scanner alone**
  on the descriptions, its memos emptied first as in a cold build.

The skills' vocabulary is small (~45 words), so a first build over real,
more varied descriptions fills the scanner's per-token memo with more words
than here (docs/skills.md says how much that costs).

Each figure is the median over the repeats; ratios are medians divided by the
read median. Targets: cold <= 4x, warm (cache file) <= 1x. The same figures
for separate processes (interpreter start-up included) are printed for
information. ``main(argv)`` returns 0 (1 with ``--strict`` when a target is
missed: timing on a shared CI machine is a report, not a gate, by default).
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

TARGET_COLD = 4.0
TARGET_WARM = 1.0

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
    from tacit.stores.skill_format import render_skill

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


def _read_all_os(paths_and_sizes: list[tuple[str, int]]) -> int:
    total = 0
    for path, size in paths_and_sizes:
        fd = os.open(path, os.O_RDONLY)
        try:
            total += len(os.read(fd, size + 1))
        finally:
            os.close(fd)
    return total


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _clear_caches(store) -> None:
    from tacit import scan
    from tacit.stores import skills

    skills.clear_memo()
    scan.clear_memo()
    for path in (store.cache_file, store.index_cache_file):
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def measure_in_process(cfg, paths: list[Path], repeats: int) -> dict[str, float]:
    from tacit.stores import skills
    from tacit.stores.skill_format import parse_frontmatter

    store = skills.SkillStore(cfg)
    str_paths = [str(p) for p in paths]
    sized_paths = [(str(p), os.path.getsize(p)) for p in paths]
    store.index_text()  # import everything once: we time the build, not imports
    metas = [parse_frontmatter(p.read_text(encoding="utf-8")) for p in paths]
    scan_inputs = [m["description"] for m in metas]
    samples: dict[str, list[float]] = {key: [] for key in (
        "read", "read_os", "cold", "cold_no_scan", "warm_file", "warm_memo", "one_changed",
        "scanner")}

    def cold():
        _clear_caches(store)
        return store.index_text()

    def cold_without_scanner():
        real = skills._scan_text
        skills._scan_text = lambda _text: None  # measure the build alone
        try:
            return _timed(cold)
        finally:
            skills._scan_text = real
            _clear_caches(store)  # nothing built without the scanner may be reused

    def scanner_cold(texts):
        from tacit import scan

        scan.clear_memo()  # as in a cold build
        return [skills._scan_text(t) for t in texts]

    def warm_file():
        skills.clear_memo()
        return store.index_text()

    def one_changed(i=[0]):
        # a person edits one skill, then a fresh process builds the index
        i[0] += 1
        path = paths[i[0] % len(paths)]
        path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        skills.clear_memo()
        return _timed(store.index_text)

    for _ in range(repeats):
        samples["read"].append(_timed(lambda: _read_all(str_paths)))
        samples["read_os"].append(_timed(lambda: _read_all_os(sized_paths)))
        samples["cold_no_scan"].append(cold_without_scanner())
        samples["cold"].append(_timed(cold))
        samples["warm_file"].append(_timed(warm_file))
        samples["warm_memo"].append(_timed(store.index_text))
        samples["one_changed"].append(one_changed())
        samples["scanner"].append(_timed(lambda: scanner_cold(scan_inputs)))
    return {key: statistics.median(values) for key, values in samples.items()}


_CHILD_READ = "import sys\nfor p in open(sys.argv[1]).read().split('\\n'):\n    open(p,'rb').read()\n"
_CHILD_INDEX = ("import sys\nfrom tacit.config import load_config\n"
                "from tacit.stores.skills import SkillStore\n"
                "SkillStore(load_config(env={'TACIT_HOME': sys.argv[1], 'HOME': sys.argv[1]}))"
                ".index_text()\n")


def measure_processes(home: Path, cfg, paths: list[Path], repeats: int) -> dict[str, float]:
    """Median wall time of whole processes (interpreter start-up included)."""
    from tacit.stores.skills import SkillStore

    list_file = home / "paths.txt"
    list_file.write_text("\n".join(str(p) for p in paths))
    store = SkillStore(cfg)
    samples: dict[str, list[float]] = {"read": [], "cold": [], "warm_file": []}

    # Children cache their bytecode in a private folder (as an installed
    # package would have it precompiled), never in the source tree.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")

    def run(code: str, arg: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code, arg], check=True, env=env)
        return time.perf_counter() - start

    run(_CHILD_INDEX, str(home))  # compile and cache the bytecode once

    for _ in range(repeats):
        samples["read"].append(run(_CHILD_READ, str(list_file)))
        _clear_caches(store)
        samples["cold"].append(run(_CHILD_INDEX, str(home)))
        samples["warm_file"].append(run(_CHILD_INDEX, str(home)))
    return {key: statistics.median(values) for key, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 skills, 3 repeats")
    parser.add_argument("--skills", type=int, help="number of skills (default 1000)")
    parser.add_argument("--repeats", type=int, help="repeats per figure (default 9)")
    parser.add_argument("--no-processes", action="store_true",
                        help="skip the separate-process figures")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when a target is missed (default: report only)")
    args = parser.parse_args(argv)
    count = args.skills or (100 if args.quick else 1000)
    repeats = args.repeats or (3 if args.quick else 9)

    from tacit.config import load_config

    with tempfile.TemporaryDirectory(prefix="tacit-skill-bench-") as tmp:
        home = Path(tmp)
        cfg = load_config(env={"TACIT_HOME": str(home), "HOME": str(home)})
        paths = make_skills(Path(cfg.skills_dir), count)
        total_bytes = sum(os.path.getsize(p) for p in paths)
        figures = measure_in_process(cfg, paths, repeats)
        index = __import__("tacit.stores.skills", fromlist=["SkillStore"]).SkillStore(cfg).index_text()
        base = figures["read"]
        print(f"skill index benchmark: {count} skills, {total_bytes / 1024:.0f} KiB of SKILL.md, "
              f"median of {repeats} runs; index {len(index)} chars "
              f"(budget {cfg.skill_index_budget})")
        print(f"  read the files' bytes     {base * 1000:8.2f} ms   1.00x")
        print(f"  read them with os.read    {figures['read_os'] * 1000:8.2f} ms  "
              f"{figures['read_os'] / base:5.2f}x  (the floor; the store reads this way)")
        rows = (("cold (caches cleared)", "cold", TARGET_COLD),
                ("warm (cache file)", "warm_file", TARGET_WARM),
                ("warm (in-process memo)", "warm_memo", None),
                ("warm, one skill edited", "one_changed", None))
        ok = True
        for label, key, target in rows:
            ratio = figures[key] / base
            verdict = ""
            if target is not None:
                passed = ratio <= target
                ok = ok and passed
                verdict = f"  target <= {target:g}x {'ok' if passed else 'MISSED'}"
            print(f"  {label:<25} {figures[key] * 1000:8.2f} ms  {ratio:5.2f}x{verdict}")
        print(f"  cold, as a ratio to the os.read floor: "
              f"{figures['cold'] / figures['read_os']:.2f}x")
        print(f"  cold, scanner stubbed out  {figures['cold_no_scan'] * 1000:8.2f} ms  "
              f"{figures['cold_no_scan'] / base:5.2f}x  (the index build's own work)")
        print(f"  the content scanner alone on the {count} descriptions: "
              f"{figures['scanner'] * 1000:.2f} ms")
        if not args.no_processes:
            proc = measure_processes(home, cfg, paths, max(3, repeats // 2))
            print("  separate processes (interpreter start-up and imports included):")
            print(f"    python reading the files    {proc['read'] * 1000:8.1f} ms")
            print(f"    tacit index, cold           {proc['cold'] * 1000:8.1f} ms")
            print(f"    tacit index, warm (cache)   {proc['warm_file'] * 1000:8.1f} ms")
    return 1 if args.strict and not ok else 0


if __name__ == "__main__":
    sys.exit(main())

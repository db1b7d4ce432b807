"""Benchmark: the stores' write and index paths against the bare file work under them.

Run as a script (not collected by pytest):

    python tests/benchmarks/stores.py            # 201 adds, 200 skills, 15 index runs
    python tests/benchmarks/stores.py --quick    # 41 adds, 50 skills, 3 index runs (CI smoke run)

What is measured, in one process, on one folder, samples interleaved so that
load from other processes falls on both sides of every ratio alike:

- **memory add**: ``MemoryStore.add`` on a MEMORY.md holding ~1,500 characters
  of realistic entries (default 2,200 limit): scan the entry, take the
  ``MEMORY.md.lock`` lock, re-read the file, append, write a temp file in the
  same folder, fsync it, rename it over MEMORY.md, fsync the folder. After each
  sample the file is put back (untimed) so every add does the same work.
- **bare write**: the floor any durable write pays — the same resulting bytes
  written to a temp file in the same folder, fsync'ed and renamed over another
  file. No lock, no read, no scan, no folder fsync.
- the add's parts, for the profile: the bare write plus a folder fsync,
  ``fsutil.atomic_write_bytes`` alone (temp file, fsync, rename, folder
  fsync, stale-temp sweep), lock acquire+release, the scan of the entry,
  re-reading the file.
- **skill index** cold, warm, after ``refresh()`` and a new session's
  snapshot, as ratios to reading the SKILL.md files' bytes in the same run,
  with ``tests/benchmarks/skill_index.py``'s functions (see that file).

Target: memory add <= 3x the bare write. ``main(argv)`` returns 0, or 1 with
``--strict`` when it is missed (timing on a shared machine is a report, not a
gate, by default).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tacit.config import load_config
from tacit.fsutil import _fsync_dir, atomic_write_bytes, atomic_write_text, lock_for
from tacit.safety.scanner import scan
from tacit.stores import history
from tacit.stores.memory import ENTRY_DELIMITER, MemoryStore

sys.path.insert(0, str(Path(__file__).resolve().parent))  # skill_index.py, run as a script

import skill_index  # noqa: E402

TARGET_ADD = 3.0

_ENTRIES = (
    "User prefers pytest over unittest; run the suite with `pytest -q -x`.",
    "Deploy to staging with `make deploy ENV=staging`, then watch `make logs` for 5 minutes.",
    "The repo formats with ruff (line length 100); never reformat vendored code under third_party/.",
    "Database migrations live in db/migrations; run `alembic upgrade head` after pulling.",
    "User prefers ssh over https for git remotes.",
    "The API schema is api/openapi.yaml; regenerate the clients with `make gen` after editing it.",
    "CI fails on warnings: fix DeprecationWarnings instead of silencing them.",
    "Ignore the vendor folder when searching the code.",
    "User wants short commit messages in the imperative mood, no emoji.",
    "The staging database is read-only for the app user; use the admin role for fixes.",
    "Frontend runs on port 5173 (Vite), backend on 8000; the proxy is in vite.config.ts.",
    "Release notes go in CHANGELOG.md under Unreleased, one line per change.",
    "User is in UTC+1 and prefers times written in 24-hour format.",
    "Large fixtures live in tests/data; never commit files over 1 MB there.",
    "The `make check` target runs lint, types and tests; run it before saying a task is done.",
    "Secrets come from the environment through settings.py; never hard-code them.",
    "The team reviews every PR within a day; ping #backend for anything urgent.",
    "Python 3.11 is the minimum version; do not use 3.12-only syntax.",
    "Use pnpm, not npm, in the web/ folder.",
    "Logs rotate daily under /var/log/app; the newest is app.log.",
)


def base_memory(limit_chars: int = 1500) -> list[str]:
    """Realistic entries filling MEMORY.md to about ``limit_chars``."""
    entries: list[str] = []
    for entry in _ENTRIES:
        if len("\n§\n".join(entries + [entry])) > limit_chars:
            break
        entries.append(entry)
    return entries


def bare_write(path: Path, data: bytes) -> None:
    """Temp file in the same folder, write, fsync, rename: nothing else."""
    tmp = path.with_name(f".{path.name}.bare.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure_memory_add(cfg, samples: int) -> dict[str, float]:
    """Median seconds of each figure (see the module docstring).

    Every timed write is preceded by the same untimed reset of its own target
    (an atomic write of the base text), so the add and the bare write start
    from the same state: the filesystem's journal does not favour either.
    The order of the timed steps alternates between samples."""
    store = MemoryStore(cfg, actor=history.USER)  # the benchmark writes as you
    path = Path(cfg.memory_file)
    bare_target = path.with_name("bare.md")
    base_text = ENTRY_DELIMITER.join(base_memory())
    atomic_write_text(path, base_text)
    store.add("memory", "warm-up: import and compile everything once")
    keys = ("add", "bare", "bare_dir", "atomic", "lock", "scan", "read")
    figures: dict[str, list[float]] = {k: [] for k in keys}

    def lock_cycle():
        with lock_for(path):
            pass

    for n in range(samples):
        entry = f"Benchmark entry {n}: the build cache lives in .cache/build; clear it after a toolchain bump."
        new_bytes = (base_text + ENTRY_DELIMITER + entry).encode("utf-8")
        writes = [
            ("add", path, lambda: store.add("memory", entry)),
            ("bare", bare_target, lambda: bare_write(bare_target, new_bytes)),
            ("bare_dir", bare_target, lambda: (bare_write(bare_target, new_bytes), _fsync_dir(path.parent))),
            ("atomic", bare_target, lambda: atomic_write_bytes(bare_target, new_bytes)),
        ]
        for key, target, fn in (writes if n % 2 else reversed(writes)):
            atomic_write_text(target, base_text)  # untimed reset
            figures[key].append(_timed(fn))
        assert path.read_bytes() == new_bytes, "the add did not write what the bare write wrote"
        figures["lock"].append(_timed(lock_cycle))
        figures["scan"].append(_timed(lambda: scan(entry)))
        figures["read"].append(_timed(lambda: store._load_for_write("memory", roundtrip_guard=False)))
    return {key: statistics.median(values) for key, values in figures.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="41 adds, 50 skills, 3 index runs")
    parser.add_argument("--adds", type=int, help="memory add samples (default 201)")
    parser.add_argument("--skills", type=int, help="number of skills (default 200)")
    parser.add_argument("--repeats", type=int, help="index runs per figure (default 15)")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when a target is missed (default: report only)")
    args = parser.parse_args(argv)
    adds = args.adds or (41 if args.quick else 201)
    count = args.skills or (50 if args.quick else 200)
    repeats = args.repeats or (3 if args.quick else 15)

    ok = True
    with tempfile.TemporaryDirectory(prefix="tacit-store-bench-") as tmp:
        home = Path(tmp)
        cfg = load_config(env={"TACIT_HOME": str(home), "HOME": str(home)})

        m = measure_memory_add(cfg, adds)
        ratio = m["add"] / m["bare"]
        ok = ratio <= TARGET_ADD
        print(f"memory add: median of {adds} interleaved samples, MEMORY.md "
              f"~{len(chr(10).join(base_memory()))} chars + one ~95-char entry")
        print(f"  bare write (temp, fsync, rename)  {m['bare'] * 1e3:8.3f} ms   1.00x")
        print(f"  MemoryStore.add                   {m['add'] * 1e3:8.3f} ms  {ratio:5.2f}x  "
              f"target <= {TARGET_ADD:g}x {'ok' if ok else 'MISSED'}")
        print("  its parts, each timed alone:")
        for key, label in (("bare_dir", "bare write + folder fsync"),
                           ("atomic", "fsutil.atomic_write_bytes"),
                           ("lock", "lock acquire + release"), ("scan", "scan the entry"),
                           ("read", "re-read + parse MEMORY.md")):
            print(f"    {label:<30} {m[key] * 1e3:8.3f} ms  {m[key] / m['bare']:5.2f}x")

        paths = skill_index.make_skills(Path(cfg.skills_dir), count)
        total = sum(os.path.getsize(p) for p in paths)
        s = skill_index.measure_in_process(cfg, paths, repeats)
        print(f"skill index: {count} skills, {total / 1024:.0f} KiB of SKILL.md, median of {repeats} runs")
        print(f"  read the files' bytes             {s['read'] * 1e3:8.2f} ms   1.00x")
        for label, key in (("cold: new store, catalog + index", "cold"),
                           ("warm: index_text() again", "warm"),
                           ("after refresh()", "refresh"),
                           ("new session's snapshot", "session"),
                           ("cold, scanner stubbed out", "cold_no_scan")):
            print(f"  {label:<33} {s[key] * 1e3:8.3f} ms  {s[key] / s['read']:6.3f}x")
        print(f"  the scanner alone on the {count} descriptions: {s['scanner'] * 1e3:.2f} ms")
    return 1 if args.strict and not ok else 0


if __name__ == "__main__":
    sys.exit(main())

"""Stress tests: concurrent writers lose nothing; a killed writer never corrupts.

Real processes, real files, real locks:

- **8 writers x 100 adds through the CLI.** Each writer is a separate Python
  process that runs 100 ``tacit memory add`` invocations, each in a process of
  its own: the writer imports tacit once, then forks one child per invocation
  and the child runs ``tacit.cli.main(["memory", "add", TEXT])`` — argv
  parsing, config from the environment, lock, re-read, write, JSON on stdout,
  exit code — exactly what the console script runs after interpreter
  start-up. A fresh interpreter per invocation costs ~90 ms of CPU (start-up,
  imports, compiling the scanner's regexes); 800 of them would take minutes on
  a busy two-core machine, the forked ones take seconds. Racing them, real
  ``tacit memory add`` console-script processes prove the installed entry
  point under the same contention.
- **A writer killed with SIGKILL at random moments (200 trials).** A child
  forked from the test process loops add / replace / remove / batch on both
  files until it is killed after a random delay. After every kill both files
  must decode, parse and round-trip (the drift guard's own check), hold only
  whole entries, accept a new write at once (the dead writer's lock is gone),
  and any temp file the kill left behind must be invisible to readers and
  swept by the next write once it is older than a minute (see docs/memory.md).
- **Hermes Agent's memory tool racing tacit.** A process doing exactly what
  Hermes's tool does (``flock`` on ``MEMORY.md.lock``, re-read, append with
  ``"\\n§\\n"``, temp file + fsync + rename) runs against tacit writers on the
  same file: nothing is lost on either side.

Every concurrent test also checks that its writers really overlapped in time.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tacit.stores.memory import MemoryStore, join_entries, parse_entries

pytestmark = pytest.mark.stress

# One writer process: warm up, say "ready", wait for "go", then run N
# invocations of ``tacit memory add`` in forked children; report as JSON.
_CLI_WRITER = r'''
import json, os, sys, time
from tacit.cli import main
from tacit.safety.scanner import scan

writer, count, prefix = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def text(i):
    return f"{prefix} writer {writer} entry {i}: the build cache lives in .cache/build"
# Import once, here, what every child would otherwise import: argparse and the
# command (by building the parser once), config, the store, the scanner's
# regexes for this kind of text. Each child still runs all of main().
from tacit.cli import build_parser
import tacit.config, tacit.consolidation, tacit.stores.memory  # noqa
build_parser(["memory", "add", text(0)])
scan(text(0))
print("ready", flush=True)
sys.stdin.readline()
start = time.time()
failures = []
for i in range(count):
    sys.stdout.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the invocation: `tacit memory add TEXT`
        os.close(r)
        os.dup2(w, 1)
        try:
            code = main(["memory", "add", "--json", text(i)])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            code = 99
        sys.stdout.flush()
        os._exit(code)
    os.close(w)
    chunks = []
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    out = b"".join(chunks).decode()
    lines = out.splitlines()
    try:
        ok = code == 0 and len(lines) == 1 and json.loads(lines[0])["success"] is True
    except ValueError:
        ok = False
    if not ok:
        failures.append({"i": i, "code": code, "stdout": out[:300]})
print(json.dumps({"writer": writer, "start": start, "end": time.time(), "failures": failures}), flush=True)
'''

# Hermes Agent's memory-tool write path, step for step: flock on the sibling
# MEMORY.md.lock (opened "a+"), re-read, split on the delimiter, strip, drop
# empties and duplicates, append, write a ".mem_*.tmp" temp file in the same
# folder, fsync, rename over MEMORY.md, unlock.
_HERMES_WRITER = r'''
import fcntl, json, os, sys, tempfile, time
path, writer, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
DELIM = "\n§\n"
print("ready", flush=True)
sys.stdin.readline()
start = time.time()
for i in range(count):
    content = f"hermes writer {writer} entry {i}: deploys go through the staging pipeline"
    with open(path + ".lock", "a+", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            try:
                raw = open(path, encoding="utf-8").read()
            except FileNotFoundError:
                raw = ""
            entries = list(dict.fromkeys(e.strip() for e in raw.split(DELIM) if e.strip()))
            if content not in entries:
                entries.append(content)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".mem_", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(DELIM.join(entries))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
print(json.dumps({"writer": writer, "start": start, "end": time.time(), "failures": []}), flush=True)
'''


def _start(code: str, args: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _run_together(procs: list[subprocess.Popen], timeout: float = 120) -> list[dict]:
    """Wait until every process is warmed up, release them at once, collect reports."""
    try:
        for proc in procs:
            line = proc.stdout.readline()
            assert line.strip() == "ready", (line, proc.stderr.read() if proc.poll() is not None else "")
        for proc in procs:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        reports = []
        for proc in procs:
            out, err = proc.communicate(timeout=timeout)
            assert proc.returncode == 0, err
            reports.append(json.loads(out.strip().splitlines()[-1]))
        return reports
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _assert_overlapped(reports: list[dict]) -> None:
    """All writers were running at one same moment (real contention)."""
    latest_start = max(r["start"] for r in reports)
    earliest_end = min(r["end"] for r in reports)
    assert latest_start < earliest_end, "the writers did not overlap in time"


def _stress_env(tacit_env: dict) -> dict:
    env = dict(tacit_env)
    env["TACIT_MEMORY_CHAR_LIMIT"] = "1000000"  # room for every entry: the test is about loss
    env["TACIT_AUTO_CONSOLIDATE"] = "false"
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _tacit_command(env: dict) -> list[str]:
    found = shutil.which("tacit", path=env.get("PATH"))
    return [found] if found else [sys.executable, "-m", "tacit.cli"]


def _assert_clean_file(path: Path) -> list[str]:
    """The file decodes, parses and round-trips exactly (what the drift guard checks)."""
    raw = path.read_bytes().decode("utf-8")
    entries = parse_entries(raw)
    assert join_entries(entries) == raw.strip()
    return entries


def test_8_cli_writers_x_100_adds_lose_no_entry(tacit_env, cfg):
    env = _stress_env(tacit_env)
    writers, per_writer = 8, 100
    procs = [_start(_CLI_WRITER, [str(w), str(per_writer), "cli"], env) for w in range(writers)]

    # real console-script invocations racing the forked ones
    console = _tacit_command(env)
    console_texts = [f"console entry {i}: the build cache lives in .cache/build" for i in range(16)]

    def console_add(text: str) -> subprocess.CompletedProcess:
        return subprocess.run([*console, "memory", "add", "--json", text], env=env, capture_output=True,
                              text=True, timeout=120)

    started = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        pending = [pool.submit(console_add, t) for t in console_texts]
        reports = _run_together(procs)
        console_runs = [f.result() for f in pending]
    elapsed = time.monotonic() - started

    assert [r["failures"] for r in reports] == [[]] * writers
    for run in console_runs:
        assert run.returncode == 0, run.stderr
        assert len(run.stdout.splitlines()) == 1 and json.loads(run.stdout)["success"] is True
    _assert_overlapped(reports)

    entries = _assert_clean_file(cfg.memory_file)
    expected = {f"cli writer {w} entry {i}: the build cache lives in .cache/build"
                for w in range(writers) for i in range(per_writer)} | set(console_texts)
    assert len(entries) == len(expected) == writers * per_writer + len(console_texts)
    assert set(entries) == expected
    # each writer's own entries are in the order it wrote them
    for w in range(writers):
        mine = [e for e in entries if e.startswith(f"cli writer {w} entry ")]
        assert mine == [f"cli writer {w} entry {i}: the build cache lives in .cache/build"
                        for i in range(per_writer)]
    print(f"\n{writers}x{per_writer} forked CLI adds + {len(console_texts)} console-script adds: "
          f"{elapsed:.1f} s")


def test_hermes_style_writers_racing_tacit_lose_nothing(tacit_env, cfg):
    env = _stress_env(tacit_env)
    path = str(cfg.memory_file)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    count = 60
    procs = [_start(_HERMES_WRITER, [path, str(w), str(count)], env) for w in range(3)]
    procs += [_start(_CLI_WRITER, [str(w), str(count), "tacit"], env) for w in range(3)]
    reports = _run_together(procs)

    assert [r["failures"] for r in reports] == [[]] * 6
    _assert_overlapped(reports)
    entries = _assert_clean_file(cfg.memory_file)
    expected = {f"hermes writer {w} entry {i}: deploys go through the staging pipeline"
                for w in range(3) for i in range(count)}
    expected |= {f"tacit writer {w} entry {i}: the build cache lives in .cache/build"
                 for w in range(3) for i in range(count)}
    assert set(entries) == expected and len(entries) == len(expected)
    # tacit reads what Hermes wrote: the store sees every entry and can rewrite the file
    store = MemoryStore(cfg.with_settings(memory_char_limit=1_000_000))
    assert store.remove("memory", "hermes writer 0 entry 0:")["success"]
    assert len(store.entries("memory")) == len(expected) - 1


# ---------------------------------------------------------------------------
# SIGKILL at random moments
# ---------------------------------------------------------------------------
_ENTRY_SHAPE = re.compile(r"^(?:seed entry \d+|k\d+ n\d+ (?:added|replaced)|u\d+ n\d+ batch) [a-z ]+\.$")
_FILLER = "the build cache lives in the cache folder"


def _writer_loop(cfg, trial: int) -> None:  # runs in the forked child until SIGKILL
    store = MemoryStore(cfg)
    rng = random.Random(trial)
    deadline = time.monotonic() + 5  # never outlive a parent that died
    n = 0
    while time.monotonic() < deadline:
        n += 1
        choice = rng.random()
        entries = store.entries("memory")
        if choice < 0.45 or len(entries) < 4:
            store.add("memory", f"k{trial} n{n} added {_FILLER}.")
        elif choice < 0.7:
            victim = rng.choice(entries)
            store.replace("memory", victim, f"k{trial} n{n} replaced {_FILLER}.")
        elif choice < 0.85:
            store.remove("memory", rng.choice(entries))
        else:
            store.batch([{"action": "add", "target": "user", "content": f"u{trial} n{n} batch {_FILLER}."},
                         {"action": "add", "target": "memory", "content": f"k{trial} n{n} added {_FILLER}."}])


def _temp_files(folder: Path) -> list[Path]:
    from tacit.fsutil import is_temp_of

    return [p for p in folder.iterdir() if is_temp_of(p.name, "MEMORY.md") or is_temp_of(p.name, "USER.md")]


def test_writer_killed_at_random_moments_never_corrupts(cfg):
    cfg = cfg.with_settings(memory_char_limit=4000, user_char_limit=4000)
    store = MemoryStore(cfg)
    for i in range(6):
        assert store.add("memory", f"seed entry {i} {_FILLER}.")["success"]
    folder = Path(cfg.memory_file).parent
    rng = random.Random(2024)
    trials, killed_mid_write, seen = 200, 0, set()
    started = time.monotonic()
    for trial in range(3 * trials):  # past ``trials`` only while no kill has landed yet (a loaded machine)
        if trial >= trials and killed_mid_write:
            break
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                _writer_loop(cfg, trial)
            finally:
                os._exit(0)
        try:
            time.sleep(rng.uniform(0.0, 0.012 * (1 + trial // trials)))  # wider when the writer starts late
        finally:
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, trial

        for target in ("memory", "user"):
            path = Path(cfg.memory_file if target == "memory" else cfg.user_file)
            if path.exists():
                entries = _assert_clean_file(path)
                bad = [e for e in entries if not _ENTRY_SHAPE.match(e)]
                assert not bad, (trial, bad)  # only whole entries, never a torn one
                assert store.entries(target) == entries  # readers ignore temp files
        leftovers = set(_temp_files(folder))
        killed_mid_write += bool(leftovers - seen)  # this kill left a new one
        seen |= leftovers
        # the dead writer's lock died with it: the next write gets it at once
        from tacit.fsutil import lock_for

        with lock_for(cfg.memory_file, timeout=5):
            pass
        # keep the file small and valid for the next trial: the store itself trims it
        for target in ("memory", "user"):
            while len(store.entries(target)) > 12:
                result = store.remove(target, store.entries(target)[0])
                assert result["success"], result
    elapsed = time.monotonic() - started
    assert killed_mid_write > 0, f"no kill landed inside a write in {trial + 1} trials"

    # Temp files left by kills are swept by the next write once a minute old.
    leftovers = _temp_files(folder)
    old = time.time() - 120
    for path in leftovers:
        os.utime(path, (old, old))
    assert store.add("memory", f"seed entry 99 {_FILLER}.")["success"]
    assert store.add("user", f"u0 n0 batch {_FILLER} again.")["success"]
    assert _temp_files(folder) == []
    print(f"\n{trial + 1} SIGKILL trials in {elapsed:.1f} s; {killed_mid_write} left a temp file "
          f"(a kill inside a write), {len(leftovers)} temp files swept")


def test_fresh_temp_files_are_never_swept(cfg):
    """A temp file younger than a minute may belong to a live writer: kept."""
    from tacit.fsutil import sweep_stale_temps

    store = MemoryStore(cfg)
    assert store.add("memory", "first entry")["success"]
    folder = Path(cfg.memory_file).parent
    young = folder / ".MEMORY.md.abcd1234.tmp"
    young.write_text("half")
    stale = folder / ".MEMORY.md.zzzz9999.tmp"
    stale.write_text("half")
    os.utime(stale, (time.time() - 61, time.time() - 61))
    unrelated = folder / ".MEMORY.md.notatempfile.tmp"  # wrong shape: not ours
    unrelated.write_text("x")
    os.utime(unrelated, (time.time() - 600, time.time() - 600))
    assert store.add("memory", "second entry")["success"]
    assert young.exists() and unrelated.exists() and not stale.exists()
    assert store.entries("memory") == ["first entry", "second entry"]
    assert sweep_stale_temps(cfg.memory_file, older_than=0) == [young.name]

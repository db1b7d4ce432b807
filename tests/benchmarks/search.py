"""Benchmark: ``tacit search`` — indexing, a search when nothing changed, query latency, relevance.

    python tests/benchmarks/search.py                        # everything, default sizes
    python tests/benchmarks/search.py --index-mb 100 --messages 1000000
    python tests/benchmarks/search.py --only relevance

What is measured (each against a baseline measured in the same run)
- **index**: generated Claude Code transcripts (tests/benchmarks/learn.py's
  generator: prompts, replies, tool calls with file-sized outputs) under an
  isolated ``~/.claude/projects``; ``tacit search --reindex --json`` as a
  subprocess (wall, CPU, peak RSS from ``os.wait4``) vs ``json.loads`` of
  every line of the same files (best of three). Also the index's size on
  disk against the text it indexed (after redaction and excerpts).
- **unchanged**: a search when no file changed, end to end: the CLI as a
  subprocess with a service running (it answers) and without one (median
  of 7; includes the interpreter's start and imports); the service's
  answer as the CLI asks it, and a warm in-process search (median of 20).
- **queries**: an index of ``--messages`` messages built from real text
  (``../shared/data/real`` user and assistant messages, 50 projects), then
  the p50/p95 of 40 queries without catch-up, in this project and in all.
- **relevance**: the 120 real sessions written as Claude Code transcripts
  (one project per repository), and the questions of
  ``tests/data/search_questions.jsonl`` (written for this benchmark in our
  own words; each names the session and the position ``k`` of the user
  message whose exchange answers it): the share whose answer is in the top
  3 (and top 1), scoped to the session's project and over all projects.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
REAL = ROOT.parent.parent / "shared" / "data" / "real"
if not REAL.exists():
    REAL = Path("/work/shared/data/real")
QUESTIONS = ROOT / "tests" / "data" / "search_questions.jsonl"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "extension"))

from learn import generate, json_baseline  # noqa: E402

from tacit.config import load_config  # noqa: E402


def _env(home: Path, data: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACIT_")}
    env.update({"HOME": str(home), "TACIT_HOME": str(data)})
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "HERMES_HOME", "PI_CODING_AGENT_DIR"):
        env.pop(name, None)
    return env


def _tacit(env: dict, *args: str) -> tuple[float, float, int, str]:
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "tacit", *args], env=env, stdout=out, stderr=err,
                                cwd=env["HOME"])
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"tacit {' '.join(args)} failed: {err.read().decode()[-2000:]}")
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, out.read().decode()


def _db_bytes(data: Path) -> int:
    return sum(p.stat().st_size for p in data.glob("search.db*") if p.name != "search.db.lock")


def bench_index(mb: float, work: Path) -> dict:
    home, data = work / "home", work / "data"
    folder = home / ".claude" / "projects" / "-home-maya-code-invoicely"
    written = generate(folder, int(mb * 1_000_000))
    base_wall, base_cpu = json_baseline(folder)
    wall, cpu, rss, out = _tacit(_env(home, data), "search", "--reindex", "--json")
    stats = json.loads(out)
    size = _db_bytes(data)
    return {"mb": round(written["bytes"] / 1e6, 1), "lines": written["lines"], "files": written["files"],
            "messages": stats["messages"], "indexed_chars": stats["indexed"]["chars"],
            "baseline_wall": round(base_wall, 2), "baseline_cpu": round(base_cpu, 2),
            "index_wall": round(wall, 2), "index_cpu": round(cpu, 2),
            "ratio_wall": round(wall / base_wall, 2), "ratio_cpu": round(cpu / base_cpu, 2),
            "peak_rss_mb": round(rss / 1e6, 1), "index_bytes": size,
            "index_to_text": round(size / max(1, stats["indexed"]["chars"]), 3)}


def bench_unchanged(work: Path) -> dict:
    from tacit.search.searcher import search
    from tacit.service import client
    from tacit.service.search_client import search as ask_service

    home, data = work / "home", work / "data"
    env = _env(home, data)
    query = "csv export streams rows"
    cli = [_tacit(env, "search", "--json", "--all-projects", query)[0] for _ in range(7)]
    baseline = []
    for _ in range(7):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        baseline.append(time.perf_counter() - started)
    cfg = load_config(env=env)
    search(cfg, "warm up", all_projects=True)
    warm = []
    for _ in range(20):
        started = time.perf_counter()
        result = search(cfg, query, all_projects=True)
        warm.append(time.perf_counter() - started)
    assert result["indexed"]["files_read"] == 0
    server = subprocess.Popen([sys.executable, "-m", "tacit", "serve"], env=env, cwd=env["HOME"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not client.status(str(data)).get("running") and time.monotonic() < deadline:
            time.sleep(0.05)
        request = {"argv": ["--json", "--all-projects", query], "cwd": str(home), "tty": False}
        ask_service(str(data), request)
        served = []
        for _ in range(20):
            started = time.perf_counter()
            reply = ask_service(str(data), request)
            served.append(time.perf_counter() - started)
        assert reply is not None and len(json.loads(reply["out"])["results"]) == len(result["results"])
        cli_served = [_tacit(env, "search", "--json", "--all-projects", query)[0] for _ in range(7)]
    finally:
        client.stop(str(data), wait=10)
        server.wait(timeout=30)
    return {"cli_median_ms": round(statistics.median(cli_served) * 1000, 1),
            "service_median_ms": round(statistics.median(served) * 1000, 2),
            "cli_no_service_median_ms": round(statistics.median(cli) * 1000, 1),
            "bare_python_median_ms": round(statistics.median(baseline) * 1000, 1),
            "in_process_median_ms": round(statistics.median(warm) * 1000, 2), "results": len(result["results"])}


def _real_texts() -> list:
    texts = []
    for name in ("user.jsonl", "assistant.jsonl"):
        with open(REAL / name, encoding="utf-8") as handle:
            for line in handle:
                text = json.loads(line).get("text") or ""
                if text.strip():
                    texts.append(text[:1200])
    return texts


def bench_queries(n_messages: int, work: Path) -> dict:
    from tacit.search import query as q
    from tacit.search.indexer import host_tag, project_tag
    from tacit.stores.search_index import SearchIndex

    rng = random.Random(23)
    texts = _real_texts()
    index = SearchIndex(work / "big.db")
    tags = [project_tag(f"/repo/{n}") for n in range(50)]
    started = time.perf_counter()
    chars = 0
    with index.write():
        sessions = [index.add_session("claude-code", f"s{n}", f"/repo/{n % 50}", f"r{n % 50}", tags[n % 50],
                                      f"/repo/{n % 50}", False)["id"] for n in range(2000)]
        for n in range(n_messages):
            text = rng.choice(texts)
            chars += len(text)
            sess = n * 2000 // n_messages
            index.add_chunk(sessions[sess], 1, n // 2, 1.7e9 + n, [(0, 0, 0, "u" if n % 2 == 0 else "a")], text,
                            f"{tags[sess % 50]} {host_tag('claude-code')}")
            if n % 100_000 == 99_999:
                index.commit_point()
    build = time.perf_counter() - started
    index.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    words = [w for t in rng.sample(texts, 400) for w in q.words(t) if len(w) > 3 and w.isalpha()]
    queries = [" ".join(rng.sample(words, rng.randint(1, 4))) for _ in range(40)]
    out = {"messages": n_messages, "text_mb": round(chars / 1e6, 1), "build_s": round(build, 1),
           "index_mb": round((work / "big.db").stat().st_size / 1e6, 1)}
    for scope, scope_tags in (("project", [tags[7]]), ("all", [])):
        times = []
        for query in queries:
            t0 = time.perf_counter()
            q.rank(q.candidates(index, query, scope_tags, None))
            times.append(time.perf_counter() - t0)
        times.sort()
        out[f"{scope}_p50_ms"] = round(times[len(times) // 2] * 1000, 2)
        out[f"{scope}_p95_ms"] = round(times[int(len(times) * 0.95)] * 1000, 2)
    index.close()
    return out


def real_sessions() -> list:
    with open(REAL / "sessions.jsonl", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def write_real_transcripts(home: Path) -> dict:
    """Each real session as a Claude Code transcript; session name -> transcript id."""
    ids = {}
    for n, session in enumerate(real_sessions()):
        repo = session["session"].split(":", 1)[0].replace("/", "-")
        cwd = f"/repos/{repo}"
        sid = f"real-{n:03d}"
        ids[session["session"]] = sid
        folder = home / ".claude" / "projects" / cwd.replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / f"{sid}.jsonl", "w", encoding="utf-8") as handle:
            for k, turn in enumerate(session["turns"]):
                stamp = f"2026-0{1 + n % 9}-{1 + k % 28:02d}T10:00:00Z"
                kind = "user" if turn["role"] == "user" else "assistant"
                content = turn["text"] if kind == "user" else [{"type": "text", "text": turn["text"]}]
                handle.write(json.dumps({"type": kind, "sessionId": sid, "cwd": cwd, "timestamp": stamp,
                                         "message": {"id": f"m{k}", "role": kind, "content": content}}) + "\n")
    return ids


def turn_number(session: dict, k: int) -> int | None:
    """The index's turn number of ``session["turns"][k]`` (user messages counted
    as the Claude Code reader counts prompts), or None when it is no prompt."""
    from tacit.hosts.claude_code.sessions import _user_messages

    number = 0
    for n, turn in enumerate(session["turns"][:k + 1]):
        if turn["role"] == "user" and _user_messages(turn["text"]):
            number += 1
        elif n == k:
            return None
    return number


def bench_relevance(work: Path) -> dict:
    from tacit.search.searcher import search

    home, data = work / "rel-home", work / "rel-data"
    ids = write_real_transcripts(home)
    cfg = load_config(env=_env(home, data))
    questions = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_name = {s["session"]: s for s in real_sessions()}
    for item in questions:
        item["turn"] = turn_number(by_name[item["session"]], item["k"])
    questions = [item for item in questions if item["turn"] is not None]
    out = {"questions": len(questions), "sessions": len(ids),
           "sessions_asked_about": len({item["session"] for item in questions})}
    misses = []
    for scope in ("project", "all"):
        top1 = top3 = 0
        for item in questions:
            sid = ids[item["session"]]
            repo = item["session"].split(":", 1)[0].replace("/", "-")
            result = search(cfg, item["question"], cwd=f"/repos/{repo}", all_projects=scope == "all", limit=3)
            found = [(r["session_id"], r["turn"]) for r in result["results"]]
            wanted = (sid, item["turn"])
            top1 += found[:1] == [wanted]
            top3 += wanted in found
            if scope == "project" and wanted not in found:
                misses.append({"question": item["question"], "wanted": wanted, "got": found})
        out[f"{scope}_top1"] = round(top1 / len(questions), 3)
        out[f"{scope}_top3"] = round(top3 / len(questions), 3)
    out["misses"] = misses
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-mb", type=float, default=100.0)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--only", choices=("index", "queries", "relevance"), default=None)
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tacit-search-bench-"))
    try:
        if args.only in (None, "index"):
            print("index:", json.dumps(bench_index(args.index_mb, work)), flush=True)
            print("unchanged:", json.dumps(bench_unchanged(work)), flush=True)
        if args.only in (None, "queries"):
            print("queries:", json.dumps(bench_queries(args.messages, work)), flush=True)
        if args.only in (None, "relevance"):
            result = bench_relevance(work)
            misses = result.pop("misses")
            print("relevance:", json.dumps(result), flush=True)
            if args.show_misses:
                for miss in misses:
                    print("  miss:", json.dumps(miss, ensure_ascii=False))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

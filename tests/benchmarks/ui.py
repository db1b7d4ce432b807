"""Benchmark: how fast ``tacit ui`` answers, and what it holds in memory idle.

    python tests/benchmarks/ui.py             # 1,000 history rows, 200 skills, 30 requests a page
    python tests/benchmarks/ui.py --quick     # 200 rows, 50 skills, 5 requests (a smoke run)

A fresh data folder (memory in every scope, history rows from real adds and
removes, a guard, generated skills; an AGENTS.md in the repository); ``tacit ui --no-open`` in its own
process; each page fetched on a new connection, median wall time. Baseline,
same run: a bare ``ThreadingHTTPServer`` process answering the memory page's
bytes. Idle memory: the server's VmRSS after start, and after every page
(the bare server's beside it). Targets ≤ 100 ms a page, ≤ 30 MB idle; a
report, not a gate (docs/ui.md).
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from urllib.parse import urlsplit

PAGES = ("/", "/history", "/guards", "/review", "/cost", "/skills", "/skill")
_HERE = Path(__file__).resolve().parent


def _skill_maker():
    spec = importlib.util.spec_from_file_location("skill_index_bench", _HERE / "skill_index.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_skills


AGENTS_MD = "# Agents\n\n## Setup\n\n- Install with `pnpm install`.\n- Run the tests with `make test`.\n\n" \
    "## Rules\n\n- Never run `terraform destroy`.\n" \
    "- Please refrain from touching the lockfile `pnpm-lock.yaml` yourself.\n" \
    "- Do not hand-edit `dist/bundle.js`; it is generated.\n" + "".join(
        f"- Module {i} keeps its fixtures under `tests/fixtures/m{i}`.\n" for i in range(30))


def populate(env: dict, rows: int, skills: int) -> str:
    """The data folder; the name of one skill (for the skill page)."""
    from tacit.app import USER, Tacit
    from tacit.config import load_config

    cfg = load_config(env=env)
    you = Tacit(cfg, actor=USER)
    repo = Path(env["HOME"]) / "repo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text(AGENTS_MD)  # the Guards page lists its lines tacit could not read
    project = you.project(repo)
    store = you.memory(project)
    store.add("user", "I like short answers")
    for i in range(12):
        store.add("project", f"project fact number {i}: the build uses make, never a bare npm")
        store.add("global", f"global habit {i}: dates are ISO 8601 in every report")
    made = 26
    while made < rows:  # an add and its removal: two history rows, the files stay small
        scope = ("global", "project")[made % 2]
        entry = f"a passing note {made} about the deploy script and its flags"
        store.add(scope, entry)
        store.remove(scope, entry)
        made += 2
    with you.acting():
        you.guards().add("terraform apply", "ask before terraform apply", scope="project", project=project,
                         action="ask")
    you.close()
    paths = _skill_maker()(Path(cfg.skills_dir), skills)
    return str(repo), paths[0].parent.name


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _get(port: int, path: str, cookie: str = "") -> tuple[float, int, bytes]:
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}", "Cookie": cookie})
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return time.perf_counter() - start, resp.status, body


BARE = textwrap.dedent("""
    import sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    body = open(sys.argv[1], "rb").read()
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    server = ThreadingHTTPServer(("127.0.0.1", 0), H)
    print(f"http://127.0.0.1:{server.server_address[1]}/", flush=True)
    server.serve_forever()
""")


def measure(env: dict, repo: str, skill: str, repeats: int, workdir: Path) -> dict:
    ui = subprocess.Popen([sys.executable, "-m", "tacit", "ui", "--no-open"], cwd=repo, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    bare = None
    try:
        url = ui.stdout.readline().strip()
        time.sleep(0.5)
        figures = {"rss_start_kb": _rss_kb(ui.pid)}
        parts = urlsplit(url)
        port = parts.port
        cookie = f"tacit_ui_{port}={parts.query.split('=', 1)[1]}"
        samples: dict[str, list[float]] = {p: [] for p in PAGES}
        samples["baseline"] = []
        paths = {p: (f"/skill?name={skill}" if p == "/skill" else p) for p in PAGES}
        for page in PAGES:  # once each: imports, templates compiled
            _, status, body = _get(port, paths[page], cookie)
            assert status == 200, (page, status, body[:300])
        page_file = workdir / "memory.html"
        page_file.write_bytes(_get(port, "/", cookie)[2])
        bare = subprocess.Popen([sys.executable, "-c", BARE, str(page_file)], stdout=subprocess.PIPE, text=True)
        bare_port = urlsplit(bare.stdout.readline().strip()).port
        _get(bare_port, "/")
        for _ in range(repeats):  # interleaved: the machine's load falls on every figure alike
            samples["baseline"].append(_get(bare_port, "/")[0])
            for page in PAGES:
                took, status, _ = _get(port, paths[page], cookie)
                assert status == 200, (page, status)
                samples[page].append(took)
        time.sleep(1.0)
        figures["rss_idle_kb"] = _rss_kb(ui.pid)
        figures["rss_bare_kb"] = _rss_kb(bare.pid)
        figures.update({k: statistics.median(v) for k, v in samples.items()})
        figures["bytes"] = {p: len(_get(port, paths[p], cookie)[2]) for p in PAGES}
        return figures
    finally:
        for proc in (ui, bare):
            if proc is not None:
                proc.terminate()
                proc.wait(10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 rows, 50 skills, 5 requests a page")
    parser.add_argument("--rows", type=int, help="history rows (default 1000)")
    parser.add_argument("--skills", type=int, help="skills (default 200)")
    parser.add_argument("--repeats", type=int, help="requests a page (default 30)")
    args = parser.parse_args(argv)
    rows = args.rows or (200 if args.quick else 1000)
    skills = args.skills or (50 if args.quick else 200)
    repeats = args.repeats or (5 if args.quick else 30)
    with tempfile.TemporaryDirectory(prefix="tacit-ui-bench-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TACIT_")}
        env.update(TACIT_HOME=str(Path(tmp) / "data"), HOME=str(Path(tmp) / "home"))
        Path(env["HOME"]).mkdir()
        start = time.perf_counter()
        repo, skill = populate(env, rows, skills)
        setup = time.perf_counter() - start
        f = measure(env, repo, skill, repeats, Path(tmp))
    base = f["baseline"]
    print(f"tacit ui benchmark: {rows} history rows, {skills} skills (set up in {setup:.1f} s), "
          f"median of {repeats} requests, each on a new connection")
    print(f"  {'bare http.server, same bytes (baseline)':<44} {base * 1000:7.2f} ms     1.0x")
    for page in PAGES:
        verdict = "ok" if f[page] <= 0.1 else "OVER 100 ms"
        print(f"  {page:<44} {f[page] * 1000:7.2f} ms {f[page] / base:7.1f}x  "
              f"{f['bytes'][page] / 1024:6.0f} KiB  {verdict}")
    for label, key in (("server RSS after start", "rss_start_kb"), ("server RSS idle, after every page", "rss_idle_kb"),
                       ("bare http.server RSS (baseline)", "rss_bare_kb")):
        mb = f[key] / 1024
        verdict = "" if key == "rss_bare_kb" else ("ok" if mb <= 30 else "OVER 30 MB")
        print(f"  {label:<44} {mb:7.1f} MB {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

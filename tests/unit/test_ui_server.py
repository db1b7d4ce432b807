"""tacit ui over plain HTTP: what a browser cannot forge (Host, Origin) is
refused with 403 and changes nothing; pages render what is on disk, escaped."""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
from urllib.parse import urlencode, urlsplit

import pytest

from tacit.stores import history
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore
from tacit.ui.routes import UIApp
from tacit.ui.server import start

from ui_helpers import ENTRIES, SCRIPT, populate


@pytest.fixture
def page(cfg, tmp_path):
    made = populate(cfg, tmp_path)
    server, thread = start(UIApp(cfg, made["project"]))
    yield server, made
    server.shutdown()
    server.server_close()


def request(server, method, path, *, host=None, cookie=True, token=None, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    hdrs = {"Host": host or f"127.0.0.1:{server.port}"}
    if cookie:
        hdrs["Cookie"] = f"{server.cookie_name}={token or server.token}"
    if body is not None:
        hdrs["Content-Type"] = "application/x-www-form-urlencoded"
    hdrs.update(headers or {})
    conn.request(method, path, body=urlencode(body) if body is not None else None, headers=hdrs)
    resp = conn.getresponse()
    data = resp.read().decode()
    conn.close()
    return resp, data


def snapshot(cfg, made):
    store = made["store"]
    files = {s: store.path_for(s).read_bytes() for s in store.targets()}
    with Ledger(cfg) as ledger:
        return files, [c.id for c in history.changes(ledger, limit=1000)]


def test_token_in_url_becomes_a_strict_httponly_cookie(page):
    server, _ = page
    resp, _ = request(server, "GET", f"/?token={server.token}", cookie=False)
    assert resp.status == 303 and resp.getheader("Location") == "/"
    cookie = resp.getheader("Set-Cookie")
    assert cookie.startswith(f"{server.cookie_name}={server.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie


@pytest.mark.parametrize("case", ["no token", "wrong token", "wrong token in url", "foreign host",
                                  "localhost name", "two hosts"])
def test_refused_requests_answer_403(page, case):
    server, _ = page
    kwargs = {"no token": {"cookie": False}, "wrong token": {"token": "x" * 43},
              "foreign host": {"host": f"evil.example:{server.port}"},
              "localhost name": {"host": f"localhost:{server.port}"}}.get(case, {})
    path = f"/?token={'y' * 43}" if case == "wrong token in url" else "/"
    if case == "two hosts":
        kwargs = {"headers": {"Host": f"127.0.0.1:{server.port}"}}
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.putrequest("GET", "/", skip_host=True)
        conn.putheader("Host", f"127.0.0.1:{server.port}")
        conn.putheader("Host", "evil.example")
        conn.putheader("Cookie", f"{server.cookie_name}={server.token}")
        conn.endheaders()
        resp = conn.getresponse()
        body = resp.read().decode()
    else:
        resp, body = request(server, "GET", path, **kwargs)
    assert resp.status == 403, body
    assert ENTRIES["user"] not in body


@pytest.mark.parametrize("case", ["no origin or referer", "foreign origin", "foreign referer",
                                  "no csrf", "wrong csrf", "no token", "foreign host"])
def test_refused_writes_change_nothing(page, cfg, case):
    server, made = page
    before = snapshot(cfg, made)
    form = {"csrf": server.csrf, "scope": "project", "project": made["project"].key,
            "entry": ENTRIES["project"], "text": "we use yarn", "op": "replace"}
    headers = {"Origin": server.origin}
    kwargs = {}
    if case == "no origin or referer":
        headers = {}
    elif case == "foreign origin":
        headers = {"Origin": "http://evil.example"}
    elif case == "foreign referer":
        headers = {"Referer": f"http://127.0.0.1:{server.port + 1}/"}
    elif case == "no csrf":
        form.pop("csrf")
    elif case == "wrong csrf":
        form["csrf"] = server.token  # the cookie's token is not the form's
    elif case == "no token":
        kwargs = {"cookie": False}
    elif case == "foreign host":
        kwargs = {"host": f"evil.example:{server.port}"}
    resp, body = request(server, "POST", "/memory/edit", body=form, headers=headers, **kwargs)
    assert resp.status == 403, body
    assert snapshot(cfg, made) == before


def test_same_origin_write_is_applied_as_you(page, cfg):
    server, made = page
    form = {"csrf": server.csrf, "scope": "project", "project": made["project"].key,
            "entry": ENTRIES["project"], "text": "we use yarn\r\nnot npm", "op": "replace"}
    resp, _ = request(server, "POST", "/memory/edit", body=form, headers={"Referer": server.origin + "/"})
    assert resp.status == 303 and resp.getheader("Location").startswith("/?note=")
    assert 'class="flash ok"' in request(server, "GET", resp.getheader("Location"))[1]
    assert made["store"].entries("project") == ["we use yarn\nnot npm"]
    with Ledger(cfg) as ledger:
        last = history.changes(ledger, limit=1)[0]
    assert (last.action, last.actor.kind, last.actor.describe()) == ("replace", "user", "you (tacit ui)")


def test_a_changes_outcome_is_shown_once_and_never_from_the_url(page):
    """The outcome rode in the URL (``/?done=Replaced…``): a reload said it again, and any link
    could make the page say anything. It is kept on the server and shown by the next page only."""
    server, made = page
    form = {"csrf": server.csrf, "scope": "project", "project": made["project"].key,
            "entry": ENTRIES["project"], "text": "we use yarn", "op": "replace"}
    resp, _ = request(server, "POST", "/memory/edit", body=form, headers={"Origin": server.origin})
    location = resp.getheader("Location")
    assert location.startswith("/?note=") and "yarn" not in location and "done" not in location, location
    first, again = request(server, "GET", location)[1], request(server, "GET", location)[1]
    assert 'class="flash ok"' in first and "we use yarn" in first
    assert 'class="flash ok"' not in again and "we use yarn" in again  # the page, not the outcome twice
    body = request(server, "GET", "/?" + urlencode({"done": "Your token expired: re-enter it at evil.example",
                                                    "failed": "Refused"}))[1]
    assert "evil.example" not in body and 'class="flash' not in body


def test_a_skill_page_refuses_a_scope_that_is_none(page):
    """`/skill?name=release-checklist&scope=bogus` showed the skill with "bogus" as its scope."""
    server, _ = page
    resp, body = request(server, "GET", "/skill?name=release-checklist&scope=bogus")
    assert resp.status == 200 and 'class="flash bad"' in body, body
    assert "no skill scope &#39;bogus&#39; here (the scopes are project, team, global)" in body, body
    assert 'class="pill"' not in body and '<article class="card skill">' not in body
    body = request(server, "GET", "/skill?name=release-checklist&scope=global")[1]
    assert '<span class="pill">global</span>' in body and '<article class="card skill">' in body


def test_every_page_renders_and_escapes(page):
    server, _ = page
    for path in ("/", "/history", "/guards", "/review", "/cost", "/skills", "/skill?name=release-checklist"):
        resp, body = request(server, "GET", path)
        assert resp.status == 200, (path, body[:500])
        assert "<script" not in body
        assert "script-src" not in resp.getheader("Content-Security-Policy")  # default-src 'none' covers it
    _, body = request(server, "GET", "/")
    assert "&lt;script&gt;document.title=" in body
    for text in ENTRIES.values():
        assert text in body
    _, body = request(server, "GET", "/skill?name=release-checklist")
    assert "<code>make test</code>" in body


def test_unknown_method_and_path(page):
    server, _ = page
    assert request(server, "DELETE", "/")[0].status == 405
    assert request(server, "GET", "/nope")[0].status == 404
    resp, _ = request(server, "POST", "/nope", body={"csrf": server.csrf}, headers={"Origin": server.origin})
    assert "no such action: /nope" in request(server, "GET", resp.getheader("Location"))[1]


def test_cli_prints_the_url_first(tacit_env):
    proc = subprocess.Popen([sys.executable, "-m", "tacit", "ui", "--no-open"], env=tacit_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        parts = urlsplit(url)
        assert parts.scheme == "http" and parts.hostname == "127.0.0.1" and parts.query.startswith("token=")
        conn = http.client.HTTPConnection("127.0.0.1", parts.port, timeout=10)
        conn.request("GET", "/")
        assert conn.getresponse().status == 403
    finally:
        proc.terminate()
        proc.wait(10)


def test_pages_are_live(page, cfg):
    """A change made elsewhere (a session, the CLI) shows on the next load."""
    from tacit.stores.skills import SkillStore

    server, made = page
    _, body = request(server, "GET", "/skills")
    assert "deploy-notes" not in body
    SkillStore(cfg).create("deploy-notes", "Use when deploying", "## Procedure\nRun the deploy.\n")
    made["store"].add("project", "the staging database is read-only on Fridays")
    assert "deploy-notes" in request(server, "GET", "/skills")[1]
    assert "read-only on Fridays" in request(server, "GET", "/")[1]
    SkillStore(cfg).edit("deploy-notes", description="Use when deploying to staging")
    assert "deploying to staging" in request(server, "GET", "/skills")[1]


def test_cost_chart_and_guard_outcomes(page, cfg):
    """Runs per day drawn against the budget, by kind and host; a guard's stops counted."""
    import json
    import re
    import time

    from tacit.children import budget
    from tacit.stores.guards import GuardStore
    from tacit.stores.sessions import insert_job

    server, made = page
    now = time.time()
    with Ledger(cfg).write() as conn:
        for job_id, kind, host, tokens, at in (("a", "review", "codex", 120_000, now - 60),
                                               ("b", "correction", "claude-code", 30_000, now - 30),
                                               ("c", "review", "codex", 2_000_000, budget.day_start(now) - 43200)):
            insert_job(conn, {"id": job_id, "kind": kind, "session_id": "s", "host": host, "created": at - 5})
            record = {"ok": True, "mode": "agent", "start": at - 4, "duration": 3.0,
                      "spend": {"tokens": tokens, "usd": 0.5, "usd_source": "host"}}
            conn.execute("UPDATE jobs SET status = 'done', started_at = ?, finished_at = ?, record = ? WHERE id = ?",
                         (at - 4, at, json.dumps(record), job_id))
    with Ledger(cfg) as ledger:
        for ref in ("e1", "e2"):
            GuardStore(cfg, ledger).record_event(made["guard_id"], "stop", subject="terraform apply", ref=ref)
    _, body = request(server, "GET", "/cost")
    bars = re.findall(r'<rect [^>]*fill="(#[0-9a-f]+)"><title>([0-9-]+): (\d+) runs, (\d+) tokens', body)
    assert len(bars) == 14
    today, yesterday = bars[-1], bars[-2]
    assert today[2:] == ("2", "150000") and today[0] == "#3b5bdb"
    assert yesterday[2:] == ("1", "2000000") and yesterday[0] == "#c2410c"  # over the daily budget
    assert "budget 1,000,000 tokens a day" in body
    assert re.search(r"<td>review</td><td>2</td><td>2,120,000</td>", body)
    assert re.search(r"<td>codex</td><td>2</td>", body)
    _, body = request(server, "GET", "/guards")
    row = re.search(rf'<tr class="guard" data-id="{made["guard_id"]}".*?</tr>', body, re.S).group(0)
    assert "2 · 0" in row and "terraform apply" in row


def test_an_entry_changed_since_the_page_was_shown_is_not_edited(page, cfg):
    server, made = page
    store = made["store"]
    assert store.replace("project", ENTRIES["project"], ENTRIES["project"] + " (pnpm 9)")["success"]
    before = snapshot(cfg, made)
    form = {"csrf": server.csrf, "scope": "project", "project": made["project"].key,
            "entry": ENTRIES["project"], "text": "we use yarn", "op": "replace"}
    resp, _ = request(server, "POST", "/memory/edit", body=form, headers={"Origin": server.origin})
    assert "that entry changed since the page was shown" in request(server, "GET", resp.getheader("Location"))[1]
    assert snapshot(cfg, made) == before
    draft = re.search(r"draft=([\w-]+)", resp.getheader("Location")).group(1)  # what was typed, kept
    page_html = request(server, "GET", "/?draft=" + draft)[1]
    assert re.search(r'<details class="add" open>\s*<summary>[^<]*</summary>\s*<form[^>]*>(?:\s*<input[^>]*>)*'
                     r'\s*<textarea name="text">we use yarn</textarea>', page_html)


def test_review_keep_and_drop(page, cfg):
    """Notes the real engine captured from what the user said: kept (into memory) and dropped."""
    import time

    from tacit.engine import Engine
    from tacit.events import MessageEnd

    server, _ = page
    eng = Engine(cfg, background="inline").load_builtins()
    for text in ("I prefer tabs over spaces, by the way.", "We decided to use Postgres 16 for the new service."):
        eng.dispatch(MessageEnd(session_id="s1", role="user", text=text, ts=time.time()))
    _, body = request(server, "GET", "/review")
    ids = re.findall(r'<div class="card candidate" data-id="(\d+)">', body)
    assert len(ids) == 2 and "I prefer tabs over spaces" in body and "Postgres 16" in body
    tabs = re.search(r'data-id="(\d+)">(?:(?!data-id).)*?I prefer tabs', body, re.S).group(1)
    postgres = next(i for i in ids if i != tabs)
    for op, ref in (("keep", tabs), ("drop", postgres)):
        resp, _ = request(server, "POST", "/review/decide", body={"csrf": server.csrf, "id": ref, "op": op},
                          headers={"Origin": server.origin})
        assert 'class="flash ok"' in request(server, "GET", resp.getheader("Location"))[1]
    assert any("tabs over spaces" in e for e in MemoryStore(cfg).entries("user"))
    with Ledger(cfg) as ledger:
        kept = next(c for c in history.changes(ledger, limit=20) if any("tabs" in e for e in c.added()))
    assert (kept.scope, kept.actor.describe()) == ("user", "you (tacit ui)")
    _, body = request(server, "GET", "/review")
    assert "Nothing waiting for review" in body


def test_search_page_once_search_is_installed(cfg, tmp_path):
    """A Claude Code session file on disk, found from the page (runs once
    ``tacit search`` is part of the package)."""
    pytest.importorskip("tacit.search.searcher")
    from search_helpers import claude_dir, claude_exchange, write_jsonl

    from tacit.projects import project_for
    from ui_helpers import git_repo

    repo = git_repo(tmp_path / "shop")
    server, _ = start(UIApp(cfg, project_for(str(repo))))
    try:
        _, body = request(server, "GET", "/search?q=seed")  # before any session file exists
        assert "Nothing found for" in body and "No session of any agent was found" in body
        write_jsonl(claude_dir(tmp_path / "user-home", str(repo)) / "s1.jsonl",
                    claude_exchange("s1", str(repo), "how do I seed the local database?",
                                    "Run make seed <b>now</b>; it loads the fixtures."))
        _, body = request(server, "GET", "/")
        assert '<a href="/search"' in body
        _, body = request(server, "GET", "/search?q=seed+database")
        assert 'class="card result"' in body and "make seed &lt;b&gt;now&lt;/b&gt;" in body
        _, body = request(server, "GET", "/search?q=kubernetes")
        assert "Nothing found for" in body and "No session of any agent" not in body
    finally:
        server.shutdown()
        server.server_close()


def test_a_skill_is_rendered_with_every_piece_escaped(page, cfg):
    """A skill is untrusted when a clone brings it: markup in it is shown, never run or linked."""
    from tacit.stores.skills import SkillStore

    server, _ = page
    body = ("## When to Use\nWhen <img src=x onerror=alert(1)> shows up.\n\n## Procedure\n"
            "1. Run `rm -rf \"$TMP\" <b>`\n2. See [docs](javascript:alert(1)) and **bold** \"quotes\"\n\n"
            "```\n<script>alert(2)</script>\n```\n")
    assert SkillStore(cfg).create("odd-skill", "Use when testing markup", body)["success"]
    _, html = request(server, "GET", "/skill?name=odd-skill")
    article = html[html.index('<article class="card skill">'):html.index("</article>")]
    assert "<img" not in article and "<script" not in article and "<a " not in article
    assert "&lt;img src=x onerror=alert(1)&gt;" in article
    assert "<code>rm -rf &quot;$TMP&quot; &lt;b&gt;</code>" in article
    assert "<strong>bold</strong>" in article and "[docs](javascript:alert(1))" in article
    assert "<pre><code>&lt;script&gt;alert(2)&lt;/script&gt;</code></pre>" in article
    _, html = request(server, "GET", "/skill?name=no-such-skill")
    assert 'class="flash bad"' in html and "no skill named" in html


def test_cli_json_and_a_bad_port(tacit_env):
    proc = subprocess.run([sys.executable, "-m", "tacit", "ui", "--no-open", "--port", "70000", "--json"],
                          env=tacit_env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert json.loads(proc.stdout) == {"success": False,
                                       "error": "--port 70000: give a port from 1 to 65535 (0: any free one)"}
    proc = subprocess.Popen([sys.executable, "-m", "tacit", "ui", "--no-open", "--json"], env=tacit_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = json.loads(proc.stdout.readline())
        assert first["success"] and first["url"].startswith(f"http://127.0.0.1:{first['port']}/?token=")
        busy = subprocess.run([sys.executable, "-m", "tacit", "ui", "--no-open", "--port", str(first["port"])],
                              env=tacit_env, capture_output=True, text=True, timeout=60)
        assert busy.returncode == 1 and f"cannot listen on 127.0.0.1:{first['port']}" in busy.stderr
        assert busy.stdout == ""
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_page_from_an_earlier_start_is_told_what_to_do(page):
    """After ``tacit ui`` restarts on the same port the browser still sends the
    old cookie: the refusal says to open the new address, not just "no token"."""
    server, _ = page
    resp, body = request(server, "GET", "/", token="an-earlier-start-" + "z" * 26)
    assert resp.status == 403 and "from an earlier `tacit ui`" in body and "open the address" in body
    assert request(server, "GET", "/", cookie=False)[1] == "403 forbidden: no token\n"


def test_closed_and_silent_clients_leave_no_traceback(tacit_env, cfg, monkeypatch):
    """A browser that drops its connection mid-answer, and one that sends half a
    request and waits, are neither errors on the terminal (no traceback on stderr)
    nor threads held for ever; the next request is answered."""
    import socket
    import struct
    import time

    from tacit.ui import server as ui_server

    proc = subprocess.Popen([sys.executable, "-m", "tacit", "ui", "--no-open"], env=tacit_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        port, token = urlsplit(url).port, url.split("token=")[1]
        for _ in range(8):  # reset (RST) right after asking: the read or the answer's write fails
            s = socket.create_connection(("127.0.0.1", port))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.sendall(f"GET /history?limit=1000 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                      f"Cookie: tacit_ui_{port}={token}\r\n\r\n".encode())
            s.close()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/cost", headers={"Cookie": f"tacit_ui_{port}={token}"})
        assert conn.getresponse().status == 200
        time.sleep(0.3)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert "Traceback" not in err and "Error" not in err, err

    monkeypatch.setattr(ui_server._Handler, "timeout", 0.5)
    served, _ = start(UIApp(cfg, None))
    try:
        silent = socket.create_connection(("127.0.0.1", served.port), timeout=5)
        silent.sendall(b"GET / HTTP/1.1\r\n")  # and nothing more
        started = time.monotonic()
        assert silent.recv(100) == b""  # closed by the server
        assert time.monotonic() - started < 4
    finally:
        served.shutdown()
        served.server_close()



def test_a_memory_file_grown_to_megabytes_by_hand_is_listed_only_so_far(page):
    """A file grown by hand far past its limit: the page lists the first entries and says how many
    more there are, so it stays small enough to draw (10,000 entries, 5.5 MB, made a 23 MB page that
    took 11 s in a browser); past the 2 MiB tacit reads of a memory file it says the file was read
    only in part, as ``tacit doctor`` does, not that the cut file is malformed."""
    server, made = page
    path = made["store"].path_for("project")
    entries = [f"entry {n} " + "lorem ipsum dolor sit amet " * 20 for n in range(3_000)]  # 1.6 MB
    path.write_text("\n§\n".join(entries) + "\n")
    resp, body = request(server, "GET", "/")
    assert resp.status == 200 and len(body) < 2_000_000
    assert "3,000 entries" in body and "entry 0 lorem" in body and "entry 2999 lorem" not in body
    hidden = re.search(r"… and ([\d,]+) more entries not listed", body)
    assert hidden and int(hidden.group(1).replace(",", "")) + body.count('name="entry"') - 5 == 3_000
    path.write_text("\n§\n".join(entries * 4) + "\n")  # 6.5 MB
    _, body = request(server, "GET", "/")
    assert "more than the 2,097,152 tacit reads of a memory file" in body and "not a clean list" not in body


def test_a_file_tacit_will_not_rewrite_says_so_before_an_edit_is_tried(page, cfg):
    """A hand-edited MEMORY.md with a Latin-1 byte: the page shows its entries (the byte as U+FFFD)
    and says up front what ``tacit doctor`` says; an edit is refused with why, and the file is untouched."""
    server, made = page
    path = made["store"].path_for("project")
    path.write_bytes(b"we use pnpm here\n\xa7\nthe caf\xe9 menu is served from /menu\n")
    before = path.read_bytes()
    _, body = request(server, "GET", "/")
    assert "MEMORY.md is not valid UTF-8: tacit will not rewrite it (fix it by hand)" in body
    assert body.count('class="flash bad problem"') == 1
    form = {"csrf": server.csrf, "scope": "project", "project": made["project"].key,
            "entry": made["store"].entries("project")[0], "text": "we use pnpm here, always", "op": "replace"}
    resp, _ = request(server, "POST", "/memory/edit", body=form, headers={"Origin": server.origin})
    assert "Refusing to rewrite MEMORY.md" in request(server, "GET", resp.getheader("Location"))[1]
    assert path.read_bytes() == before


def test_lifting_a_guard_the_cli_lifted_since_says_so_and_records_nothing(page, cfg, tacit_env):
    """A page shown before `tacit guard remove` still offers Lift; clicking it said "Guard N lifted."
    though nothing changed. Each lift is one history row, with its own actor."""
    server, made = page
    gid = str(made["guard_id"])
    cli = subprocess.run([sys.executable, "-m", "tacit", "guard", "remove", gid, "--json"], env=tacit_env,
                         cwd=str(made["repo"]), capture_output=True, text=True, timeout=60)
    assert json.loads(cli.stdout)["changed"] is True, cli.stdout + cli.stderr
    resp, _ = request(server, "POST", "/guards/change", body={"csrf": server.csrf, "id": gid, "op": "remove"},
                      headers={"Origin": server.origin})
    flash = re.search(r'class="flash ok" role="status">([^<]*)<', request(server, "GET", resp.getheader("Location"))[1])
    assert flash.group(1) == f"Guard {gid} was already lifted: nothing changed."
    with Ledger(cfg) as ledger:
        rows = [c for c in history.changes(ledger, limit=100) if c.action == "guard_remove"]
    assert [(c.action, c.actor.name) for c in rows] == [("guard_remove", "cli")]

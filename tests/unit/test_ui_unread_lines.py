"""tacit ui's Guards page: the rule lines tacit could not read, and your
phrasing of one (``/guards/line``, what ``tacit guard add --line`` does),
over real HTTP on a real repository's AGENTS.md."""

from __future__ import annotations

import html
import http.client
import re
from urllib.parse import urlencode, urlsplit

import pytest

from tacit.commands.guard import check_call
from tacit.stores import history
from tacit.stores.guard_files import READ_BY_CHILD, mark_asked
from tacit.stores.guards import GuardStore
from tacit.stores.ledger import Ledger
from tacit.ui.routes import UIApp
from tacit.ui.server import start

from ui_helpers import populate

LINE = "Please refrain from touching the lockfile `pnpm-lock.yaml` yourself."
AGENTS = f"# Agents\n\n- {LINE}\n- Never run `terraform destroy`.\n"


@pytest.fixture
def page(cfg, tmp_path):
    made = populate(cfg, tmp_path)
    (made["repo"] / "AGENTS.md").write_text(AGENTS)
    server, _ = start(UIApp(cfg, made["project"]))
    yield server, made
    server.shutdown()
    server.server_close()


def call(server, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"Host": f"127.0.0.1:{server.port}", "Cookie": f"{server.cookie_name}={server.token}"}
    if body is not None:
        headers.update({"Content-Type": "application/x-www-form-urlencoded", "Origin": server.origin})
        body = urlencode({"csrf": server.csrf, **body})
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read().decode()
    conn.close()
    return resp, data


def phrase(server, where, pattern) -> dict:
    """Submit a phrasing; the outcome the page it is sent to shows (``done`` or ``failed``), and
    that page (``page``)."""
    resp, _ = call(server, "POST", "/guards/line", {"where": where, "pattern": pattern})
    assert resp.status == 303
    location = urlsplit(resp.getheader("Location"))
    assert location.path == "/guards"
    _, body = call(server, "GET", resp.getheader("Location"))
    flash = dict(re.findall(r'<div class="flash (ok|bad)" role="\w+">(.*?)</div>', body, re.S))
    outcome = {{"ok": "done", "bad": "failed"}[k]: html.unescape(v) for k, v in flash.items()}
    return {**outcome, "page": body}


def unread_rows(body) -> dict:
    return dict(re.findall(r'<tr class="unread" data-where="([^"]+)">(.*?)</tr>', body, re.S))


def state(cfg):
    with Ledger(cfg) as ledger:
        return ([(g.id, g.status) for g in GuardStore(cfg, ledger).all()],
                [c.id for c in history.changes(ledger, limit=1000)])


def test_an_unread_line_is_listed_with_a_form(page):
    server, _ = page
    _, body = call(server, "GET", "/guards")
    assert "Rule lines tacit could not read" in body
    rows = unread_rows(body)
    assert list(rows) == ["AGENTS.md:3"]  # the terraform line is a guard already
    assert "lockfile <code>" not in rows["AGENTS.md:3"]  # text, escaped
    assert "refrain from touching the lockfile `pnpm-lock.yaml`" in rows["AGENTS.md:3"]
    assert "not shown to a child yet" in rows["AGENTS.md:3"]
    assert 'action="/guards/line"' in rows["AGENTS.md:3"] and f'value="{server.csrf}"' in rows["AGENTS.md:3"]


def test_a_line_a_child_was_shown_says_so(page, cfg):
    server, made = page
    with Ledger(cfg) as ledger:
        mark_asked(ledger, made["project"], [{"where": "AGENTS.md:3", "text": LINE}])
    _, body = call(server, "GET", "/guards")
    assert "a child was shown it" in unread_rows(body)["AGENTS.md:3"]


def test_your_phrasing_becomes_a_guard_from_the_line(page, cfg):
    server, made = page
    outcome = phrase(server, "AGENTS.md:3", "path:pnpm-lock.yaml")
    assert "failed" not in outcome, outcome
    with Ledger(cfg) as ledger:
        record = next(g for g in GuardStore(cfg, ledger).all() if g.key.startswith(READ_BY_CHILD))
        last = history.changes(ledger, limit=1)[0]
    assert outcome["done"] == f"Guard {record.id} added for AGENTS.md:3."
    assert (record.file, record.action, record.status, record.lesson) == ("AGENTS.md:3", "ask", "active", LINE)
    assert record.spec.match.to_dict()["patterns"] == ["pnpm-lock.yaml"]
    assert (last.action, last.target, last.actor.describe()) == ("guard_add", f"guard {record.id}", "you (tacit ui)")
    _, body = call(server, "GET", "/guards")
    row = re.search(rf'<tr class="guard" data-id="{record.id}".*?</tr>', body, re.S).group(0)
    assert "AGENTS.md:3" in row and "phrased (tacit could not read the line)" in row
    assert unread_rows(body) == {} and "Rule lines tacit could not read" not in body  # phrased: no longer listed
    with Ledger(cfg) as ledger:  # the guard applies: an edit of the lockfile is held
        hits = check_call(cfg, GuardStore(cfg, ledger), made["project"], str(made["repo"]),
                          edit=str(made["repo"] / "pnpm-lock.yaml"))
    assert [(h["id"], h["source"]) for h in hits] == [(record.id, "AGENTS.md:3")]
    _, body = call(server, "GET", "/history")
    assert f"guard {record.id}" in body and "you (tacit ui)" in body


@pytest.mark.parametrize("where, pattern, error", [
    ("AGENTS.md:3", "npm", "occur(s) nowhere in what AGENTS.md:3 forbids"),  # ungrounded
    ("AGENTS.md:3", "git push --force", "occur(s) nowhere in what AGENTS.md:3 forbids"),
    ("AGENTS.md:3", "path:../pnpm-lock.yaml", "not a guard pattern"),
    ("AGENTS.md:3", "  ", "type a pattern"),
    ("AGENTS.md:4", "terraform destroy", "a guard already"),  # a line tacit reads itself
    ("AGENTS.md:1", "path:pnpm-lock.yaml", "not an unread rule line"),
    ("../AGENTS.md:3", "path:pnpm-lock.yaml", "not an unread rule line"),
    ("AGENTS.md", "path:pnpm-lock.yaml", "takes FILE:LINE"),
])
def test_a_refused_phrasing_is_the_pages_error_and_adds_nothing(page, cfg, where, pattern, error):
    server, _ = page
    call(server, "GET", "/guards")  # the page the phrasing is typed in (it reads the instruction files)
    before = state(cfg)
    outcome = phrase(server, where, pattern)
    assert "done" not in outcome and error in outcome["failed"], outcome
    assert state(cfg) == before
    body = outcome["page"]
    assert 'class="flash bad"' in body and "Traceback" not in body
    assert list(unread_rows(body)) == ["AGENTS.md:3"]  # still unread


def test_a_lifted_phrasing_is_listed_again_and_not_silently_kept(page, cfg):
    server, _ = page
    phrase(server, "AGENTS.md:3", "path:pnpm-lock.yaml")
    with Ledger(cfg) as ledger:
        gid = next(g.id for g in GuardStore(cfg, ledger).all() if g.key.startswith(READ_BY_CHILD))
    resp, _ = call(server, "POST", "/guards/change", {"id": str(gid), "op": "remove"})
    assert resp.status == 303
    _, body = call(server, "GET", "/guards")
    assert list(unread_rows(body)) == ["AGENTS.md:3"]
    before = state(cfg)
    outcome = phrase(server, "AGENTS.md:3", "path:pnpm-lock.yaml")
    assert f"guard {gid} phrases AGENTS.md:3 that way and is removed" in outcome["failed"]
    assert state(cfg) == before


def test_a_phrasing_without_the_forms_token_is_refused(page, cfg):
    server, _ = page
    before = state(cfg)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("POST", "/guards/line", body=urlencode({"where": "AGENTS.md:3", "pattern": "path:pnpm-lock.yaml"}),
                 headers={"Host": f"127.0.0.1:{server.port}", "Cookie": f"{server.cookie_name}={server.token}",
                          "Origin": server.origin, "Content-Type": "application/x-www-form-urlencoded"})
    resp = conn.getresponse()
    resp.read()
    conn.close()
    assert resp.status == 403
    assert state(cfg) == before



@pytest.fixture
def page_with_subfolder(cfg, tmp_path):
    made = populate(cfg, tmp_path)
    (made["repo"] / "web").mkdir()
    (made["repo"] / "web" / "AGENTS.md").write_text("# Web\n\nPlease refrain from touching the generated `vite.config.ts` yourself.\n")
    server, _ = start(UIApp(cfg, made["project"]))
    yield server, made
    server.shutdown()
    server.server_close()


def test_a_subfolders_line_is_phrased_in_place(page_with_subfolder, cfg):
    """A subfolder's file applies below it: its place is ``web/AGENTS.md:3``."""
    server, made = page_with_subfolder
    assert list(unread_rows(call(server, "GET", "/guards")[1])) == ["web/AGENTS.md:3"]
    outcome = phrase(server, "web/AGENTS.md:3", "path:vite.config.ts")
    assert outcome.get("done", "").endswith("added for web/AGENTS.md:3."), outcome
    _, body = call(server, "GET", "/guards")
    assert "web/AGENTS.md:3" in body and unread_rows(body) == {}
    with Ledger(cfg) as ledger:
        hits = check_call(cfg, GuardStore(cfg, ledger), made["project"], str(made["repo"]),
                          edit=str(made["repo"] / "web" / "vite.config.ts"))
    assert [h["source"] for h in hits] == ["web/AGENTS.md:3"]

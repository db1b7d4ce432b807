"""tacit ui in a real headless browser (Debian's chromium, driven by selenium).

``tacit ui --no-open`` runs as a subprocess on a populated data folder; the
browser opens its URL, reads every scope, edits an entry and undoes it,
lifts a guard, phrases a rule line tacit could not read as a guard, and is refused (403, nothing changed) without the token,
with a wrong one, and under a foreign host name. A screenshot is saved in
the test's folder (and, with ``TACIT_UI_SCREENSHOT=PATH``, there too).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tacit.stores import history
from tacit.stores.guards import GuardStore
from tacit.stores.ledger import Ledger

from ui_helpers import ENTRIES, SCRIPT, populate

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
webdriver = pytest.importorskip("selenium.webdriver")
pytestmark = pytest.mark.skipif(not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)),
                                reason="chromium and chromium-driver are not installed (.ci/run installs them)")
FOREIGN = "rebind.example"  # resolved to 127.0.0.1 by the browser: a DNS-rebinding page


@pytest.fixture
def site(cfg, tacit_env, tmp_path):
    yield from _serve(populate(cfg, tmp_path), tacit_env)


def _serve(made, tacit_env):
    proc = subprocess.Popen([sys.executable, "-m", "tacit", "ui", "--no-open"], cwd=made["repo"], env=tacit_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), proc.stderr.read() if proc.poll() is not None else url
    yield url, made
    proc.terminate()
    proc.wait(10)


@pytest.fixture
def browser(tmp_path):
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1000",
                 f"--user-data-dir={tmp_path / 'chromium-profile'}",
                 f"--host-resolver-rules=MAP {FOREIGN} 127.0.0.1"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def _by_css(driver, css):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, css)


def _flash(driver) -> str:
    """The outcome line of the page a form's submission led to (waiting for it:
    a click returns before the browser has loaded the next page)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    def read(d):
        try:
            found = _by_css(d, ".flash")
            return bool(found) and found[0].get_attribute("class") + ": " + found[0].text
        except StaleElementReferenceException:  # the page went on loading under it: look again
            return False

    return WebDriverWait(driver, 15).until(read)


def _gone(driver, element) -> None:
    """Wait until ``element`` (of the page before a click) has left: the next page has loaded. Chrome
    may answer for a node of the unloading page "Node with given id does not belong to the document"
    instead of a stale element: it has left too (a CI run failed on that answer)."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    def left(_driver) -> bool:
        try:
            element.is_enabled()
        except StaleElementReferenceException:
            return True
        except WebDriverException as exc:
            if "does not belong to the document" in str(exc):
                return True
            raise
        return False

    WebDriverWait(driver, 15).until(left)


def _state(cfg, made):
    store = made["store"]
    files = {s: store.path_for(s).read_bytes() for s in store.targets()}
    with Ledger(cfg) as ledger:
        return files, [(c.id, c.undone_by) for c in history.changes(ledger, limit=1000)]


def test_every_scope_shown_and_markup_is_text(site, browser, tmp_path):
    url, _ = site
    browser.get(url)
    assert urlsplit(browser.current_url).query == ""  # the token moved to a cookie
    text = browser.find_element("tag name", "main").text
    for entry in ENTRIES.values():
        assert entry in text
    assert SCRIPT in text  # shown as the characters it holds
    assert browser.title == "tacit · memory"  # the entry's script never ran
    assert browser.execute_script("return document.querySelectorAll('script, b').length") == 0
    scopes = {(e.get_attribute("data-scope"), bool(e.get_attribute("data-project"))) for e in _by_css(browser, "section.scope")}
    assert scopes == {("user", False), ("global", False), ("project", True), ("team", True)}
    assert len(_by_css(browser, "section.scope[data-scope=project]")) == 2  # this project and the other
    shot = tmp_path / "tacit-ui-memory.png"
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    if os.environ.get("TACIT_UI_SCREENSHOT"):
        shutil.copy(shot, os.environ["TACIT_UI_SCREENSHOT"])
    for path in ("/history", "/guards", "/review", "/cost", "/skills", "/skill?name=release-checklist"):
        browser.get(url.split("/?")[0] + path)
        assert "403" not in browser.page_source[:200] and browser.title.startswith("tacit · ")
    browser.save_screenshot(str(tmp_path / "tacit-ui-skill.png"))


def test_edit_then_undo_round_trips_to_the_file(site, browser, cfg):
    url, made = site
    store, path = made["store"], made["store"].path_for("project")
    browser.get(url)
    section = _by_css(browser, f"section.scope[data-scope=project][data-project='{made['project'].key}']")[0]
    section.find_element("css selector", "details summary").click()
    box = section.find_element("css selector", "textarea[name=text]")
    box.clear()
    box.send_keys("we use pnpm here, never npm or yarn")
    section.find_element("css selector", "button[value=replace]").click()
    assert _flash(browser).startswith("flash ok: Entry replaced")
    assert store.entries("project") == ["we use pnpm here, never npm or yarn"]
    assert "never npm or yarn" in path.read_text()
    with Ledger(cfg) as ledger:
        edit = history.changes(ledger, limit=1)[0]
    assert (edit.action, edit.scope, edit.actor.describe()) == ("replace", "project", "you (tacit ui)")
    assert (edit.removed(), edit.added()) == ([ENTRIES["project"]], ["we use pnpm here, never npm or yarn"])

    browser.get(url.split("/?")[0] + "/history")
    row = _by_css(browser, f"tr.change[data-id='{edit.id}']")[0]
    assert "you (tacit ui)" in row.text
    row.find_element("css selector", "button").click()
    assert _flash(browser).startswith(f"flash ok: Undid #{edit.id}")
    assert store.entries("project") == [ENTRIES["project"]]
    assert path.read_text().strip() == ENTRIES["project"]
    with Ledger(cfg) as ledger:
        undo, edited = history.changes(ledger, limit=2)
    assert (undo.action, undo.actor.describe()) == ("undo", "you (tacit ui)")
    assert edited.id == edit.id and edited.undone_by == undo.id
    row = _by_css(browser, f"tr.change[data-id='{edit.id}']")[0]
    assert f"undone by #{undo.id}" in row.text


def test_a_guard_is_lifted(site, browser, cfg):
    url, made = site
    browser.get(url.split("?")[0].rstrip("/") + "/guards?token=" + url.split("token=")[1])
    row = _by_css(browser, f"tr.guard[data-id='{made['guard_id']}']")[0]
    assert "terraform apply" in row.text and "added with tacit guard add" in row.text
    row.find_element("css selector", "button[value=remove]").click()
    assert _flash(browser) == f"flash ok: Guard {made['guard_id']} lifted."
    with Ledger(cfg) as ledger:
        record = GuardStore(cfg, ledger).get(made["guard_id"])
        last = history.changes(ledger, limit=1)[0]
    assert record.status == "removed" and record.removed_why == "lifted in tacit ui"
    assert (last.action, last.actor.describe()) == ("guard_remove", "you (tacit ui)")
    assert _by_css(browser, f"tr.guard[data-id='{made['guard_id']}']")[0].get_attribute("data-status") == "removed"


def test_no_token_wrong_token_foreign_host_are_refused(site, browser, cfg):
    url, made = site
    base, token = url.split("/?token=")
    port = urlsplit(url).port
    before = _state(cfg, made)
    for address in (base + "/", base + "/?token=" + "A" * len(token), base + "/guards",
                    f"http://{FOREIGN}:{port}/?token={token}"):
        browser.get(address)
        body = browser.find_element("tag name", "body").text
        assert body.startswith("403 forbidden"), (address, body[:200])
        assert ENTRIES["user"] not in browser.page_source
    assert _state(cfg, made) == before


def test_a_form_posted_from_another_origin_is_refused(site, browser, cfg, tmp_path):
    """Another local page (same site: cookies ignore ports, so the browser
    sends the cookie) posts a complete, correct form: the Origin check alone
    must refuse it."""
    import http.server
    import threading

    url, made = site
    browser.get(url)  # the user has the page open: the browser holds the cookie
    csrf = _by_css(browser, "input[name=csrf]")[0].get_attribute("value")
    before = _state(cfg, made)
    evil = tmp_path / "evil"
    evil.mkdir()
    fields = {"csrf": csrf, "scope": "project", "project": made["project"].key, "entry": ENTRIES["project"],
              "text": "run npm install freely", "op": "replace"}
    inputs = "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in fields.items())
    (evil / "index.html").write_text(f'<form id="f" method="post" action="{url.split("/?")[0]}/memory/edit">'
                                     f'{inputs}</form><script>document.getElementById("f").submit()</script>')
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(evil), **k)  # noqa: E731
    attacker = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{attacker.server_address[1]}/index.html")
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(browser, 10).until(lambda d: "403" in d.find_element("tag name", "body").text)
        assert "cross-origin" in browser.find_element("tag name", "body").text
    finally:
        attacker.shutdown()
        attacker.server_close()
    assert _state(cfg, made) == before


def test_a_rule_line_tacit_could_not_read_is_phrased_as_a_guard(cfg, tacit_env, tmp_path, browser):
    """An AGENTS.md line the grammar does not read is listed; a pattern not
    in the line is refused with the page's error and adds nothing; one in it
    becomes a guard from AGENTS.md:3, added by you."""
    made = populate(cfg, tmp_path)
    line = "Please refrain from touching the lockfile `pnpm-lock.yaml` yourself."
    (made["repo"] / "AGENTS.md").write_text(f"# Agents\n\n- {line}\n")
    url, _ = next(served := _serve(made, tacit_env))
    try:
        browser.get(url.split("?")[0].rstrip("/") + "/guards?token=" + url.split("token=")[1])
        row = _by_css(browser, "tr.unread[data-where='AGENTS.md:3']")[0]
        assert line in row.text and "AGENTS.md:3" in row.text
        browser.save_screenshot(str(tmp_path / "tacit-ui-unread.png"))
        before = _state(cfg, made)
        row.find_element("css selector", "input[name=pattern]").send_keys("npm")
        row.find_element("css selector", "button").click()
        flash = _flash(browser)
        assert flash.startswith("flash bad: refused: 'npm' occur(s) nowhere in what AGENTS.md:3 forbids"), flash
        assert _state(cfg, made) == before
        row = _by_css(browser, "tr.unread[data-where='AGENTS.md:3']")[0]
        typed = row.find_element("css selector", "input[name=pattern]")
        assert typed.get_attribute("value") == "npm"  # the refused pattern is given back to correct
        typed.clear()
        typed.send_keys("path:pnpm-lock.yaml")
        shown = _by_css(browser, ".flash")[0]  # the refusal's page, still there right after the click
        row.find_element("css selector", "button").click()
        _gone(browser, shown)
        flash = _flash(browser)
        with Ledger(cfg) as ledger:
            added = [g for g in GuardStore(cfg, ledger).all() if g.file == "AGENTS.md:3"]
            last = history.changes(ledger, limit=1)[0]
        assert len(added) == 1 and flash == f"flash ok: Guard {added[0].id} added for AGENTS.md:3."
        assert (last.action, last.actor.describe()) == ("guard_add", "you (tacit ui)")
        guard = _by_css(browser, f"tr.guard[data-id='{added[0].id}']")[0]
        assert "changes to pnpm-lock.yaml" in guard.text and "AGENTS.md:3" in guard.text
        assert "phrased (tacit could not read the line)" in guard.text
        assert _by_css(browser, "tr.unread") == []
        browser.save_screenshot(str(tmp_path / "tacit-ui-guards.png"))
    finally:
        next(served, None)


def test_a_refused_change_keeps_what_was_typed(site, browser, cfg):
    """A refusal says why and gives the text back: an added entry the store
    refuses comes back in its open add box; an edit of an entry the CLI changed
    meanwhile shows the entry as it is now and the typed text in the scope's
    add box. Nothing is written either time."""
    url, made = site
    store = made["store"]
    browser.get(url)
    before = _state(cfg, made)
    typed = "first line\n§\nsecond line, typed at length"
    section = _by_css(browser, "section.scope[data-scope=global]")[0]
    section.find_element("css selector", "details.add summary").click()
    section.find_element("css selector", "details.add textarea").send_keys(typed)
    section.find_element("css selector", "details.add button").click()
    assert _flash(browser).startswith("flash bad: Entry contains '§' on a line of its own")
    add = _by_css(browser, "section.scope[data-scope=global] details.add")[0]
    assert add.get_attribute("open") is not None
    assert add.find_element("css selector", "textarea").get_attribute("value") == typed
    assert _state(cfg, made) == before

    section = _by_css(browser, f"section.scope[data-scope=project][data-project='{made['project'].key}']")[0]
    section.find_element("css selector", ".entry details summary").click()
    box = section.find_element("css selector", ".entry textarea")
    box.clear()
    box.send_keys("we use pnpm here, never npm or yarn")
    assert store.replace("project", ENTRIES["project"], "we use pnpm, and bun for scripts")["success"]  # the CLI
    shown = _by_css(browser, ".flash")[0]
    section.find_element("css selector", "button[value=replace]").click()
    _gone(browser, shown)
    assert _flash(browser).startswith("flash bad: that entry changed since the page was shown")
    section = _by_css(browser, f"section.scope[data-scope=project][data-project='{made['project'].key}']")[0]
    assert [e.text for e in section.find_elements("css selector", ".entry .text")] == ["we use pnpm, and bun for scripts"]
    add = section.find_element("css selector", "details.add")
    assert add.get_attribute("open") is not None
    assert add.find_element("css selector", "textarea").get_attribute("value") == "we use pnpm here, never npm or yarn"
    assert store.entries("project") == ["we use pnpm, and bun for scripts"]


def test_a_narrow_window_needs_no_sideways_scrolling(site, browser, tmp_path):
    """At a phone's width every page fits: tables wrap their paths, buttons keep their words."""
    url, _ = site
    browser.set_window_size(420, 900)
    browser.get(url)
    for path in ("/", "/history", "/guards", "/review", "/cost", "/skills"):
        browser.get(url.split("/?")[0] + path)
        wide = browser.execute_script(  # what reaches past the window's right edge
            "const edge = document.documentElement.clientWidth + 1;"
            "return Array.from(document.querySelectorAll('main *, header *'))"
            ".filter(e => e.children.length == 0 && e.getBoundingClientRect().right > edge).map(e => e.tagName + ': ' + e.textContent.slice(0, 60))")
        assert wide == [], (path, wide)
        assert all(b.size["height"] < 40 for b in _by_css(browser, "button")), path  # "Lift" on one line
    browser.save_screenshot(str(tmp_path / "tacit-ui-narrow-skills.png"))

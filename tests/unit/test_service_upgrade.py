"""Two installs of tacit share one data folder: an older one's service is running when the newer
install's hook comes. The older service does not read the newer header (it closed it unanswered, and the
hook ran in-process, slowly, until that service idled out 15 minutes later). Now the newer hook asks it
in the form it reads; it leaves, its work done, and the newer hook starts its own service.

For real: a copy of the package as it was before hook headers carried the environment (its service
reads six-field hook headers only), run as a service of its own; the installed hook command of this one."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from test_service import alive, hook, raw_request as raw
from wait_helpers import wait_for

from tacit import __version__
from tacit.paths import code_identity
from tacit.service import client

ROOT = Path(__file__).resolve().parents[2]
OLD_VERSION = "0.0.9"


def old_install(tmp_path: Path) -> Path:
    """The package as an older release had it: version 0.0.9, a service that knows no ``env=`` field
    and answers no request shape it does not know."""
    site = tmp_path / "old-site"
    shutil.copytree(ROOT / "extension" / "tacit", site / "tacit", ignore=shutil.ignore_patterns("__pycache__"))
    for resource in ("prompts", "skills_template"):
        shutil.copytree(ROOT / resource, site / "tacit" / resource)
    server = site / "tacit" / "service" / "server.py"
    text = server.read_text()
    old = (text.replace('kind == b"hook" and len(parts) in (6, 7)', 'kind == b"hook" and len(parts) == 6')
               .replace('elif kind in (b"hook", b"rpc", b"search") and len(parts) > 2:', "elif False:"))
    assert old.count("elif False:") == 1 and 'len(parts) == 6' in old
    server.write_text(old)
    init = site / "tacit" / "__init__.py"
    init.write_text(init.read_text().replace(f'__version__ = "{__version__}"', f'__version__ = "{OLD_VERSION}"'))
    return site


def start_old_service(env: dict, site: Path) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-P", "-m", "tacit", "serve"], env={**env, "PYTHONPATH": str(site)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    home = env["TACIT_HOME"]
    wait_for(lambda: client.status(home).get("version") == OLD_VERSION and client.status(home).get("watching"),
             what="the older install's service")
    return server


def test_a_newer_hook_retires_an_older_installs_service_and_keeps_its_work(tacit_env, tmp_path):
    home = tacit_env["TACIT_HOME"]
    rc = subprocess.run([sys.executable, "-m", "tacit", "guard", "add", "make deploy", "--because",
                         "deploys go through CI", "--scope", "global"], env=tacit_env, capture_output=True)
    assert rc.returncode == 0, rc.stderr
    site = old_install(tmp_path)
    old = start_old_service(tacit_env, site)
    old_identity = client.status(home)["identity"]
    # the older install's own hooks: served (six fields), reports acknowledged and applied after
    body = json.dumps({"session_id": "old-1", "cwd": "/tmp", "last_assistant_message": "done"}).encode()
    for n in range(5):
        assert raw(home, f"TACIT1 hook {old_identity} claude-code Stop e-old-{n}", body) == b"OK 0\n"
    assert raw(home, f"TACIT1 hook {old_identity} claude-code SessionStart e-x env=0", b"{}") == b""  # unread

    started = time.monotonic()
    out = hook(tacit_env, "PreToolUse", session_id="new-1", tool_name="Bash",
               tool_input={"command": "make deploy"})
    took = time.monotonic() - started
    decision = json.loads(out.stdout)["hookSpecificOutput"]["permissionDecision"]
    assert decision in ("ask", "deny")  # the guard was checked, whoever answered
    assert old.wait(timeout=20) == 0 and not alive(old.pid)  # the older service left
    status = wait_for(lambda: client.status(home) if client.status(home).get("running") else None,
                      what="the newer install's service")
    assert status["identity"] == code_identity(__version__)
    assert "another version" in (Path(home) / "logs" / "tacit.log").read_text()
    # the next hooks are the new service's, at once
    events = status["events"]
    for _ in range(3):
        assert b"additionalContext" in hook(tacit_env, "SessionStart", session_id="new-1", source="startup").stdout
    assert client.status(home)["events"] == events + 3 and client.status(home)["pid"] == status["pid"]
    # nothing the older service acknowledged was lost: each report applied, once
    inbox = Path(home) / "run" / "inbox"
    wait_for(lambda: not any(inbox.iterdir()), what="the spooled reports")
    with sqlite3.connect(Path(home) / "ledger.db") as db:
        ids = [row[0] for row in db.execute("SELECT id FROM events WHERE session_id = 'old-1'")]
    for n in range(5):
        assert sum(f"e-old-{n}" in i for i in ids) >= 1, ids
    assert len(ids) == len(set(ids))
    assert took < 10, took


def test_a_service_answers_a_request_shape_it_does_not_know(tacit_env):
    home = tacit_env["TACIT_HOME"]
    hook(tacit_env)
    pid = wait_for(lambda: client.status(home).get("pid"), what="the service")
    mine = client.status(home)["identity"]
    # an older client in a shape unknown here: told, and the service stays
    assert raw(home, f"TACIT1 hook 0.0.1+1 claude-code Stop e-1 env=0 more", b"{}") == b"ERR unknown request\n"
    assert client.status(home)["pid"] == pid and mine
    # a newer client's: this service leaves for it
    assert raw(home, "TACIT1 hook 999.0.0+1 claude-code Stop e-2 env=0 more", b"{}") == b"MISMATCH\n"
    wait_for(lambda: not alive(pid), what="the service to leave for a newer client")

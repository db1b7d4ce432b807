"""A data folder worth looking at, for the page's tests (tests/unit/test_ui_*.py).

Real stores, real files, real git repositories: memory in every scope (you,
global, this project and its team, another project), a guard, a skill, and
an entry holding markup.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tacit.app import USER, Tacit
from tacit.commands.share import share_init
from tacit.projects import forget_cache, project_for

ENTRIES = {
    "user": "I like short answers, no preamble",
    "global": "Dates in reports are ISO 8601",
    "project": "we use pnpm here, never npm",
    "team": "Releases are cut from the release branch on Thursdays",
    "other": "the billing service talks to Stripe through the gateway only",
}
SCRIPT = "Beware: <script>document.title='owned'</script> and <b>bold</b> are text"


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def populate(cfg, tmp_path: Path) -> dict:
    """Memory in every scope, a guard and a skill (written as you, through the
    front door); what was made where."""
    you = Tacit(cfg, actor=USER)
    repo, other = git_repo(tmp_path / "shop"), git_repo(tmp_path / "billing")
    forget_cache()
    project = project_for(str(repo))
    share_init(project)
    forget_cache()
    project = project_for(str(repo))
    store = you.memory(project)
    assert store.add("user", ENTRIES["user"])["success"]
    assert store.add("global", ENTRIES["global"])["success"]
    assert store.add("global", SCRIPT)["success"]
    assert store.add("project", ENTRIES["project"])["success"]
    assert store.add("team", ENTRIES["team"])["success"]
    assert you.memory(project_for(str(other))).add("project", ENTRIES["other"])["success"]
    with you.acting():
        guard = you.guards().add("terraform apply", "ask before terraform apply", scope="project",
                                 project=project, action="ask")
    assert guard["success"], guard
    assert you.skills(None).store("global").create(
        "release-checklist", "Use when cutting a release",
        "## When to Use\nCutting a release.\n\n## Procedure\n1. Run `make test`\n2. Tag it\n")["success"]
    you.close()
    return {"repo": repo, "other": other, "project": project, "guard_id": guard["guard"]["id"],
            "store": store}

"""The page's routes: a path to a page (GET) or to a change (POST).

Design notes: docs/design/search.md#tacituiroutes
"""

from __future__ import annotations

from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Callable
from urllib.parse import urlencode

import jinja2

from tacit.ui import pages
from tacit.ui.markdown import render as render_markdown

if TYPE_CHECKING:
    from tacit.app import Tacit

TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass(frozen=True)
class Panel:
    """One page: its path, title, template and ``data(front, app, query) -> dict`` (reads only)."""

    path: str
    title: str
    template: str
    data: Callable[["Tacit", "UIApp", dict], dict]


PANELS: list[Panel] = [
    Panel("/", "Memory", "memory.html", lambda front, app, q: pages.memory(front, app.project)),
    Panel("/history", "History", "history.html",
          lambda front, app, q: pages.history(front, _int(q.get("limit"), pages.HISTORY_PAGE))),
    Panel("/guards", "Guards", "guards.html", lambda front, app, q: pages.guards(front, app.project)),
    Panel("/review", "Review", "review.html", lambda front, app, q: pages.review(front)),
    Panel("/cost", "Cost", "cost.html", lambda front, app, q: pages.cost(front, _int(q.get("days"), 14, top=90))),
    Panel("/skills", "Skills", "skills.html", lambda front, app, q: pages.skills(app.skills)),
    Panel("/search", "Search", "search.html", lambda front, app, q: pages.search(front, app.project, q)),
]


def _int(value, default: int, top: int = 10_000) -> int:
    try:
        return max(1, min(top, int(value)))
    except (TypeError, ValueError):
        return default


POSTS = {  # path → (where to go next, the change: a function of tacit.ui.actions)
    "/memory/edit": ("/", "edit_entry"),
    "/memory/add": ("/", "add_entry"),
    "/history/undo": ("/history", "undo"),
    "/guards/change": ("/guards", "guard"),
    "/guards/line": ("/guards", "phrase_line"),
    "/review/decide": ("/review", "review"),
}
DRAFTS = 16  # failed forms kept, newest last: what was typed comes back with the refusal


class UIApp:
    """What the server serves, for one data folder and one current project."""

    def __init__(self, cfg, project):
        self.cfg, self.project = cfg, project
        self.csrf = ""  # set by the server that serves this app
        self.skills = pages.LiveSkills(cfg, project)
        self.drafts: dict[str, dict] = {}  # a failed form's fields by id (?draft=), the newest DRAFTS
        self.env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                                      autoescape=True, undefined=jinja2.StrictUndefined,
                                      trim_blocks=True, lstrip_blocks=True)
        self.env.filters["markdown"] = render_markdown
        self.env.filters["clip"] = pages.clip
        self.env.filters["tilde"] = self.tilde

    def tilde(self, path) -> str:
        """``path`` with the user's home folder shown as ``~``."""
        home = (self.cfg.env.get("HOME") or "").rstrip("/")
        text = str(path or "")
        return "~" + text[len(home):] if home and (text == home or text.startswith(home + "/")) else text

    def get(self, path: str, query: dict) -> tuple[int, str]:
        """Render the page at ``path``: its status and HTML."""
        from tacit.app import Tacit

        with Tacit(self.cfg) as front:  # a request's own: its ledger connection closes with it
            return self._get(front, path, query)

    def _get(self, front, path: str, query: dict) -> tuple[int, str]:
        if path == "/skill":
            data = pages.skill(self.skills, query.get("name", ""), query.get("scope") or None)
            return HTTPStatus.OK, self.render("skill.html", "/skills", query, data)
        panel = next((p for p in PANELS if p.path == path), None)
        if panel is None:
            return HTTPStatus.NOT_FOUND, self.render("missing.html", "", query, {"path": path})
        return HTTPStatus.OK, self.render(panel.template, panel.path, query, panel.data(front, self, query))

    def render(self, template: str, active: str, query: dict, data: dict) -> str:
        project = None if self.project is None else {"name": self.project.name,
                                                     "root": self.tilde(self.project.main_root)}
        return self.env.get_template(template).render(
            panels=PANELS, active=active, csrf=self.csrf, home=self.tilde(self.cfg.home), project=project,
            flash=query.get("done") or "", failed=query.get("failed") or "",
            draft=self.drafts.get(query.get("draft") or "", {}), **data)

    def post(self, path: str, form: dict) -> str:
        """Apply the change; where the browser goes next."""
        if path not in POSTS:
            return "/?" + urlencode({"failed": f"no such action: {path}"})
        from tacit.app import Tacit
        from tacit.ui import actions  # at the first change, not at start

        back, action = POSTS[path]
        with Tacit(self.cfg, actor=actions.ACTOR) as you:  # ``you``: this request's Tacit acting as you
            result = getattr(actions, action)(you, self, form)
        note = ({"done": str(result.get("message") or "Done.")} if result.get("success")
                else {"failed": str(result.get("error") or "refused"), **self._keep(path, form)})
        anchor = form.get("back", "")
        return back + "?" + urlencode(note) + (f"#{anchor}" if anchor.isidentifier() else "")

    def _keep(self, path: str, form: dict) -> dict:
        """A refused form's typed text, kept for the page that says why: ``{"draft": id}`` or nothing."""
        if not (form.get("text") or form.get("pattern")) or form.get("op") == "remove":
            return {}
        import secrets

        key = secrets.token_urlsafe(8)
        self.drafts[key] = {"path": path, **{k: v.replace("\r\n", "\n") for k, v in form.items() if k != "csrf"}}
        for old in list(self.drafts)[:-DRAFTS]:
            self.drafts.pop(old, None)
        return {"draft": key}

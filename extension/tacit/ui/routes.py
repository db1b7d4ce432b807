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

from tacit.display import session_label
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
NOTES = 16  # outcomes not yet shown, newest last: each is shown once, never again on a reload


class UIApp:
    """What the server serves, for one data folder and one current project."""

    def __init__(self, cfg, project):
        self.cfg, self.project = cfg, project
        self.csrf = ""  # set by the server that serves this app
        self.skills = pages.LiveSkills(cfg, project)
        self.drafts: dict[str, dict] = {}  # a failed form's fields by id (?draft=), the newest DRAFTS
        self.notes: dict[str, dict] = {}  # a change's outcome by id (?note=), {"done"|"failed": text}
        self.env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                                      autoescape=True, undefined=jinja2.StrictUndefined,
                                      trim_blocks=True, lstrip_blocks=True)
        self.env.filters["markdown"] = render_markdown
        self.env.filters["clip"] = pages.clip
        self.env.filters["session"] = lambda sid: session_label(str(sid), 12)
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
        note = self.notes.pop(query.get("note") or "", {})  # once: a reload shows the page, not the outcome
        return self.env.get_template(template).render(
            panels=PANELS, active=active, csrf=self.csrf, home=self.tilde(self.cfg.home), project=project,
            flash=note.get("done", ""), failed=note.get("failed", ""),
            draft=self.drafts.get(query.get("draft") or "", {}), **data)

    def post(self, path: str, form: dict) -> str:
        """Apply the change; where the browser goes next."""
        if path not in POSTS:
            return "/?" + urlencode(self._note({"failed": f"no such action: {path}"}))
        from tacit.app import Tacit
        from tacit.ui import actions  # at the first change, not at start

        back, action = POSTS[path]
        with Tacit(self.cfg, actor=actions.ACTOR) as you:  # ``you``: this request's Tacit acting as you
            result = getattr(actions, action)(you, self, form)
        note = (self._note({"done": str(result.get("message") or "Done.")}) if result.get("success")
                else {**self._note({"failed": str(result.get("error") or "refused")}), **self._keep(path, form)})
        anchor = form.get("back", "")
        return back + "?" + urlencode(note) + (f"#{anchor}" if anchor.isidentifier() else "")

    def _note(self, outcome: dict) -> dict:
        """``{"note": id}`` for an outcome the next page shows once (not in the URL: a reload would
        say it again, and a link could make the page say anything)."""
        return {"note": self._kept(self.notes, outcome, NOTES)}

    @staticmethod
    def _kept(table: dict, value: dict, most: int) -> str:
        import secrets

        key = secrets.token_urlsafe(8)
        table[key] = value
        for old in list(table)[:-most]:
            table.pop(old, None)
        return key

    def _keep(self, path: str, form: dict) -> dict:
        """A refused form's typed text, kept for the page that says why: ``{"draft": id}`` or nothing."""
        if not (form.get("text") or form.get("pattern")) or form.get("op") == "remove":
            return {}
        typed = {"path": path, **{k: v.replace("\r\n", "\n") for k, v in form.items() if k != "csrf"}}
        return {"draft": self._kept(self.drafts, typed, DRAFTS)}

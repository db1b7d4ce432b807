"""``tacit off`` / ``tacit on`` — turn tacit off (or back on) for a project.

Design notes: docs/design/commands.md#tacitcommandsprivacy
"""

from __future__ import annotations


from tacit.commands import command, emit, project_folder, refuse, say
from tacit.privacy import exclusion
from tacit.projects import project_for


def add_parser(subparsers) -> None:
    for name, help_text, func in (
            ("off", "turn tacit off for this project: it keeps and learns nothing here", _off),
            ("on", "turn tacit back on for this project", _on)):
        p = command(subparsers, name, func, help=help_text, description=help_text + " (docs/privacy.md).")
        p.add_argument("--project", metavar="DIR", default=None, help="the project (default: the working folder)")
        p.add_argument("--status", action="store_true", help="only say whether tacit is off here")


def _switch(turn):
    """``tacit off`` / ``tacit on``: the same checks, then ``turn(cfg, project)``."""
    def run(args, cfg) -> int:
        folder = project_folder(args, cfg)
        project = project_for(folder, home=cfg.env.get("HOME"))
        if args.status:
            emit(exclusion.status(cfg, project, folder), text=lambda status: _status_text(status, folder))
            return 0
        if project is None:
            error = (f"{folder} is not inside a project (the home folder and the root hold none); "
                     "add it to exclude = [...] in config.toml instead")
            return refuse(error)
        emit(exclusion.turn_off(cfg, project) if turn == "off" else exclusion.turn_on(cfg, project), text=say)
        return 0

    return run


def _status_text(status: dict, folder: str) -> str:
    where = status.get("project") or f"{folder} (not inside a project)"
    return f"tacit is off for {where} ({status['why']})" if status.get("off") else f"tacit is on for {where}"


_off = _switch("off")
_on = _switch("on")

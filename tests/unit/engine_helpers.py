"""What the engine-level tests share (``test_engine.py``, ``test_handlers.py``,
``test_children.py``): a launcher that records child jobs instead of running
them, and a writer for the data folder's ``config.toml``."""

from __future__ import annotations

import json
from pathlib import Path


class Recorder:
    """A launcher that records jobs instead of running them."""

    def __init__(self):
        self.jobs: list[dict] = []

    def __call__(self, job):
        self.jobs.append(job)
        return None

    def kinds(self):
        return [j["kind"] for j in self.jobs]

    def of(self, kind):
        return [j for j in self.jobs if j["kind"] == kind]


def write_config(home: Path, **settings) -> None:
    """``<home>/config.toml`` holding exactly ``settings`` (bools, numbers,
    strings and lists of strings), as a person would write it."""
    lines = []
    for key, value in settings.items():
        if isinstance(value, bool):
            lines.append(f"{key} = {'true' if value else 'false'}")
        elif isinstance(value, (int, float)):
            lines.append(f"{key} = {value}")
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    (home / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")

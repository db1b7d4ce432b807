"""``Tacit``: the one front door of every command; ``tacit.as_actor(actor)`` is a view whose writes
are recorded as that actor (without one: reads only, ``NoActor``).

Design notes: docs/architecture.md ("The front door").
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

from tacit.projects import Project, project_for
from tacit.stores import history
from tacit.stores.history import Actor, NoActor
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore
from tacit.stores.skill_scopes import ScopedSkills

__all__ = ["Actor", "NoActor", "Tacit", "USER"]

USER = history.USER  # you, through the tacit CLI


class _Shared:
    """What every view of one ``Tacit`` shares: ledgers per thread, projects."""

    def __init__(self):
        self.local = threading.local()
        self.lock = threading.Lock()
        self.ledgers: list[Ledger] = []
        self.projects: dict[str, Project | None] = {}


class Tacit:
    """Config, ledger, stores and an explicit actor, for one data folder."""

    def __init__(self, cfg=None, *, actor: Actor | None = None, _shared: _Shared | None = None):
        if cfg is None:
            from tacit.config import load_config

            cfg = load_config()
        self.cfg = cfg
        self.actor = actor
        self._shared = _shared or _Shared()

    def as_actor(self, actor: Actor) -> Tacit:
        """A view of this front door whose writes are recorded as ``actor``."""
        if not isinstance(actor, Actor):
            raise TypeError(f"as_actor needs an Actor, not {type(actor).__name__}")
        return Tacit(self.cfg, actor=actor, _shared=self._shared)

    def require_actor(self) -> Actor:
        if self.actor is None:
            raise NoActor("this Tacit has no actor: use tacit.as_actor(actor) to write")
        return self.actor

    @contextlib.contextmanager
    def acting(self) -> Iterator[Tacit]:
        """Run older code that builds its own stores as this actor, on this thread's ledger."""
        with history.using(self.ledger), history.acting(self.require_actor()):
            yield self

    @property
    def ledger(self) -> Ledger:
        """This thread's ledger connection (opened on first use)."""
        ledger = getattr(self._shared.local, "ledger", None)
        if ledger is None:
            ledger = self._shared.local.ledger = Ledger(self.cfg)
            with self._shared.lock:
                self._shared.ledgers.append(ledger)
        return ledger

    def project(self, where: str | os.PathLike | None = None) -> Project | None:
        """The project of folder ``where`` (the working folder by default)."""
        folder = os.fspath(where) if where is not None else os.getcwd()
        with self._shared.lock:
            if folder not in self._shared.projects:
                self._shared.projects[folder] = project_for(folder, home=self.cfg.env.get("HOME"))
            return self._shared.projects[folder]

    def memory(self, project: Project | None = None) -> MemoryStore:
        """The memory scopes of ``project`` (user and global only without one)."""
        return MemoryStore(self.cfg, project, actor=self.actor)

    def skills(self, project: Project | None = None) -> ScopedSkills:
        """The skills of ``project``: global, the project's and its team's."""
        scoped = ScopedSkills(self.cfg, project)
        for store in scoped.stores.values():
            store.actor = self.actor
        return scoped

    def guards(self):
        """The guard store, on this thread's ledger."""
        from tacit.stores.guards import GuardStore

        return GuardStore(self.cfg, self.ledger)

    def changes(self, *, since: float | None = None, limit: int = 200, text: str | None = None):
        return history.changes(self.ledger, since=since, limit=limit, text=text)

    def close(self) -> None:
        """Close every ledger connection this front door opened."""
        with self._shared.lock:
            ledgers, self._shared.ledgers = self._shared.ledgers, []
        for ledger in ledgers:
            ledger.close()
        self._shared.local = threading.local()

    def __enter__(self) -> Tacit:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

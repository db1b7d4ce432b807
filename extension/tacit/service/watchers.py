"""What the service watches on disk (watchdog): memory, skills and project
files changed by hand or another process, its own code, and config.toml.

Design notes: docs/design/service.md#tacitservicewatchers"""

from __future__ import annotations

import os

from watchdog.events import (
    DirCreatedEvent, DirDeletedEvent, DirMovedEvent, FileClosedEvent, FileCreatedEvent, FileDeletedEvent,
    FileModifiedEvent, FileMovedEvent, FileSystemEventHandler,
)
from watchdog.observers import Observer

from tacit.fsutil import ensure_private_dir
from tacit.service import context_cache

CHANGES = ("modified", "created", "deleted", "moved", "closed")  # watchdog event types that mean a change
# what the kernel reports to us: changes only. A read (opened, closed unwritten) woke two threads
# per file a hook read, in the middle of its answer; a folder's own "modified" is never used
WRITES = [FileModifiedEvent, FileCreatedEvent, FileDeletedEvent, FileMovedEvent, FileClosedEvent,
          DirCreatedEvent, DirDeletedEvent, DirMovedEvent]
# the data folder (config.toml): not "modified", which every ledger commit raises on its -wal file;
# a write of config.toml ends in "closed" (or "moved"/"created" for a replace)
REPLACED = [FileClosedEvent, FileCreatedEvent, FileDeletedEvent, FileMovedEvent]


def start(service, package_dir: str) -> Observer:
    """A started observer calling back into ``service`` (``tacit.service.server.Service``)."""
    observer = Observer()
    changed, cfg = _Call(service, _on_change), service.cfg
    for folder in (cfg.memories_dir, cfg.skills_dir, cfg.home / "projects"):
        ensure_private_dir(folder)
        observer.schedule(changed, str(folder), recursive=True, event_filter=WRITES)
    observer.schedule(_Call(service, _on_code_change), package_dir, recursive=True, event_filter=WRITES)
    observer.schedule(_Call(service, _on_config_change), cfg.state_dir_str, recursive=False, event_filter=REPLACED)
    observer.daemon = True
    observer.start()
    return observer


class _Call(FileSystemEventHandler):
    def __init__(self, service, call):
        self.on_any_event = lambda event: call(service, event)


def _on_change(service, event) -> None:
    """A memory or skill file changed on disk (a hand edit, another process)."""
    # reads raise "opened" / "closed_no_write" events too: only a change counts
    # (reacting to reads threw the skill catalog away at every SessionStart)
    if event.event_type not in CHANGES or (event.is_directory and event.event_type == "modified"):
        return
    path = str(getattr(event, "dest_path", "") or event.src_path)
    if path.endswith((".lock", ".tmp")):
        return
    service.kept.forget()
    context_cache.clear(service.folder)  # kept session answers may show what changed
    service.engine.reload_stores()


def _on_code_change(service, event) -> None:
    path = str(getattr(event, "dest_path", "") or event.src_path)
    if path.endswith(".py") and event.event_type in CHANGES:
        service.request_stop(f"code changed: {path}")


def _on_config_change(service, event) -> None:
    """config.toml changed: leave, so the next hook starts a service that reads the new settings."""
    paths = (str(event.src_path), str(getattr(event, "dest_path", "") or ""))
    if event.event_type in CHANGES and any(os.path.basename(p) == "config.toml" for p in paths):
        service.request_stop("config.toml changed")

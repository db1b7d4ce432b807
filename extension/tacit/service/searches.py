"""``tacit search`` answered in the service: the index kept open, one search at a time.

Design notes: docs/search.md ("In the service").
"""

from __future__ import annotations

import os
import threading


class Searches:
    def __init__(self, cfg):
        self.cfg = cfg
        self.lock = threading.Lock()
        self.index = None
        self.inode = None

    def answer(self, request: dict) -> dict | None:
        """None while another search runs: a waiting one would hold a hook worker (the CLI searches)."""
        from tacit.commands.search import answer

        if not self.lock.acquire(blocking=False):
            return None
        try:
            return answer(self.cfg, request, self._open())
        finally:
            self.lock.release()

    def _open(self):
        from tacit.search.indexer import index_path, open_index

        try:
            inode = os.stat(index_path(self.cfg)).st_ino
        except FileNotFoundError:
            inode = None
        if self.index is None or inode != self.inode:
            self.close()
            self.index = open_index(self.cfg)
            self.inode = os.stat(self.index.path).st_ino
        return self.index

    def close(self) -> None:
        if self.index is not None:
            self.index.close()
            self.index = None

"""What the guard tests share (``test_guard_*.py``): real git repositories,
an engine with the built-in handlers, and tool calls as the hosts send them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tacit.engine import Engine
from tacit.events import MessageEnd, ToolCall, ToolResult
from tacit.projects import forget_cache, project_for
from tacit.stores.memory import MemoryStore

LESSON = "we use pnpm here, never npm"


def git_repo(path: Path, branch: str = "main") -> Path:
    """A fresh repository at ``path`` (no commit needed: HEAD names the branch)."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", branch, str(path)], check=True, capture_output=True)
    forget_cache()
    return path.resolve()


def remember(cfg, folder, text: str, scope: str = "project") -> dict:
    """Save a lesson the way the CLI and the correction child do."""
    result = MemoryStore(cfg, project_for(str(folder))).add(scope, text)
    assert result["success"], result
    return result


def engine_for(cfg, host: str = "claude-code") -> Engine:
    engine = Engine(cfg, host=host)
    engine.load_builtins()
    return engine


class Session:
    """One session's events, with ids (as hosts send them) and a counter."""

    def __init__(self, engine: Engine, cwd, sid: str = "s1", host: str = "claude-code"):
        self.engine, self.cwd, self.sid, self.host = engine, str(cwd), sid, host
        self.n = 0

    def _id(self) -> str:
        self.n += 1
        return f"{self.sid}-{self.n}"

    def user(self, text: str):
        return self.engine.dispatch(MessageEnd(session_id=self.sid, host=self.host, cwd=self.cwd, id=self._id(),
                                               role="user", text=text))

    def call(self, command: str | None = None, *, name: str | None = None, args: dict | None = None, cwd=None):
        name = name or {"claude-code": "Bash", "codex": "Bash", "pi": "bash", "hermes": "terminal"}[self.host]
        args = args if args is not None else {"command": command}
        return self.engine.dispatch(ToolCall(session_id=self.sid, host=self.host, cwd=str(cwd or self.cwd),
                                             id=self._id(), name=name, args=args))

    def result(self, command: str | None = None, *, ok: bool = True, error: str | None = None,
               name: str | None = None, args: dict | None = None, cwd=None):
        name = name or {"claude-code": "Bash", "codex": "Bash", "pi": "bash", "hermes": "terminal"}[self.host]
        args = args if args is not None else {"command": command}
        return self.engine.dispatch(ToolResult(session_id=self.sid, host=self.host, cwd=str(cwd or self.cwd),
                                               id=self._id(), name=name, args=args, ok=ok, error=error))


def chdir(path) -> None:
    os.chdir(str(path))

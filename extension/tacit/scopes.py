"""The one vocabulary of where memory lives: ``Scope``.

Design notes: docs/design/core.md#tacitscopes
"""

from __future__ import annotations

from enum import StrEnum


class Scope(StrEnum):
    USER = "user"
    GLOBAL = "global"
    PROJECT = "project"
    TEAM = "team"


MEMORY = "memory"  # this project's scope inside a project, else global
SCOPES: tuple[str, ...] = tuple(s.value for s in Scope)
NOTES: tuple[str, ...] = (Scope.PROJECT.value, Scope.GLOBAL.value, Scope.TEAM.value)  # the MEMORY.md files

"""The one vocabulary of where memory lives: ``Scope``.

``user`` (USER.md: who the user is, every project), ``global`` (MEMORY.md at
the data folder: facts true everywhere), ``project`` (one repository's
MEMORY.md), ``team`` (a repository's shared ``.tacit/MEMORY.md``). ``memory``
is the one alias: this project's scope inside a project, else global.
The CLI takes ``--scope`` everywhere (``--target`` is kept, hidden, for old
command lines); stores, prompts and docs use the same four words.
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


def scope_of(value: str) -> Scope | None:
    """The ``Scope`` named ``value`` (``memory`` is not one: resolve it with a project), or None."""
    try:
        return Scope(value)
    except ValueError:
        return None

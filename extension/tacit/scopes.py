"""The one vocabulary of where memory lives: the scope names.

Design notes: docs/design/core.md#tacitscopes
"""

from __future__ import annotations

MEMORY = "memory"  # this project's scope inside a project, else global
SCOPES: tuple[str, ...] = ("user", "global", "project", "team")
NOTES: tuple[str, ...] = ("project", "global", "team")  # the MEMORY.md files

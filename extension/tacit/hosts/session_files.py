"""Where every host keeps its own session files: the list ``tacit search`` indexes.

One ``SessionSource`` per host, from ``hosts/<name>/sessions.py`` (each
says where its host writes sessions and how to read them); the index
itself is host-neutral (``tacit.search``). When the per-host spec lands,
each spec carries its source and this list is read from the registry.
"""

from __future__ import annotations


def sources() -> list:
    from tacit.hosts.claude_code.sessions import SOURCE as claude_code
    from tacit.hosts.codex.sessions import SOURCE as codex
    from tacit.hosts.hermes.sessions import SOURCE as hermes
    from tacit.hosts.pi.sessions import SOURCE as pi

    return [claude_code, codex, hermes, pi]


def hosts() -> tuple:
    return ("claude-code", "codex", "hermes", "pi")

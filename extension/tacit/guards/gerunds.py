"""A rule's verb said as a gerund → the verb: "running" → "run".

``Gerunds`` is a mapping of the irregular or listed forms that also answers
for any gerund of a rule verb (``RULE_VERBS``) by spelling: "renaming" →
"rename", "committing" → "commit", "hand-editing" → "hand-edit". A word
that is no gerund of a rule verb ("nothing", "string") is not in it. Pure.
"""

from __future__ import annotations

# the verbs rules forbid (what a shape reads after "never")
RULE_VERBS = frozenset((
    "run", "use", "edit", "modify", "change", "touch", "commit", "push", "call", "execute", "invoke",
    "write", "update", "create", "amend", "install", "rebase", "skip", "bypass", "open", "merge", "stage",
    "delete", "pipe", "rename", "move", "remove", "add", "pass", "publish", "drop", "truncate", "format",
    "reformat", "regenerate", "rewrite", "overwrite", "alter", "close", "comment", "review", "label",
    "upload", "deploy", "squash", "revert", "reset", "clean", "disable", "type", "copy", "release",
))
_PREFIXES = ("hand", "force", "re", "auto")


class Gerunds(dict):
    """A dict of gerunds that also derives the verb of any rule verb's gerund."""

    def _derived(self, word: str) -> str | None:
        low = word.lower()
        prefix, dash, core = low.rpartition("-")
        if dash and prefix not in _PREFIXES or not core.endswith("ing") or len(core) < 5:
            return None
        stem = core[:-3]
        for verb in (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""):
            if verb in RULE_VERBS:
                return f"{prefix}-{verb}" if dash else verb
        return None

    def __missing__(self, key):
        found = self._derived(key) if isinstance(key, str) else None
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key) -> bool:
        return dict.__contains__(self, key) or isinstance(key, str) and self._derived(key) is not None

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default


__all__ = ["Gerunds", "RULE_VERBS"]

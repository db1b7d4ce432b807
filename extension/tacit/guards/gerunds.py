"""A rule's verb said as a gerund → the verb: ``verb_of("renaming")`` is "rename", "committing"
"commit", "hand-editing" "hand-edit"; a word that is no gerund of a rule verb (``RULE_VERBS``:
"nothing", "string") has none. Pure.
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


def verb_of(word) -> str | None:
    """The rule verb ``word`` is the gerund of, or None."""
    low = word.lower() if isinstance(word, str) else ""
    if low == "force pushing":
        return "force push"
    prefix, dash, core = low.rpartition("-")
    if dash and prefix not in _PREFIXES or not core.endswith("ing") or len(core) < 5:
        return None
    stem = core[:-3]
    for verb in (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""):
        if verb in RULE_VERBS:
            return f"{prefix}-{verb}" if dash else verb
    return None


__all__ = ["RULE_VERBS", "verb_of"]

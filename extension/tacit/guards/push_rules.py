"""Push rules read from a lesson: "never push to `main`", "do not force-push `main`", "don't push to
github.com/owner/name" (the matcher is :mod:`tacit.guards.push`)."""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.model import GuardSpec, PushMatch
from tacit.guards.push import hosted_repository, repositories
from tacit.guards.words import _DONT, _targets

_FORCE_PUSH = lazy(
    # "never force-push" · "do not use `--force` push to `main`": the flag said before the verb
    rf"{_DONT}\s+(?:(?:run|use|do|execute)\s+)?(?:`?(?:git\s+)?force[- ]?push(?:es|ing)?`?|`?--force`?\s+push(?:es|ing)?)(?:\s+anything)?"
    r"(?:\s+(?:directly\s+|straight\s+)?(?:to|into|on|onto)\s+(?P<branches>.+)|"
    # "do not force-push `main`": the branch named with no "to"
    r"\s+(?P<named>`[\w./-]+`|main|master|develop|trunk)(?:\s+or\s+(?:`[\w./-]+`|main|master|develop|trunk))*)?", re.I)
_PUSH = lazy(
    rf"{_DONT}\s+(?:(?:run|use|do|execute)\s+)?`?(?:git\s+)?push(?:es|ing)?`?(?:\s+(?:anything|(?:new\s+|local\s+|your\s+)?(?:commits?|code|changes)|things|stuff|directly|straight))*"
    # "never push a feature/task branch directly to `main`": the branch pushed, when a target follows
    r"(?:\s+(?:(?:a|an|any|your|the|our|my)\s+)?(?:[\w/-]+\s+)?branch(?:es)?(?:\s+(?:directly|straight))?(?=\s+(?:to|into|onto)\s))?"
    r"(?:\s+(?:to|into|on|onto)\s+(?P<branches>.+))?", re.I)


def push_spec(sentence: str, because: str) -> GuardSpec | None:
    """A push rule: "never (force-)push (directly) to `main`" → a ``PushMatch`` (branches or remotes)."""
    m = _FORCE_PUSH.fullmatch(sentence)
    force = bool(m)
    m = m or _PUSH.fullmatch(sentence)
    if not m:
        return None
    named = m.groupdict().get("named")
    said = m.group("branches") or (named and m.group(0)[m.start("named"):])
    found = _targets(said)
    slug = hosted_repository(said or "")
    if slug:  # "don't push to github.com/owner/name": that repository, by its URL
        return GuardSpec(PushMatch((), force, (slug,)), because)
    if found is None:
        return None
    branches, remotes = repositories(found[0], found[1])  # `owner/name`: a repository too
    return GuardSpec(PushMatch(branches, force, remotes), because)

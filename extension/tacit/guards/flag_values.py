"""Options that take the next word as their value, in a rule's command: "don't run `docker compose -f
jenkins-compose.yaml up`", "never run `kubectl -n prod delete`". The word after such an option is its value
(``-f=jenkins-compose.yaml``), not a subcommand: the call side skips it the same way (``commands._GLOBAL_VALUE``),
so read as a subcommand it made a guard no call could match. Pure.
"""

from __future__ import annotations

from tacit.guards.commands import _GLOBAL_VALUE

# programs whose options before and after the subcommand take values alike; not git (its push and merge readings
# read their own options) nor python, uv, pip (`python -m pip`: a module run, read elsewhere)
_JOINED = frozenset(("docker", "podman", "kubectl", "helm", "make", "npm", "pnpm", "yarn", "cargo", "go"))


def joined_values(words: list[str]) -> list[str]:
    """``docker compose -f ci.yml up`` → ``docker compose -f=ci.yml up``: each value option with its value."""
    program = words[0].rsplit("/", 1)[-1].lower()
    options = _GLOBAL_VALUE.get(program, frozenset()) if program in _JOINED else frozenset()
    out = words[:1]
    i = 1
    while i < len(words):
        if words[i] in options and i + 1 < len(words) and not words[i + 1].startswith("-"):
            out.append(f"{words[i]}={words[i + 1]}")
            i += 2
        else:
            out.append(words[i])
            i += 1
    return out


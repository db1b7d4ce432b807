"""A command said after "never" with no "run": "never git push --force", "never mix ecto.reset", "never dotnet pack
-c Release". Programs no English word shares may always follow "never"; any known program may when its next word
is a task written as typed (``ecto.reset``, ``db:drop``), and a program that is no English word when a flag follows
("never make changes", "never mix tabs and spaces", "never go back" stay prose). Pure.
"""

from __future__ import annotations

import re

from tacit.guards.words import _DONT, _ENGLISH_TOOLS, _KNOWN_PROGRAMS

_VERBLESS = frozenset(("git", "npm", "pnpm", "yarn", "npx", "docker", "kubectl", "terraform",
                       "cargo", "helm", "pip", "pip3", "uv", "poetry", "rm", "sudo", "tofu",
                       "pulumi", "gh", "aws", "gcloud", "psql", "brew", "apt", "apt-get", "dotnet", "mvn", "gradle"))
# "ecto.reset", "db:drop", "migrate:fresh": a task name, typed (no sentence ends inside it)
_TASK = re.compile(r"[a-z][\w-]*[.:][a-z][\w.:-]*")
# English words that are also programs: a flag after them says nothing ("never go -v"? prose still)
# a program and the subcommand no sentence goes on with: "never bundle exec rspec", "never go mod tidy"
_PAIRS = frozenset((("bundle", "exec"), ("php", "artisan"), ("go", "build"), ("go", "install"), ("go", "mod"),
                    ("go", "generate"), ("go", "vet"), ("go", "work"), ("mix", "ecto"), ("rails", "db")))
_ENGLISH = _ENGLISH_TOOLS | frozenset(("go", "bundle", "rails", "php", "node", "java", "ruby", "python", "deno"))


def verbless(words: list[str]) -> bool:
    """Whether ``words`` (after "never", no verb) are a command line."""
    if not words:
        return False
    program = words[0]
    if program in _VERBLESS:
        return True
    if program not in _KNOWN_PROGRAMS or len(words) < 2:
        return False
    if _TASK.fullmatch(words[1]) or (program, words[1]) in _PAIRS:
        return True
    return program not in _ENGLISH and any(w.startswith("-") and len(w) > 1 for w in words[1:])


_WITHOUT_FLAG = re.compile(r"\s+without\s+`?-")  # "… without --locked": the flag that makes it allowed
_SAID = re.compile(rf"(?P<dont>{_DONT})\s+(?!(?:run|use|execute|call|invoke)\b)(?=\S+\s+\S)", re.I)


def run_said(sentence: str, because: str, specs_of) -> list:
    """"never cargo install without --locked": a command said with no "run" and the flag that allows it, read as
    run ("never run cargo install without --locked"), when its first two words are a command line (``verbless``)."""
    m = _SAID.match(sentence)
    if not m or not _WITHOUT_FLAG.search(sentence) or not verbless(sentence[m.end():].split()[:2]):
        return []
    return specs_of(f"{m.group('dont')} run {sentence[m.end():]}", because)

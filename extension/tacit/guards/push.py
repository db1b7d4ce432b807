"""``git push``, argv-aware: the remote it names, the branches it updates
(refspecs, ``HEAD``, ``--all``/``--mirror``, ``git subtree push``), whether
it forces (``--force``, ``-f``, ``+ref``), and whether a ``PushMatch`` fires
(a name that is one of the project's remotes is a remote)."""

from __future__ import annotations

import fnmatch
import re

from tacit.guards.model import PushMatch
from tacit.guards.shell import DYN, skip_options
from tacit.guards.wrappers import GIT_VALUE_OPTS
from tacit.guards.writes import _positionals, checkout_path
_PUSH_VALUE = frozenset(("-o", "--push-option", "--repo", "--receive-pack", "--exec"))
_ALL = "\ue002"  # every branch
LEASE = "lease"  # forced only with --force-with-lease


def push_targets(argv: tuple, branch: str | None, upstream: str | None = None) -> tuple | None:
    """For a ``git … push …`` argv: (forced?, the branches it updates — with
    ``_ALL`` for ``--all``/``--mirror`` —, the remote it names, ``upstream``
    when none, None when unknown); None when it is not a push or a dry run.
    Forced is ``LEASE`` (truthy) when the only force is ``--force-with-lease``.
    A push with no refspec or ``HEAD`` updates ``branch`` (unknown: nothing)."""
    i = skip_options(argv, 1, GIT_VALUE_OPTS)
    if i + 1 < len(argv) and argv[i] == "subtree" and argv[i + 1] == "push":
        # git subtree push -P <prefix> <remote> <branch>
        pos = _positionals(argv, i + 2, frozenset(("-P", "--prefix", "-m", "--message")))
        return False, frozenset(pos[1:2]), None
    if i >= len(argv) or argv[i] != "push":
        return None
    seen = set()  # the options given: long ones by name, short ones letter by letter
    repo = False
    positionals = []
    j = i + 1
    n = len(argv)
    while j < n:
        a = argv[j]
        if a == "--":
            positionals.extend(argv[j + 1:])
            break
        if a.startswith("--"):
            key = a.split("=", 1)[0]
            repo |= key == "--repo" and not positionals  # the remote named another way: not read
            seen.add(key)
            j += key in _PUSH_VALUE and "=" not in a
        elif a.startswith("-") and len(a) > 1:
            if a in _PUSH_VALUE:
                j += 1
            else:
                seen.update(a[1:])
        else:
            positionals.append(a)
        j += 1
    if "--dry-run" in seen or "n" in seen:
        return None
    force = "--force" in seen or "f" in seen
    lease = not seen.isdisjoint(("--force-with-lease", "--force-if-includes"))
    every = not seen.isdisjoint(("--all", "--mirror", "--branches"))
    targets = set()
    if every:
        targets.add(_ALL)
    refspecs = positionals[1:]
    for ref in refspecs:
        if ref.startswith("+"):
            force = True
            ref = ref[1:]
        dst = ref.split(":", 1)[-1]
        if ":" in ref and not dst:
            continue  # "main:" names no destination
        if dst.startswith("refs/heads/"):
            dst = dst[len("refs/heads/"):]
        elif dst.startswith("refs/"):
            continue  # tags, notes, remotes: not a branch
        if dst in ("HEAD", "@", ""):
            dst = branch or ""
        if dst and DYN not in dst:
            targets.add(dst)
    if not refspecs and not every and "--tags" not in seen and branch:
        targets.add(branch)
    remote = None if repo or positionals and DYN in positionals[0] else positionals[0] if positionals else upstream
    return force or (LEASE if lease else False), frozenset(targets), remote


_SLUG = re.compile(r"[\w.-]+/[\w.-]+")
# the first part of a branch name, never an owner: ``release/v2``, ``origin/main``
_BRANCH_PREFIXES = frozenset(("origin", "upstream", "release", "releases", "feature", "features", "feat", "fix",
                              "hotfix", "bugfix", "dev", "develop", "user", "users", "renovate", "dependabot", "chore",
                              "docs", "refs", "heads", "wip", "topic", "main", "master"))
_HOSTED = re.compile(r"(?:https?://)?(?:www\.)?[\w-]+(?:\.[\w-]+)+/([\w.-]+/[\w.-]+?)(?:\.git)?/?")


def repositories(branches: tuple, remotes: tuple) -> tuple[tuple, tuple]:
    """A push target written ``owner/name`` may be a repository as well as a
    branch (``open-telemetry/opentelemetry-rust``): it is kept as both; one
    written with a host (``github.com/dotnet/orleans``) is a repository only."""
    keep, repos = [], list(remotes)
    for b in branches:
        hosted = _HOSTED.fullmatch(b)
        if hosted:
            repos.append(hosted.group(1))
            continue
        keep.append(b)
        if _SLUG.fullmatch(b) and b.split("/", 1)[0].lower() not in _BRANCH_PREFIXES:
            repos.append(b)
    return tuple(keep), tuple(dict.fromkeys(repos))


def hosted_repository(text: str) -> str | None:
    """``github.com/o/n`` (unquoted, with a host) → ``o/n``; else None."""
    m = _HOSTED.fullmatch(text.strip().strip("`"))
    return m.group(1) if m and "." in text.split("/", 1)[0] else None


def _same_repository(remote: str, slug: str) -> bool:
    """Whether a push's remote, written as a URL (``https://github.com/o/n.git``,
    ``git@github.com:o/n``), is the repository ``o/n``."""
    if "/" not in slug or ("/" not in remote and ":" not in remote):
        return False
    path = re.sub(r"^(?:[a-z+]+://)?(?:[^@/]+@)?[^/:]+[:/]", "", remote.strip(), flags=re.I)
    path = re.sub(r"(?:\.git)?/*$", "", path)
    return path.lower() == slug.lower()


def push_fires(match: PushMatch, force: bool, targets: frozenset, remote: str | None,
                known: frozenset | None) -> bool:
    """A push to one of the guard's remotes, or of one of its branches (a
    name that is one of the project's remotes is a remote); any push when
    it names neither."""
    if match.force_only and (not force or force == LEASE and match.lease_ok):
        return False
    remotes = set(match.remotes)
    branches = match.branches
    if known:
        remotes.update(b for b in branches if b in known)
        branches = tuple(b for b in branches if b not in known)
    if not remotes and not branches:
        return True
    if remotes and remote is not None and (remote in remotes or any(_same_repository(remote, r) for r in remotes)):
        return True
    return bool(branches) and (_ALL in targets or any(names_branch(b, targets) for b in branches))


def names_branch(guarded: str, names) -> bool:
    """One of ``names`` is the guarded branch, or matches it when it is a glob (``release/*``)."""
    if guarded in names:
        return True
    return "*" in guarded and any(isinstance(n, str) and fnmatch.fnmatchcase(n, guarded) for n in names)


SAME = object()  # the branch checked out does not change
_SWITCH_VALUE = frozenset(("-c", "-C", "--create", "--force-create", "--orphan", "-b", "-B"))


def switched_branch(argv: tuple):
    """The branch a ``git checkout``/``git switch`` argv leaves checked out:
    its name, None when it cannot be told (``git switch -``, ``--detach``),
    or ``SAME`` (not a switch; ``git checkout -- file``, ``git checkout a.ts``;
    a path or a ref as ``writes.checkout_path`` tells: ``v1.2.3`` switches;
    ``-t origin/x`` switches to x)."""
    i = skip_options(argv, 1, GIT_VALUE_OPTS)
    if i >= len(argv) or argv[i] not in ("checkout", "switch"):
        return SAME
    words = argv[i + 1:]
    if "--" in words:
        return SAME if argv[i] == "checkout" and words.index("--") > 0 or words[0] == "--" else None
    for j, a in enumerate(words):
        if a in _SWITCH_VALUE:
            name = words[j + 1] if j + 1 < len(words) else None
            return name if name and DYN not in name else None
        if a in ("--detach", "-d") or a == "-":
            return None
    names = [a for a in words if not a.startswith("-")]
    if len(names) != 1:
        return SAME if argv[i] == "checkout" and len(names) > 1 else None  # checkout <tree> <paths>
    name = names[0]
    if argv[i] == "checkout" and checkout_path(name) or DYN in name:
        return SAME if DYN not in name else None  # `git checkout src/app.ts`: a file
    if "/" in name and any(a in ("-t", "--track") or a.startswith("--track=") for a in words):
        return name.split("/", 1)[1]  # `--track origin/x` makes and checks out the local branch x
    return name


__all__ = ["GIT_VALUE_OPTS", "LEASE", "SAME", "switched_branch", "push_targets", "push_fires"]

"""Git rules written with verbs, nouns or one flag instead of a command:
"never push or pull", "never stash changes", "direct pushes to main are
forbidden", "never use `--amend`", "never use --force with git push".

``git_verb_specs(clause, because)`` returns every guard such a rule clause
states, or ``[]``; each verb or flag maps to one exact git shape (docs/guards.md,
"Shapes").
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.model import CommandMatch, GuardSpec, PushMatch
from tacit.guards.words import _DONT, _KNOWN_PROGRAMS, _targets

# a git verb said alone runs itself (push is a PushMatch: remotes and branches are read)
_VERB = r"(?:commit|push|pull|stash|rebase)"
_OBJECT = r"(?:\s+(?:anything|changes|your changes|the changes|code|your work|(?:any\s+)?work))?"
# "never push or pull" · "don't stash changes" · "never pull, push or commit"
_VERBS = lazy(rf"{_DONT}\s+(?:(?:run|use)\s+)?(?:git\s+)?(?P<verbs>{_VERB}{_OBJECT}"
              rf"(?:\s*(?:,\s*or|,\s*and|,|or|and|nor)\s+(?:git\s+)?{_VERB}{_OBJECT})*)"
              r"(?:\s+(?:to|from|to/from|from/to)\s+(?:github|the remote|any remote|remotes?|origin))?", re.I)
# "direct pushes to main are forbidden" · "committing directly to `main` is not allowed"
_NOUN = lazy(r"(?:(?:direct|force[- ]?)\s*)?(?P<verb>push(?:es|ing)?|commit(?:s|ting)?)\s+(?:directly\s+)?"
             r"(?:to|on|into)\s+(?:the\s+)?(?P<branch>`?[\w./-]+`?)(?:\s+branch)?\s+(?:is|are)\s+(?:strictly\s+)?"
             r"(?:forbidden|not allowed|prohibited|banned|disallowed|never allowed|not permitted)", re.I)
# flags that belong to one program's command: "never use `--amend`" · "never use `--break-system-packages`"
# ("don't pass --force-with-lease" is a force push; a bare --force belongs to too many programs)
_FLAG_OF = {"--amend": (("git",), ("commit",)),
            "--break-system-packages": (("pip", "pip3"), ("install",)),
            "--legacy-peer-deps": (("npm",), ("install",)),
            "--no-frozen-lockfile": (("pnpm",), ("install",)),
            "--no-gpg-sign": (("git",), ("commit",))}
_BARE_FLAG = lazy(rf"{_DONT}\s+(?:use|pass|add)\s+(?:the\s+)?`?(?P<flag>--[a-z-]+)`?(?:\s+(?:flag|option))?", re.I)
# "never use --force with git push" · "never use -- with pnpm test": flags unquoted, a known program's command
_FLAG_WITH = lazy(rf"{_DONT}\s+(?:use|pass|add)\s+(?:the\s+)?(?P<flags>--?[\w-]*(?:\s*(?:,|or|and|/)\s*--?[\w-]*)*)"
                  r"(?:\s+(?:flags?|options?))?\s+(?:with|to|for|on|in)\s+(?P<cmd>[a-z][\w.-]*(?:\s+[a-z][\w:.-]*){0,2})",
                  re.I)


# "never merge `main` into the feature branch" · "don't merge main into your branch; rebase"
_MERGE_INTO = lazy(rf"{_DONT}\s+(?:(?:run|use)\s+)?`?(?:git\s+)?merge`?\s+(?:the\s+)?(?:latest\s+)?(?P<branch>`?[\w./-]+`?)"
                   r"(?:\s+branch)?\s+(?:into|in|onto)\s+(?:the|your|a|any|our|their)?\s*(?:own\s+|current\s+|feature\s+|"
                   r"topic\s+|working\s+|pr\s+|local\s+)?(?:branch(?:es)?|prs?|pull requests?)", re.I)
_REMOTE_PREFIXES = ("", "origin/", "upstream/")
# "never push `main` to the remote": the branch pushed (anywhere: "the remote", origin, GitHub)
_PUSH_BRANCH = lazy(rf"{_DONT}\s+(?:(?:run|use)\s+)?`?(?:git\s+)?push`?\s+(?:the\s+)?(?P<branch>`[\w./-]+`|[\w./-]+)"
                    r"(?:\s+branch)?(?:\s+(?:directly\s+)?(?:to|into)\s+(?:the\s+|any\s+)?(?:remote|origin|github)"
                    r"(?:\s+(?:remote|repo|repository))?)?", re.I)


# "never use `--rerun-tasks`": a long flag of several words names one tool's option; with any program
_OWN_FLAG = lazy(r"--[a-z0-9]+(?:-[a-z0-9]+)+", re.I)
_COMMON_FLAGS = frozenset(("--dry-run", "--no-color", "--no-interaction", "--non-interactive", "--log-level", "--output-format"))


def _merge_into(clause: str, because: str) -> list:
    """"never merge `main` into the feature branch": ``git merge main`` (also
    from a remote: ``origin/main``, ``upstream/main``)."""
    m = _MERGE_INTO.fullmatch(clause)
    found = _targets(m.group("branch")) if m else None
    if not found or not found[0] or found[1] or len(found[0]) != 1:
        return []
    branch = found[0][0]
    return [GuardSpec(CommandMatch(("git",), ("merge", prefix + branch), (), True), because)
            for prefix in _REMOTE_PREFIXES]


# "never push tags": `git push --tags` / `--follow-tags` (a tag named in a refspec cannot be told from a branch)
_PUSH_TAGS = lazy(rf"{_DONT}\s+(?:(?:run|use)\s+)?`?(?:git\s+)?push`?\s+(?:any\s+|the\s+)?tags"
                  r"(?:\s+(?:to\s+(?:the\s+)?(?:remote|origin|upstream|github)))?", re.I)


# "never use --no-verify on commits" · "don't pass --force to pushes": the git act the flag goes with
_ON_ACTS = lazy(r"(?<=\S)\s+(?:on|for|with|to|in|when)\s+(?:(?:any|your|the|a|making|doing)\s+)?(?:git\s+)?"
                r"(?P<act>commit|push)(?:s|es|ting|ing)?$", re.I)


def _on_act(m) -> str:
    return f" with git {m.group('act').lower()}"


def git_verb_specs(clause: str, because: str, run=None) -> list:
    """The guards of a git rule said with verbs, a noun phrase or a flag;
    ``run`` reads "never run `<command>`" (derive's command reader)."""
    if _PUSH_TAGS.fullmatch(clause):
        return [GuardSpec(CommandMatch(("git",), ("push",), (flag,), True), because) for flag in ("--tags", "--follow-tags")]
    merged = _merge_into(clause, because)
    if merged:
        return merged
    m = _PUSH_BRANCH.fullmatch(clause)
    found = _targets(m.group("branch")) if m else None
    if found and found[0] and not found[1]:
        return [GuardSpec(PushMatch(found[0]), because)]
    m = _VERBS.fullmatch(clause)
    if m:
        verbs = dict.fromkeys(v.lower() for v in re.findall(_VERB, m.group("verbs"), re.I))
        return [GuardSpec(PushMatch() if v == "push" else CommandMatch(("git",), (v,), (), True), because)
                for v in verbs]
    m = _NOUN.fullmatch(clause)
    if m:
        found = _targets(m.group("branch"))
        if found and found[0] and not found[1] and run is not None:
            verb = "push" if m.group("verb").lower().startswith("push") else "commit"
            spec = run(f"never {verb} to {m.group('branch')}", because)
            return [spec] if spec is not None else []
        return []
    m = _BARE_FLAG.fullmatch(clause)
    flag = m.group("flag").lower() if m else ""
    if flag in _FLAG_OF:
        return [GuardSpec(CommandMatch(*_FLAG_OF[flag], (flag,), True), because)]
    if flag == "--force-with-lease":
        return [GuardSpec(PushMatch(force_only=True), because)]
    if flag and _OWN_FLAG.fullmatch(flag) and flag not in _COMMON_FLAGS:
        return [GuardSpec(CommandMatch(("*",), (), (flag,), True), because)]  # any program's
    m = _FLAG_WITH.fullmatch(_ON_ACTS.sub(_on_act, clause.replace("`", "")) if _ON_ACTS.search(clause) else clause)
    if m and run is not None and m.group("cmd").split()[0].lower() in _KNOWN_PROGRAMS:
        flags = [f for f in re.split(r"\s*(?:,|\bor\b|\band\b|/)\s*", m.group("flags")) if f]
        out = [run(f"never use `{m.group('cmd')} {flag}`", because) for flag in flags]
        if out and all(s is not None and getattr(s.match, "flags", None) != () for s in out):
            return out
    return []


# git's own commands: "no git submodules" names git's things, not a `git submodules` command (there is none)
GIT_COMMANDS = frozenset((
    "add", "am", "annotate", "apply", "archive", "backfill", "bisect", "blame", "branch", "bundle", "cat-file",
    "checkout", "checkout-index", "cherry", "cherry-pick", "citool", "clean", "clone", "commit", "commit-tree",
    "config", "count-objects", "credential", "describe", "diff", "diff-files", "diff-index", "diff-tree", "difftool",
    "fetch", "filter-branch", "filter-repo", "for-each-ref", "format-patch", "fsck", "gc", "grep", "gui",
    "hash-object", "help", "init", "instaweb", "lfs", "log", "ls-files", "ls-remote", "ls-tree", "maintenance",
    "merge", "merge-base", "mergetool", "mktag", "mv", "name-rev", "notes", "p4", "prune", "pull", "push",
    "range-diff", "read-tree", "rebase", "reflog", "remote", "repack", "replace", "request-pull", "rerere", "reset",
    "restore", "rev-list", "rev-parse", "revert", "rm", "send-email", "shortlog", "show", "show-ref",
    "sparse-checkout", "stash", "status", "submodule", "svn", "switch", "symbolic-ref", "tag", "update-index",
    "update-ref", "var", "verify-commit", "verify-tag", "whatchanged", "worktree", "write-tree", "flow", "crypt",
    "hook", "subtree",
))


def names_git_command(spec: GuardSpec, clause: str) -> bool:
    """False for a guard on ``git WORDS`` where WORDS, unquoted in the clause, is the plural of one of git's
    commands ("no git submodules", "never use git hooks", "git branches"): the words name git's things, and
    the guard could never fire. Any other word stays (``git absorb`` may be an installed git command), and
    so does a quoted ``git co`` (the project's alias)."""
    match = spec.match
    if not isinstance(match, CommandMatch) or match.programs != ("git",) or not match.subcommands:
        return True
    word = match.subcommands[0]
    plural = word not in GIT_COMMANDS and (word[:-1] in GIT_COMMANDS and word.endswith("s")
                                           or word[:-2] in GIT_COMMANDS and word.endswith("es"))
    return not plural or bool(re.search(rf"`git\s+{re.escape(word)}\b", clause))

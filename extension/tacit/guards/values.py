"""Rules about the value given to an option (``OptionMatch``): labels ("don't
add the `type/bug` label", "`wontfix` labels are forbidden") and commit
trailers ("don't add `Co-authored-by` trailers with your agent name").

``value_specs(clause, because)`` reads such a rule clause (or ``[]``);
``option_fires(match, inv, call)`` checks an invocation's argv. Design notes:
docs/guards.md ("Shapes").
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.commands import _is_info
from tacit.guards.model import GuardSpec, OptionMatch
from tacit.guards.shell import Invocation, program_name
from tacit.guards.shell_lex import DYN
from tacit.guards.words import _DONT, listed

# a label said unquoted must look like one (``type/bug``, ``needs-triage``, ``area:ci``); a bare word may be prose
_LABEL = r"`[^`\n]{1,50}`|[\w.]+[/:-][\w./:-]+"
_LABELS = listed(_LABEL)
_LABEL_RULES = [lazy(p, re.I) for p in (
    rf"{_DONT}\s+(?:add|use|apply|set|put|assign)\s+(?:the\s+|any\s+|a\s+)?(?P<vals>{_LABELS})\s+labels?"
    r"(?:\s+(?:to|on)\s+(?:any\s+|the\s+|new\s+)?(?:issues?|prs?|pull requests?)(?:\s+or\s+(?:issues?|prs?|pull requests?))?)?",
    rf"(?:the\s+)?(?P<vals>{_LABELS})\s+labels?\s+(?:is|are)\s+(?:\w+\s+and\s+)?(?:forbidden|banned|prohibited|"
    r"not allowed|disallowed|not to be used)",
)]
# ``Co-authored-by``, ``Signed-off-by``, ``Generated-by``: a trailer's name ends with "-by" (or is quoted)
_TRAILER = r"`[A-Za-z][\w-]{1,40}:?`|[A-Za-z][\w-]*-by:?"
_TRAILERS = listed(_TRAILER)
# whose name: the agent's own (a human's trailer stays allowed, but the agent adds only its own)
_WHOSE = (r"(?:\s+(?:with|naming|for|crediting|mentioning)\s+(?:your(?:self)?|the agent'?s?|the ai'?s?|the assistant'?s?|"
          r"claude'?s?|an? (?:ai|agent|bot|llm|model)'?s?|ai|agent|bot)(?:\s+(?:own\s+)?(?:(?:agent|ai|bot|assistant|model)\s+)?"
          r"(?:name|identity|email))?)?")
_TRAILER_RULE = lazy(rf"{_DONT}\s+(?:add|include|use|put|write|append)\s+(?:the\s+|any\s+|a\s+|an\s+)?(?P<vals>{_TRAILERS})"
                     rf"\s+(?:trailers?|lines?|footers?){_WHOSE}(?:\s+(?:to|in)\s+(?:the\s+|any\s+)?commits?"
                     r"(?:\s+messages?)?)?", re.I)
# each rule's shape: the program, its verbs, the options given the value, whether the value is a trailer
_RULES = [*((p, "gh", ("create", "edit"), ("--label", "-l", "--add-label"), False) for p in _LABEL_RULES),
          (_TRAILER_RULE, "git", ("commit",), ("--trailer", "-m", "--message"), True)]


def _values(text: str) -> tuple:
    parts = re.split(r"\s*(?:,\s*(?:or|and|nor)\s+|,|\bor\b|\band\b|\bnor\b)\s*", text.strip(), flags=re.I)
    return tuple(dict.fromkeys(p.strip("`").rstrip(":") for p in parts if p.strip("`").strip()))


def value_specs(clause: str, because: str) -> list:
    """The label or trailer guards a rule clause states, or ``[]``."""
    for pattern, program, verbs, options, trailer in _RULES:
        m = pattern.fullmatch(clause)
        if m:
            values = _values(m.group("vals"))
            return [GuardSpec(OptionMatch(program, verbs, options, values, trailer), because)] if values else []
    return []


def _given(argv: tuple, options: tuple) -> list:
    """The values ``argv`` gives ``options`` (``--label x``, ``--label=x``, ``-lx``)."""
    out = []
    for j, a in enumerate(argv[1:], 1):
        if a == "--":
            break
        if a in options and j + 1 < len(argv):
            out.append(argv[j + 1])
        elif "=" in a and a.split("=", 1)[0] in options:
            out.append(a.split("=", 1)[1])
        elif len(a) > 2 and a[:2] in options and a[1] != "-" and len(a[:2]) == 2:
            out.append(a[2:])  # -m"msg"
    return out


def _heredocs(call) -> list:
    """-m "$(cat <<'EOF' … EOF)": the message a bare ``cat`` reads (none when a ``cat`` writes a file)."""
    if any(w.argv == ("cat",) for w in call.writes):
        return []
    return [t for i in call.invocations if i.argv == ("cat",) for t in i.stdin]


def option_fires(match: OptionMatch, inv: Invocation, call=None) -> bool:
    """The invocation gives one of the guarded values to one of the options."""
    if program_name(inv.argv[0]) != match.program if inv.argv else True:
        return False
    if match.verbs and not set([a for a in inv.argv[1:] if not a.startswith("-")][:3]) & set(match.verbs):
        return False
    if _is_info(inv.argv, match.program):
        return False  # `gh issue create --label x -h`, `git commit --trailer … --dry-run`: nothing is made
    wanted = {v.lower() for v in match.values}
    for value in _given(inv.argv, match.options):
        if match.trailer and DYN in value and call is not None:
            value = "\n".join([value, *_heredocs(call)])
        if match.trailer:
            for line in value.splitlines():
                name = re.split(r"\s*[:=]", line.strip(), maxsplit=1)[0].lower()
                if name in wanted and re.match(r"\s*[\w-]+\s*[:=]", line):
                    return True
        elif any(v.strip().lower() in wanted for v in value.split(",")):
            return True
    return False

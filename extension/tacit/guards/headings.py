"""Rule lines that open with a heading. A bold heading that is itself a rule, said again after a
colon ("**Do not commit build artifacts**: Never commit `node_modules/`, …"), is a title: the rule
read is the one after it. A rule's verb said as a bold label ("**Never Use**: bare `python` commands")
starts the clause it labels (not a reason: "**Never commit**: it breaks CI"). ``unheaded(text)``
returns the line as read; ``unstressed(text)`` drops an emphasis set off by commas or dashes after
the negation ("Never, under any circumstances, run …") (docs/guards.md).
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy

_MARK = r"^((?:[-*+>]\s+|\d{1,3}[.)]\s+)*)"
_NO = r"(?:never|do\s+not|don'?t)"
_RULE_HEADING = lazy(rf"{_MARK}\*\*(?:{_NO}|no)\b[^*:]{{1,80}}\*\*\s*[:\u2014]\s*(?=(?:\*\*)?{_NO}\b)", re.I)
_VERB_LABEL = lazy(rf"{_MARK}\*\*({_NO}\s+(?:use|run|execute|edit|modify|touch|commit))\*\*\s*:\s+"
                   r"(?!(?:it|it's|this|that|they|because|since|as)\b)(?=\S)", re.I)


def unheaded(text: str) -> str:
    """The line with a restated rule heading dropped and a verb label joined to what it labels."""
    text = _RULE_HEADING.sub(r"\1", text, count=1)
    return _VERB_LABEL.sub(r"\1\2 ", text, count=1)


# "Never, under any circumstances, run …" · "Never, ever, edit …" · "Do NOT — for any reason — push …"
_STRESS = lazy(r"\b(never|do\s+not|don'?t|must\s+not|should\s+not)\s*(?:,|\u2014|\u2013|\s-)\s*(?:ever|"
               r"under\s+(?:any|no)\s+circumstances?|for\s+any\s+reason|and\s+i\s+mean\s+never|"
               r"at\s+any\s+(?:time|point)|no\s+matter\s+what|whatever\s+happens)\s*(?:,|\u2014|\u2013|-\s)\s*", re.I)


def unstressed(text: str) -> str:
    """The line with an emphasis between commas or dashes after its negation dropped."""
    return _STRESS.sub(r"\1 ", text)

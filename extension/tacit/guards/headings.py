"""Rule lines that open with a heading. A bold heading that is itself a rule, said again after a
colon ("**Do not commit build artifacts**: Never commit `node_modules/`, …"), is a title: the rule
read is the one after it. A rule's verb said as a bold label ("**Never Use**: bare `python` commands")
starts the clause it labels (not a reason: "**Never commit**: it breaks CI"). ``unheaded(text)``
returns the line as read (docs/guards.md).
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

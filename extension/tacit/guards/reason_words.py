"""The words that make a clause a lesson's *reason* (docs/guards.md, "Which lessons become guards"):
what a reason starts with (``REASON_HEAD``), and where a rule's sentence splits off a reason or an
order of its own (``REASON_SPLIT``: "…, since CI depends on it" · "…, volta pins node here").
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.words import _KNOWN_PROGRAMS

# a clause led by one of these is the reason for the rule before it
# … or a gain: "use `uv` instead of `pip` for faster installs"
FOR_REASON = (r"for (?:safety|security|reproducibility|consistency|stability|performance|compliance|privacy|"
              r"the sake of|speed|faster|quicker|better|cleaner|smaller|simpler|safer|more\s+(?:reliable|consistent|"
              r"reproducible|stable|deterministic))")
# heads of a reason said without a subject: "broke prod last week", "too slow", "doing so breaks CI"
_MORE_REASONS = (r"broke|caused|took down|wiped|killed|nuked|corrupted|bricked|cost|burned|bit us|lest|"
                 r"(?:auto-?)?(?:generated|regenerated|built|managed|maintained|owned|produced|written) by|"
                 r"(?:way\s+)?too|not (?:worth|needed|necessary|required|safe|a good idea|even)|even|especially|"
                 r"reason being|the reason|hence|thus|thereby|long story|see|cf|learned|learnt|full stop|"
                 r"(?:every|no|some)(?:one|body)|nothing good|"
                 r"results in|leads to|makes|causes|creates|wastes|messes up|screws up|confuses|breaks|kills|loses|"
                 r"corrupts|slows|wipes|nukes|clobbers|hangs|takes (?:forever|ages|hours|minutes)|"
                 r"(?:an?\s+)?(?:[\w-]+\s+){0,2}(?:footgun|trap|anti-?pattern|no-?go|no-no|disaster|nightmare)|"
                 r"(?:doing|running|using|editing|touching|changing|having|committing|pushing) (?:so|it|that|this|them)|"
                 # "…, slow and flaky" · "…, deprecated" · "…, no need": what is wrong with it, said without a subject
                 r"slow|flaky|fragile|brittle|buggy|risky|dangerous|destructive|unsafe|expensive|deprecated|outdated|"
                 r"obsolete|unnecessary|pointless|useless|no need(?=\s*(?:$|[.!,;]))|has side[- ]effects|"
                 + FOR_REASON)
REASON_HEAD = lazy(
    r"^(?:because|since|as(?!\s+(?:long|soon)\s+as\b)|so(?!\s+long\s+as\b)|so that|it|it's|its|they|they're|this|that|these|those|which|"
    r"otherwise|or else|else|to avoid|to keep|to prevent|in order|given|due to|per|see|e\.?g|"
    r"i\.?e|see also|instead|rather|we|you|the|our|there|as per|now that|last time|for (?:\w+ )?reasons?|"
    + _MORE_REASONS + r")\b", re.I)
# a subject and its verb state a fact: ", git-cliff generates it" · ", rm -rf is scary" · ", volta pins node here"
_IS = (r"(?:is|are|was|were)(?!\s+(?:(?:still|also|totally|perfectly|all)\s+)?(?:fine|ok|okay|allowed|acceptable|"
       r"permitted|exempt|excluded|excepted|different|separate|an?\s+exceptions?|exceptions?|not\b|n't\b))")
_FACT_VERBS = (
    r"generates?|creates?|writes?|manages?|owns?|overwrites?|rewrites?|regenerates?|updates?|handles?|builds?|"
    r"publishes?|produces?|maintains?|reviews?|does|do|will|breaks?|depends?|relies|rely|needs?|reads?|expects?|"
    r"requires?|fails?|chokes?|runs?|uses?|checks?|rejects?|catches|triggers?|deploys?|loses|results|leads|makes|"
    r"causes|wastes|messes|screws|confuses|kills|corrupts|slows|wipes|nukes|clobbers|hangs|ignores|emits|skips|"
    r"drops|deletes|removes|resets|strips|overrides|misses")
_MAY = r"would|can|could|might|may|has|had|(?:don't|doesn't|won't|can't|isn't|aren't)(?!\s+(?:count|apply|matter)\b)"
# "dev deps don't count": a plural noun, not a verb, when a verb follows it
_NOUN_AFTER = (r"(?:don't|doesn't|do|does|are|aren't|is|isn't|was|were|can|can't|will|won't|should|must|may|might|"
               r"have|has|need|needs|count|matter|go|get|live|stay)\b")
_ADVERB = r"(?:(?:only|always|just|also|already|never|then|still|silently|here|there)\s+)?"
_NOT_SUBJECT = (r"(?!(?:for|in|on|at|with|by|from|the|this|that|via|into|onto|under|over|of|if|when|unless|only|even|"
                r"so|as)\b)")
_PROGRAM = "|".join(sorted((re.escape(p) for p in _KNOWN_PROGRAMS), key=len, reverse=True))
_FACT = (
    r"(?:(?:a|an)\s+)?(?:\x00\d+\x00|[A-Za-z][\w.-]*)\s+" + _ADVERB + r"(?:" + _IS + "|" + _FACT_VERBS + r")\b|"
    # one word or path and any verb said of it, when words follow: ", volta pins node here" · ", .env holds keys"
    + _NOT_SUBJECT + r"(?:[A-Za-z][\w.-]*|\.?[\w.-]*/[\w./-]*|\.[\w.-]+)\s+(?:" + _MAY
    + r"|[a-z]{2,}[^\Ws]s(?=\s+(?!(?:or|and|nor)\b|" + _NOUN_AFTER + r")[\w.]))\b|"
    # a program and its words or flags: ", git push --force will clobber the remote" · ", git pull --rebase is fine"
    r"(?:" + _PROGRAM + r")(?:\s+(?!(?:or|and|nor|not|never)\b)(?:-{1,2}[\w-]+|[a-z][\w-]*)){1,3}?\s+" + _ADVERB
    + r"(?:(?:is|are|was|were)|" + _FACT_VERBS + "|" + _MAY + r")\b")
# ", npm audit fix has broken things before" · ", .env holds the prod keys": a fact said after the rule is
# its reason, as one led by "it" (not a ban said as a fact, ", yarn is banned too" · ", agents never run
# `x`", nor a hedged one, ", maintainers do that usually": the rule's own hedge)
# (a bare word before a word in -s is no subject: "name branches claude/…" is an order)
_FACT_SAID = (r"(?:(?:a|an)\s+)?(?:\x00\d+\x00|[A-Za-z][\w.-]*)\s+" + _ADVERB + r"(?:" + _IS + "|" + _FACT_VERBS + r")\b|"
              + _NOT_SUBJECT + r"(?:[A-Za-z][\w.-]*|\.?[\w.-]*/[\w./-]*|\.[\w.-]+)\s+(?:" + _MAY + r")\b|"
              r"(?:\.?[\w.-]*/[\w./-]*|\.[\w.-]+|" + _PROGRAM + r")\s+[a-z]{2,}[^\Ws]s\s+\w|"
              r"(?:" + _PROGRAM + r")(?:\s+(?!(?:or|and|nor|not|never)\b)(?:-{1,2}[\w-]+|[a-z][\w-]*)){1,3}?\s+" + _ADVERB
              + r"(?:(?:is|are|was|were)|" + _FACT_VERBS + "|" + _MAY + r")\b")
_FACT_HEAD = lazy(r"^(?!(?:or|and|nor|not|never|no|but|then|also|to|please|do|don'?t|always|only)\b)"
                  r"(?!.*\b(?:forbidden|banned|prohibited|disallowed|off[- ]limits|usually|sometimes|often|mostly|"
                  r"normally|typically|generally|never|must|should|shall|do\s+not|don'?t)\b)(?:" + _FACT_SAID + ")", re.I)


def reason_head(text: str) -> bool:
    """Whether a clause (not a rule's first) is a reason: led by a reason word, or a fact said."""
    return bool(REASON_HEAD.match(text) or _FACT_HEAD.match(text))


# "If a fix is needed, create a new commit, because it breaks CI": the reason after an order, no part of it
CONSEQUENT_REASON = lazy(r"(?:\s*,\s*|\s+)(?:because|since|cuz|'?cause|bc|b/c)\s.*$", re.I)
REASON_SPLIT = lazy(
    r",\s*(?=(?:do not|don't|dont|never|must not|should not)\b|no\s+\x00|"
    r"(?:change|edit|modify|update|fix|add|rebase|squash|merge|commit|push|open|create|write|tell|ask|ping|notify)\b"
    r"[^,;]*\binstead\b)|"
    # "… but call the task instead": the way to do it, an order of its own, not a hedge
    r",?\s+but\s+(?=(?:use|call|run|invoke|read|check|ask|open|create|make)\b[^,;]*\binstead\b)|"
    # ", git-cliff generates it" · ", CI publishes it" · ", `rm -rf` is scary": a fact, not a list item
    r",\s*(?=(?!(?:or|and|nor|not|never|no|but|then|also|to|please)\b)" + _FACT + r")|"
    r",\s*(?=(?:just|simply)\s+[a-z]+\b)|"  # ", just make a new one": an order of its own
    # ", make a branch and open a PR" · ", create a new branch": the way to do it instead, an order of its own
    r",\s*(?=(?:make|create|cut|start|check\s+out|switch\s+to)\s+(?:a|an|your|the|a\s+new|new)\s+[\w-]*\s*"
    r"(?:branch|pr|pull request|fork|worktree|commit)\b)|"
    # ", push to a fork and open a PR": the way to do it instead, an order of its own
    r",\s*(?=(?:push|commit|merge|write|send|open)\s+(?:it\s+|them\s+)?(?:to|into|onto|against)\s+(?:a|an|your|the)\s+"
    r"(?:own\s+)?(?:fork|branch|feature branch|new branch|pr|pull request|staging|draft)\b)|"
    r",\s*(?=(?:(?:always|please|just|then)\s+)?(?:because|since|as(?!\s+(?:long|soon)\s+as\b)|so(?!\s+long\s+as\b)|it|it's|they|they're|this|that|these|those|which|otherwise|or else|"
    r"we|we're|i|you|our|the|there's|there (?:is|are)|use|run|prefer|ask|open|instead|rather|regenerate|rebuild|re-run|rerun|leave|"
    r"let(?!\s+(?:me|us|the user|a human|a maintainer|the maintainers)\b)|"
    r"else|unless|except|if|when|whenever|only|to avoid|to keep|to prevent|in order|"
    r"due to|for now|until|given|per|as per|now that|last time|for (?:\w+ )?reasons?|"
    r"might|may|could|often|sometimes|usually|probably|possibly|tends? to|"
    + _MORE_REASONS + r")\b)|"
    r"\s+and\s+(?=(?:it|this|that)(?:'s|\s+(?:always\s+|just\s+)?[a-z]+s)\b)|"  # "… and it breaks the lockfile"
    r"\s+(?=(?:because|since|so that|so (?=(?:the|it|its|our|we|they|you|nothing|nobody|everyone|history|ci)\b)|otherwise|or else|as (?:they|it|these|this|those|that)"
    r"(?:'re| are| is| get| will)?|to (?:keep|avoid|prevent)|as per|now that|given that|"
    r"for (?:\w+ )?reasons|to (?:ensure|make sure|guarantee)|" + FOR_REASON + r")\b)", re.I)


# "— could break CI" · ", might corrupt the lockfile" · "Usually breaks CI.": a harm that may follow, a reason
_MAY_HARM = lazy(r"^(?:(?:it|this|that|they|which|doing so)\s+)?(?:might|may|could|can|will|would|often|sometimes|"
                 r"usually|probably|possibly|generally|typically|tends? to)\b", re.I)
_HARM_STEMS = ("break broke corrupt wipe lose lost kill hang slow mess screw confus waste clobber nuke destroy delet "
               "overwrit fail leak caus trigger ruin damag hurt crash explod drift pollut invalidat bloat flak").split()
_HARM = lazy(r"\b(?:" + "|".join(_HARM_STEMS) + r")\w*", re.I)
_LETS = lazy(r"\b(?:ok|okay|fine|allowed|acceptable|permitted|go ahead|feel free|alright|ask|skip|instead|no need|"
             r"needed|necessary|works?|safe|if|when|unless)\b", re.I)


# "…, it's usually fine to skip": a reason that lets the act, so no reason but the rule's own hedge
LETS_IT = lazy(r"\b(?:ok|okay|fine|allowed|acceptable|permitted|go ahead|feel free|alright|no need|skip)\b", re.I)


def without_harm(text: str) -> str:
    """``text`` without the harm said after it ("create a new commit, it might break CI")."""
    pieces = text.split(", ")
    while len(pieces) > 1 and _HARM.search(pieces[-1]) and not _LETS.search(pieces[-1]) and \
            re.match(r"(?:it|this|that|they|which|doing so)\b|" + _MAY_HARM.pattern.lstrip("^"), pieces[-1], re.I):
        pieces.pop()
    return ", ".join(pieces)


def said_harm(clause) -> bool:
    """Whether a sentence's first clause only says what harm may follow ("Usually breaks CI."): a
    reason, not a hedge of the rule before it."""
    text = clause.text
    return bool(clause.head_hedge and not clause.exception and _MAY_HARM.match(text) and _HARM.search(text)
                and not _LETS.search(text))

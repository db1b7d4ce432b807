"""A lesson as people write it → the clauses that may state a rule (docs/guards.md, "Which
lessons become guards"). ``clauses(text)`` cleans markup and emphasis, splits each sentence into
clauses and says whether each is a *reason* (never vetoes, never matched); ``veto(...)`` says
whether an exception or hedge makes the lesson something a matcher cannot check. Backticked
spans are kept whole and never split or read for hedges. Pure: no files, no clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tacit.lazyre import gate, lazy
from tacit.guards.act_words import kind_named, without_activity, without_purpose
from tacit.guards.quoting import as_extension, as_quoted
from tacit.guards.reason_words import (_HARM, _LETS, _MAY_HARM, CONSEQUENT_REASON, LETS_IT, REASON_HEAD, REASON_SPLIT,
                                       reason_head, without_harm)
from tacit.guards.restate import said_as_run
from tacit.guards.typed import _ASKED_NO, _asked_no, typed_cues
from tacit.guards.words import _KNOWN_PROGRAMS, RULE_VERBS, SAID_BEFORE_CUE, verb_of

_TRANSLATE = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                            "\u00a0": " ", "\u2013": " \u2014 ", "\u2014": " \u2014 "})
# a list mark or a number says where a rule sits: "3)", "### 2.1", "a)", a keycap "1\ufe0f\u20e3"
_BULLET = lazy(r"^\s*(?:[-*+\u2022>]\s+|\d{1,3}(?:\.\d{1,3})*[.)]\s+|\d{1,3}(?:\.\d{1,3})+\s+|[a-z]\)\s+|"
               r"\d\ufe0f?\u20e3\s*|#{1,6}\s+|\[[ xX]?\]\s+)+")
_SYMBOLS = lazy(r"[\u2600-\u27bf\U0001f300-\U0001faff\ufe0f\u200d\u2757\u203c]+")
# a markdown link reads as its text: "use [uv](https://…) instead of pip"
_LINK = lazy(r"!?\[([^\[\]\n]{1,80})\]\((?:[^()\s]|\([^()\s]*\))+\)")
# "packages/**/dist", "**/gen": typed globs; "__pycache__/", "__init__.py": typed names, not bold
_BOLD = lazy(r"\*\*(?!/)|(?<![\w`])__(?=\w)(?!\w+__(?:/|\.\w))|(?<=\w)__(?![\w`/]|\.\w)")
# emphasis and politeness that change nothing about what to stop
_NOISE = lazy(
    r"\b(?:please|pls|plz|kindly|always|really|absolutely|strictly|ever|again|anymore|any more|seriously|trust me|"
    r"thx|ty|cheers|no exceptions?|without exceptions?|fyi|btw|like ever|period(?=[.!]*$)|still(?=\s+never\b)|"
    r"at all costs|at all|yourself|directly|direct(?=\s+(?:push|commit)\w*\b)|straight|raw(?=\s+\x00)|thanks|thank you|going forward|from now on|automatically|autonomously|"
    r"on your own|locally|on your machine|when(?:ever)?\s+(?:running|executing|you run)\s+(?:any\s+)?(?:shell\s+|terminal\s+)?commands|"
    r"under (?:any|no) circumstances?|in any case|by any means|exclusively|for any reason|for anything|for everything|for all (?:\w+ )?commands|"
    r"in any (?:form|way|shape or form)|via (?:the )?bash(?: tool)?|(?:in|from) (?:the |a )?(?:terminal|command line)|"
    r"(?:manually|by hand)(?=\s+(?:edit|modify|change|touch|update|write|overwrite|alter))|(?<=\x00\s)(?:manually|by hand)(?=\s*(?:[.!,;]|$))|"
    r"for (?:dependency|package) management(?:\s+(?:commands?|tasks?|operations?))?|as (?:a|the|our) package manager|"
    r"for this(?=\s*$))\b", re.I)
_HERE = lazy(
    r"\b(?:(?:in|for|within|inside|across) (?:this|the|our) (?:project|repo|repository|codebase|"
    r"workspace|monorepo|app|team)(?!\s+root\b)|(?:in|within|inside) this (?:directory|folder|dir|package|subdirectory)|"
    r"(?:in )?here|for package management|during (?:local )?development|"
    r"on the (?:whole|entire) (?:repo|repository|codebase|project|tree)|on (?:this|our) (?:project|repo|repository|codebase)|"
    r"as (?:the|our) package manager)\b", re.I)
# "never commit directly" · "don't push your changes directly": straight to the shared branch, not any commit
_DIRECT = lazy(r"\b((?:git\s+)?(?:commit|push)(?:es|ed|ing|s)?(?:\s+(?:(?:your|the|any)\s+)?(?:code|changes|work|anything))?"
               r"\s+directly)\b(?!\s+(?:to|on|onto|into|in|from|without|unless|via|through|with)\b)", re.I)
# a word every rule says (``derive._MAYBE_RULE``, in short): a part without one adds nothing to a rule
_RULE_WORD = lazy(r"\b(?:no|not|never|nor|instead|rather|prefer|use|banned|forbidden|avoid|stop|off[- ]limits|alone)\b|n'?t\b",
                  re.I)
# "… and instead prompt the user": the way to do it instead is a clause of its own; and a comma before a
# prohibition of its own: "Do not create a feature branch, do not open a pull request, and …"
_CLAUSE_SPLIT = lazy(r"\s*;\s*|\s*:\s+|\s+\u2014\s+|\s+--?\s+|\s+[-=]>\s+|,?\s+(?:and|but)\s+(?=instead\b)|"
                     r"\s*,\s*(?:and\s+)?(?=(?:do not|don'?t)\s+(?!(?:ever|again)\b)[a-z])|\s*,?\s*\band\s+(?=never\s+[a-z])", re.I)
# "never run X cuz it …" · "bc they …": a typed "because" (not "never cause the …", not the `bc` program alone)
_CAUSE = lazy(r"(?<![\w'/-])(?:'cause|cause|cuz|coz|cos|bc|b/c)\s+(?=(?:it|it's|its|they|they're|the|we|we're|that|this|"
              r"these|those|there|i|you|of|our|otherwise)\b)", re.I)
_NOT_CAUSE = lazy(r"\b(?:never|not|don'?t|to|will|may|might|can|could|would|should|must|also|and|or|nor|no|usually)\s*$",
                  re.I)
# "X depends on it, so never run Y": the rule after "so" is a rule, the clause before its reason
_SO_RULE = lazy(r"^(?:and\s+)?(?:so|hence|therefore|thus)\s*,?\s+"
                r"(?=(?:always\s+)?(?:never|don'?t|do not|must not|should not|avoid|use|prefer|run|name|keep|put|prefix|pin|"
                r"ask|open|create|make)\b)", re.I)
# a causal reason's own condition ("because the build fails unless the cache is warm") is no exception to the rule
_CAUSAL_SPAN = lazy(r"\b(?:because|since)\b(?!\s+of\b)[^,;]*", re.I)
# "…, that prefix is only for PRs": in a reason, what the thing is for, no exception to the rule
_ONLY_FOR = lazy(r"(?:^|,)\s*(?:it|that|this|they|these|those)\b[^,;]{0,40}?\b(?:is|are|'s|'re)\s+only\s+"
                 r"(?:for|in|used\s+(?:for|in|by))\b", re.I)
_TRAILER_COLON = lazy(r"\b([A-Za-z][\w-]*-by):(?=\s+(?:trailers?|lines?|footers?)\b)", re.I)
_SENTENCE_SPLIT = lazy(r"(?<=[.!?])\s+(?=\S)|\n+")
# an exception anywhere: the rule has cases a matcher cannot see
_EXCEPTION = lazy(
    r"\b(?:unless|except|excepting|excepted|excluding|exceptions?|only (?:(?:ok|okay|fine|allowed|acceptable|permitted|safe)\s+)?(?:if|when|after|for|with|in)|"
    r"apart from|aside from|save for|barring|subject to|[\w-]+ aside(?=\s*(?:$|[,.;)]))|"
    r"for now|for the moment|for the time being|temporarily|until|till|'?til|yet|today|tonight|this time|right now|"
    r"at the moment|(?:in|for) this (?:pr|pull request|branch|session|task|change|release)|this (?:week|sprint|session)|"
    r"w/o\s+(?:asking|approval|permission|checking)|"
    # "without `cdk diff` first" · "without first reading the docs": a step before it, a case the check cannot see
    r"without\s+first|without\s+[^,;.]{1,60}?\s+first(?=\s*(?:$|[,.;)]))|"
    # "without maintainer approval" · "without explicit request" · "without asking": permission, a case the check cannot see
    r"without\s+(?:(?:the|a|an|your|their|my|our|prior|explicit|express|written|manual|first|(?:maintainer|user|owner|"
    r"human|operator|team)(?:'?s)?)\s+){0,3}(?:approval|permission|consent|confirmation|sign[- ]?off|go-ahead|ok|okay|"
    r"authori[sz]ation|asking|checking|consulting|being (?:asked|told|instructed)|instructions?|requests?|agreement|"
    r"flagging|notifying|telling|informing|discussing|mentioning|warning|"  # "without flagging it": a case, as asking
    r"review|(?:(?:a|any)\s+)?(?:(?:good|valid|strong|compelling)\s+)?(?:reason|justification)))\b", re.I)
# a hedge or condition in the rule clause itself (or heading another clause)
_HEDGE = lazy(
    r"\b(?:if|when|whenever|while|before|after|sometimes|usually|generally|mostly|typically|"
    r"often|maybe|perhaps|probably|possibly|might|may(?!\s+not)|could|ideally|avoid|avoiding|"
    r"careful|try|wherever|but|unclear|not sure|i think|seems?|unless|except|"
    # "use pnpm, not npm, as long as / provided / in case / where a lockfile …": a condition said another way
    r"(?:as|so) long as|as soon as|provided(?:\s+that)?(?=\s+(?:that|the|a|an|you|we|it|they|there|your|our)\b)|"
    r"providing that|in (?:the )?case|once(?=\s+(?:the|a|an|it|you|we|they|there|your|this|that)\b)|"
    r"in general|as a rule|as much as possible|in most cases|most of the time|by default|normally|ordinarily|"
    r"for the most part|"
    r"where(?=\s+(?:a|an|there|any|possible|applicable|feasible|practical|appropriate|needed|necessary|"
    r"relevant|available|supported)\b))\b", re.I)
# "…, or any other command that modifies the live environment" · "or anything similar": the items named are
# what a matcher can check; such a tail adds nothing to match (a hedge or exception in it still counts)
_THE_LIKE = lazy(r",?\s+(?:or|and|nor)\s+(?:(?:any|all)\s+other\s+(?:similar\s+)?(?:commands?|tools?|scripts?|programs?|"
                 r"operations?|actions?|things?|ways?)\b[^.;:!?\u2014()]*|(?:anything|something)\s+(?:similar|like\s+(?:that|"
                 r"it|them))\b|the\s+like|similar\s+(?:commands?|tools?))", re.I)
# "don't forget to …" · "you don't need to …" · "no need to …": a negation that forbids nothing
_NOT_A_BAN = lazy(r"\b(?:don'?t|do not|dont|never|not)\s+(?:(?:be|always|really|even)\s+)?(?:forget|hesitate|"
                  r"(?:need|needs|have|has)\s+(?:(?:any|my|our|a|an|the)\s+)?(?:to|permission|approval|consent|sign-?off)|afraid|shy|necessary to|required to|obliged to)\b|"
                  r"\bno\s+(?:need|reason|harm|problem)\s+(?:to|in)\b|"
                  # "I can't push" · "can't push or commit, how do I …": what fails, not what is forbidden
                  r"(?:^\s*|\b(?:i|it|this|that|which)\s+)(?:can'?t|cannot|couldn'?t|could not)\b", re.I)
# "avoid `X`" / "avoid running `X`" at a clause's head, with a quoted object,
# states a rule ("never …"), as do commands named after a kind ("avoid destructive operations like `git
# reset`"); "avoid npm", "try to avoid …" stay hedges
# "avoid modifying `x`" · "avoid editing .xlf files" · "avoid modifying src/gen/": a quoted name or a path
_AVOID = lazy(r"^(?:avoid|refrain from)\s+(?:(force[- ]pushing|[a-z-]+ing)\s+)?(?=\x00|(?:the\s+)?[\w~-]*[./*][\w*][\w./*-]*(?:\s|$)|"
              r"(?:[\w-]+\s+){0,3}(?:commands?|operations?)\s*,?\s*(?:such as|like|e\.?g\.?,?|including)\s+\x00)", re.I)
_PLACEHOLDER = lazy(r"\x00(\d+)\x00")
# "AI agents NEVER: `a`, `b`": the list is what never to run
_NEVER_COLON = lazy(r"(?:^|(?<=, ))(" + SAID_BEFORE_CUE + r"(?:(?:ai\s+)?agents?\s+|you\s+)?(?:never|do not|don't))\s*:\s*(?=\x00\d+\x00)", re.I)
# "Never touch: `a/`, `b/`" · "NEVER run: `git add`, `git push`": the list is what never to touch or run
# "NEVER commit: ROM files, build artifacts, `.wasm` files": the list after the colon is the object (not a reason)
_VERB_COLON = lazy(r"(?:^|(?<=, ))(" + SAID_BEFORE_CUE + r"(?:never|do not|don't|(?:i\s+)?(?:told|asked)\s+you\s+not\s+to)\s+"
                   r"(?:touch|edit|modify|change|alter|delete|remove|commit|run|execute|use))\s*:\s*"
                   r"(?=\x00\d+\x00|(?!(?:it|its|it's|they|this|that|these|those|because|since|as|so|we|you|the user|"
                   r"ask|use|run|instead|only|except|unless|never|no|not|don't|do not)\b)[a-z][\w-]*(?:\s+[\w-]+)?\s*,|"
                   r"[\w.~*-]*[/.*][\w.*/-]*(?=\s*(?:,|$|\s(?:or|and)\s)))",  # typed paths: "build/**, out/**"
                   re.I)
# "❌ Never use: `npm install`, `npm run`, `npx`" · "Never stage: `a`, `b/`": a verb of running or staging, then quoted names
_USE_COLON = lazy(r"^((?:never|do not|don't)\s+(?:use|run|execute|invoke|call|stage))\s*:\s*(?=\x00\d+\x00)", re.I)
# "Forbidden: `git push --force`" · "Not allowed: `npm publish`" · "Prohibited: editing `dist/`"
_BANNED_COLON = lazy(r"^(?:strictly\s+)?(?:forbidden|not allowed|prohibited|banned|disallowed|never allowed)"
                     r"(?:\s+(?:commands?|actions?|operations?))?\s*:\s*(?=\x00\d+\x00|(?P<ing>[a-z]+ing)\b)", re.I)
# "under no circumstances run …" · "it is forbidden to …" · "refrain from running …": a "never"
_NEVER_SAID = lazy(r"\b(?:under no circumstances?|in no case|at no time)(?:\s+(?:should|may|must|are|will|shall)\s+"
                   r"(?:you|agents?|claude|the agent)(?:\s+ever)?)?(?:\s+(?:to|be allowed to)\b)?\s*,?|"
                   r"\bit(?:'s|\s+is)\s+(?:strictly\s+)?(?:forbidden|not allowed|prohibited|not permitted)\s+to|"
                   r"\bnever\s*,?\s+ever\b|\b(?:never|don'?t|do not)\s+(?:attempt|try)\s+to\b", re.I)
# "Claude NEVER commits" · "the agent never runs `x`": what the agent never does, its verb said of it
_AGENT_NEVER = lazy(r"^((?:(?:ai\s+)?agents?|the agent|claude|the assistant|codex|copilot)\s+(?:will\s+|should\s+|must\s+)?"
                    r"never\s+)([a-z]+?)(?:es|s)\b", re.I)


def _agent_never(m) -> str:
    word = m.group(2).lower()
    for verb in (word, word + "e"):
        if verb in RULE_VERBS:
            return m.group(1) + verb
    return m.group(0)


# "never hand-edit generated files: `a`, `b`": the list names the files
_NOUN_COLON = lazy(r"\b(files?|folders?|directories|dirs|paths|outputs?|artifacts?|docs|documents|notes|reports|logs)\s*:\s+"
                   r"(?=\x00\d+\x00)", re.I)
# "… when making a commit or push": the action the rule's command belongs to, which the
# matcher sees, not a condition it cannot
_ACTION_WHEN = lazy(r"\s+(?:when|while)\s+(?:(?:making|doing|creating|running)\s+)?(?:a\s+|any\s+)?(?:git\s+)?"
                          r"(?:commit(?:s|ting)?|push(?:es|ing)?)(?:\s*(?:,\s*)?(?:or|and)\s+(?:a\s+)?(?:git\s+)?"
                          r"(?:commit(?:s|ting)?|push(?:es|ing)?))?$", re.I)


_NAMED = lazy(r"(?<=\w)(?P<noun>\s*)\(\s*(?:e\.?g\.?,?\s*|i\.?e\.?,?\s*|such as\s+|like\s+|including\s+)?"
                    r"(?P<items>(?:\x00\d+\x00|{p})(?:\s*(?:,|or|and|,\s*or|,\s*and)\s*(?:\x00\d+\x00|{p}))*)"
                    r"(?:\s*,?\s*(?:etc\.?|\u2026|\.\.\.))?\s*\)"  # "(`prisma migrate dev`, etc.)": the ones named
                    .format(p=r"(?:\.[\w-]+(?:\.[\w-]+)*|[\w*-]+\.[\w*.-]+|[\w.-]+/[\w.*/-]*)(?![\w(])"), re.I)
# "files that look like secrets (.env, credentials.json, *.pem)": the names are the examples of the files
_BARE_FLAG = lazy(r"\b(never|don'?t|do not)\s+(?=\x00(\d+)\x00)", re.I)
_NOTABLY = lazy(r"(?<=\w)\s*(?:\u2014|\u2013|\s-|,|:)\s*(?:notably|especially|in particular|e\.\s?g\.,?|for example,?)\s+(?=\x00)",
               re.I)
_FILE_NOUN = lazy(r"(?:files?|folders?|directories|directory|dirs?|code|sources?|artifacts?|outputs?|"
                        r"assets?|snapshots?|fixtures?|lockfiles?|migrations?|templates?|secrets?|credentials)$", re.I)


def _named(m, spans: list) -> str:
    if _FILE_NOUN.search(m.string[:m.start()]):
        items = m.group("items")
        if re.search(r"\bfiles?$", m.string[:m.start()], re.I):  # "frontend files (`.ts`/`.tsx`)": extensions
            for i in map(int, re.findall(r"\x00(\d+)\x00", items)):
                spans[i] = as_extension(spans[i].strip("`"), spans[i])
            items = re.sub(r"(?<![\w*])\.\w+\b", lambda e: as_extension(e.group(0), e.group(0)), items)
        return " such as " + items
    items = [spans[int(i)] for i in re.findall(r"\x00(\d+)\x00", m.group("items"))]
    if len(items) == 1 and " " in items[0].strip("` ") and not items[0].startswith("`-"):
        return kind_named(m.string[:m.start()], m.group("items"), spans) or " with " + m.group("items")
    if len(items) > 1 and all(" " in i.strip("` ") and i.strip("` ").split()[0].lower() in _KNOWN_PROGRAMS for i in items):
        return " such as " + m.group("items")  # "never discard changes (`git checkout -- .`, `git reset --hard`)"
    return kind_named(m.string[:m.start()], m.group("items"), spans) or m.group(0)  # "deletions (`rm -rf`)"


@dataclass(frozen=True, slots=True)
class Clause:
    text: str  # with backticks restored, noise dropped
    reason: bool  # led by because / it / which …: never a rule, never vetoes on if/when
    head_hedge: bool  # starts with an exception or condition ("if …", "unless …")
    hedged: bool  # a hedge word anywhere outside backticks
    exception: bool  # an exception word anywhere outside backticks
    aside: bool = False  # inside parentheses: a reason, read only as an edit rule with no object


def _protect(text: str) -> tuple[str, list]:
    spans: list = []

    def keep(m):
        spans.append(m.group(0))
        return f"\x00{len(spans) - 1}\x00"
    return re.sub(r"`[^`\n]{1,200}`", keep, text), spans


def _restore(text: str, spans: list) -> str:
    return _PLACEHOLDER.sub(lambda m: spans[int(m.group(1))], text)


# a smiley, or a closing "ok?" / "got it?": said to the reader, nothing about what to stop
_ASIDE_END = lazy(r"(?:(?<=\s)[:;]-?[()DPp]+|[,\s]+(?:ok|okay|alright|right|got it|understood)\s*\?+)(?=\s|$)", re.I)
# "[see #1234]" · "[ref: INC-42]": a reference in brackets is an aside
_REF_BRACKETS = lazy(r"\[\s*((?:see|ref|cf|via|per)\b[^\[\]\n]{0,120}|#\d+)\]", re.I)


def clean_line(text: str, typed: bool = False) -> str:
    """Markup off a line: bullets, headings, bold, warning signs (cue words as typed too unless ``typed``)."""
    text = text.translate(_TRANSLATE) if typed else typed_cues(text.translate(_TRANSLATE))
    text = _LINK.sub(r"\1", text)
    text = _BULLET.sub("", text)
    text = _SYMBOLS.sub(" ", text)
    text = re.sub(r"^\s*tl\s*;\s*dr\b[\s:,.\-]*", "", text, flags=re.I) if ";" in text else text  # "TL;DR never …": no clause break
    # "never use -- with pnpm test": the separator is the object, not a dash
    text = re.sub(r"\b(use|using|pass|passing|add|adding|append|put)\s+--(?=\s+(?:with|to|for|in|on|after)\b)",
                  r"\1 `--`", text, flags=re.I) if "--" in text else text
    text = _ASKED_NO.sub(_asked_no, text.strip())
    return _REF_BRACKETS.sub(r"(\1)", _ASIDE_END.sub("", text) if ":" in text or ";" in text or "?" in text else text)


# "when running `cargo test`, use `--all-features`": the condition is the command itself
_RUNNING_WITH = lazy(r"^when(?:ever)?\s+(?:running|you run|invoking)\s+(?P<cmd>\x00\d+\x00)\s*,\s*(?:always\s+)?"
                     r"(?:use|pass|add|include)\s+(?:the\s+)?(?P<flag>\x00\d+\x00|--[\w-]+)|"
                     r"^(?:always\s+)?(?:use|pass|add|include)\s+(?:the\s+)?(?P<flag2>\x00\d+\x00|--[\w-]+)"
                     r"(?:\s+(?:flag|option))?\s+when(?:ever)?\s+(?:running|you run|invoking)\s+(?P<cmd2>\x00\d+\x00)(?=\s*$|[,;.])",
                     re.I)


def _running_with(m, spans: list) -> str:
    flag, cmd = m.group("flag") or m.group("flag2"), m.group("cmd") or m.group("cmd2")
    if flag.startswith("\x00") and not spans[int(flag.strip("\x00"))].startswith("`-"):
        return m.group(0)
    return f"run {cmd} with {flag}"


def _avoid(m) -> str:
    verb = m.group(1)
    if verb is None:
        return "never use " if m.string[m.end():m.end() + 5].startswith("\x00") else "never "
    base = verb_of(verb)
    return f"never {base} " if base else m.group(0)


# "stop running npm install" · "I don't want you editing `dist/`" · "you're not supposed to run …" · "no more …"
_SPOKEN_NEVER = lazy(r"^(?:(?:please|pls|plz|kindly)\s*,?\s+)?(?:(?:i\s+)?(?:told|asked)\s+you\s+not\s+to|"
                     r"(?:(?:make|be)\s+sure|ensure|remember)\s+(?:that\s+)?(?:you\s+)?"
                     r"(?:never|do\s+not|don'?t|not\s+to|to\s+never|never\s+to)|i\s+(?:don'?t|do not)\s+want\s+you\s+(?:to\s+)?|"
                     r"i\s+never\s+want\s+you\s+to|you(?:'re|\s+are)\s+not\s+supposed\s+to|you\s+(?:should|must)\s*(?:not|n't)\s+be|"
                     r"(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:not(?=\s+[a-z])|stop|quit)|"
                     r"don'?t\s+you\s+dare|no\s+more|(?:a\s+)?hard\s+no\s+(?:on|to)|no(?=\s+[a-z-]+ing\b)|stop|quit)"
                     r"(?:\s+|(?<=\s))(?:(?P<adv>[a-z]+ly\s+)?(?P<ing>force\s+pushing|[a-z-]+ing)\b\s*)?", re.I)  # "stop force pushing"
_NEEDS_ING = lazy(r"^(?:(?:please|pls|plz|kindly)\s*,?\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
                  r"(?:stop|quit|no(?!\s+more\b)|(?:a\s+)?hard\s+no\s+(?:on|to))\b", re.I)


def _spoken(m) -> str:
    ing = m.group("ing")
    if ing is None:
        return "never " if not _NEEDS_ING.match(m.group(0)) else m.group(0)
    base = verb_of(ing)
    return f"never {m.group('adv') or ''}{base} " if base else m.group(0)  # "stop manually editing x"


def _never_said(m) -> str:
    said = m.group(0).lower()
    m2 = re.match(r"(never|don'?t|do not)\s+(?:attempt|try)", said)
    return f" {m2.group(1)} " if m2 else " never "


# "btw, never …" · "oh and don't …" · "just never …": a lead-in before the cue word
# "hey never …" · "could you please use pnpm, never npm" · "just always run …": said to be polite, no hedge
_LEAD_IN = lazy(r"^(?:(?:btw|by the way|oh|and|also|fyi|psa|one more thing|note to self|just|so yeah|anyway|ok(?:ay)? so|"
                r"pretty|ffs|dude|look|hey|hi|hello|yo|(?:can|could|would|will) you(?:\s+(?:please|pls|kindly))?(?!\s+(?:please|pls|kindly)\b))\b[\s,:]*)+"
                r"(?=(?:never|don'?t|do not|dont|no|stop|quit|use|run|always|please|pls)\b)", re.I)

_DOT_ARGUMENT = lazy(r"[\w/-]\s\.$")
_GO_PACKAGES = lazy(r"\s(?:\.{1,2}/)?[\w./-]*/\.\.\.$")
_DO_A = lazy(r"\b(never|don'?t|do not)\s+do\s+an?\s+(?=\x00)", re.I)
_SPACE_BEFORE = lazy(r"\s+([,;:])")
_ENDS = lazy(r"^[,;:\s]+|[\s,;:.!]+$")
# "use pnpm exclusively" is "use only pnpm" (``sole_tool``), before "exclusively" goes as emphasis
_EXCLUSIVELY = lazy(r"\buse\s+(\S+)\s+exclusively\b", re.I)


def _tidy(s: str) -> str:
    s = s.strip()
    dot = s.endswith(".") and _DOT_ARGUMENT.search(s)  # "never run git checkout .": the dot is the argument
    dots = s.endswith("/...") and _GO_PACKAGES.search(s)  # "never run go test ./...": a package pattern
    s = _LEAD_IN.sub("", s)
    s = _NEVER_SAID.sub(_never_said, s.strip())
    s = _AGENT_NEVER.sub(_agent_never, s)  # "Claude never commits": the agent's rule, "never commit"
    s = _SPOKEN_NEVER.sub(_spoken, s)
    s = _DO_A.sub(r"\1 run ", s)  # "never do a `git reset`"
    s = _AVOID.sub(_avoid, _SO_RULE.sub("", s.strip()))
    s = _NOISE.sub(" ", _EXCLUSIVELY.sub(r"use only \1", s))
    s = _HERE.sub(" ", s)
    s = " ".join(s.split())  # the spaces \s matches are the ones str.split splits at
    s = _AVOID.sub(_avoid, s)  # "please refrain from editing `x`": the politeness was in the way
    s = _SPACE_BEFORE.sub(r"\1", s) if "," in s or ";" in s or ":" in s else s
    s = re.sub(r",\s*,", ",", s) if s.count(",") > 1 else s
    s = _ENDS.sub("", s) + (" ." if dot else "...") if dot or dots else _ENDS.sub("", s)
    return _ACTION_WHEN.sub("", s)


_ABBREVIATION = lazy(r"\b(e\.g|i\.e|etc(?!\.\s+[A-Z])|vs|cf)\.", re.I)
_NOT_ASIDE = lazy(r"\s*\(\s*((?:not|never|no)\s(?!(?:available|installed|supported|present|reliable|compatible|working|"
                 r"needed|necessary|required|allowed|stable|maintained|recommended)\b)[^()]+)\)", re.I)  # "(not available on this Mac)": a reason
_SQL_ASIDE = lazy(r"\s*\(\s*((?:drop|truncate|delete)\b[^()]*)\)", re.I)
_BANNED_ASIDE = lazy(r"\s*\(([^()]+\s(?:is|are)\s+(?:not allowed|forbidden|banned|prohibited)|"
                     r"(?:do not|don'?t)\s[^()]*\x00\d+\x00[^()]*|"
                     # "pnpm (mandatory - do not use npm or yarn)": a ban after a word on what is required
                     r"(?:required|mandatory|enforced)\s*[-\u2014:]\s*(?:do not|don'?t|never)\s+use\s[^()]+)\)", re.I)
_ALWAYS_QUOTED = lazy(r"(\s(?:\u2014|--?|;)\s*|,\s*)always\s+(?=\x00)", re.I)
_ASIDE = lazy(r"\s*\(([^()]*)\)")  # findall: what it says; sub: the aside gone
_ASIDE_AT_END = lazy(r"\s*\([^()]*\)(?=[.!?;,:]\s*$)")


def clauses(text: str, typed: bool = False) -> list[list[Clause]]:
    """Per sentence, its clauses in order (the whole sentence first when it has more than one
    clause, as a reading of its own); ``typed``: ``typed_cues`` has read ``text`` already."""
    protected, spans = _protect(as_quoted(clean_line(text, typed)))
    protected = _DIRECT.sub(r"\1 to the protected branches", _BOLD.sub("", protected))
    # "a Co-authored-by: trailer": the colon belongs to the trailer's name, it breaks no clause
    protected = _TRAILER_COLON.sub(r"\1", protected)
    protected = _CAUSE.sub(lambda m: m.group(0) if _NOT_CAUSE.search(m.string[:m.start()]) else "because ", protected)
    # not a sentence's end; "etc." before a capital word is one ("… pyright etc. This is because …")
    protected = without_purpose(_ABBREVIATION.sub(r"\1", protected))
    out = []
    for sentence in _SENTENCE_SPLIT.split(protected):
        sentence = sentence.strip()
        if not sentence:
            continue
        # "use pnpm (not npm)" is "use pnpm, not npm", not an aside
        sentence = _NOT_ASIDE.sub(r", \1", sentence)
        like = _THE_LIKE.search(sentence)
        if like and not (_EXCEPTION.search(like.group(0)) or _HEDGE.search(like.group(0))):
            sentence = sentence[:like.start()] + sentence[like.end():]
        # "destructive SQL (DROP, TRUNCATE, DELETE without WHERE)": the statements named
        sentence = _SQL_ASIDE.sub(r" such as \1", sentence)
        # "(npm and yarn are not allowed)" · "(do not run `bun …`)": a prohibition in parentheses is a clause
        sentence = _BANNED_ASIDE.sub(r"; \1", sentence)
        # "never run `pytest` — always `uv run pytest`": the alternative, not another item of a list
        sentence = _ALWAYS_QUOTED.sub(r"\1use ", sentence) if "\x00" in sentence else sentence
        sentence = _RUNNING_WITH.sub(lambda m: _running_with(m, spans), sentence)
        sentence = said_as_run(sentence, spans)
        sentence = _NOUN_COLON.sub(r"\1 such as ", _NEVER_COLON.sub(r"\1 run ", _VERB_COLON.sub(r"\1 ", _USE_COLON.sub(r"\1 ", sentence))))
        sentence = _BANNED_COLON.sub(lambda m: "avoid " if m.group("ing") else "never use ", sentence)
        # "generated files (`src/gen/**`)": the quoted names are the examples;
        # "the dev server (`npm run dev`)": the command it is run with
        sentence = _NAMED.sub(lambda m: _named(m, spans), sentence)
        # "never `--no-verify`": a flag said with no verb is a flag used
        sentence = _BARE_FLAG.sub(lambda m: m.group(1) + (" use " if spans[int(m.group(2))].startswith("`-") else " "), sentence)
        sentence = without_activity(_NOTABLY.sub(" such as ", sentence))  # "… notably `a` and `b/`": the examples
        asides = []
        for aside in _ASIDE.findall(sentence):  # "(auto-generated, don't edit)": its parts too
            parts = [p for part in _CLAUSE_SPLIT.split(aside) for p in REASON_SPLIT.split(part) if p]
            asides.extend([aside] + (parts if len(parts) > 1 else []))
        main = _ASIDE.sub(" ", _ASIDE_AT_END.sub("", sentence))  # "skip hooks (`--no-verify`)." is no "hooks ."
        pieces, plain = [], {}  # plain: a joined reading without the reasons in it, where its hedge is looked for
        parts = _CLAUSE_SPLIT.split(main)
        splits = [REASON_SPLIT.split(part) for part in parts]  # joined with ", ": its sub(", ", part)
        for sub in splits:
            if len(sub) > 1 and len(parts) > 1:  # the part as a whole is a reading too ("use pnpm, never npm, yarn or bun")
                pieces.append(", ".join(sub))
                plain[len(pieces) - 1] = _tidy(_unhedged(sub))
            pieces.extend(sub)
        found = []
        # the whole sentence is a reading, its breaks and reasons' heads read as commas; a part after a
        # break that says no rule word or is a reason ("; git push --force loses work") is not in it
        kept = [p for i, p in enumerate(parts) if i == 0 or _RULE_WORD.search(_PLACEHOLDER.sub(" ", p))
                and not REASON_HEAD.match(_PLACEHOLDER.sub(" ", p).strip())]
        whole = len(pieces) > 1 and _tidy(", ".join(splits[0]) if len(kept) == 1 else
                                          REASON_SPLIT.sub(", ", ", ".join(kept)))
        if whole:  # "never touch `x`, it might break CI": a hedge in the reason is none of the rule's
            found.append(_clause(whole, spans, whole=True, plain=_tidy(_unhedged(splits[0])) if len(kept) == 1 else None))
        for i, piece in enumerate(pieces + asides):
            if tidy := _tidy(piece):  # tidied once: the same text, read once
                found.append(_clause(tidy, spans, aside=i >= len(pieces), first=i == 0, plain=plain.get(i)))
        if found:
            out.append(found)
    return out


# "in production, never run npm" · "in CI never …": a place that is no folder is a condition the matcher cannot see
_CONDITION_PLACE = lazy(r"\s*(?:in|on|during|for|inside|within|outside(?:\s+of)?)\s+(?:the\s+|a\s+|our\s+)?(?:prod(?:uction)?|staging|"
                        r"(?:code\s+)?freezes?|release days?|weekends?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
                        r"ci|live|release builds?|"
                        r"deploys?|deployments?|servers?|remote (?:hosts?|machines?)|windows|macos|mac|linux|wsl|"
                        r"containers?|docker|hotfix(?:es)?|emergenc(?:y|ies))\b(?![/.])", re.I)


# "— if you do, the build breaks" · "; whenever we did that, CI broke": the forbidden act itself, then its harm
_DID_IT = lazy(r"\s*(?:(?:if|when|whenever|every\s+time|each\s+time|any\s+time)\s+(?:you|we|they|someone|somebody|anyone|"
               r"anybody|people|agents?|an\s+agent)\s+(?:do|does|did|run|runs|ran|try|tries|tried|use|uses|used)"
               r"(?:\s+(?:it|that|this|so|them))?(?:\s+anyway)?|(?:if|when|whenever)\s+(?:that|this|it)\s+happens)"
               r"(?:\s*,?\s+(?P<then>\S.*)|\s*$)", re.I)  # no "then": its harm is the next piece ("if you do, the …")


# "Outside `src/`, never …": the rule holds out of a place only; the matcher has no "not under"
_OUTSIDE = lazy(r"\s*outside(?:\s+of)?\s+\S", re.I)


def _unhedged(sub: list) -> str:  # a reading's pieces but its reasons (a harm that may follow too)
    return ", ".join(p for j, p in enumerate(sub) if j == 0 or LETS_IT.search(p) or not (reason_head(
        _PLACEHOLDER.sub(" ", p).strip()) or _MAY_HARM.match(p.strip()) and _HARM.search(p)))


def _clause(protected: str, spans: list, *, whole: bool = False, aside: bool = False,
            first: bool = False, plain: str | None = None) -> Clause:
    bare = _PLACEHOLDER.sub(" ", protected)
    said = _PLACEHOLDER.sub(" ", plain) if plain is not None else bare  # what the hedge is looked for in
    reason = not whole and (aside or not first and reason_head(bare))
    head = bare.lstrip()
    placed = bool(_CONDITION_PLACE.match(bare) or _OUTSIDE.match(bare))
    head_hedge = placed or bool(_EXCEPTION.match(head) or _HEDGE.match(head))
    if head_hedge and not (whole or first) and _MAY_HARM.match(bare) and _HARM.search(bare) and not _LETS.search(bare):
        reason, head_hedge = True, False
    did = _DID_IT.match(bare) if head_hedge and not (whole or first) else None
    if did and (did.group("then") is None or _HARM.search(did.group("then")) and not _LETS.search(did.group("then"))):
        reason, head_hedge = True, False  # "…, if you do the build breaks": what doing it causes
    return Clause(_restore(protected, spans), reason, head_hedge,
                  placed or bool(_HEDGE.search(said) or _NOT_A_BAN.search(bare)),
                  bool(_EXCEPTION.search(_CAUSAL_SPAN.sub(" ", _ONLY_FOR.sub(" ", bare)))), aside)


# "If you need it tested, tell me to check it": the user is told, the act stays forbidden
_INFORM = lazy(r"if\b[^,]{1,120},\s*(?:please\s+)?(?:tell|let|notify|inform|ping)\s+(?:me|us|the user|a human|"
                     r"a maintainer|the maintainers)\b(?!.*\b(?:first|before|then)\b).*", re.I)


def veto(sentences: list[list[Clause]], rule: Clause, specs: tuple = ()) -> Clause | None:
    """The clause whose exception or hedge makes the rule uncheckable, or None. A condition in a
    later sentence with a rule of its own belongs to that rule unless it permits something or names
    what ``specs`` stop; one before the rule sets its scene and vetoes (docs/guards.md)."""
    if rule.hedged or rule.exception:
        return rule
    own = next((i for i, found in enumerate(sentences) if rule in found), -1)
    for i, found in enumerate(sentences):
        if i > own >= 0 and (_own_rule(found[0], specs) or _explains(found[0])):
            continue  # found[0]: the whole sentence; a condition before the rule sets its scene …
        if i < own and _orders(found[0], specs):
            continue  # … unless it orders an act of its own ("After editing X, run `gen`. Never edit Y")
        orders = [d.text for d in found if i == own and rule.text not in d.text and _orders(d, specs)]
        # "never `git add -f` them — if it is in `.gitignore`, it's intentional": after the rule, what is so
        told = [d.text for d in found[found.index(rule) + 1:] if i == own and _explains(d)] if rule in found else []
        for c in found:
            if c is rule or c.text == rule.text or i != own and _INFORM.fullmatch(c.text) or any(c.text in d for d in told):
                continue
            if any(c.text in d or d in c.text for d in orders):
                continue  # "After X, run `gen`; never edit `y`": the condition is the order's
            if c.exception or c.head_hedge:
                return c
            if i == own and c.hedged and not c.reason and _ORDER_PIECE.match(c.text):
                return c  # "never amend commits, just make a new one if you can": the hedge was the rule's
    return None


# a piece split off a rule clause at an order of its own (``REASON_SPLIT``): a hedge in it stays the rule's
_ORDER_PIECE = lazy(r"(?:just|simply|let|leave|rebase|squash|merge|commit|push|open|create|write)\b|[\w.-]+\s+do\b",
                    re.I)


# a permission: what the rule forbids is allowed after all (also once asked: "ask me first")
_PERMIT = lazy(r"(?<!nobody )(?<!no one )(?<!noone )\b(?:may|can(?!'?t\b|not\b)|could|ok|okay|fine|allowed|acceptable|permitted|go ahead|feel free|alright|then|"
               r"first|before|ask|check with)\b", re.I)
# a time limit or an exception leading a sentence reaches back to the rule before it
_REACHES_BACK = lazy(r"\b(?:for now|for the moment|temporarily|until)\b|^\W*(?:unless|except|excepting|excluding|"
                     r"exceptions?|only)\b|"
                     # "The only exception is hotfixes." · "Hotfixes are the exception." · "Exception: hotfixes"
                     r"\b(?:the|one|an)\s+(?:only\s+)?exceptions?\s+(?:is|are|being)\b|\bexceptions?\s*:|"
                     r"\b(?:is|are)\s+(?:the|an)\s+(?:only\s+)?exceptions?\b", re.I)
# a negated part says what not to do: it adds to the rule, never takes from it
_NEGATED = lazy(r"\b(?:not|never|no|don'?t|do not|rather than|instead of|without)\b[^,;]*", re.I)
_TERM = lazy(r"[a-z0-9]{2,}", re.I)
# "If you need to, run it": a word that points back at what the rule forbids
_BACK = lazy(r"\b(?:it|them|that|this|do so|one)\b", re.I)
_NOT_TERMS = frozenset(("no", "not", "the", "to", "in", "of", "on", "an", "and", "or", "any", "all", "it", "is"))
# the verbs of each kind of guard, besides the names it holds
_KIND_VERBS = {"path": ("edit", "modify", "change", "write", "touch", "update", "overwrite", "alter"),
               "path_remove": ("delete", "remove", "rename", "move"), "git_push": ("push",),
               "git_commit": ("commit",), "git_commit_path": ("commit", "add", "stage"), "git_rebase": ("rebase",),
               "git_branch_name": ("branch", "name", "checkout", "switch", "create"),
               "option_value": ("add", "label", "trailer"),
               "sql": ("drop", "truncate", "delete"), "pipe": ("pipe",)}


def _stem(word: str) -> str:
    w = word.lower()
    for end in ("ing", "ed", "es", "s"):
        if w.endswith(end) and len(w) - len(end) >= 3:
            w = w[: -len(end)]
            break
    return w[:5]


def _terms(specs: tuple, verbs: bool = True) -> frozenset:
    """The words of what ``specs`` stop: programs, subcommands, flags, paths,
    branches, remotes, and the verbs of their kind."""
    out = set()
    for spec in specs:
        match = spec.match
        for value in match.to_dict().values():
            for item in value if isinstance(value, list) else ():
                out.update(_stem(w) for w in _TERM.findall(item) if w.lower() not in _NOT_TERMS)
        out.update(_stem(v) for v in (_KIND_VERBS.get(match.kind, ()) if verbs else ()))
    return frozenset(out)


# the order a condition's consequent gives: "After editing `x.md`, run `gh aw compile`"
_ORDERS = lazy(r"(?:(?:always|also|then|please)\s+)?(?:run|re-?run|execute|regenerate|rebuild|update|invoke|call|"
               r"verify|make sure|ensure)\b", re.I)
# a consequent that lets something through, or says what to do instead
_LEAVES = lazy(r"\b(?:may|can|could|ok|okay|fine|allowed|acceptable|permitted|go ahead|feel free|alright|ask|"
               r"check with|skip|instead|no need|not needed|unnecessary)\b", re.I)
_STEP = lazy(r"\b(?:first|then|afterwards?|after that|beforehand)\b", re.I)


def _orders(c: Clause, specs: tuple) -> bool:
    """Whether a sentence is a conditional order of its own ("When modifying `x/`, run `make`"),
    not a step before the forbidden act ("… first") nor naming what ``specs`` stop."""
    if not c.head_hedge or c.exception or c.reason:
        return False
    rest = re.sub(r"`[^`]*`", " ", c.text.partition(",")[2]).strip(" ,")
    if not rest or not _ORDERS.match(rest) or _LEAVES.search(rest) or _STEP.search(rest):
        return False
    return not {_stem(w) for w in _TERM.findall(rest)} & _terms(specs, verbs=False)


# "When `tsc` receives file arguments, it ignores `tsconfig.json`": a later sentence that explains
# "If a hook blocks your commit, it caught a real issue" · "if it is in `.gitignore`, it's intentional": said in the past too
_EXPLAINS = lazy(r"(?:it|they|this|that|these|those|the (?:build|result|output|compiler|tool))(?:\s+|(?='))(?!(?:is|are|'s|'re)\s+"
                 r"(?:ok|okay|fine|allowed|acceptable))(?:[a-z]+(?:s|ed)|caught|found|broke|hit|meant|saw|got|'s|'re)\b|(?:nobody|no one|everyone|everything|nothing|we|you)\s+"
                 r"(?:can(?:not|'t)?|could|will|won't|lose|[a-z]+s)\b", re.I)  # "When it breaks, nobody can release"


_ASKS = lazy(r"\b(?:approv\w*|permission|consent|confirm\w*|sign[- ]?off|needs?|requires?|allows?|permits?|works?)\b",
             re.I)


def _explains(c: Clause) -> bool:
    """Whether a conditional sentence after the rule only says what happens
    (its consequent a statement: "it ignores …"), permitting nothing."""
    if not c.head_hedge or c.exception or _REACHES_BACK.search(_PLACEHOLDER.sub(" ", c.text)):
        return False
    rest = c.text.partition(",")[2].strip(" ,")
    return bool(rest) and bool(_EXPLAINS.match(rest)) and not _PERMIT.search(rest) and not _ASKS.search(rest)


_SPAN = lazy(r"`([^`\n]+)`")


_ACT_BEFORE = lazy(r"\b(?:(?:ask|check with \w+)\s+(?:\w+\s+)?)?before\s+([a-z]+ing)\b", re.I)


def _own_rule(c: Clause, specs: tuple) -> bool:
    """Whether a conditional clause of another sentence states a rule of its own: a consequent
    that neither permits anything nor names (outside a negation) what ``specs`` stop (their flags,
    when they all have some: "Never amend commits. If a fix is needed, create a new commit")."""
    flagged = all(getattr(s.match, "flags", ()) for s in specs)
    terms = (frozenset(_stem(w) for s in specs for f in s.match.flags for w in _TERM.findall(f))
             if specs and flagged else frozenset()) or _terms(specs)  # "-fd": too short to tell, all of it
    text = c.text
    if not terms or not (c.exception or c.head_hedge) or _REACHES_BACK.search(_PLACEHOLDER.sub(" ", text)):
        return False
    if c.head_hedge:
        rest = text.partition(",")[2]
    else:
        m = _EXCEPTION.search(text)
        rest = text[: m.start()] if m else ""
    rest = without_harm(CONSEQUENT_REASON.sub("", rest).strip(" ,"))  # "…, create a new commit, because it breaks CI"
    # "Run tests before pushing" · "Ask before merging": before an act the rule does not name, no permission of it
    acted = _ACT_BEFORE.sub(lambda m: m[0] if _stem(m[1]) in terms else " ", rest) if "before" in rest.lower() else rest
    if not rest or _PERMIT.search(acted) or _BACK.search(acted):
        return False
    rest = acted
    if all(getattr(s.match, "programs", None) for s in specs):  # "… clean up with `git clean -fd src/`": the
        ours = {p for s in specs for p in s.match.programs}  # words of another program's command are its own
        rest = _SPAN.sub(lambda m: m[0] if ours & set(m[1].lower().split()) or (m[1].split() or [""])[0].lower()
                         not in _KNOWN_PROGRAMS else " ", rest)
    return not {_stem(w) for w in _TERM.findall(_NEGATED.sub(" ", rest))} & terms


# long alternations of words, searched in every clause: first the words alone (same answers)
gate(_NOISE, _HERE, _NEVER_SAID, _HEDGE, _EXCEPTION, _NOT_A_BAN, _CAUSAL_SPAN, _DO_A, _ABBREVIATION,
     _NOT_ASIDE, _SQL_ASIDE, _BANNED_ASIDE, _NOUN_COLON, _ASIDE, _BOLD, _TRAILER_COLON, _CAUSE,
     _ACTION_WHEN, _EXCLUSIVELY, _VERB_COLON, _NEVER_COLON, _DIRECT, _SPOKEN_NEVER, _ONLY_FOR, _AVOID,
     _BARE_FLAG, _LEAD_IN, _USE_COLON, _SO_RULE, _REF_BRACKETS, _RUNNING_WITH, _BANNED_COLON)

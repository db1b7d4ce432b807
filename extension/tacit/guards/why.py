"""Why a lesson is, or is not, a guard (``explain``, for ``tacit guard why TEXT``: its rule clause
and what it stops, or the first reason it stays a memory), and whether a proposed guard is
grounded in what the user said (``ungrounded``: a child may phrase, it may not invent).
"""

from __future__ import annotations

import re

from tacit.guards import derive as _derive
from tacit.guards.clauses import _EXCEPTION, _HEDGE, _PLACEHOLDER, _protect, veto
from tacit.guards.model import (CommandMatch, CommitMatch, CommitPathMatch, GuardSpec, PathMatch, PipeMatch, PushMatch,
                                OptionMatch, RebaseMatch, RemoveMatch, SqlMatch, SudoMatch,
                                BranchNameMatch)


def explain(text) -> dict:
    """``{"guard": bool, "rules": [{"clause", "kind", "match"}], "why": str}``."""
    if not isinstance(text, str) or not text.strip():
        return {"guard": False, "rules": [], "why": "no text"}
    if len(text) > _derive.MAX_LESSON_CHARS:
        return {"guard": False, "rules": [], "why": f"longer than {_derive.MAX_LESSON_CHARS} characters"}
    specs = _derive.derive_guards(text)
    prepared = _derive._prepare(text)
    sentences = prepared[1] if prepared else ()
    clauses = [c for found in sentences for c in found]
    read = [(c, _derive._sentence_spec(_derive._rule_text(c.text), "")) for c in clauses if not c.reason]
    if specs:
        rules = []
        for clause, spec in read:
            if spec is not None and any(s.match == spec.match for s in specs) and \
                    all(r["match"] != spec.match.to_dict() for r in rules):
                rules.append({"clause": clause.text, "kind": spec.kind, "match": spec.match.to_dict()})
        if not rules:  # read by a reading of its own (a list, a place, a wrapper …): the first rule clause
            first = next((c.text for c, _ in read), text)
            rules = [{"clause": first, "kind": s.kind, "match": s.match.to_dict()} for s in specs]
        rest = " The rest is its reason, not part of the match." if len(rules) == 1 and any(
            len(f) > 1 for f in sentences) else ""
        return {"guard": True, "rules": rules,
                "why": f"the rule is \"{rules[0]['clause']}\"{'' if len(rules) == 1 else ' (and more)'}.{rest}"}
    if prepared is None:
        return {"guard": False, "rules": [],
                "why": "it states nothing to stop: no never, don't, not, instead, rather or banned"}
    for clause, spec in read:
        blocker = veto(sentences, clause, (spec,)) if spec is not None else None
        if blocker is not None:
            return {"guard": False, "rules": [], "why": f"\"{clause.text}\" would be a rule, but "
                    f"{_veto_word(blocker)}: it has exceptions a check cannot see"}
    for clause in clauses:
        bare = _PLACEHOLDER.sub(" ", _protect(clause.text)[0])
        m = _EXCEPTION.search(bare) or (not clause.reason and _HEDGE.search(bare))
        if m:
            return {"guard": False, "rules": [], "why": f"\"{m.group(0)}\" in \"{clause.text}\": a rule with "
                    "exceptions or hedges is not checked (a check cannot see them)"}
    plain = [c.text for c, _ in read]
    return {"guard": False, "rules": [], "why": "no clause names an exact thing to stop (a known program or a "
            "command in backticks, a path, a branch or remote, a tool of the same kind as the one to use): "
            + "; ".join(f"\"{p}\"" for p in plain[:3])}


def _veto_word(blocker) -> str:
    """The exception or hedge word of the clause that vetoes, where it stands."""
    bare = _PLACEHOLDER.sub(" ", _protect(blocker.text)[0])
    m = _EXCEPTION.search(bare) or _HEDGE.search(bare)
    return f"\"{m.group(0)}\" in \"{blocker.text}\"" if m else "a hedge"


# the words of each kind of guard that what the user said must hold
_WORDS = {CommandMatch: lambda m: [*m.programs, *m.subcommands, *m.flags, *m.under, *m.on, *m.not_via],
          PushMatch: lambda m: ["push", *m.branches, *m.remotes] + (["force"] if m.force_only else []),
          PathMatch: lambda m: list(m.patterns), RemoveMatch: lambda m: list(m.patterns),
          CommitPathMatch: lambda m: list(m.patterns), PipeMatch: lambda m: ["|"],
          SqlMatch: lambda m: [w for s in m.statements for w in s.split("_") if w not in ("without",)],
          RebaseMatch: lambda m: ["rebase", *m.branches], OptionMatch: lambda m: list(m.values),
          CommitMatch: lambda m: ["commit", *m.branches], SudoMatch: lambda m: ["sudo"],
          BranchNameMatch: lambda m: ["branch", *(p.split("*")[0] for p in m.allowed)]}


def ungrounded(spec: GuardSpec, *texts: str) -> list[str]:
    """The words of ``spec`` found in none of ``texts`` (case-insensitive)."""
    said = " ".join(t for t in texts if isinstance(t, str)).lower()
    tokens = set(re.findall(r"[\w.@/*+:-]+", said))
    clusters = [t for t in tokens if re.fullmatch(r"-[a-z]{2,4}", t)]
    missing = []
    for word in _WORDS[type(spec.match)](spec.match):
        w = word.lower()
        parts = w.split("=", 1) if w.startswith("-") and "=" in w and w not in tokens else [w]  # `-f=ci.yml`: "-f ci.yml"
        if not all(_said(part, said, tokens, clusters) for part in parts):
            missing.append(word)
    return missing


def _said(w: str, said: str, tokens: set, clusters: list) -> bool:
    """Whether the word ``w`` of a guard is in ``said``: as a token, a cluster's letter or bounded text."""
    if w in tokens or w.rstrip("/") in {t.rstrip("/") for t in tokens}:
        return True
    if w == "|" and "|" in said or w == "force" and "force" in said:
        return True
    if re.fullmatch(r"-[a-z]", w) and any(w[1] in c for c in clusters):
        return True  # -r of "-rf"
    edge = r"[\w-]" if w.startswith("-") else r"\w"
    return bool(re.search(rf"(?<!{edge})" + re.escape(w) + rf"(?!{edge})", said))

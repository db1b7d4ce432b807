"""Probe: does a rule typed another way derive what the bare rule does?

For each *tune*-split ``bare`` lesson of guard_lessons_real.jsonl that derives,
rewrite it by fixed templates of how people type rules to an agent (other
negations and verbs, reasons in other places, typed cue words, markdown,
punctuation) and report per template: the share that derives (vs the bare
form), violations stopped and fine calls stopped (the row's labelled calls,
each lesson alone in its project, as guards.py's lessons section). Exception
templates must veto; permission and hedge templates must derive nothing.
Check-split rows are never read. Run:

    python tests/benchmarks/guard_phrasings.py [--misses]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
from collections import Counter
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("guards_bench", Path(__file__).with_name("guards.py"))
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)
Guard, GuardSet, derive_guards = bench.Guard, bench.GuardSet, bench.derive_guards

# {x}: the act ("run pnpm test"); {g}: its gerund ("running pnpm test"); {q}: the act with its
# object in backticks; {r}: the whole bare rule. Only rules typed "never/don't/do not X" have {x}.
NEGATIONS = {
    "stop": "stop {g}",
    "no more": "no more {g}",
    "quit": "quit {g}",
    "is banned": "{g} is banned",
    "is off-limits": "{g} is off-limits",
    "not allowed here": "{g} is not allowed here",
    "we don't": "we don't {x} here",
    "don't ever": "don't ever {x}",
    "I don't want you to": "I don't want you to {x}",
    "you shouldn't": "you shouldn't {x}",
    "you must not": "you must not {x}",
    "make sure you never": "make sure you never {x}",
    "avoid": "avoid {g}",
    "X? no.": "{g}? no.",
    "reason first so": "{g} breaks the lockfile, so never {x}",
    "dont": "dont {x}",
    "nver": "nver {x}",
    "NEVER": "NEVER {x}",
    "Never X.": "Never {x}.",
    "inline code": "never {q}",
    "bold inline code": "**Never {q}.**",
    "never ever": "never ever {x}",
    "do NOT": "do NOT {x}",
    "you are not allowed to": "you are not allowed to {x}",
    "you're not allowed to": "you're not allowed to {x}",
    "you can't": "you can't {x}",
    "you cannot": "you cannot {x}",
    "you may not": "you may not {x}",
    "don't you dare": "don't you dare {x}",
    "under no circumstances": "under no circumstances {x}",
    "I never want you to": "I never want you to {x}",
    "never, ever": "never, ever {x}",
    "is forbidden": "{g} is forbidden",
    "is prohibited": "{g} is prohibited",
    "isn't allowed": "{g} isn't allowed",
    "is not ok": "{g} is not ok",
    "is a no-go": "{g} is a no-go",
    "no X please": "no {g} please",
    "hard no": "hard no on {g}",
    "anymore": "don't {x} anymore",
    "again": "never {x} again",
    "told you": "I told you not to {x}",
    "how many times": "how many times, don't {x}",
    "again, don't": "again, don't {x}",
    "ugh": "ugh, don't {x}",
    "no no no": "no no no, don't {x}",
    "remember: never": "remember: never {x}",
    "remember to never": "remember to never {x}",
    "remember not to": "remember not to {x}",
    "X. don't.": "{g} breaks the lockfile. don't.",
    "X = never": "{g} = never",
    "since first": "since {g} breaks the lockfile, never {x}",
    "sentence reason lower": "never {x}. it breaks the lockfile",
    "; verbless reason": "never {x}; breaks the lockfile",
    ", noun reason": "never {x}, lockfile gets corrupted",
    "because of": "never {x} because of lockfile drift",
    "coz": "never {x} coz it breaks the lockfile",
    "could you please not": "could you please not {x}",
    "would you stop": "would you please stop {g}",
    "can you stop": "can you stop {g}",
    "please stop": "please stop {g}",
    "please, never": "please, never {x}",
    "plz dont": "plz dont {x}",
    "thanks": "never {x} thanks",
    "pray": "never {x} \U0001f64f",
    "quote": "> never {x}",
    "numbered": "1. never {x}",
    "checkbox": "- [ ] never {x}",
    "heading": "## never {x}",
    "italic never": "_never_ {x}",
    "star never": "*never* {x}",
    "bold never": "- **Never** {x}",
    "bold do not": "**Do not** {x}",
    "NEVER EVER": "NEVER EVER {x}",
    "ever.": "never {x}. ever.",
    "!!!": "never {x}!!!",
}
GENERAL = {
    "paren reason": "{r} (it breaks the lockfile)",
    "Reason:": "{r}. Reason: it breaks the lockfile",
    "arrow": "{r} -> breaks the lockfile",
    "b/c": "{r} b/c it breaks the lockfile",
    "bc": "{r} bc it breaks the lockfile",
    "cuz": "{r} cuz it breaks the lockfile",
    "as discussed": "{r}, as discussed",
    "!!": "{r}!!",
    "period": "{r}.",
    "upper first": "{R}",
    "bullet": "- {r}",
    "bold": "**{r}**",
    "star bullet bold": "* **{R}.**",
    "subject then verb": "{r}, pnpm then ignores the lockfile",
    "subject still verb": "{r}, CI still skips the cache",
    "!!! reason": "{r}!!! it breaks the lockfile",
    "(seriously)": "{r} (seriously)",
    "- thanks": "{r} - thanks",
    "pls end": "{r} pls",
    ", pls": "{r}, pls",
    "ty": "{r} ty",
    "sad smiley": "{r} :(",
    "fyi end": "{r} fyi",
    "FYI:": "FYI: {r}",
    "btw": "btw {r}",
    "btw,": "btw, {r}",
    "also,": "also, {r}",
    "and": "and {r}",
    "oh and": "oh and {r}",
    "one more thing:": "one more thing: {r}",
    "note to self:": "note to self: {r}",
    "just": "just {r}",
    ", period": "{r}, period",
    "— no exceptions": "{r} — no exceptions",
    "I mean it": "{r}, I mean it",
    "(I mean it)": "{r} (I mean it)",
    "got it?": "{r}, got it?",
    "understood?": "{r}. understood?",
    ". Ever.": "{R}. Ever.",
    "like ever": "{r}, like ever",
    "because noun": "{r} because lockfile",
    "see slack": "{r}, see slack",
    "burned": "{r} — we've been burned before",
    "; been burned": "{r}; been burned",
    "flaky af": "{r}, it's flaky af",
    "goes out of sync": "{r}, the lockfile goes out of sync",
    "bc of": "{r}, bc of the lockfile",
    "- reason:": "{r} - reason: lockfile",
    "why? it": "{r}; why? it breaks the lockfile",
    ". why? noun.": "{R}. why? lockfile.",
    "pipe reason": "{r} | breaks the lockfile",
    "slash reason": "{r} / breaks the lockfile",
    "again, reason": "{r} again, it breaks the lockfile",
    "please please": "please, please {r}",
    "pretty please": "pretty please {r}",
    "thank you!": "{r}, thank you!",
    "smile": "{r} \U0001f642",
    "(!!)": "{r} (!!)",
    "CAPS": "{RR}",
    "CAPS!!!": "{RR}!!!",
    "IMPORTANT caps": "IMPORTANT: {RR}.",
    "one more time": "one more time: {r}",
    "for the last time": "for the last time, {r}",
    "how many times": "how many times do I have to say it: {r}",
    "as I said": "as I said, {r}",
    "like I said": "like I said, {r}",
    "again,": "again, {r}",
    "ok so": "ok so {r}",
    "hey": "hey, {r}",
    "dude": "dude, {r}",
    "ffs": "ffs {r}",
    "wtf": "wtf, {r}",
    "no!": "no! {r}",
    "what did I say": "what did I say? {r}",
    "quoted rule": "\"{r}\"",
    "trailing ok": "{r}. ok?",
    "sentence thanks": "{R}. Thanks!",
    "and reason": "{r} and it breaks the lockfile",
    "with reason": "{r} — the lockfile breaks every time",
    "newline reason": "{r}\nit breaks the lockfile",
    "it might": "{r}, it might corrupt the lockfile",
    ", might": "{r}, might corrupt the lockfile",
    "— could": "{r} — could break CI",
    "; may": "{r}; may wipe the lockfile",
    "(may)": "{r} (may wipe the lockfile)",
    ", sometimes": "{r}, sometimes it breaks CI",
    ", often": "{r}, often breaks CI",
    "because might": "{r} because it might break CI",
    ", probably": "{r}, probably breaks CI",
    "can break": "{r}, it can break CI",
    ", can": "{r}, can break CI",
    "tends to": "{r} - tends to break CI",
    "usually reason": "{r}; it usually breaks CI",
    "sentence might": "{R}. It might break CI.",
    "sentence usually": "{R}. Usually breaks CI.",
    "run instead": "{r}; run `make check` instead",
    "use instead": "{r} — use the make target instead",
    "reading is fine": "{r}; reading it is fine",
    "ask first sentence": "{R}. Ask me first.",
    "tell me": "{r}, tell me instead",
    "open an issue": "{r}. Open an issue instead.",
    "let me do it": "{r}, let me do it",
    "I'll do it": "{r}, I'll do it myself",
}
# an exception must still veto (nothing derived)
EXCEPTIONS = {
    "unless I say so": "{r} unless I say so",
    "for now": "{r} for now",
    "except in CI": "{r} except in CI",
    "without asking me first": "{r} without asking me first",
    "unless told": "{r} unless told",
    "except when releasing": "{r} except when releasing",
    "for the time being": "{r} for the time being",
    "till the release": "{r} till the release",
    "until I say so": "{r} until I say so",
    "w/o asking": "{r} w/o asking",
    "without my ok": "{r} without my ok",
    "before asking": "{r} before asking",
    "if CI is red": "{r} if CI is red",
    "unless, reason": "{r} unless it's a hotfix, it breaks the lockfile",
    "sentence: unless": "{R}. Unless it's a hotfix.",
    "only if": "{r}, only if I ask",
    "at least not": "{r}, at least not yet",
    "not yet": "{r} yet",
    "today": "{r} today",
    "this time": "{r} this time",
    "in this PR": "{r} in this PR",
    "right now": "{r} right now",
}
# a permission or a hedge is no rule (nothing derived)
NOT_RULES = {
    "don't forget to": "don't forget to {x}",
    "don't hesitate to": "don't hesitate to {x}",
    "you don't have to": "you don't have to {x}",
    "you don't need to": "you don't need to {x}",
    "no need to": "no need to {x}",
    "try not to": "try not to {x}",
    "maybe don't": "maybe don't {x}",
    "feel free to": "feel free to {x}",
    "it's ok to": "it's ok to {x}",
    "never forget to": "never forget to {x}",
    "don't be afraid to": "don't be afraid to {x}",
    "not always": "you don't always need to {x}",
    "you can": "you can {x}",
    "never say no to": "never be shy to {x}",
    "don't worry about": "don't worry, {x} is fine",
    "no rule against": "there's no rule against {g}",
    "not required": "{g} is not required",
    "nothing wrong": "nothing wrong with {g}",
    "no longer banned": "{g} is no longer banned",
    "don't need permission": "you don't need permission to {x}",
}

_CUE = re.compile(r"^(?:never|don't|do not)\s+(?P<x>.+)$", re.I)
_DOUBLE = re.compile(r"(?:[^aeiou]|^)[aeiou][bdgmnprt]$")


def gerund(act: str) -> str:
    verb, _, rest = act.partition(" ")
    if verb.lower().endswith("ly") and rest:  # "manually edit x": the adverb stays first
        return f"{verb} {gerund(rest)}"
    low = verb.lower().rpartition("-")[2]
    if low.endswith("e") and not low.endswith(("ee", "ye")):
        ing = verb[:-1] + "ing"
    elif _DOUBLE.search(low) and low not in ("open", "edit", "visit", "limit"):
        ing = verb + verb[-1] + "ing"
    else:
        ing = verb + "ing"
    return f"{ing} {rest}".strip()


def quoted(act: str) -> str:
    """The act with its object in backticks: "run `pnpm test`", "touch `a/b.md`"."""
    verb, _, rest = act.partition(" ")
    if verb.lower() in ("run", "use") and rest and not re.search(r",|\b(?:or|and|with|when|directly|on|in)\b", rest):
        return f"{verb} `{rest}`"
    return " ".join(f"`{w.rstrip(',')}`" + ("," if w.endswith(",") else "") if re.search(r"[/.*]", w) and len(w) > 1
                    else w for w in act.split())


def variants(row: dict) -> dict:
    """{(group, template name): text} for one bare row."""
    rule = row["text"].rstrip(". ")
    fields = {"r": rule, "R": rule[:1].upper() + rule[1:], "RR": " ".join(w.upper() if i < 2 else w for i, w in enumerate(rule.split()))}
    m = _CUE.match(rule)
    groups = [("general", GENERAL), ("exception", EXCEPTIONS)]
    if m:
        x = m.group("x")
        fields.update(x=x, g=gerund(x), q=quoted(x))
        groups = [("negation", NEGATIONS)] + groups + [("not a rule", NOT_RULES)]
    return {(group, name): t.format(**fields) for group, forms in groups for name, t in forms.items()}


def stops(specs, row: dict) -> tuple[int, int, int, int]:
    """(violations stopped, violations, fine stopped, fine) for one lesson alone."""
    gs = GuardSet([Guard(s, row["id"], "project", bench.REAL_ROOT, "lesson") for s in specs])
    sets = {row["id"]: gs}
    v = sum(bool(bench.stopped(sets, row["id"], e)) for e in row["violations"])
    f = sum(bool(bench.stopped(sets, row["id"], e)) for e in row["fine"])
    return v, len(row["violations"]), f, len(row["fine"])


def probe(rows: list[dict]) -> tuple[dict, dict]:
    table: dict = {}
    misses: dict = {}
    for row in rows:
        base = derive_guards(row["text"])
        if not base:
            continue
        for key, text in variants(row).items():
            specs = derive_guards(text)
            c = table.setdefault(key, Counter())
            c["n"] += 1
            c["derived"] += bool(specs)
            c["same"] += {repr(s.match) for s in specs} == {repr(s.match) for s in base}
            v, vn, f, fn = stops(specs, row)
            c["viol_stopped"] += v
            c["viol"] += vn
            c["fine_stopped"] += f
            c["fine"] += fn
            want = key[0] in ("negation", "general")
            if bool(specs) != want or f:
                misses.setdefault(key, []).append((text, [repr(s.match) for s in specs]))
    return table, misses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--misses", action="store_true", help="print the variants that went wrong")
    opts = ap.parse_args()
    rows = [json.loads(line) for line in open(bench.DATA / "guard_lessons_real.jsonl", encoding="utf-8")
            if line.strip()]
    rows = [r for r in rows if r["split"] == "tune" and r["kind"] == "bare"]
    bench.know(rows)
    table, misses = probe(rows)
    group = None
    total = Counter()
    for (g, name), c in table.items():
        if g != group:
            group = g
            want = "derived" if g in ("negation", "general") else "derived (want 0)"
            print(f"\n== {g} templates, tune bare rules: {want}, same guards, violations stopped, fine stopped ==")
        total[g, "n"] += c["n"]
        total[g, "ok"] += c["derived"] if g in ("negation", "general") else c["n"] - c["derived"]
        total[g, "fine_stopped"] += c["fine_stopped"]
        print(f"  {name:22s} {bench.pct(c['derived'], c['n']):18s} same {c['same']:4d}  "
              f"viol {bench.pct(c['viol_stopped'], c['viol']):18s} fine {c['fine_stopped']}/{c['fine']}")
        if opts.misses:
            for text, got in misses.get((g, name), [])[:8]:
                print(f"      {text!r} -> {got}")
    print()
    for g in ("negation", "general", "exception", "not a rule"):
        label = "derived" if g in ("negation", "general") else "derived nothing"
        print(f"  {g:12s} {label} {bench.pct(total[g, 'ok'], total[g, 'n'])}, fine stopped {total[g, 'fine_stopped']}")


if __name__ == "__main__":
    main()

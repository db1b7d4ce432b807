"""Lesson text → guard specs, only when a rule clause matches a shape whole.

The lesson is split into clauses (``tacit.guards.clauses``); an exception anywhere or a hedge in
the rule vetoes, and one extra word in a rule clause derives nothing. Design notes: docs/guards.md.
"""

from __future__ import annotations

import re

from tacit.lazyre import gate, lazy
from tacit.guards.alternatives import PY_ENVS, narrow
from tacit.guards.clauses import clauses, typed_cues, veto
from tacit.guards.branch_names import branch_name_specs
from tacit.guards.git_verbs import git_verb_specs, names_git_command
from tacit.guards.headings import unheaded, unstressed
from tacit.guards.not_rules import about_file_content, states_absence
from tacit.guards.cd_rules import cd_specs
from tacit.guards.mixed_lists import mixed_specs
from tacit.guards.or_asides import or_aside
from tacit.guards.slash_lists import unslashed
from tacit.guards.unknown_cli import named_cli
from tacit.guards.flag_values import joined_values
from tacit.guards.lists import command_list, either, placed_list, for_its_job, shared_target, verb_list
from tacit.guards.push_rules import push_spec
from tacit.guards.read_merge_rules import read_merge_specs
from tacit.guards.qualified import qualified_specs, tail_specs
from tacit.guards.values import value_specs
from tacit.guards.verbless import run_said, verbless
from tacit.guards.families import family_specs
from tacit.guards.spoken import spoken, spoken_specs
from tacit.guards.sole_tool import SAYS_SOLE, for_installing, sole_tool_specs, without_restated
from tacit.guards.restate import _SCRIPT_PATH, aside_examples, restated_specs, said_then_dont, script_instead
from tacit.guards.path_rules import _paths, _removals
from tacit.guards.quoted_over import flag_over, quoted_over
from tacit.guards.reason_words import REASON_HEAD, said_harm
from tacit.guards.sudo_rules import sudo_for, sudo_running
from tacit.guards.switches import switch_rule
from tacit.guards.shapes import (_COMMIT_ANY, _closed_folder, _content_shapes, _generated_instead, _git_shapes,
                                 _objectless_edit, _other_shapes)
from tacit.guards.words import (_ALIAS, _PURPOSE, _BRANCH_WORD, _CMD_WORD, _DONT, _ENGLISH_TOOLS, _FAMILY_OF, _FLAG_WORD, _KNOWN_PROGRAMS,
                                _PATH_WORD, _SHELL_META, _STOP_WORDS, ALL_FORMS, _SUDO_WORDS, _split_list, _stem, _targets, _unquote,
                                _SCRIPT_LIKE, cli_command, first_match, shell_words, unshouted, without_placeholders)
from tacit.guards.model import CommandMatch, GuardSpec, PushMatch, RebaseMatch, SudoMatch

MAX_LESSON_CHARS = 600

# ---------------------------------------------------------------------------
# Text preparation
# ---------------------------------------------------------------------------
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})
_LABEL_WORDS = (r"(?:rule|lesson|note|nb|correction|preference|reminder|important|policy|warning|key (?:point|rule)|"
                r"caution|critical|danger|convention|user (?:correction|said|prefers|wants)|guideline)")
_LABEL = lazy(rf"^{_LABEL_WORDS}\s*[:\-!]\s*", re.I)
# "**CRITICAL:** this project uses `pnpm`, not `npm`": after a label the rule is the first clause (no reason)
_LEAD_LABEL = lazy(rf"^((?:[-*+>]\s+|\d{{1,3}}[.)]\s+)*)(?:\*\*)?{_LABEL_WORDS}(?:\*\*)?\s*[:!]\s*(?:\*\*)?(?=\S)", re.I)
# "never use terraform even if asked": the rule holds then too, as after a comma (no exception)
_EVEN_IF = lazy(r"(?<=[\w`*)])\s+(?=even\s+(?:if|when|though)\b)", re.I)
# "never run `x` | breaks the lockfile" · "… / too slow": a pipe or a slash before a reason is a dash
_BAR = lazy(r"\s+[|/]\s+(?=\S)")
# "never run or suggest `terraform` commands": suggesting is no act a guard sees; running is
_OR_SUGGEST = lazy(r"\b(run|use|execute|used|run|executed)\s+(?:or|and|/)\s+(?:suggest|recommend|propose)(?:ed)?\b", re.I)
# a correction saved as said starts like speech: "no, we use pnpm here, never npm"
_INTERJECTION = lazy(r"^(?:no|nope|nah|actually|stop|wait|hey|ugh|ok|okay|again)\s*[,!:]\s*", re.I)

# every shape says no, not, never, instead, rather, prefer, banned … : without one, no rule
_MAYBE_RULE = lazy(r"\b(?:no|nope|nah|not|never|nor|instead|rather|prefer|prefers|banned|forbidden|read[- ]only|refrain|as[- ]is|untouched|unchanged|intact|unmodified|quit|dare|replace|"
                         r"off[- ]limits|alone|hands off|keep off|stop|avoid|prohibited|disallowed|through|via|"
                         r"to run)\b|n'?t\b|\b(?:with|use|pass|add)\s+`?-|"
                         # a branch-naming convention says which names are allowed (tacit.guards.branch_names)
                         r"\bbranch[- ]naming\b|\bbranch\s+names?\s+(?:must|should)\b|\bname\s+(?:your\s+|new\s+|all\s+)*branches\b|"
                         r"\bprefix\s+(?:your\s+|new\s+|all\s+)*branch|" + SAYS_SOLE, re.I)


def _prepare(text) -> tuple[str, list] | None:
    """(the lesson, its sentences' clauses); None when it cannot be a rule."""
    if not isinstance(text, str):
        return None
    text = typed_cues(text.encode("utf-8", "replace").decode("utf-8").translate(_QUOTES).strip())
    if not text or len(text) > MAX_LESSON_CHARS or not _MAYBE_RULE.search(text):
        return None
    text = _unwrapped(text)
    read = said_then_dont(_OR_SUGGEST.sub(r"\1", _EVEN_IF.sub(", ", _LEAD_LABEL.sub(r"\1", spoken(unstressed(unheaded(text)))))))
    read = _BAR.sub(lambda m: " \u2014 " if REASON_HEAD.match(read[m.end():]) else m.group(0), read)
    return text, clauses(read, typed=True)  # typed_cues again would change nothing


def _unwrapped(text: str) -> str:
    """The lesson without the quotes it was typed in: not the closing quote of a command it ends
    with ('never run "git clean -fd"'), which stays for the clause reader."""
    q = text[:1]
    if q in ("'", '"'):
        text = text[1:].removesuffix(q)
    elif text.endswith('"') and text.count('"') % 2:
        text = text[:-1]
    return text.strip()


_ENDS = lazy(r"^[,;:\s]+|[\s,;:.!]+$")


def _rule_text(clause_text: str) -> str:
    s = _INTERJECTION.sub("", _LABEL.sub("", clause_text.strip()))
    s = re.sub(r"\s*\([^()]*\)$", "", s) if s.endswith(")") else s  # a trailing aside: "(said on …)"
    if s.endswith(".") and re.search(r"[^\s.]\s\.$|\s\.{0,2}/\.\.\.$", s):
        return re.sub(r"^[,;:\s]+", "", s)  # "never run git checkout .", "go test ./...": the dots are the argument
    return _ENDS.sub("", s)


# ---------------------------------------------------------------------------
# Grammar
# ---------------------------------------------------------------------------
_TOOL = r"`[^`]{1,60}`|[A-Za-z0-9][A-Za-z0-9._+-]*"
_TOOLS = rf"(?:{_TOOL})(?:\s*(?:,|/|\bor\b|\bnor\b|\band\b|,\s*or|,\s*nor)\s*(?:{_TOOL}))*"
_SUBWORD = r"(?!(?:not|never|no|instead|rather|over|and|or|to|but|over)\b)[a-z][a-z0-9:-]*"
_X = rf"(?P<x>`[^`]{{1,60}}`|[A-Za-z0-9][A-Za-z0-9._+-]*(?:\s+{_SUBWORD}){{0,2}})"
_YS = rf"(?P<ys>{_TOOLS})"
_USE = r"(?:use|uses|run|runs|using)"
_LEAD = (r"(?:(?:we|i|you|(?:the\s+)?user|this (?:project|repo|repository|codebase|team)|"
         r"the (?:project|repo|team))"
         r"\s+)?(?:only\s+|must\s+|should\s+)?")

# "not a bare `vitest` invocation": the program itself, run without the project's script
_BARE_Y = r"(?:(?:a|the)\s+)?(?:(?:bare|plain|raw|direct)\s+)?"
_CALL = r"(?:\s+(?:invocations?|calls?|commands?|runs?))?"
_ALTERNATIVE = [lazy(p, re.I) for p in (
    # use pnpm, not npm · we use pnpm, never npm · use uv and never pip · use only pnpm, not npm
    rf"{_LEAD}{_USE}\s+(?:only\s+)?{_X}\s*[,;]?\s*(?:and\s+)?(?:not|never|no)\s+(?:{_USE}\s+)?{_BARE_Y}{_YS}{_CALL}",
    # use pnpm instead of npm · pnpm rather than npm
    rf"(?:{_LEAD}(?:{_USE}|is\s+(?:based|built)\s+on|relies\s+on)\s+)?{_X}\s+(?:instead of|rather than)\s+(?:{_USE}\s+)?{_YS}",
    # never use npm, use pnpm · don't use npm; use pnpm instead · no npm, pnpm only
    rf"{_DONT}\s+(?:{_USE}\s+)?{_YS}\s*[,;:]?\s*(?:(?:we|i)\s+)?(?:only\s+)?{_USE}\s+{_X}"
    r"(?:\s+instead)?",
    rf"{_DONT}\s+(?:{_USE}\s+)?{_YS}\s*[,;:]\s*{_X}\s+only",
    # prefer pnpm over npm · we prefer pnpm to npm
    rf"{_LEAD}(?:prefer|prefers)\s+{_X}\s+(?:over|to)\s+{_YS}",
    # pnpm, not npm
    rf"{_X}\s*,?\s*(?:not|never)\s+{_YS}",
)]
_CLI = r"(?:\s+(?:commands?|cli|binary|executable|tool))?"
_BY_NAME = r"(?P<bare>(?:bare|raw|plain)\s+)?"  # "never use bare `python` commands": by its name (not a venv's)
_NEGATIVE_USE = [lazy(p, re.I) for p in (
    rf"{_DONT}\s+(?:use|using|call|invoke|touch)\s+{_BY_NAME}{_YS}{_CLI}",
    rf"{_DONT}\s+(?:run|execute|use)\s+(?:any\s+)?{_BY_NAME}{_YS}\s+(?:commands?|cli|cli commands?)",  # "any git commands"
    rf"stop using\s+{_YS}{_CLI}",
    rf"no\s+{_YS}{_CLI}",
    rf"{_YS}{_CLI}\s+(?:is|are)\s+(?:banned|forbidden|prohibited|disallowed|not allowed|not permitted|"
    r"off-limits|off limits)",
)]
_LANGUAGES = frozenset(("python", "python3", "node", "ruby", "perl", "php", "java", "deno"))
# "never pip or conda": known tools with no verb, none of them an English word
_VERBLESS_TOOLS = lazy(rf"(?:never|don'?t|do not)\s+(?:a\s+)?{_BY_NAME}{_YS}", re.I)
# "never install packages with npm" · "don't use pip to install dependencies"
_INSTALL_WITH = [lazy(p, re.I) for p in (
    rf"{_DONT}\s+(?:install|add)\s+(?:any\s+|new\s+|the\s+)?(?:packages?|dependencies|deps|modules|libraries)"
    rf"\s+(?:with|using|via|through)\s+{_YS}",
    rf"{_DONT}\s+use\s+{_YS}\s+to\s+(?:install|add)(?:\s+(?:any|new|the))?(?:\s+(?:packages?|dependencies|deps|modules|"
    r"libraries|anything))?",
)]
_SUDO = [lazy(p, re.I) for p in (
    rf"{_DONT}\s+(?:use\s+|run\s+)?`?(?P<w>sudo|doas|su)`?(?:\s+for\s+(?:anything|any(?:thing)?\s+\w+))?",
    rf"{_DONT}\s+(?:run|execute)\s+(?:anything|any commands?|commands?|things)\s+"
    r"(?:with|under|using|via|through|as)\s+`?(?P<w>sudo|doas)`?",
)]
_RUN = lazy(rf"{_DONT}\s+(?:(?P<verb>run|execute|call|invoke|use|type|do)\s+)?(?P<cmd>.+?)"
                  r"(?:\s+(?:on|in|against)\s+any\s+(?:directory|folder|file|path)|\s+anywhere|"
                  r"(?<=[\w`])\s+(?:by hand|manually))?", re.I)  # "never run terraform apply by hand": every call is
_SQL_HEADS = frozenset(("drop", "truncate", "delete", "alter", "insert", "update", "select", "create", "grant"))


def _tool(word: str) -> str | None:
    """A known tool name (``pnpm``; backticks dropped), or None."""
    w = _unquote(word).lower()
    return w if w in _FAMILY_OF else None


_SCRIPT_RUNNERS = {"js_pm", "py_pm", "task"}
_WRAPPED_TOOLS = {"js_test", "js_lint", "bundler", "py_test", "py_lint", "py_types", "ts_run", "python"}


def _script_over_tool(x_text: str, y: str) -> bool:
    """"use `yarn e2e`, not vitest": a project script (a runner and its
    script) over the tool it wraps; never when the script names the tool
    ("use `uv run pytest`, not pytest" would stop the script itself)."""
    words = x_text.lower().split()
    if len(words) == 1 and words[0] in PY_ENVS:  # "use uv instead of python": python through uv
        return "python" in _FAMILY_OF.get(y, set())
    return (len(words) >= 2 and bool(_FAMILY_OF.get(words[0], set()) & _SCRIPT_RUNNERS)
            and bool(_FAMILY_OF.get(y, set()) & _WRAPPED_TOOLS) and y not in words)


def _alternative(sentence: str, because: str) -> GuardSpec | None:
    for pattern in _ALTERNATIVE:
        m = pattern.fullmatch(sentence)
        if not m:
            continue
        x_text = _unquote(m.group("x"))
        x_head = x_text.split()[0].lower() if x_text.split() else ""
        ys = _split_list(m.group("ys"))
        script = script_instead(m.group("x"), ys, because, _run)
        if script is not None:
            return script
        if x_head not in _FAMILY_OF:
            continue
        programs: list[str] = []
        subcommands: tuple = ()
        for y in ys:
            words = without_placeholders(_unquote(y).split()) or []  # `npm install package-name`: any package
            if not words:
                break
            head = words[0].lower()
            if head not in _FAMILY_OF or not (x_head == head or _FAMILY_OF[x_head] & _FAMILY_OF[head]
                                              or _script_over_tool(x_text, head)):
                break
            if len(words) > 1:  # `npm install` (quoted): one program and its subcommand
                if len(ys) > 1 or not y.startswith(("`", "'", '"')):
                    break
                subs = tuple(words[1:])
                if not all(_CMD_WORD.fullmatch(s) and not s.startswith("-") for s in subs):
                    break
                subcommands = subs
            programs.append(head)
        else:
            if not programs or x_text.lower() == " ".join([programs[0], *subcommands]):
                return None
            if all(p in _SUDO_WORDS for p in programs) and not subcommands:
                return GuardSpec(SudoMatch(), because, x_text)
            return GuardSpec(CommandMatch(tuple(dict.fromkeys(programs)), subcommands, (), True),
                             because, x_text)
    return None


def _negative_use(sentence: str, because: str) -> GuardSpec | None:
    if any(pattern.fullmatch(sentence) for pattern in _SUDO):
        return GuardSpec(SudoMatch(), because)
    m = first_match(_INSTALL_WITH, sentence)
    if m:
        tools = [_tool(y) for y in _split_list(m.group("ys"))]
        if not tools or not all(t and _FAMILY_OF[t] & {"js_pm", "py_pm"} for t in tools):
            return None
        return GuardSpec(CommandMatch(tuple(dict.fromkeys(tools)), ("install",), (), True), because)
    m = _VERBLESS_TOOLS.fullmatch(sentence)
    if m:
        tools = [_tool(y) for y in _split_list(m.group("ys"))]
        if tools and all(t and t not in _ENGLISH_TOOLS and t not in _SUDO_WORDS for t in tools):
            return GuardSpec(CommandMatch(tuple(dict.fromkeys(tools)), (), (), True, by_name=bool(m.group("bare"))),
                             because)
    for pattern in _NEGATIVE_USE:
        m = pattern.fullmatch(sentence)
        if not m:
            continue
        programs = []
        for y in _split_list(m.group("ys")):
            head = _tool(y)
            if pattern is _NEGATIVE_USE[3] and y.istitle() and head in _LANGUAGES:
                return None  # "NO Python under `tools/`": the language, files written in it, not its program run
            if head is None and pattern is _NEGATIVE_USE[1]:
                word = _unquote(y).lower()  # "don't run `dotnet` CLI commands", "never execute git commands"
                head = word if word in _KNOWN_PROGRAMS and (y.startswith("`") or word not in _ENGLISH_TOOLS) else None
            if head is None:
                return None
            programs.append(head)
        if any(p in _SUDO_WORDS for p in programs):
            return GuardSpec(SudoMatch(), because) if len(programs) == 1 else None
        by_name = bool(m.groupdict().get("bare"))
        return GuardSpec(CommandMatch(tuple(dict.fromkeys(programs)), (), (), True, by_name=by_name), because)
    return None


def _command_words(cmd: str, script: bool = False) -> list[str] | None:
    """The words of "never run …": a quoted command as written, or unquoted
    words that are a known program (or, with ``script``, a relative path to
    a script) and its subcommands/flags."""
    cmd = cmd.strip()
    quoted = len(cmd) >= 2 and cmd[0] == cmd[-1] and cmd[0] in "`'\""
    if quoted:
        inner = _unquote(cmd)
        if inner.startswith("$ "):  # a prompt sign
            inner = inner[2:]
        if not inner or _SHELL_META.search(inner):
            return None
        try:
            words = shell_words(inner)
        except ValueError:
            return None
        return without_placeholders(_unshouted(words)) if words else None
    words = _unshouted(cmd.split())
    if not words or words[0].lower() not in _KNOWN_PROGRAMS and not (
            script and (_SCRIPT_PATH.fullmatch(words[0]) or named_cli(words))):  # "never run sops decrypt"
        return None
    if words[0][:1].isupper() and not words[0].isupper() and len(words) > 1:
        return None  # "do not use Vite environment variables": a name in prose, not a command typed
    for i, w in enumerate(words[1:], 2):
        if w.lower() in _STOP_WORDS and not (w == "all" and i == len(words) == 3 and
                                             (words[0].lower(), words[1].lower()) in ALL_FORMS):
            return None
        if not (_CMD_WORD.fullmatch(w) or _FLAG_WORD.fullmatch(w) or w in (".", "./") and i == len(words)
                or i == len(words) and _GO_PATTERN.fullmatch(w)):
            return None
    return without_placeholders([words[0].lower()] + words[1:])


def _unshouted(words: list) -> list:
    """The words as typed (``unshouted``), but `DROP TABLE` stays a statement in capitals."""
    return words if not words or words[0].lower() in _SQL_HEADS else unshouted(words)


_GO_PATTERN = lazy(r"(?:\.{1,2}/)?(?:[\w.-]+/)*\.\.\.")  # "go test ./...": every package below


def _split_flag(flag: str) -> list[str]:
    """``-rf`` → ``-r``, ``-f``; long flags and single-dash words stay."""
    if not flag.startswith("--") and 2 < len(flag) <= 4 and flag[1:].isalpha():
        return ["-" + c for c in flag[1:]]
    return [flag]


_BARE = lazy(r"(?:a\s+|the\s+)?(?:bare|plain)\s+(?=\S)", re.I)
# "never run `bundle exec rspec` without arguments": the bare command ("a bare `…`")
_NO_ARGS = lazy(r"(?P<head>.+?\b(?:run|execute|use)\s+)(?P<cmd>`[^`]+`|[a-z][\w.:-]*(?:\s+[a-z][\w.:-]*){0,3})\s+(?:without|with\s+no)\s+(?:any\s+)?(?:arguments|args)", re.I)


def _run(sentence: str, because: str, alone: bool = False) -> GuardSpec | None:
    if no_args := _NO_ARGS.fullmatch(sentence):
        return _run(f"{no_args.group('head')}a bare {no_args.group('cmd')}", because, True)
    m = _RUN.fullmatch(sentence)
    if not m:
        return None
    bare = _BARE.match(m.group("cmd"))  # "never run a bare `pnpm test`": only with nothing after it
    if bare:
        spec = _run(sentence[:m.start("cmd")] + m.group("cmd")[bare.end():], because)
        if spec is None or not isinstance(spec.match, CommandMatch) or spec.match.flags:
            return None
        if not spec.match.subcommands and not alone:  # "never use bare `python`": the program by its name
            return GuardSpec(CommandMatch(spec.match.programs, (), (), True, by_name=True), because)
        return GuardSpec(CommandMatch(spec.match.programs, spec.match.subcommands, (), True, True), because)
    words = _command_words(m.group("cmd"), (m.group("verb") or "").lower() in ("run", "execute", "call", "invoke"))
    if not words:
        return None
    quoted = m.group("cmd").startswith(("`", "'", '"'))
    if not m.group("verb") and not (m.group("cmd").startswith("`") or verbless(words)):
        return None
    verb = (m.group("verb") or "").lower()
    if verb in ("use", "type", "do", "") and not quoted and len(words) < 2:
        return None  # "never use git" is not a command; "never use `git stash`" is
    if verb in ("use", "type", "do", "", "call", "invoke") and words[0].lower() not in _KNOWN_PROGRAMS \
            and not _SCRIPT_LIKE.fullmatch(words[0]) and not (verb == "use" and quoted and cli_command(words)):
        return None  # "never use `any`", "do not call `subscription_list`", "no `io/ioutil`": not a program
    if "--" in words[1:-1]:  # `git checkout -- .`: the separator says nothing (`git checkout --` alone stays unread)
        words = words[:1] + [w for w in words[1:] if w != "--"]
    words = joined_values(words)  # `docker compose -f ci.yml up`: ci.yml is the option's, not a subcommand
    program = words[0]
    if "/" in program:
        program = program.rstrip("/").rsplit("/", 1)[-1]
    if not _CMD_WORD.fullmatch(program) or program.isupper() and program.lower() in _SQL_HEADS or program == "cd":
        return None  # "`DROP TABLE`" in a list of commands is a statement, not a program named DROP; `cd` runs none
    subs: list[str] = []
    flags: list[str] = []
    trailing: list[str] = []
    for w in words[1:]:
        if w.startswith("-") and len(w) > 1:
            if not _FLAG_WORD.fullmatch(w):
                return None
            flags.extend(_split_flag(w))
        elif flags:
            trailing.append(w)  # a positional after a flag
        else:
            subs.append(w)
    if program in _SUDO_WORDS:  # `sudo` alone, or `sudo npm`: sudo running that program
        return GuardSpec(match, because) if (match := sudo_running(subs, flags)) else None
    if program == "git" and subs and subs[0] == "push":
        positional = subs[1:] + trailing
        force_flags = {"--force", "-f", "--force-with-lease"}
        if flags and not set(flags) <= force_flags:
            if trailing or positional and positional != subs[1:2] or len(positional) > 1:
                return None  # `git push origin --delete`: the remote named before the flag says nothing
            return GuardSpec(CommandMatch(("git",), ("push",), tuple(flags), True), because)
        branches = tuple(b.split(":")[-1].lstrip("+") for b in positional[1:])
        if any(not _BRANCH_WORD.fullmatch(b) for b in branches):
            return None
        remotes = tuple(positional[:1]) if len(positional) == 1 else ()
        if any(not _BRANCH_WORD.fullmatch(r) for r in remotes):
            return None
        return GuardSpec(PushMatch(branches, bool(flags), remotes), because)
    if program == "git" and subs[:2] == ["add", "."] and len(subs) == 2 and not flags and not trailing:
        return GuardSpec(CommandMatch(("git",), ("add",), ("-A",), True), because)  # `git add .` is `git add -A`
    if program == "git" and subs and subs[0] == "rebase" and len(subs) == 2 and not flags and not trailing:
        found = _targets(subs[1])  # `git rebase main`: onto that branch, from any remote
        return GuardSpec(RebaseMatch(found[0]), because) if found and found[0] and not found[1] else None
    subs += trailing  # `rm -rf node_modules`: positionals in order, wherever the flags are
    if len(subs) > 4:
        return None
    for s in subs:
        if not _CMD_WORD.fullmatch(s.removesuffix("*") if s is subs[-1] else s) and not (  # `make secrets-*`: a prefix
                s in (".", "./") or "/" in s and _PATH_WORD.fullmatch(s)) or s.startswith("/"):
            return None
    return GuardSpec(CommandMatch((program,), tuple(subs), tuple(flags), True), because)


# a word each shape needs, to skip the shapes a clause cannot be (most clauses are none)
_NEEDS = (
    (lazy(r"push", re.I), push_spec),
    (lazy(r"touch|edit|modif|change|alter|write|written|create|update|mess|alone|off|read[- ]only|limits|add|format", re.I),
     _paths),
    (lazy(r"\b(?:no|not|never|instead|rather|prefer|prefers|only)\b", re.I), _alternative),
    (lazy(r"sudo", re.I), sudo_for),
    (lazy(r"switch|change|swap|check\s?out", re.I), switch_rule),
    (lazy(r"\b(?:no|never|don'?t|not|use|using|call|invoke|touch|banned|forbidden|prohibited|disallowed|allowed|"
                r"permitted|limits|sudo|doas|install)\b", re.I),
     _negative_use),
    (lazy(r"amend|verify|hooks|rebase", re.I), _git_shapes),
    (lazy(r"delete|remove|rename|move", re.I), _removals),
    (lazy(r"commit|create|open|file|submit|stage|check in|add|merge|close", re.I), _other_shapes),
    (lazy(r"pipe|piping|curl|wget|drop|truncate|delete", re.I), _content_shapes),
    (lazy(r".", re.S), _run),
)
# found faster (same answers); not the cue words of [2] and [3], which nearly every rule says
gate(_MAYBE_RULE, *(needs for needs, _shape in _NEEDS[:2] + _NEEDS[4:]))
gate(_LEAD_LABEL, _OR_SUGGEST, _LABEL, _INTERJECTION, _EVEN_IF)  # tried on every lesson and clause, seldom there


_QUOTED_LIST = lazy(r"(?P<verb>(?:{d})\s+(?:(?:run|use|execute|call|invoke)\s+)?)(?P<items>`[^`]+`(?:\s*(?:,|or|and|,\s*or|,\s*and)\s*`[^`]+`)+)"
                          r"(?:,?\s*(?:or|and)\s+(?P<tail>(?:(?:any|other)\s+)?[a-z][\w\s-]{{1,40}}|"
                          # "…, or anything that reads `.env`": a kind the named commands are of
                          r"(?:anything|everything)\s+(?:else\s+)?(?:that|which)\s+.{{1,120}}|"
                          # "…, or any command that modifies remote history": a kind, said with what it does
                          r"(?:any|other)\s+(?:other\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,3}}\s+(?:that|which)\s+.{{1,120}}))?"
                          .format(d=_DONT), re.I)


# "never create an issue with gh issue create": the command says what the words say
_WITH_COMMAND = lazy(rf"(?:{_DONT})\s+(?P<what>(?:[a-z-]+\s+){{1,6}})(?:with|using|via|through)\s+"
                           r"(?P<cmd>`[^`]+`|[a-z][\w.-]*(?:\s+[\w:.-]+){1,3})", re.I)


_WITH_PROGRAM = lazy(rf"(?:{_DONT})\s+(?P<what>[a-z-]+\s+(?:(?:any|the|a)\s+)?(?:(?:files?|folders?|directories|"
                    r"dirs?|things|anything|stuff|them|it)\s+)?)(?:with|using|via|through)\s+"
                    r"(?P<cmd>`[\w.-]+`|[a-z][\w.-]*)", re.I)


# "`git push --force` is forbidden": a quoted command, then the prohibition
_FORBIDDEN_COMMAND = lazy(r"(?:running\s+|using\s+)?(?P<cmd>`[^`]+`)\s+(?:(?:is|are)\s+(?:strictly\s+)?"
                                r"(?:forbidden|banned|prohibited|disallowed|not allowed|not permitted|off-limits|"
                                r"off limits|never allowed)|(?:must|should|shall)\s+(?:not|never)\s+be\s+"
                                r"(?:run|used|executed|called|invoked))", re.I)
# "never pass `--no-verify` to `git commit`" · "do not use `--force` with `git push`"
_FLAG_WITH = lazy(rf"{_DONT}\s+(?:use|pass|add|run)\s+(?:the\s+)?(?:[\w-]+-style\s+)?(?P<flags>`-[^`]+`"
                        r"(?:\s*(?:,|or|and|/)\s*`-[^`]+`)*)(?:\s+(?:flags?|options?|switch(?:es)?))?\s+"
                        r"(?:with|to|for|on|in)\s+(?P<cmd>`[^`-][^`]*`)", re.I)


# "never run destructive commands such as `git reset --hard` or `git clean -fd`":
# the commands named are the rule (each must be a program's command)
_SUCH_AS = lazy(rf"(?:{_DONT})\s+(?:(?:run|use|execute|call|invoke)\s+)?(?:any\s+|the\s+)?(?:[\w-]+\s+){{0,4}}"
                      r"[\w-]+\s*,?\s*(?:such as|like|e\.?g\.?,?|including|"
                      r"for example,?|for instance,?)\s+(?P<items>`[^`]+`(?:\s*(?:,|or|and|,\s*or|,\s*and)\s*`[^`]+`)*)"
                      r"(?:\s*,?\s*(?:etc|and so on|or similar))?", re.I)


_FORCE_PUSH_WORD = lazy(r"force[- ]?push(?:es|ing)?(?:\s+(?:anything|to\s+any\s+branch))?", re.I)


def _clause_specs(sentence: str, because: str, lesson: str) -> list:
    """The guards one clause states: one, several ("never run `a` or `b`"), or none."""
    if (spelt := unslashed(sentence)) is not None:  # "git commit/push/pull": each command
        return _clause_specs(spelt, because, lesson)
    m = _COMMIT_ANY.fullmatch(sentence)
    if m and m.group("push"):
        return [GuardSpec(CommandMatch(("git",), ("commit",), (), True), because), GuardSpec(PushMatch(), because)]
    if out := read_merge_specs(sentence, because, lambda t, why: _clause_specs(t, why, lesson)):
        return out
    spec = _sentence_spec(sentence, because)
    if spec is not None:
        return [spec]
    m = _SUCH_AS.fullmatch(sentence)
    if m:
        out = [_run(f"never run {q}", because) for q in re.findall(r"`[^`]+`", m.group("items"))]
        if out and all(out) and all(not isinstance(o.match, CommandMatch) or
                                    o.match.programs[0] in _KNOWN_PROGRAMS for o in out):
            return out
    m = _QUOTED_LIST.fullmatch(sentence)
    if m:
        quoted = re.findall(r"`[^`]+`", m.group("items"))
        for i in range(1, len(quoted)):  # "never `git add .` or `-A`": the flag of the command before it
            head = [w for w in _unquote(quoted[i - 1]).split()[:2] if not w.startswith("-")]
            quoted[i] = f"`{' '.join(head)} {_unquote(quoted[i])}`" if quoted[i].startswith("`-") and head else quoted[i]
        out = [_run(m.group("verb") + q, because) or _content_shapes(m.group("verb") + q, because) for q in quoted]
        if m.group("tail") and _FORCE_PUSH_WORD.fullmatch(m.group("tail").strip()):  # "…, `git clean`, or force-push"
            out.append(GuardSpec(PushMatch((), True), because))
        if all(out):
            return out
        # "never run `git stash`, `git reset` or `git checkout --`": the commands that
        # have an exact shape, when every item is a known program's command
        if all(_unquote(q).split()[:1] and _unquote(q).split()[0].lower() in _KNOWN_PROGRAMS for q in quoted):
            return [o for o in out if o]
        return []
    out = command_list(sentence, because, _run)
    if out:
        return out
    m = _WITH_COMMAND.fullmatch(sentence) or _WITH_PROGRAM.fullmatch(sentence)
    if m:
        words = {_stem(w) for w in re.findall(r"[a-z]+", m.group("what"), re.I)} - _STOP_WORDS
        cmd = _unquote(m.group("cmd"))
        spec = (_run(f"never run `{cmd}`", because)  # "… with truthiness checks": no program
                if m.group("cmd").startswith("`") or cmd.split()[0].lower() in _KNOWN_PROGRAMS else None)
        said = {_stem(_ALIAS.get(w.lower(), w).lstrip("-")) for w in cmd.split()[1:]}  # "`npm i`": install
        job = said if len(cmd.split()) > 1 else _PURPOSE.get(cmd.lower(), set())  # "never rename files with mv"
        if spec is not None and words & job:
            return [spec]
    m = _FORBIDDEN_COMMAND.fullmatch(sentence)
    if m:
        spec = _run(f"never use {m.group('cmd')}", because)  # a program, not a word
        if spec is not None:
            return [spec]
    m = _FLAG_WITH.fullmatch(sentence)
    if m:
        cmd = _unquote(m.group("cmd"))
        out = [_run(f"never use `{cmd} {_unquote(f)}`", because) for f in re.findall(r"`[^`]+`", m.group("flags"))]
        if all(out) and all(isinstance(s.match, (CommandMatch, PushMatch)) and
                            getattr(s.match, "flags", None) != () for s in out):
            return out
    spec = (_objectless_edit(sentence, because, lesson) or _generated_instead(sentence, because, lesson)
            or _closed_folder(sentence, because, lesson))
    if spec is not None:
        return [spec]

    def own(text: str, why: str) -> list:
        return _clause_specs(text, why, lesson)
    return (family_specs(sentence, because, own) or qualified_specs(sentence, because, own)
            or git_verb_specs(sentence, because, _sentence_spec)
            or verb_list(sentence, because, lambda t, w: _clause_specs(t, w, ""))
            or restated_specs(sentence, because, own, lesson) or shared_target(sentence, because, own)
            or for_its_job(sentence, because, own) or either(sentence, because, own)
            or value_specs(sentence, because) or tail_specs(sentence, because, own)
            or branch_name_specs(sentence, because) or quoted_over(sentence, because, _run)
            or sole_tool_specs(sentence, because, lesson) or for_installing(sentence, because, own)
            or flag_over(sentence, because, own) or mixed_specs(sentence, because, own)
            or cd_specs(sentence, because) or spoken_specs(sentence, because, own)
            or run_said(sentence, because, own))


def _sentence_spec(sentence: str, because: str) -> GuardSpec | None:
    for needs, shape in _NEEDS:
        if needs.search(sentence):
            spec = shape(sentence, because)
            if spec is not None:
                return spec
    return None


def derive_guards(lesson_text) -> tuple[GuardSpec, ...]:
    """Every guard a lesson states exactly, one per rule clause; () when an exception or a hedge vetoes."""
    prepared = _prepare(lesson_text)
    if not prepared:
        return ()
    text, sentences = prepared
    sentences = [found for found in sentences if not said_harm(found[0])]  # "… Usually breaks CI.": a reason
    because = " ".join(text.split())
    specs: list = []
    for found in sentences:
        if states_absence(found[0].text):
            continue  # "There is no `node`, no `python3`": what a place lacks, not a rule
        ruled: list = []  # clauses that gave a rule: their pieces are no other reading
        last = ""  # the rule clause before an aside: "never run `go build` (or `go install`)"
        for clause in found:
            if clause.reason and not clause.aside or any(clause.text in r for r in ruled):
                continue
            rule = _rule_text(clause.text)
            if clause.aside:  # "`x.ts` (generated, do not edit)": an edit rule about the line's path, or examples
                spec = _objectless_edit(rule, because, text)
                specs_here = [spec] if spec else (
                    aside_examples(found[0].text, clause.text, because, lambda t, why: _clause_specs(t, why, text))
                    or or_aside(last, clause.text, because, lambda t, why: _clause_specs(t, why, text)))
            else:
                specs_here = _clause_specs(rule, because, text)
                last = rule if specs_here else ""
            specs_here = [s for s in specs_here if names_git_command(s, clause.text)]
            if not specs_here:
                if placed_list(rule):
                    ruled.append(clause.text)  # a place no reading took may hold for every item: none alone
                continue
            if veto(sentences, clause, tuple(specs_here)) is not None:
                return ()
            for spec in specs_here:
                spec = narrow(spec, clause.text, text)  # the alternative the lesson names passes
                if all(spec.match != s.match for s in specs):
                    specs.append(spec)
            ruled.append(clause.text)
    if about_file_content(text):
        specs = [s for s in specs if not isinstance(s.match, (CommandMatch, SudoMatch))]
    return tuple(without_restated(specs))


def derive_guard(lesson_text) -> GuardSpec | None:
    """The one guard a lesson states exactly, or None (no rule, vetoed, or more than one guard)."""
    specs = derive_guards(lesson_text)
    return specs[0] if len(specs) == 1 else None

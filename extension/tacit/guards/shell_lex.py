"""The shell lexer of ``tacit.guards.shell``: text → tokens → simple
commands with subshell scopes (docs/design/guards.md#tacitguardsshell)."""

from __future__ import annotations

import re
from dataclasses import dataclass

DYN = "\ue000"  # stands for a part of a word only known at run time
_TILDE = "\ue001"  # an unquoted leading "~", expanded once the home folder is known
MAX_CHARS = 65536
MAX_DEPTH = 8


# ---------------------------------------------------------------------------
# Lexer: text → tokens
#   ("w", value, nested, assign)  a word; nested = token lists of $( … ) in it
#   ("o", op)                     && || ; ;; | |& & ( ) and "\n"
#   ["r", op, None]               a redirection; its target is the next word
#   ["h", op, delim, body]        a here-document (body filled at the newline)
# ---------------------------------------------------------------------------
_PLAIN = re.compile(r"[^ \t\r\n'\"\\`$;&|()<>]+")
_DQ_PLAIN = re.compile(r"[^\"\\`$]+")
_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9?#@*!$-]")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_OPS = re.compile(r";;&|;;|;|&&|&>>|&>|&|\|\||\|&|\|")
_REDIRS = re.compile(r"<<<|<<-|<<|>>|>\||>&|<&|<>|>|<")
_OP_AS = {";;": ";", ";;&": ";", "|&": "|"}  # a case's ";;" ends a command; "|&" pipes
_OUT_REDIRS = frozenset((">", ">>", ">|", "&>", "&>>", "<>"))
_UNTIL = {"`": re.compile(r"(?:[^`\\]|\\.)*\\?", re.S), "'": re.compile(r"(?:[^'\\]|\\.)*\\?", re.S)}
_ESCAPED = re.compile(r"\\(.)", re.S)
_ANSI = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a",
         "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "v": "\v", "0": "\0"}


class _Lexer:
    __slots__ = ("s", "n", "i", "depth", "pending")

    def __init__(self, s: str, depth: int):
        self.s = s
        self.n = len(s)
        self.i = 0
        self.depth = depth
        self.pending: list = []

    def tokens(self, closer: bool = False) -> list:
        """Tokens up to the end, or (``closer``) up to the ``)`` that closes
        a ``$(`` — the index is left just after it."""
        s, n = self.s, self.n
        toks: list = []
        parens = 0
        while self.i < n:
            c = s[self.i]
            if c == " " or c == "\t" or c == "\r":
                self.i += 1
            elif c == "\\" and s.startswith("\n", self.i + 1):  # a line continuation between words
                self.i += 2
            elif c == "\n":
                self.i += 1
                toks.append(("o", "\n"))
                if self.pending:
                    self._bodies()
            elif c == "#":
                end = s.find("\n", self.i)
                self.i = n if end < 0 else end
            elif c == ";" or c == "&" or c == "|":
                op = _OPS.match(s, self.i).group()
                self.i += len(op)
                toks.append(["r", op, None] if op[-1] == ">" else ("o", _OP_AS.get(op, op)))
            elif c == "(":
                parens += 1
                self.i += 1
                toks.append(("o", "("))
            elif c == ")":
                self.i += 1
                if closer and parens == 0:
                    return toks
                parens -= 1
                toks.append(("o", ")"))
            elif (c == "<" or c == ">") and not s.startswith("(", self.i + 1):
                self._redir(toks)
            else:  # a word (a process substitution too: a /dev/fd path); _word consumes at least one character
                tok = self._word()
                # "2>file": a word of digits touching a redirection is its fd
                if (self.i < n and s[self.i] in "<>" and tok[1].isdigit() and tok[3] is None
                        and not s.startswith("(", self.i + 1)):
                    continue
                toks.append(tok)
        return toks

    def _redir(self, toks: list) -> None:
        s = self.s
        op = _REDIRS.match(s, self.i).group()
        self.i += len(op)
        if op in ("<<", "<<-"):
            while self.i < self.n and s[self.i] in " \t":
                self.i += 1
            delim = self._word()[1] if self.i < self.n and s[self.i] not in "\n;&|()<>" else ""
            tok = ["h", op, delim.replace(DYN, "").replace(_TILDE, "~"), ""]
            self.pending.append(tok)
            toks.append(tok)
        else:
            toks.append(["r", op, None])

    def _bodies(self) -> None:
        """Here-document bodies start after the newline that ends their line
        and run to the line that is their delimiter (tab-indented for ``<<-``)."""
        for tok in self.pending:
            tabs = "\t*" if tok[1] == "<<-" else ""
            delim = re.escape(tok[2]) if "\n" not in tok[2] else "(?!)"  # a line never holds a newline
            end = re.compile(f"^{tabs}{delim}$", re.M).search(self.s, self.i)
            tok[3] = self.s[self.i:end.start() if end else self.n]
            self.i = min(end.end() + 1, self.n) if end else self.n
        self.pending = []

    def _nested(self) -> list:
        """Tokens of a ``$( … )`` whose ``$(`` was just consumed."""
        if self.depth >= MAX_DEPTH:
            self._skip_parens()
            return []
        sub = _Lexer(self.s, self.depth + 1)
        sub.i = self.i
        toks = sub.tokens(closer=True)
        self.i = sub.i
        return toks

    def _skip_parens(self) -> None:
        depth = 1
        while self.i < self.n and depth:
            c = self.s[self.i]
            depth += (c == "(") - (c == ")")
            self.i += 1

    def _until(self, end: str, escapes: dict | None = None) -> str:
        """The text up to ``end``, consumed with it: ``\\c`` is c, or with ``escapes`` (``$'…'``) its escape."""
        m = _UNTIL[end].match(self.s, self.i)
        self.i = m.end() + 1
        return _ESCAPED.sub(lambda e: e[1] if escapes is None else escapes.get(e[1], e[0]), m.group())

    def _backtick(self, parts: list, nested: list) -> None:
        """A backtick substitution at the index: its tokens nested, a dynamic part in the word."""
        self.i += 1
        text = self._until("`")
        nested.append(_Lexer(text, self.depth + 1).tokens() if self.depth < MAX_DEPTH else [])
        parts.append(DYN)

    def _dollar(self, parts: list, nested: list) -> None:
        s = self.s
        i = self.i + 1
        nxt = s[i] if i < self.n else ""
        if nxt == "(":
            self.i = i + 1
            if s.startswith("((", i):  # arithmetic: skip to the matching "))"
                self._skip_parens()
            else:
                nested.append(self._nested())
            parts.append(DYN)
        elif nxt == "{":
            end = s.find("}", i)
            self.i = self.n if end < 0 else end + 1
            parts.append(DYN)
        elif nxt == "'":
            self.i = i + 1
            parts.append(self._until("'", _ANSI))
        elif nxt == '"':
            self.i = i
        else:
            m = _VAR.match(s, i)
            if m:
                self.i = m.end()
                parts.append(DYN)
            else:
                self.i = i
                parts.append("$")

    def _word(self):
        s, n = self.s, self.n
        parts: list[str] = []
        nested: list = []
        assign = None
        first = True
        while self.i < n:
            c = s[self.i]
            m = _PLAIN.match(s, self.i)
            if m:
                text = m.group()
                if first:
                    if text[0] == "~":
                        text = _TILDE + text[1:]
                    a = _ASSIGN.match(text)
                    if a:
                        assign = a.end()
                parts.append(text)
                self.i = m.end()
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end < 0:
                    parts.append(s[self.i + 1:])
                    self.i = n
                else:
                    parts.append(s[self.i + 1:end])
                    self.i = end + 1
            elif c == '"':
                self.i += 1
                self._double(parts, nested)
            elif c == "\\":
                if self.i + 1 < n:
                    if s[self.i + 1] != "\n":  # a line continuation joins, adds nothing
                        parts.append(s[self.i + 1])
                    self.i += 2
                else:
                    self.i += 1
            elif c == "$":
                self._dollar(parts, nested)
            elif c == "`":
                self._backtick(parts, nested)
            elif (c == "<" or c == ">") and self.i + 1 < n and s[self.i + 1] == "(":
                self.i += 2
                nested.append(self._nested())
                parts.append(DYN)
            else:
                break
            first = False
        return ("w", "".join(parts), nested, assign)

    def _double(self, parts: list, nested: list) -> None:
        s, n = self.s, self.n
        while self.i < n:
            m = _DQ_PLAIN.match(s, self.i)
            if m:
                parts.append(m.group())
                self.i = m.end()
                continue
            c = s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                nxt = s[self.i + 1] if self.i + 1 < n else ""
                if nxt in '$`"\\':
                    parts.append(nxt)
                elif nxt != "\n":
                    parts.append("\\" + nxt)
                self.i += 2
            elif c == "$":
                if self.i + 1 < n and s[self.i + 1] in "'\"":
                    parts.append("$")  # no $'…' inside double quotes
                    self.i += 1
                else:
                    self._dollar(parts, nested)
            else:
                self._backtick(parts, nested)


# ---------------------------------------------------------------------------
# Tokens → simple commands, with subshell scopes
# ---------------------------------------------------------------------------
@dataclass(slots=True)
class _Simple:
    words: list
    redirs: list  # (op, target)
    inputs: list  # here-document / here-string bodies
    nested: list  # token lists of substitutions inside the words
    piped: bool = False  # its stdin is the previous command's output


_KEYWORDS = frozenset(("{", "}", "!", "then", "else", "elif", "fi", "do", "done", "if",
                       "while", "until", "esac"))
_SKIP_HEADS = frozenset(("for", "select", "case", "function", "[[", "]]", "declare",
                         "local", "export", "readonly", "typeset", "alias", "unset"))


def _simples(tokens: list) -> list:
    """Simple commands and "(" / ")" scope markers, in order."""
    out: list = []
    cur = _Simple([], [], [], [])
    want_target = None

    def flush():
        nonlocal cur
        if cur.words or cur.redirs or cur.inputs or cur.nested:
            out.append(cur)
        cur = _Simple([], [], [], [])

    for tok in tokens:
        kind = tok[0]
        if kind == "w":
            if tok[2]:
                cur.nested.extend(tok[2])
            if want_target is not None:
                if want_target == "<<<":
                    cur.inputs.append(tok[1])
                else:
                    cur.redirs.append((want_target, tok[1]))
                want_target = None
            elif not cur.words and tok[3] is not None:
                continue  # VAR=value before the command
            else:
                cur.words.append(tok[1])
        elif kind == "o":
            want_target = None
            flush()
            if tok[1] == "(" or tok[1] == ")":
                out.append(tok[1])
            elif tok[1] == "|" or tok[1] == "|&":
                cur.piped = True
        elif kind == "r":
            want_target = tok[1]
        else:  # here-document
            want_target = None
            cur.inputs.append(tok[3])
    flush()
    return out

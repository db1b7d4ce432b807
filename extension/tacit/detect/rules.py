"""Phrase a durable rule from a user message — exactly, or not at all.

Where tacit writes memory with no agent to check it (no agent available, ``tacit learn --apply``),
it may only write a rule it can phrase exactly: "pnpm not npm here" → "Use pnpm, not npm."; "single
quotes pls" → "Use single quotes."; "always use TypeScript" → "Always use TypeScript.". Anything
else stays a candidate for the next review. :func:`phrase` returns the rule or None.

Design notes: docs/design/detect.md#tacitdetectrules"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tacit.lazyre import lazy


@dataclass(frozen=True, slots=True)
class Phrased:
    """A rule tacit can phrase exactly, and what it says about the message."""

    text: str  # the rule, e.g. "Use pnpm, not npm."
    category: str  # preference | fact: the kind of durable statement it is
    rejected: str | None  # what the rule rejects ("npm"), if anything
    rejects_prev: bool  # the rejected thing appears in the agent's previous reply
    rejection: bool  # the message opened by rejecting something ("no, …", "nope …")
    contrast: bool = False  # the message names what it rejects: "A, not B", "use A instead of B"


TOOLS = frozenset("""
npm pnpm yarn bun pip pip3 uv poetry pipenv conda mamba cargo go brew apt apt-get yum dnf pacman nix gradle maven
python python3 python2 typescript javascript ts js node nodejs deno rust java kotlin swift ruby php perl lua elixir
scala haskell dart flutter bash zsh fish sh powershell pwsh cmd c c++ cpp c# csharp golang
react preact vue svelte sveltekit angular solid next next.js nextjs nuxt remix astro gatsby django flask fastapi
express koa nestjs rails laravel spring tailwind tailwindcss bootstrap shadcn mui chakra htmx jquery
jest vitest pytest mocha jasmine playwright cypress puppeteer unittest rspec minitest
prettier eslint biome black ruff flake8 pylint mypy pyright isort clippy rustfmt gofmt
postgres postgresql psql mysql mariadb sqlite sqlite3 mongodb mongo redis supabase firebase prisma drizzle typeorm
sequelize sqlalchemy mikro-orm knex dynamodb cassandra elasticsearch clickhouse
docker podman docker-compose kubernetes k8s helm terraform ansible vercel netlify heroku aws gcp azure cloudflare
git github gitlab bitbucket gh
vim nvim neovim vscode emacs cursor zed intellij
windows mac macos osx linux ubuntu debian fedora arch wsl wsl2
yaml yml json toml ini markdown md css scss sass less html graphql grpc rest protobuf csv xml
webpack vite rollup esbuild turbopack parcel babel swc tsc tsx ts-node nodemon pm2 systemd nginx caddy apache
celery sidekiq kafka rabbitmq nats
axios fetch lodash zod yup pydantic attrs dataclasses numpy pandas polars
""".split())
_CANONICAL = {
    "typescript": "TypeScript", "javascript": "JavaScript", "python": "Python", "python3": "Python 3",
    "postgres": "Postgres", "postgresql": "PostgreSQL", "mysql": "MySQL", "sqlite": "SQLite", "mongodb": "MongoDB",
    "redis": "Redis", "docker": "Docker", "kubernetes": "Kubernetes", "github": "GitHub", "gitlab": "GitLab",
    "react": "React", "vue": "Vue", "svelte": "Svelte", "angular": "Angular", "next.js": "Next.js",
    "nextjs": "Next.js", "django": "Django", "flask": "Flask", "fastapi": "FastAPI", "rails": "Rails",
    "tailwind": "Tailwind", "tailwindcss": "Tailwind CSS", "windows": "Windows", "mac": "macOS", "macos": "macOS",
    "osx": "macOS", "linux": "Linux", "ubuntu": "Ubuntu", "debian": "Debian", "fedora": "Fedora", "wsl": "WSL",
    "wsl2": "WSL 2", "rust": "Rust", "java": "Java", "kotlin": "Kotlin", "swift": "Swift", "ruby": "Ruby",
    "php": "PHP", "golang": "Go", "graphql": "GraphQL", "json": "JSON", "yaml": "YAML", "toml": "TOML",
    "css": "CSS", "html": "HTML", "vscode": "VS Code", "neovim": "Neovim", "nvim": "Neovim", "vim": "Vim",
    "emacs": "Emacs", "vite": "Vite", "webpack": "webpack", "jest": "Jest", "vitest": "Vitest", "playwright": "Playwright",
    "cypress": "Cypress", "prisma": "Prisma", "supabase": "Supabase", "firebase": "Firebase", "aws": "AWS",
    "gcp": "GCP", "azure": "Azure", "terraform": "Terraform", "nginx": "nginx", "powershell": "PowerShell",
    "deno": "Deno", "node": "Node", "nodejs": "Node.js", "markdown": "Markdown", "sass": "Sass", "scss": "SCSS",
    "flutter": "Flutter", "dart": "Dart", "elixir": "Elixir", "haskell": "Haskell", "scala": "Scala",
    "pydantic": "Pydantic", "numpy": "NumPy", "pandas": "pandas", "eslint": "ESLint", "prettier": "Prettier",
    "vercel": "Vercel", "netlify": "Netlify", "heroku": "Heroku", "cloudflare": "Cloudflare", "c#": "C#",
    "c++": "C++", "zod": "Zod", "dynamodb": "DynamoDB", "sqlalchemy": "SQLAlchemy", "typeorm": "TypeORM",
    "mikro-orm": "MikroORM", "kafka": "Kafka", "celery": "Celery", "htmx": "htmx",
}
STYLE_TERMS = frozenset("""
tabs spaces semicolons single-quotes double-quotes trailing-commas camelcase snake_case snake-case kebab-case
pascalcase type-hints typehints f-strings async/await arrow-functions named-exports default-exports absolute-imports
relative-imports conventional-commits docstrings jsdoc esm commonjs 2-spaces 4-spaces utc iso-8601
""".split())
_STYLE_SPOKEN = {
    "single quotes": "single quotes", "double quotes": "double quotes", "trailing commas": "trailing commas",
    "type hints": "type hints", "arrow functions": "arrow functions", "named exports": "named exports",
    "default exports": "default exports", "absolute imports": "absolute imports",
    "relative imports": "relative imports", "conventional commits": "Conventional Commits",
    "2 spaces": "2 spaces", "4 spaces": "4 spaces", "two spaces": "2 spaces", "four spaces": "4 spaces",
    "tabs": "tabs", "spaces": "spaces", "semicolons": "semicolons", "f-strings": "f-strings",
    "f strings": "f-strings", "camelcase": "camelCase", "camel case": "camelCase", "snake_case": "snake_case",
    "snake case": "snake_case", "kebab-case": "kebab-case", "kebab case": "kebab-case", "pascalcase": "PascalCase",
    "pascal case": "PascalCase", "async/await": "async/await", "docstrings": "docstrings", "esm": "ESM",
    "utc": "UTC", "iso dates": "ISO 8601 dates", "jsdoc": "JSDoc", "commonjs": "CommonJS",
}
_STYLE_ALT = "|".join(re.escape(k) for k in sorted(_STYLE_SPOKEN, key=len, reverse=True))

_RULE_VERBS = frozenset("""
use write run add keep put prefer include ask commit test format name check create push leave reply answer respond
explain show make wrap sort type document log return pin lint squash rebase merge follow start end prefix indent
comment mock print import export store save read deploy install update build close open delete remove modify
touch edit change rename refactor skip disable enable force force-push amend hardcode bypass rewrite reuse
""".split())
_POINTING = lazy(r"\b(?:it|this|that|these|those|them|here|there|so|such|same|thing|things|stuff)\b")
_NAME = r"[a-z0-9@#.+/_-]*[a-z0-9+#]"
_NAME_RE = lazy(r"^" + _NAME + r"$")
_CODEY = lazy(r"[._/@-]|\d")
_REJECTION_HEAD = lazy(r"^(?:no+|nope|nah)(?:[,.!:]\s*|\s+(?=use\b|its\b|it should\b|should\b|we\b|"
                             r"always\b|never\b|dont\b|do not\b))")
_FILLER_HEAD = lazy(r"^(?:(?:hey|ok(?:ay)?|so|please|pls|just|also|oh|and|but|remember|note)"
                          r"[,.!:]?\s+)+")
_FILLER_TAIL = lazy(r"(?:[,.!]*\s+(?:here|please|pls|plz|thanks|thx|ty|in this (?:repo|project|codebase)"
                          r"|for this (?:repo|project)|ok|okay|f+s|lol|lmao|bro|dude|mate|man|thank you))+[.!]*$"
                          r"|[.!]+$")
_SENTENCE_INSIDE = lazy(r"[.!?;]\s|\s-\s|\u2014")

_CONTRAST = lazy(r"^(?:use\s+|its\s+|it should be\s+|should be\s+|we use\s+)?(?P<a>" + _NAME + r")\s*,?\s+"
                       r"(?:not|instead of|rather than|over|and not)\s+(?P<b>" + _NAME + r")$")
_USE_INSTEAD = lazy(r"^(?:use|switch to|go with|stick with|stick to)\s+(?P<a>" + _NAME + r")\s+"
                          r"(?:instead of|not|rather than|over|and not)\s+(?P<b>" + _NAME + r")$")
_USE_INSTEAD_TAIL = lazy(r"^(?:use|switch to)\s+(?P<a>" + _NAME + r")\s+instead$")
_USE_ONLY = lazy(r"^(?:use|its|it should be|should be|we use)\s+(?P<a>" + _NAME + r")$")
_ALWAYS = lazy(r"^(?P<kind>always|never|dont ever|do not ever|don'?t ever)\s+(?P<rest>[a-z].{2,80})$")
_FROM_NOW = lazy(r"^(?:from now on|going forward|in the future|in future|moving forward)[,:]?\s+"
                       r"(?P<rest>[a-z].{2,80})$|^(?P<rest2>[a-z].{2,80}?)[,]?\s+(?:from now on|going forward|"
                       r"in the future|moving forward)$")
_DONT_USE = lazy(r"^(?:dont|do not|don'?t|never|stop using|no more|avoid|please dont|please do not)\s+"
                       r"(?:use\s+|using\s+|add\s+|adding\s+)?(?P<x>(?:the |any )?[a-z0-9@#.+/_ -]{1,40})$")
_NO_X = lazy(r"^no\s+(?P<x>" + _STYLE_ALT + r"|" + _NAME + r")$")
_WE_USE = lazy(r"^(?:we|this (?:project|repo|codebase|app)|the (?:project|repo|codebase))\s+(?:use|uses|are "
                     r"using|is using|run on|runs on|are on|is on)\s+(?P<x>" + _NAME + r"(?: " + _NAME + r")?)$")
_STYLE_PLEASE = lazy(r"^(?:use\s+|prefer\s+|only\s+)?(?P<x>" + _STYLE_ALT + r")(?:\s+only)?$")
_PREFER = lazy(r"^(?:i |we )?(?:prefer|would prefer|like)\s+(?P<a>" + _NAME + r")\s+(?:over|to|instead of|"
                     r"rather than)\s+(?P<b>" + _NAME + r")$")
_ON_OS = lazy(r"^(?:im|i am|i'm|were|we are|we're)\s+(?:on|using|running)\s+(?:a\s+)?(?P<x>windows|mac|macos|"
                    r"osx|linux|ubuntu|debian|fedora|arch|wsl|wsl2)(?:\s+\d+)?$")
_I_USE = lazy(r"^i (?:use|am using|m using|'m using|prefer)\s+(?:the\s+)?(?P<x>fish|zsh|bash|vim|neovim|nvim|emacs|"
                    r"vscode|cursor|powershell)(?:\s+shell)?$")
_PORTS = lazy(r"^(?:(?:the |its |it should be |should be |use )?(?:port\s+)?)?(?P<a>\d{2,5})\s*,?\s+"
                    r"(?:not|instead of)\s+(?:port\s+)?(?P<b>\d{2,5})$")
_SERVER_WORDS = (("dev server", "The dev server"), ("vite", "The dev server"), ("npm run dev", "The dev server"),
                 ("frontend", "The frontend"), ("backend", "The backend"), ("api", "The API"),
                 ("database", "The database"), ("postgres", "The database"), ("server", "The server"),
                 ("app", "The app"))


_PLEASE_TAIL = lazy(r"\b(?:please|pls|plz)[.!]*$")
#: names that stand for one another: asking for one rejects the other the agent just used
_RIVALS = (("npm", "pnpm", "yarn", "bun"), ("pip", "pip3", "uv", "poetry", "pipenv", "conda"),
           ("jest", "vitest", "mocha"), ("single quotes", "double quotes"), ("tabs", "spaces", "2 spaces", "4 spaces"),
           ("prettier", "biome"), ("black", "ruff"), ("eslint", "biome"), ("docker", "podman"),
           ("webpack", "vite", "esbuild"), ("mysql", "postgres", "postgresql", "sqlite"))


def _sibling(name: str, prev_lower: str) -> str | None:
    """A rival of ``name`` that the agent's previous reply mentions, if any."""
    return next((other for group in _RIVALS if name in group
                 for other in group if other != name and _in(other, prev_lower)), None)


def _in(token: str, text: str) -> bool:
    return bool(text) and bool(re.search(r"(?<![\w.-])" + re.escape(token) + r"(?![\w-])", text))


def _is_name(token: str) -> bool:
    return bool(_NAME_RE.match(token)) and (token in TOOLS or token in STYLE_TERMS or bool(_CODEY.search(token)))


def _typed(word: str, original: str) -> str | None:
    """``word`` as the user typed it in ``original`` (any case), or None."""
    found = re.search(r"(?<![\w@#./-])" + re.escape(word) + r"(?![\w@#+/-])", original, re.IGNORECASE)
    return found.group(0) if found else None


def _show(token: str, original: str) -> str:
    """A name as it should read in a rule: canonical casing, else as typed."""
    return _CANONICAL.get(token) or _typed(token, original) or token


def _core(lower: str) -> tuple[str, bool]:
    """(the message without friendly filler at its edges — "no, … here pls" —,
    whether it opened by rejecting something: "no, …", "nope …")."""
    text = " ".join(lower.replace("\u2019", "'").split())
    rejected = False
    for _ in range(2):
        text = _FILLER_HEAD.sub("", text)
        stripped = _REJECTION_HEAD.sub("", text)
        rejected = rejected or stripped != text
        text = _FILLER_TAIL.sub("", stripped).strip(" ,.!")
    return text, rejected


def _recase(phrase: str, original: str) -> str:
    """Words of a lowercase phrase in the casing the user typed (or canonical)."""
    def cased(word: str) -> str:
        typed = _CANONICAL.get(word) or _typed(word, original)
        return typed if typed and (word in _CANONICAL or typed.lower() == word) else word

    return " ".join(cased(word) for word in phrase.split(" "))


def _clean_phrase(rest: str) -> str | None:
    """A short standing-rule verb phrase, or None when it can't be phrased exactly."""
    rest = rest.strip(" ,.!")
    words = rest.split()
    if not words or len(words) > 10 or words[0] not in _RULE_VERBS:
        return None
    if _POINTING.search(rest) or any(c in rest for c in "?;:()\"") or " and " in f" {rest} " and len(words) > 6:
        return None
    rest = re.sub(r"\bme\b", "the user", rest)
    rest = re.sub(r"\bmy\b", "the user's", rest)
    return rest.replace("dont ", "don't ").replace("doesnt ", "doesn't ")


def _port_subject(*texts: str) -> str | None:
    joined = " ".join(t.lower() for t in texts if t)
    return next((subject for word, subject in _SERVER_WORDS
                 if re.search(r"\b" + re.escape(word) + r"\b", joined)), None)


_NEXT = object()  # a phraser's pattern did not match: the next one tries


@dataclass(frozen=True, slots=True)
class _Said:
    focus: str  # the message's focus text, original case
    lower: str  # its lowercase form with ASCII apostrophes
    core: str  # without friendly filler at its edges
    prev: str  # the agent's previous reply, lowercase
    rejected: bool  # it opened by rejecting something: "no, …"

    def rule(self, text: str, category: str, rejected: str | None = None, rejects_prev: bool = False, *,
             contrast: bool = False) -> Phrased:
        return Phrased(text, category, rejected, rejects_prev, self.rejected, contrast)


def phrase(focus: str, lower: str, prev: str | None = None) -> Phrased | None:
    """The durable rule ``focus`` (original case; ``lower``: lowercase, ASCII apostrophes) states,
    phrased by tacit, or None; ``prev`` is the agent's previous reply."""
    if not focus or "\n" in focus.strip() or len(focus) > 160:
        return None
    core, rejected = _core(lower)
    if not core or len(core.split()) > 12 or "?" in core or _SENTENCE_INSIDE.search(core):
        return None  # empty, long, a question, or more than one sentence
    said = _Said(focus, lower, core, (prev or "").lower(), rejected)
    for phraser in (_port_rule, _choice_rule, _dont_rule, _standing_rule, _fact_rule):
        found = phraser(said)
        if found is not _NEXT:
            return found
    return None


def _port_rule(s: _Said):
    match = _PORTS.match(s.core)
    if not match:
        return _NEXT
    a, b = match.group("a"), match.group("b")
    in_prev = re.search(r"(?<!\d)" + b + r"(?!\d)", s.prev)
    port_context = "port" in s.core or "port" in s.prev or "localhost" in s.prev or f":{b}" in s.prev
    if not (in_prev and port_context):
        return None  # "2025 not 2024": numbers, but not ports
    subject = _port_subject(s.core, s.prev[-600:])
    return s.rule(f"{subject} runs on port {a}, not {b}." if subject else f"Use port {a}, not {b}.", "fact", b, True)


def _choice_rule(s: _Said):
    """"A, not B", "use A instead of B", "prefer A over B", "no, use A", a style, "pnpm pls"."""
    for pattern in (_USE_INSTEAD, _CONTRAST, _PREFER):
        match = pattern.match(s.core)
        if match:
            a, b = match.group("a"), match.group("b")
            if a == b or not (_is_name(a) or _is_name(b)):
                return None
            in_prev = _in(b, s.prev)
            if not (in_prev or a in TOOLS or b in TOOLS or a in STYLE_TERMS or b in STYLE_TERMS):
                return None  # code-ish names only: the rejected one must be what the agent just used
            verb, joiner = ("Prefer", " over ") if pattern is _PREFER else ("Use", ", not ")
            return s.rule(f"{verb} {_show(a, s.focus)}{joiner}{_show(b, s.focus)}.", "preference", b, in_prev,
                          contrast=pattern is not _PREFER)
    match = _USE_INSTEAD_TAIL.match(s.core) or (_USE_ONLY.match(s.core) if s.rejected else None)
    if match and match.group("a") in TOOLS:
        return s.rule(f"Use {_show(match.group('a'), s.focus)}.", "preference")
    match = _STYLE_PLEASE.match(s.core)
    if match:
        sibling = _sibling(match.group("x"), s.prev)
        return s.rule(f"Use {_STYLE_SPOKEN[match.group('x')]}.", "preference", sibling, sibling is not None)
    if s.core in TOOLS and s.core != s.lower.strip(" .!") and _PLEASE_TAIL.search(s.lower):
        # "pnpm pls": the tool alone, asked for; a correction when the agent just used its rival
        sibling = _sibling(s.core, s.prev)
        return s.rule(f"Use {_show(s.core, s.focus)}.", "preference", sibling, sibling is not None)
    return _NEXT


def _dont_use(x: str, s: _Said, *, names: bool) -> Phrased | None:
    """"Don't use X." for a style or a tool (``names``: any one code-ish name too), else None."""
    if x in _STYLE_SPOKEN:
        return s.rule(f"Don't use {_STYLE_SPOKEN[x]}.", "preference", x, _in(x, s.prev))
    if x in TOOLS or (names and _is_name(x) and " " not in x):
        return s.rule(f"Don't use {_show(x, s.focus)}.", "preference", x, _in(x, s.prev))
    return None


def _dont_rule(s: _Said):
    """"no X", "don't use X", "never force-push"."""
    match = _NO_X.match(s.core)
    if match:
        return _dont_use(match.group("x"), s, names=False)
    match = _DONT_USE.match(s.core)
    if not match:
        return _NEXT
    found = _dont_use(match.group("x").strip().removeprefix("the ").removeprefix("any "), s, names=True)
    if found or not (s.core.split()[0] in ("never", "dont", "don't") or s.core.startswith("do not")):
        return found
    # "don't add comments", "never force-push": a standing verb phrase
    words = _clean_phrase(re.sub(r"^(?:dont|don't|do not|never)\s+", "", s.core))
    verb = "Never" if s.core.startswith("never") else "Don't"
    return s.rule(f"{verb} {_recase(words, s.focus)}.", "preference") if words else None


def _standing_rule(s: _Said):
    """"always X", "never X", "from now on, X"."""
    always = _ALWAYS.match(s.core)
    match = always or _FROM_NOW.match(s.core)
    if not match:
        return _NEXT
    words = _clean_phrase(match.group("rest") or match.groupdict().get("rest2") or "")
    if not words:
        return None
    words = _recase(words, s.focus)
    if always:
        return s.rule(f"{'Always' if always.group('kind') == 'always' else 'Never'} {words}.", "preference")
    return s.rule(f"{words[0].upper()}{words[1:]}.", "preference")


def _fact_rule(s: _Said):
    """"we use X", "I'm on macOS", "I use fish"."""
    match = _WE_USE.match(s.core)
    if match:
        names = match.group("x").split()
        if all(n in TOOLS or _is_name(n) for n in names) and any(n in TOOLS for n in names):
            return s.rule(f"This project uses {' '.join(_show(n, s.focus) for n in names)}.", "fact")
        return None
    match = _ON_OS.match(s.core)
    if match:
        return s.rule(f"The user is on {_show(match.group('x'), s.focus)}.", "fact")
    match = _I_USE.match(s.core)
    if not match:
        return None
    if match.group("x") in ("fish", "zsh", "bash", "powershell"):
        return s.rule(f"The user uses the {_show(match.group('x'), s.focus)} shell.", "fact")
    return s.rule(f"The user uses {_show(match.group('x'), s.focus)}.", "fact")

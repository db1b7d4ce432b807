"""The words guards are derived with: known programs and their families,
branch, remote and file names, the spellings of "never", the readers of
lists, branches, remotes and paths shared by ``derive`` and ``shapes``, and
``verb_of`` ("renaming" → "rename"; a word that is no gerund of a rule verb has none)."""

from __future__ import annotations

import re
import shlex

from tacit.lazyre import lazy
from tacit.guards.code_names import code_object

_FAMILIES = {
    "js_pm": ("npm", "pnpm", "yarn", "bun", "npx", "pnpx", "bunx", "yarnpkg"),
    "py_pm": ("pip", "pip3", "uv", "poetry", "pipenv", "pdm", "conda", "mamba", "micromamba",
              "rye", "hatch", "pipx", "uvx", "easy_install"),
    "python": ("python", "python3", "python2", "pypy", "pypy3", "py"),
    "js_runtime": ("node", "nodejs", "bun", "deno"),
    "container": ("docker", "podman", "nerdctl", "docker-compose", "podman-compose", "finch"),
    "js_test": ("jest", "vitest", "mocha", "jasmine", "ava", "karma", "uvu"),
    "py_test": ("pytest", "unittest", "nose", "nose2", "nosetests", "tox", "nox", "ward"),
    "py_lint": ("flake8", "ruff", "pylint", "black", "isort", "autopep8", "yapf", "pycodestyle",
                "pyflakes", "blue"),
    "py_types": ("mypy", "pyright", "pyre", "pytype", "basedpyright"),
    "js_lint": ("eslint", "prettier", "biome", "oxlint", "standard", "tslint", "dprint", "rome",
                "xo"),
    "bundler": ("webpack", "vite", "rollup", "esbuild", "parcel", "tsup", "rspack"),
    "search": ("grep", "rg", "ag", "ack", "egrep", "fgrep", "ripgrep"),
    "find": ("find", "fd", "fdfind"),
    "http": ("curl", "wget", "http", "httpie", "xh"),
    "task": ("make", "just", "task", "mage", "gmake"),
    "iac": ("terraform", "tofu", "pulumi"),
    "java_build": ("mvn", "gradle", "gradlew", "mvnw"),
    "ts_run": ("tsc", "tsx", "ts-node", "swc", "esno"),
    "venv": ("virtualenv", "venv"),
    "go_fmt": ("gofmt", "gofumpt", "goimports"),
    "priv": ("sudo", "doas"),
    "k8s": ("kubectl", "oc", "kubecolor"),
    "editor": ("vim", "vi", "nano", "emacs", "nvim"),
    "cat": ("cat", "bat"),
    "ls": ("ls", "exa", "eza", "lsd"),
    "node_vm": ("nvm", "fnm", "volta", "nodenv", "nodeenv"),
}
_FAMILY_OF: dict[str, set] = {}
for _fam, _names in _FAMILIES.items():
    for _name in _names:
        _FAMILY_OF.setdefault(_name, set()).add(_fam)

# programs "never run <program> …" accepts unquoted, besides the families
_KNOWN_PROGRAMS = frozenset(_FAMILY_OF) | frozenset((
    "git", "rm", "mv", "cp", "cargo", "go", "rustup", "helm", "ansible", "ansible-playbook",
    "aws", "gcloud", "az", "gh", "heroku", "vercel", "netlify", "flyctl", "fly", "firebase",
    "supabase", "prisma", "alembic", "rails", "rake", "bundle", "gem", "php", "composer",
    "artisan", "django-admin", "psql", "mysql", "mongo", "mongosh", "redis-cli", "systemctl",
    "service", "shutdown", "reboot", "brew", "apt", "apt-get", "yum", "dnf", "pacman", "snap",
    "chmod", "chown", "dd", "mkfs", "kill", "killall", "pkill", "rsync", "scp", "ssh", "sed",
    "crontab", "truncate", "shred", "dropdb", "createdb", "pg_dump", "pg_restore", "flask",
    "wrangler", "serverless", "sls", "cdk", "sam", "nx", "turbo", "lerna", "changeset",
    "semantic-release", "skaffold", "kustomize", "minikube", "kind", "eksctl", "vagrant",
    "packer", "nomad", "consul", "vault", "dotnet", "swift", "xcodebuild", "flutter", "dart",
    "mix", "elixir", "iex", "stack", "cabal", "ghc", "sbt", "lein", "clojure", "zig", "deno",
    "docker-compose", "compose", "sqlite3", "ffmpeg", "terraform", "tofu", "pulumi", "npm",
    "git-lfs", "dvc", "mlflow", "jupyter", "celery", "gunicorn", "uvicorn", "manage.py",
    "next", "nuxt", "nuxi", "astro", "expo", "ng", "tauri", "storybook", "playwright", "cypress", "su",
))
_SUDO_WORDS = frozenset(("sudo", "doas", "su"))
_WELL_KNOWN_BRANCHES = frozenset(("main", "master", "develop", "dev", "trunk", "gh-pages"))
_WELL_KNOWN_REMOTES = frozenset(("origin", "upstream"))
# "shared branches" names no branch: the ones every project shares are main and master
_SHARED_BRANCH_WORDS = frozenset(("shared", "protected", "public", "long-lived", "default", "common"))
# words that point at branches named elsewhere ("these branches", "such remotes"), never a name
_POINTING = frozenset(("these", "those", "this", "that", "such", "said", "above", "listed", "following", "other",
                       "same", "which", "whichever", "those protected", "the above", "the listed"))
# program names that are also English words ("make new commits")
_ENGLISH_TOOLS = frozenset(("make", "just", "task", "find", "standard", "blue", "http", "cat", "ls", "py",
                            "ward", "rome", "venv", "stack", "kind", "mix", "swift", "dart", "service", "snap",
                            "fly", "compose", "nose", "ava", "karma", "xo", "ag", "ack", "fd", "oc", "vi"))
_EXTENSIONLESS_FILES = frozenset((
    "makefile", "dockerfile", "gemfile", "procfile", "jenkinsfile", "rakefile", "vagrantfile",
    "codeowners", "license", "brewfile", "justfile", "containerfile", "podfile", "pipfile",
    "caddyfile", "tiltfile", "earthfile", "snakefile", "gnumakefile", "node_modules"))


def by_first_letter(alternatives: str) -> str:
    """``a|b|…`` (plain words, no group) as one alternation per first letter, in the same order within a
    letter: the same matches tried in the same order, but under IGNORECASE the regex engine enters
    every alternative at each place, grouped only the ones of the letter there (issue 19)."""
    groups: dict = {}
    for word in alternatives.split("|"):
        assert word[:1].isalpha(), word
        groups.setdefault(word[0], []).append(word[1:])
    return "(?:" + "|".join(letter + (f"(?:{'|'.join(rests)})" if len(rests) > 1 else rests[0])
                            for letter, rests in groups.items()) + ")"


# "IMPORTANT: never …" · "please never …" · "no, don't …": said before a rule's cue word
SAID_BEFORE_CUE = (r"(?:(?:please|pls|plz|kindly|important|note|nb|critical|warning|reminder|rule|again|also|btw|fyi|psa|"
                   r"no|nope|hey|hi|hello|yo|ok|okay|so|and|oh|just|anyway|ugh|ffs|dude|look)\b\s*[,:!]?\s*)*")
_DONT = (rf"(?:{by_first_letter('you|we|i|agents?|the agent|ai agents?|claude|the assistant')}\s+)?"
         + by_first_letter("never|don'?t|do not|dont|no|must not|mustn'?t|must never|should not|shouldn'?t|"
                           "should never|shall not|shall never|will never|cannot|can'?t|may not|are not allowed to|"
                           "is not allowed to|not allowed to|are forbidden to|do not ever|never ever"))
_PATH_VERB = (r"(?:touch|edit|modify|change|alter|write to|write into|write in|overwrite|write|create|"
              r"update|mess with|hand-edit|hand edit|hand-(?:modify|change|write|update)|rewrite|reformat|"
              r"add (?:new |any )?files (?:to|in|into|under)|make (?:any )?(?:(?:direct|manual) )?(?:changes|edits) to)")
# "a, b or c" · "a and b" · "a nor b": between the items of a list
_AND_OR = r"\s*(?:,\s*(?:or|and|nor)\s+|,|\bor\b|\band\b|\bnor\b)\s*"
_LIST_SPLIT = lazy(r"\s*(?:,\s*(?:or|and|nor)\s+|,|\bor\b|\band\b|\bnor\b|/(?=\s))\s*", re.I)


def listed(item: str) -> str:
    """A pattern for ``item`` said once or as a list of them ("`a`, `b` or `c`")."""
    return rf"(?:{item})(?:{_AND_OR}(?:{item}))*"


def shell_words(text: str) -> list[str]:
    """``shlex.split(text)``; a printable ASCII text with no quote or backslash is split at its spaces
    at once (the same words)."""
    if text.isascii() and text.isprintable() and "'" not in text and '"' not in text and "\\" not in text:
        return text.split()
    return shlex.split(text)


def first_match(patterns, text: str):
    """The match of the first of ``patterns`` that matches all of ``text``, or None."""
    return next((m for p in patterns if (m := p.fullmatch(text))), None)


_PATH_LIST_SPLIT = lazy(r"\s*(?:,\s*(?:or|and|nor)\s+|,|\s(?:or|and|nor)\s)\s*", re.I)
_PATH_WORD = lazy(r"[\w.*?~@+\-/\[\]]+")
_BRANCH_WORD = lazy(r"[A-Za-z0-9][A-Za-z0-9._/-]*")
_BRANCH_GLOB = lazy(r"[A-Za-z0-9][A-Za-z0-9._/-]*\*[A-Za-z0-9._/*-]*")  # `release/*`: said as branches only
_CMD_WORD = lazy(r"[A-Za-z0-9][A-Za-z0-9:_.+-]*")
_FLAG_WORD = lazy(r"--?[A-Za-z0-9][A-Za-z0-9-]*(?:=[^\s`'\"]+)?")
_STOP_WORDS = frozenset((
    "the", "a", "an", "any", "all", "anything", "on", "in", "for", "with", "without", "unless",
    "before", "after", "when", "if", "while", "until", "against", "from", "to", "into", "of",
    "or", "and", "but", "because", "since", "then", "so", "it", "them", "this", "that", "these",
    "those", "my", "our", "your", "their", "is", "are", "be", "as", "by", "at", "via", "during",
    "except", "only", "first", "locally", "manually", "automatically", "unless", "just", "any",
    "every", "everything", "again", "instead", "prod", "production", "staging", "yet", "now",
    "commands", "command", "scripts", "script", "tests", "migrations", "things", "stuff", "there", "here"))
# "pm2 delete all": where "all" is the argument of a known form of the command, not a word of prose
ALL_FORMS = frozenset((("pm2", "delete"), ("pm2", "stop"), ("pm2", "restart"), ("pm2", "reload"), ("pm2", "reset"),
                       ("supervisorctl", "stop"), ("supervisorctl", "restart"), ("supervisorctl", "start")))
_SHELL_META = lazy(r"[|;&<>$`(){}\\]")


def _stem(word: str) -> str:
    """"branches" → "branch", "commits" → "commit", "merging" → "merg" (a key, not a word)."""
    w = word.lower()
    for end in ("ches", "shes", "ing", "es", "s"):
        if w.endswith(end) and len(w) - len(end) >= 3:
            return w[: -len(end)] + ("ch" if end == "ches" else "sh" if end == "shes" else "")
    return w


# "`npm run <script>`" · "`pip install [pkg]`" · "`pnpm …`" · "`npm i $PKG`" · "`npm i <pkg>@latest`":
# a placeholder after the command, any argument
_PLACEHOLDER_ARG = lazy(r"\s+(?:<[^<>\s][^<>]*>(?:@[\w.^~-]+)?|\[[^\[\]]+\]|\{[^{}]+\}|\.\.\.|\u2026|"
                        r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)(?=\s|$)")
# "`npm install X`" · "`pip install PACKAGE`" · "`cargo add something`": a word that stands for any argument
_PLACEHOLDER_UPPER = lazy(r"[A-Z]|(?:[A-Z]+[_-])?(?:PKG|PACKAGES?|NAME|FILES?|FILENAME|PATH|DIR|BRANCH|VERSION|MODULE|"
                          r"DEPS?|DEPENDENCY|ARGS?|TARGET|URL|CMD|COMMAND|SCRIPT|TAG|REMOTE|REF|SHA|HASH|LIB|CRATE|GEM|"
                          r"FOO|BAR)(?:[_-][A-Z]+)?")
_PLACEHOLDER_LOWER = lazy(r"\.{3}|\u2026|something|anything|whatever|stuff|foo|bar|baz|foobar|xyz|packages?|"
                          r"(?:some|any|your|my|a|the|new)[-_]?(?:package|pkg|module|lib|library|dep|dependency|crate|gem|"
                          r"thing|file|branch)s?|(?:package|pkg|module|lib|library|dep|dependency|crate|gem|file|branch|"
                          r"script)[-_]?names?")


# a script of the project by its path: `./x`, `../x`, `scripts/x`, `bin/x`, `x.sh` — not `io/ioutil`, `github.com/a/b`
_SCRIPT_LIKE = lazy(r"\.{1,2}/\S+|(?:[\w.-]+/)*(?:bin|scripts?|tools|hack|dev|ci)/[\w.-]+|"
                    r"(?:[\w.-]+/)*[\w.-]+\.(?:sh|bash|zsh|py|rb|pl|js|mjs|cjs|ts|ps1|cmd|bat|nu)")


def placeholder(word: str) -> bool:
    """Whether a word of a quoted command stands for any argument ("X", "PKG", "something")."""
    return bool(_PLACEHOLDER_UPPER.fullmatch(word) or _PLACEHOLDER_LOWER.fullmatch(word))


# "never npm install new packages": which ones the check cannot tell (a bare `npm install` adds none)
_MODIFIERS = frozenset(("new", "extra", "more", "additional", "other", "random", "unknown", "external", "global",
                        "third-party", "arbitrary", "unapproved", "unvetted", "unnecessary", "unneeded", "big", "heavy",
                        "some", "any", "all", "such", "these", "those"))


def without_placeholders(words: list) -> list | None:
    """A command's words with the placeholders at its end dropped (`npm install X --save`
    → `npm install --save`); None when one stands before a word that must match, or
    after a word that narrows it ("new packages")."""
    out = list(words[:1])
    for i, w in enumerate(words[1:], 1):
        if not placeholder(w) or i == 2 and w.islower() and words[1].lower() in ("run", "run-script"):
            out.append(w)  # `npm run package`: a script's name, not "any package"
        elif any(not x.startswith("-") and not placeholder(x) for x in words[i + 1:]) or \
                words[i - 1].lower() in _MODIFIERS:
            return None
    return out


def _unquote(word: str) -> str:
    w = word.strip()
    if len(w) >= 2 and w[0] == w[-1] and w[0] in "`'\"":
        return _PLACEHOLDER_ARG.sub("", w[1:-1].strip()).strip()
    return w


def _split_list(text: str) -> list[str]:
    out = []
    for p in _LIST_SPLIT.split(text.strip()):
        parts = p.split("/")
        # "pip/conda": two tools; "main/master": two branches; "release/1.x" stays one name
        out.extend(parts if len(parts) > 1 and (all(_unquote(x).lower() in _FAMILY_OF for x in parts) or
                                                all(_unquote(x).lower() in _WELL_KNOWN_BRANCHES for x in parts)) else [p])
    return [p for p in out if p]


def _targets(text: str | None) -> tuple[tuple, tuple] | None:
    """``main or master`` → (("main", "master"), ()); ``the prod remote`` → ((), ("prod",)); None
    when a name is not certainly a branch or a remote (a quoted unknown name stays a branch)."""
    if text is None:
        return (), ()
    text = text.strip()
    if re.fullmatch(r"(?:the|a|any|your|a shared)\s+remotes?(?:\s+(?:repo|repository|server))?|remotes?|git(?:hub)?", text, re.I):
        return (), ()  # "push to the remote" · "push to git": any push
    marked = remote_marked = False
    m = re.fullmatch(r"(?:the\s+)?(.+?)\s+(branch(?:es)?|remotes?)", text, re.I)
    if m:
        text = m.group(1)
        marked = m.group(2).lower().startswith("branch")
        remote_marked = not marked
        if text.lower() in _POINTING:
            return None  # "never commit to these branches": the names are said elsewhere
        if re.fullmatch(r"(?:any|every|all)(?:\s+the)?(?:\s+remote)?", text, re.I):
            return (), ()  # "never push to any branch": every push, not a branch named "any"
        if "/" in text and all(w.lower() in _SHARED_BRANCH_WORDS for w in text.split("/")):
            text = text.split("/")[0]  # "shared/protected branches": kinds, not a branch named so
    branches, remotes = [], []
    for part in _split_list(text):
        quoted = len(part) >= 2 and part[0] == part[-1] and part[0] in "`'\""
        name = _unquote(part)
        if name.lower().startswith("origin/") and not remote_marked:
            name = name[len("origin/"):]
        if (quoted or marked) and not remote_marked and _BRANCH_GLOB.fullmatch(name):
            branches.append(name)
            continue
        if not _BRANCH_WORD.fullmatch(name):
            return None
        low = name.lower()
        if marked and not quoted and low in _SHARED_BRANCH_WORDS:
            branches += ["main", "master"]
        elif remote_marked or (low in _WELL_KNOWN_REMOTES and not marked):
            remotes.append(name if quoted or remote_marked else low)
        elif marked or quoted:
            branches.append(name)
        elif low in _WELL_KNOWN_BRANCHES:
            branches.append(low)
        else:
            return None
    if not branches and not remotes:
        return None
    return tuple(dict.fromkeys(branches)), tuple(dict.fromkeys(remotes))


# what a command line's subcommand does, in many programs: "never use `hyprpm update`" names a program
_CLI_VERBS = frozenset(("install", "uninstall", "update", "upgrade", "deploy", "publish", "release", "push", "pull",
                        "reset", "clean", "init", "sync", "migrate", "load", "unload", "destroy", "apply", "prune",
                        "purge", "login", "logout", "restart"))


# a word a shouted command keeps as written: a path or a file ("src/API.ts"), a one-letter flag (-A is not -a)
_KEEPS_CASE = lazy(r"[^/.]*[/.].*|-[A-Za-z]")


def unshouted(words: list) -> list:
    """`PRISMA MIGRATE RESET`, "NEVER RUN GIT PUSH --FORCE": a command said in capitals is shouted, and
    commands are typed lower-case; a mixed-case one, and its paths and one-letter flags, keep their case."""
    said = [w for w in words if not _KEEPS_CASE.fullmatch(w)]
    if len(words[0]) < 2 or not said or said[0] is not words[0] or any(not w.isupper() for w in said):
        return words
    return [w if _KEEPS_CASE.fullmatch(w) else w.lower() for w in words]


def cli_command(words: list) -> bool:
    """``hyprctl plugin load``: an unknown program's command line, said by its lowercase words and a
    subcommand that says an act of many programs (``const enum``, ``new Date`` say none)."""
    return (2 <= len(words) <= 4 and all(re.fullmatch(r"[a-z][a-z0-9-]*", w) for w in words)
            and any(w in _CLI_VERBS for w in words[1:]))


# file extensions said as a quoted word before "files"
_EXTENSIONS = frozenset(("ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "go", "rs", "rb", "java", "kt", "swift", "c",
                         "h", "cpp", "hpp", "cs", "json", "yaml", "yml", "toml", "md", "mdx", "css", "scss", "html",
                         "vue", "svelte", "sql", "sh", "proto", "ipynb", "php", "lua", "zig", "dart"))


# words that say which kind of folder or file, not its name ("system directories", "the root folder")
_KIND_WORDS = frozenset(("system", "other", "parent", "external", "home", "hidden", "unrelated", "sibling",
                         "protected", "sensitive", "user", "global", "important", "critical", "random", "arbitrary",
                         "existing", "new", "empty", "nested", "outside", "private", "personal", "upstream",
                         "production", "unknown", "different", "original", "relevant", "project", "root",
                         "temporary", "os", "installation", "those", "these", "such", "certain", "some"))


def _path_pattern(part: str) -> str | None:
    """One path in a lesson → its pattern, or None when it is not clearly a path."""
    part = part.strip()
    quoted = len(part) >= 2 and part[0] == part[-1] and part[0] in "`'\""
    n = re.fullmatch(r"(?:the\s+)?(`[^`]+`|\S*/\S*)\s+[a-z]+s", part)  # "`sysconfig/` snapshots"
    if n and not _unquote(n.group(1)).endswith(("/", "*")):
        n = None  # "`package.json` versions": a part of a file, not the file
    if n and not re.fullmatch(r"(?:the\s+)?\S+\s+(?:folders|directories|dirs|files)", part, re.I):
        part = n.group(1)
    # "my personal ~/.km dir" · "our local `cache/` folder": whose it is changes nothing
    part = re.sub(r"^(?:my|our|your)\s+(?:(?:own|personal|local)\s+)?(?=\S)", "", part, flags=re.I)
    # "the global `.vscode/cspell.json`": which copy, said before a path
    part = re.sub(r"^(?:the\s+)?(?:global|root|top-level|shared)\s+(?=\S*[/.])", "", part, flags=re.I)
    m = re.fullmatch(r"(?:the\s+|any\s+)?(\S+)\s+(folders?|director(?:y|ies)|dirs?|files?|sub-?(?:folders?|director(?:y|ies)|dirs?))",
                     part, re.I)
    noun = None
    if m and not quoted and m.group(1).lower() in _KIND_WORDS:
        return None  # "never write to system directories": a kind of folder, not one named so
    if m and not quoted:
        part, noun = m.group(1), re.sub(r"^sub-?", "", m.group(2).lower()).rstrip("s")
        noun = {"directorie": "directory"}.get(noun, noun)
    word = _unquote(part)
    if not word or not _PATH_WORD.fullmatch(word) or "://" in word or word.startswith("@") or code_object(word):
        return None  # `process.env`: an object in code
    if ".." in word.split("/") or re.fullmatch(r"[\d.]+", word) or word.lower() in ("e.g", "i.e", "etc"):
        return None
    low = word.lower()
    looks = ("/" in word or word.startswith(".") and len(word) > 1 or "*" in word
             or re.search(r"[^./]\.[A-Za-z0-9]{1,10}$", word) or low in _EXTENSIONLESS_FILES)
    if noun in ("folder", "directory", "dir"):
        if low in ("the", "a", "this", "that", "your", "our", "my", "any") or not re.fullmatch(r"~?[\w.\-/]+", word):
            return None
        return word.rstrip("/") + "/"
    if noun == "file" and m.group(2).lower() == "files" and m.group(1).startswith("`") and low in _EXTENSIONS:
        return "*." + low  # "never make changes to `tsx` files": an extension said without its dot
    if noun == "file" and not looks:
        return None
    if noun == "file" and m.group(2).lower() == "files" and re.fullmatch(r"\.[a-z][a-z0-9]{0,8}(?:\.[a-z][a-z0-9]{0,7})?", word):
        return "*" + word  # "`.api` files": every file with that extension (and ".env" itself)
    if not looks and not (quoted and word.isupper() and len(word) >= 4 and word.isalpha()):
        return None  # a quoted bare word (`version`, `main`, `auth`) may be a field, a branch or a module
    if quoted and word.startswith("/") and word.strip("/") and word.strip("/").split("/")[0] not in _SYSTEM_ROOTS:
        return "." + word  # "`/prisma/migrations/` (DO NOT EDIT)": the project's folder, written from its root
    return word


# the folders of a machine's root ("/etc/hosts" is the machine's file, "/prisma/" the project's)
_SYSTEM_ROOTS = frozenset(("etc", "usr", "var", "tmp", "home", "opt", "bin", "sbin", "dev", "proc", "sys", "root", "mnt",
                           "media", "srv", "boot", "lib", "lib32", "lib64", "snap", "private", "run", "nix", "Users",
                           "Library", "System", "Applications", "Volumes", "Network", "cores", "workspace", "workspaces",
                           "app", "data"))


_ALIAS = {"i": "install", "ci": "install", "rm": "remove", "un": "uninstall", "up": "update", "ls": "list"}  # a job's words
# the job of a one-word program: "never rename files with mv", "never use `rm` to delete files"
_PURPOSE = {"mv": {"renam", "rename", "mov", "move"}, "rm": {"delet", "delete", "remov", "remove"},
            "rmdir": {"delet", "delete", "remov", "remove"}, "unlink": {"delet", "delete", "remov", "remove"},
            "cp": {"copy", "copi"}, "kill": {"kill", "stop"},
            "pkill": {"kill", "stop"}, "killall": {"kill", "stop"}}


# the verbs rules forbid (what a shape reads after "never")
RULE_VERBS = frozenset((
    "run", "use", "edit", "modify", "change", "touch", "commit", "push", "call", "execute", "invoke",
    "write", "update", "create", "amend", "install", "rebase", "skip", "bypass", "open", "merge", "stage",
    "delete", "pipe", "rename", "move", "remove", "add", "pass", "publish", "drop", "truncate", "format",
    "reformat", "regenerate", "rewrite", "overwrite", "alter", "close", "comment", "review", "label",
    "upload", "deploy", "squash", "revert", "reset", "clean", "disable", "type", "copy", "release",
))
_PREFIXES = ("hand", "force", "re", "auto")


def verb_of(word) -> str | None:
    """The rule verb ``word`` is the gerund of, or None."""
    low = word.lower() if isinstance(word, str) else ""
    if low == "force pushing":
        return "force push"
    prefix, dash, core = low.rpartition("-")
    if dash and prefix not in _PREFIXES or not core.endswith("ing") or len(core) < 5:
        return None
    stem = core[:-3]
    for verb in (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""):
        if verb in RULE_VERBS:
            return f"{prefix}-{verb}" if dash else verb
    return None

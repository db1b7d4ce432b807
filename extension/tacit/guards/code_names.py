"""Names in a rule that are objects in code, not files: `process.env`,
`sys.path`, `req.body`, `this.props`, `app.getConfig` ("never modify
`process.env`" is about code, and no path guard)."""

from __future__ import annotations

from tacit.lazyre import lazy

# "never modify `process.env`": an object in code, not a file (its head is a
# runtime's or a handler's object, or its tail a camelCase member)
_CODE_ROOTS = frozenset(("process", "window", "document", "navigator", "globalThis", "global", "os", "sys",
                         "self", "this", "cls", "module", "exports", "import", "Object", "Array", "JSON",
                         "Math", "console", "req", "res", "request", "response", "ctx", "state", "props",
                         "location", "localStorage", "sessionStorage", "super"))
# "never modify `auth.users` directly": a database schema's table (Supabase, Postgres, SQL Server), no file
_DB_SCHEMAS = frozenset(("auth", "public", "realtime", "pg_catalog", "information_schema", "dbo", "graphql_public",
                         "supabase_functions"))
_MEMBER = lazy(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")


# extensions that say "a file" whatever the name before them (`os.py`, `state.json`)
_FILE_EXTS = frozenset((
    "py", "pyi", "ipynb", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "json", "jsonc", "json5", "yaml",
    "yml", "toml", "ini", "cfg", "conf", "lock", "md", "mdx", "rst", "txt", "html", "htm", "css", "scss",
    "sass", "less", "vue", "svelte", "astro", "rs", "go", "rb", "java", "kt", "kts", "swift", "c", "h", "cc",
    "cpp", "hpp", "cs", "fs", "php", "sh", "bash", "zsh", "ps1", "sql", "xml", "xlf", "resx", "csproj", "sln",
    "gradle", "properties", "plist", "proto", "graphql", "gql", "tf", "tfvars", "hcl", "lua", "dart", "ex",
    "exs", "erl", "r", "jl", "scala", "clj", "zig", "nix", "snap", "csv", "tsv", "log", "png", "jpg", "jpeg",
    "svg", "gif", "pdf", "zip", "gz", "tgz", "wasm", "bin", "dll", "so", "dylib", "pem", "key", "crt", "api"))


def code_object(pattern: str) -> bool:
    """Whether a dotted name is an object in code (its head a runtime's or a
    handler's object, or a camelCase member), unless a file extension ends it."""
    if not _MEMBER.fullmatch(pattern):
        return False
    head, *rest = pattern.split(".")
    if rest[-1].lower() in _FILE_EXTS:
        return False
    return head in _CODE_ROOTS or head in _DB_SCHEMAS or any(part[:1].islower() and not part.islower() for part in rest)

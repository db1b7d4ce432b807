"""Guards that read what one program hands another: a download piped into a shell
(``PipeMatch``) and SQL given to a database client (``SqlMatch``). What each reads, and what it
leaves (a script file, quoted strings, a ``DELETE`` with a ``WHERE``): docs/guards.md, "Pipes and SQL".
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.model import PipeMatch, SqlMatch
from tacit.guards.shell import Invocation
from tacit.guards.writes import option_values

SQL_CLIENTS = frozenset(("psql", "mysql", "mariadb", "sqlite3", "duckdb", "sqlcmd", "clickhouse-client",
                         "cockroach", "pgcli", "mycli", "litecli"))
_SQL_OPTS = {"psql": ("-c", "--command"), "pgcli": ("-c", "--command"), "mysql": ("-e", "--execute"),
             "mariadb": ("-e", "--execute"), "mycli": ("-e", "--execute"), "sqlcmd": ("-Q", "-q"),
             "clickhouse-client": ("-q", "--query"), "cockroach": ("-e", "--execute")}
_POSITIONAL_SQL = frozenset(("sqlite3", "duckdb", "litecli"))
_STRINGS = lazy(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", re.S)
_DROP_TABLE = lazy(r"\bdrop\s+table\b", re.I)
_DROP_DATABASE = lazy(r"\bdrop\s+(?:database|schema)\b", re.I)
_TRUNCATE = lazy(r"\btruncate\b", re.I)
_DELETE = lazy(r"^\s*delete\s+from\b", re.I)
_WHERE = lazy(r"\bwhere\b", re.I)
# each statement kind: a test of the SQL with its strings and comments blanked
_TESTS = {"drop_table": lambda sql: _DROP_TABLE.search(sql), "drop_database": lambda sql: _DROP_DATABASE.search(sql),
          "truncate": lambda sql: _TRUNCATE.search(sql),
          "delete_without_where": lambda sql: any(_DELETE.match(s) and not _WHERE.search(s) for s in sql.split(";"))}
_SCRIPT_ARGS = frozenset(("-c", "-e", "-m"))
_HELP = frozenset(("--help", "-help", "-?"))  # `psql -c '…' --help`, `bash --help`: the help is printed, nothing runs


def pipe_fires(match: PipeMatch, inv: Invocation, call=None) -> bool:
    if inv.program not in match.sinks or not set(inv.upstream) & set(match.sources):
        return False
    if not match.code:
        return True  # "never pipe gradle output through tail": any such stage
    for a in inv.argv[1:]:
        if a in _HELP:
            return False
        if a == "--" or a == "-s" or a == "-":
            return True
        if a in _SCRIPT_ARGS or not a.startswith("-"):
            return False  # code given, or a script file: stdin is its data, not its code
    return True


_CONFIG_OPTS = frozenset(("-p", "--project", "-c", "--config", "--tsconfig", "--config-file", "-C"))
_FILE_ARG = lazy(r"[^\s=]*(?:/[^\s=/]+|\.[A-Za-z][\w]{0,9})")


def has_file_argument(argv: tuple) -> bool:
    """A positional argument names a file or a path (``src/a.ts``, ``x.py``);
    a config option's value (``tsc -p tsconfig.json``) is not one."""
    skip = False
    for a in argv[1:]:
        if skip:
            skip = False
            continue
        if a.startswith("-"):
            skip = a in _CONFIG_OPTS
            continue
        if _FILE_ARG.fullmatch(a) and ":" not in a:
            return True
    return False


def sql_texts(inv: Invocation) -> list[str]:
    """The SQL a client invocation is given."""
    argv = inv.argv
    out = [s for s in inv.stdin if s] + option_values(argv, _SQL_OPTS.get(inv.program, ()))
    if inv.program in _POSITIONAL_SQL:
        positional = [a for a in argv[1:] if not a.startswith("-")]
        out.extend(positional[1:])
    return out


def sql_fires(match: SqlMatch, inv: Invocation, call=None) -> bool:
    if inv.program not in SQL_CLIENTS or _HELP & set(inv.argv[1:inv.argv.index("--") if "--" in inv.argv else None]):
        return False
    bare = [_STRINGS.sub(" ", text) for text in sql_texts(inv)]
    return any(_TESTS[kind](sql) for sql in bare for kind in match.statements)

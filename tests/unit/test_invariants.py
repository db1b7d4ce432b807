"""The code-shape rules of the repository, checked on every run (issue 20).

No ``.execute*(`` outside ``stores/``; ``os.environ`` only in config, paths,
the children's environment and the hook client; module docstrings of at most
15 lines; modules of at most 600 lines and functions of at most 80; no
import from a higher layer; no host name outside ``hosts/``.

Today's exceptions are listed below, each with its count. The lists only
shrink: a new file or a higher count fails, and so does an entry that no
longer needs its exception (delete it, or lower its count).
"""

from __future__ import annotations

import ast
import collections
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "extension" / "tacit"
HOST_NAMES = {"claude-code", "claude_code", "codex", "hermes", "pi"}
ENVIRON_HOMES = {"config.py", "paths.py", "children/env.py", "hosts/hook_client.py"}

# Layers, lowest first: a module imports only from its own layer or a lower one.
LAYERS = [
    {"tacit", "tacit.log", "tacit.fsutil", "tacit.paths", "tacit.config", "tacit.resources", "tacit.events",
     "tacit.hookspecs", "tacit.projects", "tacit.session", "tacit.failures", "tacit.boundary",
     "tacit.privacy", "tacit.safety", "tacit.commandline", "tacit.scopes", "tacit.processes", "tacit.timespan", "tacit.slash_table",
     # the host specs are data every layer may read (tacit.hosts.spec)
     "tacit.hosts.spec", "tacit.hosts.claude_code.spec", "tacit.hosts.codex.spec", "tacit.hosts.hermes.spec",
     "tacit.hosts.pi.spec"},
    {"tacit.detect", "tacit.guards"},
    {"tacit.stores"},
    {"tacit.learn", "tacit.changes", "tacit.forget", "tacit.consolidation", "tacit.app", "tacit.children"},
    {"tacit.handlers", "tacit.engine", "tacit.slash", "tacit.search", "tacit.ui"},
    {"tacit.hosts", "tacit.service", "tacit.commands", "tacit.cli", "tacit.__main__"},
]

# -- today's exceptions (only ever shrink) -------------------------------------------------
EXECUTE_OUTSIDE_STORES: dict[str, int] = {}
ENVIRON_ELSEWHERE: dict[str, int] = {}  # read through Config.env (or config.live_env)
HOST_NAMES_ELSEWHERE = {  # to each host's spec (hosts/<name>/spec.py)
}
UPWARD_IMPORTS: set[str] = set()
LONG_MODULES: dict[str, int] = {  # data tables and parsers may stay above 600 lines, never above 1,200
}
LONG_FUNCTIONS: dict[str, int] = {  # at most three may stay above 80 lines
}
LONG_DOCSTRINGS = {  # essays: to docs/ as design notes
}


class Module:
    def __init__(self, path: Path):
        self.path = path
        self.name = path.relative_to(ROOT).as_posix()
        self.source = path.read_text(encoding="utf-8")
        self.tree = ast.parse(self.source, filename=str(path))
        dotted = self.name[:-3].replace("/", ".").removesuffix(".__init__")
        self.module = "tacit" if dotted == "__init__" else f"tacit.{dotted}"


MODULES = [Module(p) for p in sorted(ROOT.rglob("*.py"))]


def counted(find) -> dict[str, int]:
    found: dict[str, int] = collections.Counter()
    for module in MODULES:
        for node in ast.walk(module.tree):
            key = find(module, node)
            if key:
                found[key] += 1
    return dict(found)


def within(found: dict, allowed: dict, what: str) -> None:
    over = {k: v for k, v in found.items() if v > allowed.get(k, 0)}
    assert not over, f"{what}, new or more than allowed: {over}"
    stale = {k: v for k, v in allowed.items() if found.get(k, 0) < v}
    assert not stale, f"{what}: fewer than the allowlist says — shrink it: {stale} (found {found})"


def test_the_scan_sees_the_package():
    names = {m.name for m in MODULES}
    assert {"app.py", "stores/history.py", "hosts/hook_client.py"} <= names and len(names) > 100


def test_sql_only_in_stores():
    def execute(module, node):
        if module.name.startswith("stores/"):
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr.startswith("execute"):
            return module.name
        return None
    within(counted(execute), EXECUTE_OUTSIDE_STORES, ".execute*( outside stores/")


def test_environment_read_in_its_homes_only():
    def environ(module, node):
        if module.name in ENVIRON_HOMES:
            return None
        if isinstance(node, ast.Attribute) and node.attr == "environ" and \
                isinstance(node.value, ast.Name) and node.value.id == "os":
            return module.name
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "getenv":
            return module.name
        return None
    within(counted(environ), ENVIRON_ELSEWHERE, "os.environ outside config/paths/children env/hook client")


def test_host_names_only_in_hosts():
    def host_name(module, node):
        if module.name.startswith("hosts/"):
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in HOST_NAMES:
            return module.name
        return None
    within(counted(host_name), HOST_NAMES_ELSEWHERE, "a host name outside hosts/")


def layer_of(name: str) -> int | None:
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        for i, members in enumerate(LAYERS):
            if ".".join(parts[:n]) in members:
                return i
    return None


def test_every_module_has_a_layer():
    assert [m.module for m in MODULES if layer_of(m.module) is None] == []


def test_no_upward_imports():
    found = set()
    for module in MODULES:
        own = layer_of(module.module)
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                # "from tacit.hosts import spec" imports tacit.hosts.spec: judged by what it names
                names = [(node.module, f"{node.module}.{alias.name}") for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [(a.name, a.name) for a in node.names]
            else:
                continue
            for name, target in names:
                if name.startswith("tacit") and (layer_of(target) or 0) > own:
                    found.add(f"{module.name} -> {name}")
    assert found <= UPWARD_IMPORTS, f"imports from a higher layer: {sorted(found - UPWARD_IMPORTS)}"
    assert UPWARD_IMPORTS <= found, f"fixed, delete from UPWARD_IMPORTS: {sorted(UPWARD_IMPORTS - found)}"


def test_module_sizes():
    sizes = {m.name: len(m.source.splitlines()) for m in MODULES}
    over = {k: v for k, v in sizes.items() if v > max(600, LONG_MODULES.get(k, 0))}
    assert not over, f"modules over 600 lines (or over their allowance): {over}"
    assert max(LONG_MODULES.values(), default=0) <= 1200
    stale = [k for k in LONG_MODULES if sizes.get(k, 0) <= 600]
    assert not stale, f"back under 600 lines, delete from LONG_MODULES: {stale}"


def test_function_sizes():
    def long_function(module, node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 80:
            return f"{module.name}:{node.name}"
        return None
    found = {}
    for module in MODULES:
        for node in ast.walk(module.tree):
            key = long_function(module, node)
            if key:
                found[key] = node.end_lineno - node.lineno + 1
    over = {k: v for k, v in found.items() if v > LONG_FUNCTIONS.get(k, 0)}
    assert not over, f"functions over 80 lines (or over their allowance): {over}"
    stale = [k for k in LONG_FUNCTIONS if k not in found]
    assert not stale, f"back under 80 lines, delete from LONG_FUNCTIONS: {stale}"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.name)
def test_module_docstring_is_short(module):
    doc = ast.get_docstring(module.tree, clean=False) or ""
    lines = len(doc.splitlines())
    assert lines <= max(15, LONG_DOCSTRINGS.get(module.name, 0)), \
        f"{module.name}: a {lines}-line module docstring (at most 15; design notes go to docs/)"
    if module.name in LONG_DOCSTRINGS:
        assert lines > 15, f"{module.name} is short now: delete it from LONG_DOCSTRINGS"

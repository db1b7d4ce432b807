"""One spec per host (``tacit.hosts.spec``): the registry, the tables built from it, a fifth host."""

from __future__ import annotations

import sys
import textwrap

import pytest

from tacit.children import commands
from tacit.children.env import actor_from_env
from tacit.hookspecs import honoured
from tacit.hosts import spec


@pytest.fixture
def clean_registry():
    saved = spec.registry()
    yield
    with spec._lock:
        spec._hosts.clear()
        spec._hosts.update(saved)


def test_the_four_builtin_hosts_and_their_tables():
    assert spec.names() == ("claude-code", "codex", "hermes", "pi")
    assert {name: honoured(name) for name in spec.names()} == spec.table("honoured")
    assert "tool_call.ask" in honoured("claude-code") and "tool_call.ask" not in honoured("codex")
    assert honoured("no-such-host") == frozenset()
    assert commands.default_commands()["codex"][:2] == ["codex", "exec"]
    assert spec.table("prompt_stdin") == {"claude-code": None, "codex": "-", "hermes": None, "pi": None}
    assert spec.get("hermes").memory_tools == ("memory",)


def test_a_hosts_shell_marker_makes_a_cli_call_the_agents():
    assert actor_from_env({"CLAUDECODE": "1"}).host == "claude-code"
    assert actor_from_env({"SOMETHING_ELSE": "1"}).kind == "user"


def test_a_fifth_host_from_an_entry_point(tmp_path, monkeypatch, clean_registry):
    """A package of its own: a module with a ``Host`` and a ``tacit.hosts`` entry point."""
    (tmp_path / "my_agent_tacit.py").write_text(textwrap.dedent("""
        from tacit.hosts.spec import Host
        HOST = Host(name="my-agent", label="My Agent", honoured=frozenset({"notices"}),
                    child_command=("my-agent", "--print", "{prompt}"), shell_marker="MY_AGENT_SHELL")
    """))
    dist = tmp_path / "my_agent_tacit-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-agent-tacit\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[tacit.hosts]\nmy-agent = my_agent_tacit:HOST\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert spec.discover() == ["my-agent"]
    host = spec.get("my-agent")
    assert host.label == "My Agent" and spec.table("honoured")["my-agent"] == frozenset({"notices"})
    assert actor_from_env({"MY_AGENT_SHELL": "1"}).host == "my-agent"
    sys.modules.pop("my_agent_tacit", None)


def test_only_a_host_spec_registers(clean_registry):
    with pytest.raises(TypeError):
        spec.register({"name": "not-a-spec"})

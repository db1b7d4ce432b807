"""One spec per host (``tacit.hosts.spec``): the registry, the tables built from it, a fifth host."""

from __future__ import annotations

import sys
import textwrap

import pytest

from tacit.children.env import actor_from_env
from tacit.hookspecs import can_ask, honoured
from tacit.hosts import spec


@pytest.fixture
def clean_registry():
    saved = spec.registry()
    yield
    with spec._lock:
        spec._hosts.clear()
        spec._hosts.update(saved)


def test_the_four_builtin_hosts_and_their_tables():
    assert tuple(spec.registry()) == ("claude-code", "codex", "hermes", "pi")
    assert {name: honoured(name) for name in spec.registry()} == spec.table("honoured")
    assert "tool_call.ask" in honoured("claude-code") and "tool_call.ask" not in honoured("codex")
    assert honoured("no-such-host") == frozenset()
    assert spec.get("codex").child_command[:2] == ("codex", "exec")
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


def test_whether_a_host_can_ask_is_its_specs_word(tmp_path, monkeypatch, clean_registry):
    """``nobody_to_ask`` decides per call (Hermes: -z, --yolo); a check that fails denies."""
    monkeypatch.delenv("HERMES_YOLO_MODE", raising=False)
    monkeypatch.setattr(sys, "argv", ["hermes", "chat"])
    assert can_ask("hermes") and can_ask("claude-code") and not can_ask("codex") and not can_ask("nope")
    monkeypatch.setattr(sys, "argv", ["hermes", "-z", "hi"])
    assert not can_ask("hermes") and can_ask("claude-code")
    monkeypatch.setattr(sys, "argv", ["hermes", "chat"])
    monkeypatch.setenv("HERMES_YOLO_MODE", "1")
    assert not can_ask("hermes")
    (tmp_path / "broken_asker.py").write_text("def nobody():\n    raise RuntimeError('broken')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec.register(spec.Host(name="asker", label="Asker", honoured=frozenset({"tool_call.ask"}),
                            nobody_to_ask="broken_asker:nobody"))
    assert not can_ask("asker")
    sys.modules.pop("broken_asker", None)


def test_the_stdio_bridge_is_found_through_the_specs(clean_registry):
    assert spec.first_with("stdio_session").name == "pi" and spec.first_with("stdio_session", "pi").name == "pi"
    assert spec.first_with("stdio_session", "codex") is None and spec.first_with("rpc_session", "nope") is None

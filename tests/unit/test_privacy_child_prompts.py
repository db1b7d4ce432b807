"""Child prompts never on a command line (issue 14), for every host's default
command: stand-ins named ``claude``, ``codex``, ``pi`` and ``hermes`` on PATH
record what they received — their command line as the kernel shows it to
``ps`` (``/proc/self/cmdline``) and their stdin — and print the usage their
host prints, so the runner's parsing and the spend are checked too. The
``hermes`` stand-in is a Python console script whose ``hermes_cli.main:main``
is a fake module, as the real one is (the real binaries: tests/e2e).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tacit.children.commands import agent_available, build_command, script_python
from tacit.children.runner import run_job
from tacit.hosts import spec as host_specs
from tacit.config import load_config

RECORD = r'''
import json, os, sys, time
with open("/proc/self/cmdline", "rb") as handle:
    cmdline = [a.decode("utf-8", "replace") for a in handle.read().split(b"\0") if a]
stdin = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
with open(os.path.join(os.environ["STANDIN_LOG"], f"{time.time_ns()}.json"), "w") as handle:
    json.dump({"name": NAME, "cmdline": cmdline, "argv": sys.argv, "stdin": stdin}, handle)
'''
PRINTS = {
    "claude": 'print(json.dumps({"type": "result", "result": "Nothing to save.", "total_cost_usd": 0.0021, '
              '"usage": {"input_tokens": 1500, "cache_read_input_tokens": 300, "output_tokens": 20}, '
              '"modelUsage": {"claude-haiku-4-5": {}}}))',
    "codex": 'print(json.dumps({"type": "item.completed", "item": {"type": "agent_message", "text": "Nothing to save."}}))\n'
             'print(json.dumps({"type": "turn.completed", "usage": {"input_tokens": 4000, "cached_input_tokens": 1000, '
             '"output_tokens": 30, "reasoning_output_tokens": 0}}))',
    "pi": 'u = {"input": 900, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 910, '
          '"cost": {"total": 0.0009}}\n'
          'print(json.dumps({"type": "agent_end", "messages": [{"role": "assistant", "provider": "p", "model": "m", '
          '"content": [{"type": "text", "text": "Nothing to save."}], "usage": u}]}))',
}
# the record is taken in main(): the shim sets sys.argv after importing the module, before calling main()
HERMES_MAIN = "import json, os, sys, time\n\ndef record():\n" + "".join(
    f"    {line}\n" for line in RECORD.replace("NAME", '"hermes"').strip().splitlines()) + r'''
def main():
    record()
    args = sys.argv
    usage = args[args.index("--usage-file") + 1]
    with open(usage, "w") as handle:
        json.dump({"input_tokens": 700, "output_tokens": 7, "total_tokens": 707, "estimated_cost_usd": 0.0007,
                   "cost_status": "estimated", "api_calls": 1, "model": "hermes-model"}, handle)
    print("Nothing to save.")
    return 0
'''
PROMPT_MARK = "reviewing a coding session"


@pytest.fixture
def standins(tmp_path, tacit_env, monkeypatch):
    bin_dir, log = tmp_path / "bin", tmp_path / "standin-log"
    bin_dir.mkdir()
    log.mkdir()
    for name, prints in PRINTS.items():
        path = bin_dir / name
        path.write_text(f"#!{sys.executable}\nNAME = {name!r}\n" + RECORD + prints + "\n")
        path.chmod(0o755)
    package = tmp_path / "fakehermes" / "hermes_cli"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "main.py").write_text(HERMES_MAIN)
    hermes = bin_dir / "hermes"
    hermes.write_text(f"#!{sys.executable}\nimport sys\nfrom hermes_cli.main import main\nsys.exit(main())\n")
    hermes.chmod(0o755)
    env = dict(tacit_env, PATH=f"{bin_dir}{os.pathsep}{tacit_env['PATH']}")
    monkeypatch.setenv("STANDIN_LOG", str(log))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "fakehermes"))
    monkeypatch.setenv("PATH", env["PATH"])
    cfg = load_config(env=env)

    def calls():
        return [json.loads(p.read_text()) for p in sorted(log.glob("*.json"))]

    return cfg, calls


@pytest.mark.parametrize("host,spend", [
    ("claude-code", {"tokens": 1820, "usd": 0.0021, "usd_source": "host"}),
    ("codex", {"tokens": 4030, "usd": None, "usd_source": "unknown"}),
    ("pi", {"tokens": 910, "usd": 0.0009, "usd_source": "host"}),
    ("hermes", {"tokens": 707, "usd": 0.0007, "usd_source": "host"}),
])
def test_every_default_command_takes_its_prompt_on_stdin(standins, host, spend):
    cfg, calls = standins
    assert agent_available(cfg, host)
    job = {"id": f"j-{host}", "kind": "review", "session_id": "s", "host": host,
           "variables": {"reason": "3 turns", "recent": [{"role": "user", "text": "use pnpm please"}]}}
    record = run_job(cfg, job)
    assert record["ok"] and record["mode"] == "agent" and record["prompt_via"] == "stdin", record
    [call] = calls()
    shown = " ".join(call["cmdline"])
    assert PROMPT_MARK not in shown and "use pnpm please" not in shown  # what `ps` shows
    if host == "hermes":
        assert call["argv"][1].startswith("--oneshot=") and PROMPT_MARK in call["argv"][1]  # in memory only
        assert record["command"][:3] == ["hermes", "-z", "<prompt>"] and record["exec"][1:3] == [
            "-c", "<hermes entry point>"]
    else:
        assert PROMPT_MARK in call["stdin"] and "use pnpm please" in call["stdin"]
        assert record["command"][0] == os.path.basename(call["cmdline"][1])  # the stand-in, run by its #! python
    assert record["nothing_to_save"] is True
    got = record["spend"]
    assert got["tokens"] == spend["tokens"] and got["usd_source"] == spend["usd_source"]
    assert got["usd"] == (pytest.approx(spend["usd"]) if spend["usd"] is not None else None)


def test_default_templates_never_fill_the_prompt_into_argv(cfg, tmp_path):
    prompt = "SECRET-PROMPT with memory"
    for host in [name for name, command in host_specs.table("child_command").items() if command]:
        if host == "hermes":
            continue  # needs a hermes script on PATH: the test above
        command = build_command(cfg, host, {"kind": "review", "variables": {}}, prompt, tmp_path)
        assert all(prompt not in arg for arg in command.argv) and command.stdin == prompt
        assert not (tmp_path / "prompt.md").exists()  # no file either


def test_a_configured_command_keeps_its_placeholders(cfg, tmp_path):
    on_argv = cfg.with_settings(child_command="agent --ask {prompt}")
    command = build_command(on_argv, None, {"kind": "review"}, "the prompt", tmp_path)
    assert command.argv == ["agent", "--ask", "the prompt"] and command.stdin is None
    assert command.shown == ["agent", "--ask", "<prompt>"] and command.prompt_via == "argv"
    in_file = cfg.with_settings(child_command="agent --file {prompt_file}")
    command = build_command(in_file, None, {"kind": "review"}, "the prompt", tmp_path)
    assert command.prompt_via == "file" and (tmp_path / "prompt.md").stat().st_mode & 0o777 == 0o600
    neither = cfg.with_settings(child_command="agent --quiet")
    command = build_command(neither, None, {"kind": "review"}, "the prompt", tmp_path)
    assert command.prompt_via == "stdin" and command.stdin == "the prompt"


def test_placeholders_inside_the_prompt_are_not_filled(cfg, tmp_path):
    """A prompt (it may hold user text) that says ``{data_dir}`` or ``{model}`` goes on argv as written."""
    on_argv = cfg.with_settings(child_command="agent --model {model} --ask {prompt}", child_model="m1")
    prompt = "the user typed {data_dir} and {model} and {nope}"
    command = build_command(on_argv, None, {"kind": "review"}, prompt, tmp_path)
    assert command.argv == ["agent", "--model", "m1", "--ask", prompt]


def test_a_hermes_that_is_not_a_python_script_gets_no_prompt_and_falls_back(cfg, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "hermes").write_text("#!/bin/sh\necho \"$@\" > \"$0.args\"\n")
    (bin_dir / "hermes").chmod(0o755)
    env = dict(cfg.env, PATH=f"{bin_dir}{os.pathsep}{cfg.env['PATH']}")
    shell_cfg = load_config(env={"TACIT_HOME": cfg.home_str, **env})
    assert script_python(str(bin_dir / "hermes")) is None and agent_available(shell_cfg, "hermes")
    text = "no, that is wrong, use pnpm not npm"
    record = run_job(shell_cfg, {"id": "h1", "kind": "correction", "session_id": "s", "host": "hermes",
                                 "variables": {"correction": text}})
    assert record["ok"] is False and "not a Python script" in record["error"]
    assert record["fallback"]["mode"] == "deterministic"  # the lesson is kept as an exact rule, or left for review
    assert not (bin_dir / "hermes.args").exists()  # nothing was started with the prompt on its command line

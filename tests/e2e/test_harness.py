"""Tests of the e2e rig itself, and recorded facts about the real hosts.

Three parts:

1. ``TestStubServer`` / ``TestHostbin`` — the scripted model server and the
   installer, exercised over real HTTP with urllib (no host needed; fast).
2. ``TestHostsAnswerOffline`` (marker ``e2e``) — each real host answers a
   prompt through the stub with nothing leaving 127.0.0.1.
3. ``TestClaudeCodeBehaviour`` / ``TestHermesBehaviour`` / ``TestPiBehaviour``
   (marker ``e2e``) — throwaway probes (``fixtures/claude_probe``,
   ``fixtures/hermes_probe``, ``fixtures/hermes_probe_ep``,
   ``fixtures/pi_probe``) record what each host really sends to hooks,
   plugins and extensions.  Each assertion is a fact that
   ``docs/hosts-observed.md`` states and a tacit adapter relies on, so a host
   upgrade that changes one fails here first, with the probe log to look at.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import hostbin
from e2e_helpers import message_text, post, read_jsonl, sse_events
from stub_server import StubProcess

e2e = pytest.mark.e2e
FIXTURES = Path(__file__).resolve().parent / "fixtures"


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code


def anthropic_body(messages: list, stream: bool = True, **extra) -> dict:
    return {"model": "claude-test", "max_tokens": 100, "stream": stream, "messages": messages, **extra}


def openai_body(messages: list, stream: bool = True, **extra) -> dict:
    return {"model": "stub-model", "stream": stream, "messages": messages, **extra}


# --------------------------------------------------------------------------
# 1. the stub
# --------------------------------------------------------------------------

class TestStubServer:
    def test_anthropic_stream_text(self, stub):
        stub.set_script([{"match": "hello", "reply": "Hi there, a reply longer than one chunk."}])
        status, body = post(f"{stub.url}/v1/messages?beta=true",
                            anthropic_body([{"role": "user", "content": "hello"}]),
                            headers={"x-api-key": "secret-key", "anthropic-version": "2023-06-01"})
        assert status == 200
        events = sse_events(body)
        names = [name for name, _ in events]
        assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
        assert names[1] == "content_block_start" and "content_block_stop" in names
        datas = [json.loads(data) for _, data in events]
        text = "".join(d["delta"]["text"] for d in datas if d["type"] == "content_block_delta")
        assert text == "Hi there, a reply longer than one chunk."
        assert sum(1 for d in datas if d["type"] == "content_block_delta") > 1  # really streamed
        assert datas[-2]["delta"]["stop_reason"] == "end_turn"
        assert datas[-2]["usage"]["output_tokens"] > 0
        [record] = stub.requests()
        assert record["path"] == "/v1/messages" and record["query"] == {"beta": ["true"]}
        assert record["protocol"] == "anthropic" and record["rule"] == 0 and record["stream"] is True
        assert "x-api-key" not in record["headers"] and record["headers"]["anthropic-version"] == "2023-06-01"
        assert record["body"]["messages"][0]["content"] == "hello"
        assert record["response"]["text"] == "Hi there, a reply longer than one chunk."

    def test_anthropic_stream_tool_use(self, stub):
        call_input = {"command": "ls -la", "description": "list files in a directory with details"}
        stub.set_script([{"match": "list", "reply": "Let me look.",
                          "tool_calls": [{"name": "Bash", "input": call_input}]}])
        status, body = post(f"{stub.url}/v1/messages", anthropic_body([{"role": "user", "content": "list"}]))
        assert status == 200
        datas = [json.loads(data) for _, data in sse_events(body)]
        starts = [d for d in datas if d["type"] == "content_block_start"]
        assert [s["content_block"]["type"] for s in starts] == ["text", "tool_use"]
        tool_block = starts[1]["content_block"]
        assert tool_block["name"] == "Bash" and tool_block["input"] == {} and tool_block["id"].startswith("toolu_")
        partial = "".join(d["delta"]["partial_json"] for d in datas
                          if d["type"] == "content_block_delta" and d["delta"]["type"] == "input_json_delta")
        assert json.loads(partial) == call_input
        assert datas[-2]["delta"]["stop_reason"] == "tool_use"

    def test_anthropic_non_stream(self, stub):
        stub.set_script([{"match": "x", "tool_calls": [{"name": "Read", "input": {"file_path": "/a"}}]}],
                        default="plain")
        status, body = post(f"{stub.url}/v1/messages", anthropic_body([{"role": "user", "content": "x"}], stream=False))
        message = json.loads(body)
        assert status == 200 and message["stop_reason"] == "tool_use"
        assert message["content"] == [{"type": "tool_use", "id": message["content"][0]["id"],
                                       "name": "Read", "input": {"file_path": "/a"}}]
        status, body = post(f"{stub.url}/v1/messages", anthropic_body([{"role": "user", "content": "y"}], stream=False))
        assert json.loads(body)["content"] == [{"type": "text", "text": "plain"}]

    def test_openai_stream_text_with_usage_chunk(self, stub):
        stub.set_script([{"match": "hello", "reply": "Hi from the OpenAI side of the stub."}])
        status, body = post(f"{stub.url}/v1/chat/completions",
                            openai_body([{"role": "system", "content": "sys"}, {"role": "user", "content": "hello"}],
                                        stream_options={"include_usage": True}),
                            headers={"Authorization": "Bearer sk-secret"})
        assert status == 200
        events = sse_events(body)
        assert events[-1] == (None, "[DONE]")
        chunks = [json.loads(data) for _, data in events[:-1]]
        text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
        assert text == "Hi from the OpenAI side of the stub."
        finish = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
        assert finish == ["stop"]
        assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
        assert "authorization" not in stub.requests()[0]["headers"]

    def test_openai_stream_tool_calls_without_usage_request(self, stub):
        stub.set_script([{"match": "go", "tool_calls": [{"name": "terminal", "input": {"command": "echo a"}},
                                                        {"name": "memory", "input": {"action": "add", "content": "x" * 60}}]}])
        status, body = post(f"{stub.url}/v1/chat/completions", openai_body([{"role": "user", "content": "go"}]))
        chunks = [json.loads(data) for _, data in sse_events(body)[:-1]]
        calls: dict[int, dict] = {}
        for chunk in chunks:
            for delta in chunk["choices"][0]["delta"].get("tool_calls") or []:
                call = calls.setdefault(delta["index"], {"id": None, "name": None, "arguments": ""})
                call["id"] = delta.get("id") or call["id"]
                call["name"] = (delta.get("function") or {}).get("name") or call["name"]
                call["arguments"] += (delta.get("function") or {}).get("arguments") or ""
        assert [c["name"] for c in calls.values()] == ["terminal", "memory"]
        assert json.loads(calls[1]["arguments"]) == {"action": "add", "content": "x" * 60}
        assert all(c["id"].startswith("call_") for c in calls.values())
        assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
        # no include_usage: every chunk keeps a choice, usage rides on the last one
        assert all(c["choices"] for c in chunks) and chunks[-1]["usage"]["completion_tokens"] > 0

    def test_openai_non_stream(self, stub):
        stub.set_script([{"match": "go", "tool_calls": [{"name": "t", "input": {"a": 1}}]}])
        status, body = post(f"{stub.url}/v1/chat/completions", openai_body([{"role": "user", "content": "go"}], stream=False))
        completion = json.loads(body)
        message = completion["choices"][0]["message"]
        assert completion["choices"][0]["finish_reason"] == "tool_calls"
        assert message["tool_calls"][0]["function"] == {"name": "t", "arguments": '{"a": 1}'}

    def test_other_paths_are_404_logged_and_consume_nothing(self, stub):
        stub.set_script([{"match": "", "reply": "the one reply", "times": 1}], default="default reply")
        assert get(f"{stub.url}/v1/models") == 404
        assert get(f"{stub.url}/api/tags") == 404
        assert post(f"{stub.url}/api/show", {"model": "m"})[0] == 404
        assert post(f"{stub.url}/v1/messages/count_tokens", anthropic_body([{"role": "user", "content": "x"}]))[0] == 404
        assert get(f"{stub.url}/v1/chat/completions") == 404  # GET on a chat path is not a chat request
        _, body = post(f"{stub.url}/v1/chat/completions", openai_body([{"role": "user", "content": "x"}], stream=False))
        assert json.loads(body)["choices"][0]["message"]["content"] == "the one reply"
        records = stub.requests()
        assert [r["status"] for r in records] == [404, 404, 404, 404, 404, 200]
        assert [r["rule"] for r in records] == [None] * 5 + [0]
        assert records[2]["body"] == {"model": "m"}
        assert len(stub.model_requests()) == 1

    def test_rules_first_match_wins_times_and_default(self, stub):
        stub.set_script([
            {"match": "deploy", "reply": "first deploy answer", "times": 2},
            {"match": "deploy", "reply": "later deploy answer"},
            {"match": "^exact line$", "reply": "anchored"},
        ], default="fallback")

        def ask(text):
            _, body = post(f"{stub.url}/v1/messages", anthropic_body([{"role": "user", "content": text}], stream=False))
            return json.loads(body)["content"][0]["text"]

        assert [ask("please deploy") for _ in range(4)] == ["first deploy answer"] * 2 + ["later deploy answer"] * 2
        assert ask("context block\n\nexact line") == "anchored"  # MULTILINE anchors
        assert ask("something else") == "fallback"
        assert [r["rule"] for r in stub.requests()] == [0, 0, 1, 1, 2, "default"]

    def test_match_text_is_last_user_or_tool_result(self, stub):
        stub.set_script([
            {"match": "TOOL-OUTPUT-7", "reply": "saw tool output"},
            {"match_system": "SYSTEM-MARK", "reply": "saw system"},
            {"match_model": "haiku", "reply": "small model"},
            {"match_body": "\"temperature\": 0.5", "reply": "saw body"},
        ], default="nothing")
        anthropic_tool_turn = [
            {"role": "user", "content": [{"type": "text", "text": "run it"}]},
            {"role": "system", "content": "injected by a hook"},  # Claude Code does this; never rejected
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                          "content": [{"type": "text", "text": "TOOL-OUTPUT-7"}]}]},
        ]
        _, body = post(f"{stub.url}/v1/messages", anthropic_body(anthropic_tool_turn, stream=False))
        assert json.loads(body)["content"][0]["text"] == "saw tool output"
        openai_tool_turn = [
            {"role": "user", "content": "run it"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                                   "function": {"name": "t", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "first"},
            {"role": "tool", "tool_call_id": "c2", "content": "TOOL-OUTPUT-7"},
        ]
        _, body = post(f"{stub.url}/v1/chat/completions", openai_body(openai_tool_turn, stream=False))
        assert json.loads(body)["choices"][0]["message"]["content"] == "saw tool output"
        # the match text is only the LAST user/tool text: an old tool output does not match
        _, body = post(f"{stub.url}/v1/chat/completions",
                       openai_body(openai_tool_turn + [{"role": "assistant", "content": "ok"},
                                                       {"role": "user", "content": "next"}], stream=False))
        assert json.loads(body)["choices"][0]["message"]["content"] == "nothing"
        _, body = post(f"{stub.url}/v1/messages", anthropic_body(
            [{"role": "user", "content": "hi"}], stream=False, system=[{"type": "text", "text": "SYSTEM-MARK here"}]))
        assert json.loads(body)["content"][0]["text"] == "saw system"
        _, body = post(f"{stub.url}/v1/messages", dict(anthropic_body([{"role": "user", "content": "hi"}], stream=False),
                                                        model="claude-haiku-4-5"))
        assert json.loads(body)["content"][0]["text"] == "small model"
        _, body = post(f"{stub.url}/v1/chat/completions", openai_body([{"role": "user", "content": "hi"}],
                                                                      stream=False, temperature=0.5))
        assert json.loads(body)["choices"][0]["message"]["content"] == "saw body"

    def test_script_reload_keeps_use_counts_and_survives_bad_files(self, stub):
        stub.set_script([{"match": "a", "reply": "A once", "times": 1}], default="dflt")

        def ask(text):
            _, body = post(f"{stub.url}/v1/chat/completions", openai_body([{"role": "user", "content": text}], stream=False))
            return json.loads(body)["choices"][0]["message"]["content"]

        assert ask("a") == "A once"
        stub.add_rules({"match": "b", "reply": "B"})
        assert ask("a") == "dflt"  # the consumed one-shot rule stays consumed after the reload
        assert ask("b") == "B"
        stub.script_path.write_text("{ not json")  # a half-written file
        assert ask("b") == "B"  # previous script kept
        assert "script_error" in stub.requests()[-1]
        stub.set_script([{"match": "a", "reply": "A once", "times": 1}, {"match": "c", "reply": "C"}])
        assert ask("c") == "C"

    def test_scripted_error_status(self, stub):
        stub.set_script([{"match": "boom", "status": 529, "reply": "overloaded", "times": 1}])
        status, body = post(f"{stub.url}/v1/messages", anthropic_body([{"role": "user", "content": "boom"}]))
        assert status == 529 and json.loads(body)["error"]["message"] == "overloaded"
        status, _ = post(f"{stub.url}/v1/messages", anthropic_body([{"role": "user", "content": "boom"}]))
        assert status == 200

    def test_proxy_attempts_are_refused_and_counted(self, stub):
        stub.allow_proxy_attempts = True
        replies = []
        for request in (b"CONNECT api.example.invalid:443 HTTP/1.1\r\nHost: api.example.invalid:443\r\n\r\n",
                        b"GET http://example.invalid/path HTTP/1.1\r\nHost: example.invalid\r\nConnection: close\r\n\r\n"):
            with socket.create_connection(("127.0.0.1", stub.port), timeout=5) as sock:
                sock.sendall(request)
                replies.append(sock.recv(4096).decode())
        assert all(reply.startswith("HTTP/1.1 403") for reply in replies)
        refused = stub.refused_proxy()
        assert [(r["method"], r["path"]) for r in refused] == [
            ("CONNECT", "api.example.invalid:443"), ("GET", "http://example.invalid/path")]
        assert stub.model_requests() == []

    def test_bad_script_is_rejected_by_the_launcher(self, stub):
        with pytest.raises(Exception):
            stub.set_script([{"match": "(unclosed"}])
        with pytest.raises(TypeError):
            stub.set_script([{"tool_calls": [{"input": {}}]}])

    def test_stop_kills_the_process(self, tmp_path):
        server = StubProcess(tmp_path / "s")
        pid = server.pid
        server.stop()
        server.stop()  # idempotent
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


class TestHostbin:
    def test_network_failures_skip_other_failures_fail(self):
        offline = [sys.executable, "-c", "import sys; print('npm error code ENOTFOUND'); sys.exit(1)"]
        with pytest.raises(hostbin.HostUnavailable):
            hostbin._run(offline, what="fake npm")
        broken = [sys.executable, "-c", "import sys; print('npm error code E404 not found'); sys.exit(1)"]
        with pytest.raises(hostbin.HostInstallError) as info:
            hostbin._run(broken, what="fake npm")
        assert not isinstance(info.value, hostbin.HostUnavailable)
        with pytest.raises(hostbin.HostInstallError):
            hostbin._run(["definitely-not-a-command-xyz"], what="missing tool")

    def test_cache_dir_honours_env(self, tmp_path, monkeypatch):
        monkeypatch.setenv("TACIT_E2E_CACHE", str(tmp_path / "cache"))
        assert hostbin.cache_dir() == tmp_path / "cache" and (tmp_path / "cache").is_dir()

    def test_source_fingerprint_ignores_build_output(self, tmp_path):
        (tmp_path / "pkg").mkdir()
        (tmp_path / "pkg" / "mod.py").write_text("x = 1\n")
        before = hostbin._tree_fingerprint(tmp_path)
        for junk in ("build/lib/mod.py", "pkg.egg-info/PKG-INFO", "pkg/__pycache__/mod.pyc"):
            (tmp_path / junk).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / junk).write_text("junk")
        assert hostbin._tree_fingerprint(tmp_path) == before
        (tmp_path / "pkg" / "mod.py").write_text("x = 22\n")
        assert hostbin._tree_fingerprint(tmp_path) != before

    def test_install_is_marked_done_only_with_the_pinned_version(self, tmp_path, monkeypatch):
        monkeypatch.setenv("TACIT_E2E_CACHE", str(tmp_path))
        folder = tmp_path / "x-1.0"
        folder.mkdir()
        binary = folder / "bin"
        binary.write_text("")
        assert not hostbin._marker_ok(folder, "1.0", binary)
        hostbin._write_marker(folder, "1.0", 1.5)
        assert hostbin._marker_ok(folder, "1.0", binary)
        assert not hostbin._marker_ok(folder, "2.0", binary)


# --------------------------------------------------------------------------
# 2. each real host answers through the stub, offline
# --------------------------------------------------------------------------

@e2e
class TestHostsAnswerOffline:
    def test_claude_text_reply(self, stub, run_claude):
        stub.set_script([{"match": "ping", "reply": "pong from the stub"}])
        proc, result = run_claude.prompt("ping")
        assert proc.returncode == 0, proc.stderr
        assert result["result"] == "pong from the stub" and result["is_error"] is False
        assert result["usage"]["output_tokens"] > 0 and "total_cost_usd" in result
        [request] = stub.model_requests()
        assert request["path"] == "/v1/messages" and request["query"] == {"beta": ["true"]}
        assert request["body"]["stream"] is True
        assert len(stub.requests()) == 1  # no count_tokens, no model list: just the one request
        assert stub.refused_proxy() == []

    def test_claude_tool_call_round_trip(self, stub, run_claude):
        stub.set_script([
            {"match": "^run the probe$", "tool_calls": [{"name": "Bash", "input": {
                "command": "echo probe-output-123", "description": "probe"}}], "times": 1},
            {"match": "probe-output-123", "reply": "the tool said probe-output-123"},
        ])
        proc, result = run_claude.prompt("run the probe", "--allowedTools", "Bash")
        assert proc.returncode == 0, proc.stderr
        assert result["result"] == "the tool said probe-output-123" and result["num_turns"] == 2
        first, second = stub.model_requests()
        assert first["rule"] == 0 and second["rule"] == 1
        tool_result = second["body"]["messages"][-1]["content"][0]
        assert tool_result["type"] == "tool_result" and "probe-output-123" in message_text([tool_result])
        assert stub.refused_proxy() == []

    def test_hermes_oneshot_reply(self, stub, run_hermes, tmp_path):
        stub.set_script([{"match": "ping", "reply": "pong from the stub"}])
        usage_file = tmp_path / "usage.json"
        proc = run_hermes.oneshot("ping", "--usage-file", str(usage_file))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "pong from the stub"
        usage = json.loads(usage_file.read_text())
        assert usage["completed"] is True and usage["api_calls"] == 1 and usage["input_tokens"] > 0
        assert len(stub.model_requests()) == 1
        probes = [r["path"] for r in stub.requests() if r["status"] == 404]
        assert "/v1/models" in probes  # Hermes probes the server; none of it consumed a rule
        assert stub.refused_proxy() == []

    def test_pi_print_reply(self, stub, run_pi):
        stub.set_script([{"match": "ping", "reply": "pong from the stub"}])
        proc = run_pi.prompt("ping")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "pong from the stub"
        [request] = stub.model_requests()
        assert request["path"] == "/v1/chat/completions"
        assert request["body"]["stream_options"] == {"include_usage": True}
        assert stub.refused_proxy() == []

    def test_proxy_catch_is_live(self, stub, run_claude):
        """Without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC the CLI tries outside
        hosts; they must land in the stub as refused — proof that "zero refused"
        in the other tests means something."""
        stub.allow_proxy_attempts = True
        proc, result = run_claude.prompt("ping", env_extra={"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": None})
        assert result["result"] == "OK"
        refused = stub.refused_proxy()
        assert refused and all(r["method"] == "CONNECT" for r in refused)


# --------------------------------------------------------------------------
# 3a. Claude Code: hooks, plugins, context placement
# --------------------------------------------------------------------------

CLAUDE_PROBE = FIXTURES / "claude_probe"
COMMON_HOOK_FIELDS = {"session_id", "transcript_path", "cwd", "hook_event_name"}


def claude_probe_env(tmp_path: Path, replies: dict | None = None) -> tuple[dict, Path]:
    log = tmp_path / "hooks.jsonl"
    env = {"PROBE_LOG": str(log)}
    if replies is not None:
        replies_path = tmp_path / "replies.json"
        replies_path.write_text(json.dumps(replies))
        env["PROBE_REPLIES"] = str(replies_path)
    return env, log


@e2e
class TestClaudeCodeBehaviour:
    def test_hook_order_and_payloads_for_two_tool_calls(self, stub, run_claude, tmp_path):
        stub.set_script([
            {"match": "^two tools please$", "times": 1, "tool_calls": [
                {"name": "Bash", "input": {"command": "echo one-out", "description": "one"}},
                {"name": "Bash", "input": {"command": "echo two-out", "description": "two"}}]},
            {"match": "two-out", "times": 1, "tool_calls": [
                {"name": "Bash", "input": {"command": "echo three-out; exit 3", "description": "fails"}}]},
            {"match": "three-out", "reply": "all done"},
        ])
        env, log = claude_probe_env(tmp_path)
        proc, result = run_claude.prompt("two tools please", "--allowedTools", "Bash",
                                         "--plugin-dir", str(CLAUDE_PROBE), env_extra=env)
        assert result["result"] == "all done" and len(stub.model_requests()) == 3
        records = read_jsonl(log)
        events = [r["event"] for r in records if r["event"] != "MessageDisplay"]
        # two tool calls of one response: their Pre/Post hooks run concurrently (any order)
        assert events[:2] == ["SessionStart", "UserPromptSubmit"]
        assert sorted(events[2:6]) == ["PostToolUse", "PostToolUse", "PreToolUse", "PreToolUse"]
        assert events[6:] == ["PostToolBatch", "PreToolUse", "PostToolUseFailure", "PostToolBatch",
                              "Stop", "SessionEnd"]
        by_event: dict[str, list[dict]] = {}
        for r in records:
            by_event.setdefault(r["event"], []).append(r["payload"])
        for payloads in by_event.values():
            assert all(COMMON_HOOK_FIELDS <= set(p) for p in payloads)
        assert len({p["session_id"] for ps in by_event.values() for p in ps}) == 1
        assert by_event["SessionStart"][0]["source"] == "startup"
        assert by_event["UserPromptSubmit"][0]["prompt"] == "two tools please"
        post = {p["tool_input"]["command"]: p for p in by_event["PostToolUse"]}
        assert post["echo one-out"]["tool_response"]["stdout"] == "one-out"
        assert post["echo one-out"]["tool_use_id"].startswith("toolu_")
        batch = by_event["PostToolBatch"][0]["tool_calls"]
        assert [c["tool_input"]["command"] for c in batch] == ["echo one-out", "echo two-out"]  # source order
        assert batch[0]["tool_response"] == "one-out"
        failure = by_event["PostToolUseFailure"][0]
        assert failure["error"].startswith("Exit code 3") and failure["is_interrupt"] is False
        stop = by_event["Stop"][0]
        assert stop["last_assistant_message"] == "all done" and stop["stop_hook_active"] is False
        assert by_event["SessionEnd"][0]["reason"] == "other"
        assert by_event["MessageDisplay"][0]["delta"] == "all done"
        transcript = Path(stop["transcript_path"])
        assert transcript.parent == run_claude.transcript_dir() and transcript.exists()
        env_seen = records[0]["env"]
        assert env_seen["CLAUDE_PLUGIN_ROOT"] == str(CLAUDE_PROBE)
        assert env_seen["CLAUDE_PLUGIN_DATA"] == str(run_claude.config_dir / "plugins" / "data" / "probe-inline")
        assert env_seen["CLAUDECODE"] == "1" and env_seen["CLAUDE_PROJECT_DIR"] == str(run_claude.project)

    def test_where_hook_context_lands(self, stub, run_claude, tmp_path):
        stub.set_script([
            {"match": "^list files$", "times": 1,
             "tool_calls": [{"name": "Bash", "input": {"command": "echo listed-out", "description": "l"}}]},
            {"match": "listed-out", "reply": "done"},
        ])
        env, _ = claude_probe_env(tmp_path, replies={
            "SessionStart": {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                    "additionalContext": "SS-CONTEXT-111"}},
            "UserPromptSubmit": {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                                        "additionalContext": "UPS-CONTEXT-222"}},
            "PostToolUse": {"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                                   "additionalContext": "PTU-CONTEXT-333"}},
        })
        proc, result = run_claude.prompt("list files", "--allowedTools", "Bash",
                                         "--plugin-dir", str(CLAUDE_PROBE), env_extra=env)
        assert result["result"] == "done"
        first, second = stub.model_requests()
        messages = first["body"]["messages"]
        assert [m["role"] for m in messages] == ["user", "system"]
        assert "SS-CONTEXT" not in json.dumps(first["body"]["system"])  # not in the system prompt
        system_entry = message_text(messages[1]["content"])
        assert system_entry.startswith("SessionStart hook additional context: SS-CONTEXT-111")
        assert system_entry.endswith("UserPromptSubmit hook additional context: UPS-CONTEXT-222")
        tool_result_turn = message_text(second["body"]["messages"][-1]["content"])
        assert "listed-out" in tool_result_turn
        assert "<system-reminder>\nPostToolUse:Bash hook additional context: PTU-CONTEXT-333\n</system-reminder>" \
            in tool_result_turn

    @pytest.mark.parametrize("size,inline", [(10_000, True), (10_001, False)])
    def test_additional_context_cap(self, stub, run_claude, tmp_path, size, inline):
        text = "S" + "y" * (size - 2) + "E"
        env, _ = claude_probe_env(tmp_path, replies={"SessionStart": {"hookSpecificOutput": {
            "hookEventName": "SessionStart", "additionalContext": text}}})
        run_claude.prompt("hello", "--plugin-dir", str(CLAUDE_PROBE), env_extra=env)
        [request] = stub.model_requests()
        system_entry = message_text(request["body"]["messages"][1]["content"])
        assert (text in system_entry) is inline
        if not inline:
            assert "<persisted-output>" in system_entry and "Preview (first 2KB)" in system_entry

    def test_plugin_slash_command(self, stub, run_claude, tmp_path):
        env, log = claude_probe_env(tmp_path)
        proc, result = run_claude.prompt("/probe:probe-cmd alpha beta", "--plugin-dir", str(CLAUDE_PROBE),
                                         env_extra=env)
        assert result["result"] == "OK"
        expansion = [r["payload"] for r in read_jsonl(log) if r["event"] == "UserPromptExpansion"]
        assert expansion and expansion[0]["expansion_type"] == "slash_command"
        assert expansion[0]["command_name"] == "probe:probe-cmd" and expansion[0]["command_args"] == "alpha beta"
        assert expansion[0]["command_source"] == "plugin"
        events = [r["event"] for r in read_jsonl(log)]
        assert events.index("UserPromptExpansion") < events.index("UserPromptSubmit")
        [request] = stub.model_requests()  # the expanded command goes to the model
        user_text = message_text(request["body"]["messages"][0]["content"])
        assert "<command-name>/probe:probe-cmd</command-name>" in user_text
        assert "PROBE-COMMAND-BODY args=[alpha beta]\nBANG-OUTPUT-42" in user_text

    def test_disable_all_hooks_setting(self, stub, run_claude, tmp_path):
        env, log = claude_probe_env(tmp_path)
        proc, result = run_claude.prompt("hello", "--settings", '{"disableAllHooks": true}',
                                         "--no-session-persistence", "--plugin-dir", str(CLAUDE_PROBE),
                                         env_extra=env)
        assert proc.returncode == 0 and result["result"] == "OK"
        assert read_jsonl(log) == []

    def test_plugin_folder_in_skills_dir_autoloads(self, stub, run_claude, tmp_path):
        """A plugin copied to ~/.claude/skills/<name>/ loads in a plain run (user
        scope); under <project>/.claude/skills/ only once the workspace is trusted."""
        env, log = claude_probe_env(tmp_path)
        user_copy = run_claude.config_dir / "skills" / "probe"
        shutil.copytree(CLAUDE_PROBE, user_copy)
        run_claude.prompt("hello", env_extra=env)
        records = read_jsonl(log)
        assert [r["event"] for r in records][:2] == ["SessionStart", "UserPromptSubmit"]
        assert records[0]["env"]["CLAUDE_PLUGIN_ROOT"] == str(user_copy)
        assert records[0]["env"]["CLAUDE_PLUGIN_DATA"].endswith("/plugins/data/probe-skills-dir")
        shutil.rmtree(user_copy)

        shutil.copytree(CLAUDE_PROBE, run_claude.project / ".claude" / "skills" / "probe")
        log.unlink()
        proc, result = run_claude.prompt("hello", env_extra=env)
        assert result["result"] == "OK" and read_jsonl(log) == []  # untrusted workspace: not loaded
        state_path = run_claude.home / ".claude.json"
        state = json.loads(state_path.read_text())
        state.setdefault("projects", {}).setdefault(str(run_claude.project), {})["hasTrustDialogAccepted"] = True
        state_path.write_text(json.dumps(state))
        run_claude.prompt("hello", env_extra=env)
        assert [r["event"] for r in read_jsonl(log)][0] == "SessionStart"

    def test_settings_hooks_and_invalid_settings_silently_ignored(self, stub, run_claude, tmp_path):
        env, log = claude_probe_env(tmp_path)
        command = f"python3 {CLAUDE_PROBE / 'dump_hook.py'}"
        settings = run_claude.config_dir / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)

        def write(timeout):
            settings.write_text(json.dumps({"hooks": {
                event: [{"hooks": [{"type": "command", "command": f"{command} {event}", "timeout": timeout}]}]
                for event in ("SessionStart", "Stop")}}))

        write(10)
        run_claude.prompt("hello", env_extra=env)
        assert [r["event"] for r in read_jsonl(log)] == ["SessionStart", "Stop"]
        log.unlink()
        write("ten")  # fails validation
        proc, result = run_claude.prompt("hello", env_extra=env)
        assert proc.returncode == 0 and result["result"] == "OK" and read_jsonl(log) == []

    def test_auto_memory_switches(self, stub, run_claude):
        run_claude.prompt("hello")
        run_claude.prompt("hello", env_extra={"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"})
        run_claude.prompt("hello", "--settings", '{"autoMemoryEnabled": false}')
        memory_dir = str(run_claude.transcript_dir() / "memory") + "/"
        systems = [json.dumps(r["body"]["system"]) for r in stub.model_requests()]
        assert [memory_dir in s for s in systems] == [True, False, False]

    def test_child_agent_flags(self, stub, run_claude):
        proc, result = run_claude.prompt(
            "hello", "--settings", '{"disableAllHooks": true}', "--no-session-persistence",
            "--max-turns", "1", "--tools", "Read,Edit,Write,Bash", "--permission-mode", "dontAsk",
            "--model", "claude-haiku-4-5")
        assert proc.returncode == 0 and result["result"] == "OK"
        assert list(result["modelUsage"]) == ["claude-haiku-4-5"]
        [request] = stub.model_requests()
        assert request["body"]["model"] == "claude-haiku-4-5"
        assert sorted(t["name"] for t in request["body"]["tools"]) == ["Bash", "Edit", "Read", "Write"]
        assert not run_claude.transcript_dir().exists() or not list(run_claude.transcript_dir().glob("*.jsonl"))


# --------------------------------------------------------------------------
# 3b. Hermes: plugins, hooks, context placement
# --------------------------------------------------------------------------

HERMES_PROBE = FIXTURES / "hermes_probe"
HERMES_PROBE_EP = FIXTURES / "hermes_probe_ep"


def hermes_events(log: Path) -> list[dict]:
    return read_jsonl(log)


@e2e
class TestHermesBehaviour:
    def test_directory_plugin_hooks_context_and_memory(self, stub, run_hermes, tmp_path):
        shutil.copytree(HERMES_PROBE, run_hermes.hermes_home / "plugins" / "probe")
        memories = run_hermes.hermes_home / "memories"
        memories.mkdir()
        (memories / "MEMORY.md").write_text("MEMENTRY-ONE uses pnpm\n§\nMEMENTRY-TWO tabs not spaces")
        (memories / "USER.md").write_text("USERENTRY-ONE is called Ada")
        listed = run_hermes(["plugins", "list", "--plain", "--no-bundled"])
        assert any(line.split()[:2] == ["not", "enabled"] and line.split()[-1] == "probe"
                   for line in listed.stdout.splitlines()), listed.stdout
        enabled = run_hermes(["plugins", "enable", "probe"])
        assert enabled.returncode == 0 and "enabled" in enabled.stdout
        config = run_hermes.read_config()
        assert config["plugins"]["enabled"] == ["probe"]
        assert config["model"]["base_url"] == f"{stub.url}/v1"  # our settings survive the rewrite
        stub.set_script([
            {"match": "^two tools please", "times": 1, "tool_calls": [
                {"name": "terminal", "input": {"command": "echo one-out"}},
                {"name": "probe_tool", "input": {"text": "two-out"}}]},
            {"match": "two-out", "times": 1, "tool_calls": [
                {"name": "terminal", "input": {"command": "echo three-out; exit 3"}},
                {"name": "read_file", "input": {"path": "/nonexistent/zzz.txt"}},
                {"name": "memory", "input": {"action": "add", "target": "memory", "content": "MEM-ADDED-X"}}]},
            {"match": "three-out", "reply": "all done"},
        ])
        log = tmp_path / "hermes-hooks.jsonl"
        proc = run_hermes.oneshot("two tools please", env_extra={
            "PROBE_LOG": str(log), "PROBE_PRE_LLM_CONTEXT": "PRE-LLM-CTX-555"})
        assert proc.returncode == 0 and proc.stdout.strip() == "all done", proc.stderr
        records = hermes_events(log)
        names = [r["event"] for r in records]
        core = [n for n in names if n in ("register", "on_session_start", "pre_llm_call", "post_tool_call",
                                          "post_llm_call", "on_session_end", "on_session_finalize")]
        assert core == ["register", "on_session_start", "pre_llm_call"] + ["post_tool_call"] * 5 + [
            "post_llm_call", "on_session_end"]  # no on_session_finalize in -z
        assert names.count("pre_api_request") == 3 and names.count("post_api_request") == 3
        by_event: dict[str, list[dict]] = {}
        for r in records:
            by_event.setdefault(r["event"], []).append(r.get("kwargs", {}))
        pre = by_event["pre_llm_call"][0]
        assert pre["user_message"] == "two tools please" and pre["is_first_turn"] is True
        assert {"session_id", "conversation_history", "model", "platform"} <= set(pre)
        posts = by_event["post_tool_call"]
        step1 = {p["tool_name"]: p for p in posts[:2]}
        step2 = {p["tool_name"]: p for p in posts[2:]}
        assert {name: p["status"] for name, p in step1.items()} == {"terminal": "ok", "probe_tool": "ok"}
        # a non-zero exit is still "ok": the exit code is inside result
        assert {name: p["status"] for name, p in step2.items()} == {
            "terminal": "ok", "read_file": "error", "memory": "ok"}
        assert json.loads(step2["terminal"]["result"])["exit_code"] == 3
        assert step1["probe_tool"]["result"] == json.dumps({"ok": True, "echo": {"text": "two-out"}})
        assert by_event["post_llm_call"][0]["assistant_response"] == "all done"
        assert by_event["on_session_end"][0]["completed"] is True
        session_ids = {k.get("session_id") for ks in by_event.values() for k in ks if k.get("session_id")}
        assert len(session_ids) == 1
        requests = stub.model_requests()
        assert len(requests) == 3
        for request in requests:  # returned context rides on the user message, on every call of the turn
            user = [m for m in request["body"]["messages"] if m["role"] == "user"][0]
            assert user["content"] == "two tools please\n\nPRE-LLM-CTX-555"
            system = request["body"]["messages"][0]
            assert system["role"] == "system" and "PRE-LLM-CTX" not in system["content"]
            assert "MEMENTRY-ONE uses pnpm\n§\nMEMENTRY-TWO tabs not spaces" in system["content"]
            assert "USER PROFILE (who the user is)" in system["content"]
        assert (memories / "MEMORY.md").read_text() == (
            "MEMENTRY-ONE uses pnpm\n§\nMEMENTRY-TWO tabs not spaces\n§\nMEM-ADDED-X")
        assert (memories / "MEMORY.md.lock").exists()
        # the snapshot is frozen: the memory added mid-turn is not in the later requests' system prompt
        assert "MEM-ADDED-X" not in requests[-1]["body"]["messages"][0]["content"]

    def test_entry_point_plugin_enable_and_toolset_filter(self, stub, run_hermes, tmp_path):
        env = {"PYTHONPATH": str(HERMES_PROBE_EP), "PROBE_LOG": str(tmp_path / "ep.jsonl")}
        listed = run_hermes(["plugins", "list", "--plain", "--no-bundled"], env_extra=env)
        assert any(line.split() == ["not", "enabled", "entrypoint", "0.0.1", "probe_ep"]
                   for line in listed.stdout.splitlines()), listed.stdout
        assert run_hermes(["plugins", "enable", "probe_ep"], env_extra=env).returncode == 0
        again = run_hermes(["plugins", "enable", "probe_ep"], env_extra=env)
        assert again.returncode == 0 and "already enabled" in again.stdout
        missing = run_hermes(["plugins", "enable", "no-such-plugin"], env_extra=env)
        assert missing.returncode == 1 and "not installed" in missing.stdout + missing.stderr
        assert run_hermes.read_config()["plugins"]["enabled"] == ["probe_ep"]
        proc = run_hermes.oneshot("hi", "-t", "memory,skills", env_extra=env)
        assert proc.returncode == 0, proc.stderr
        names = [r["event"] for r in read_jsonl(tmp_path / "ep.jsonl")]
        assert names[:3] == ["register", "on_session_start", "pre_llm_call"]
        [request] = stub.model_requests()
        tools = sorted(t["function"]["name"] for t in request["body"]["tools"])
        assert tools == ["memory", "skill_manage", "skill_view", "skills_list"]  # plugin toolset filtered out

    def test_plugin_command_handler_and_oneshot_slash(self, stub, run_hermes, tmp_path):
        shutil.copytree(HERMES_PROBE, run_hermes.hermes_home / "plugins" / "probe")
        run_hermes(["plugins", "enable", "probe"])
        log = tmp_path / "cmd.jsonl"
        proc = run_hermes.run_python(
            "from hermes_cli.plugins import discover_plugins, get_plugin_command_handler\n"
            "discover_plugins()\n"
            "print(get_plugin_command_handler('probe-cmd')('alpha beta'))\n",
            env_extra={"PROBE_LOG": str(log)})
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip().splitlines()[-1] == "PROBE-CMD-OUTPUT alpha beta"
        log.unlink()
        proc = run_hermes.oneshot("/probe-cmd alpha", env_extra={"PROBE_LOG": str(log)})
        assert proc.returncode == 0
        names = [r["event"] for r in read_jsonl(log)]
        assert "register" in names and "probe_cmd" not in names  # not dispatched in -z ...
        [request] = stub.model_requests()
        assert request["body"]["messages"][-1]["content"] == "/probe-cmd alpha"  # ... sent to the model


# --------------------------------------------------------------------------
# 3c. pi: extension events, system prompt, commands, exec
# --------------------------------------------------------------------------

PI_PROBE = FIXTURES / "pi_probe" / "probe.ts"


@e2e
class TestPiBehaviour:
    def test_event_order_and_system_prompt(self, stub, run_pi, tmp_path):
        stub.set_script([
            {"match": "^two tools please", "times": 1, "tool_calls": [
                {"name": "bash", "input": {"command": "echo one-out"}},
                {"name": "probe_tool", "input": {"text": "two-out"}}]},
            {"match": "two-out", "times": 1, "tool_calls": [
                {"name": "bash", "input": {"command": "echo three-out; exit 3"}}]},
            {"match": "three-out", "reply": "all done"},
        ])
        log = tmp_path / "pi.jsonl"
        proc = run_pi.prompt("two tools please", extensions=[PI_PROBE],
                             env_extra={"PROBE_LOG": str(log), "PROBE_SYSTEM_APPEND": "PI-SYS-APPEND-666"})
        assert proc.returncode == 0 and proc.stdout.strip() == "all done", proc.stderr
        records = read_jsonl(log)
        names = [r["event"] for r in records]
        assert names[:4] == ["load", "session_start", "resources_discover", "input"]
        assert names.index("before_agent_start") < names.index("agent_start") < names.index("turn_start")
        assert names[-2:] == ["agent_end", "session_shutdown"]
        assert names.count("agent_end") == 1 and names.count("before_agent_start") == 1
        payload = {name: [r.get("payload") for r in records if r["event"] == name] for name in set(names)}
        assert payload["session_start"][0]["reason"] == "startup"
        assert payload["session_shutdown"][0]["reason"] == "quit"
        assert payload["input"][0] == {"type": "input", "text": "two tools please", "source": "interactive"}
        assert payload["before_agent_start"][0]["prompt"] == "two tools please"
        turn_ends = payload["turn_end"]
        assert [t["turnIndex"] for t in turn_ends] == [0, 1, 2]
        assert [len(t["toolResults"]) for t in turn_ends] == [2, 1, 0]
        roles = [p["message"]["role"] for p in payload["message_end"]]
        assert roles.count("user") == 1 and roles.count("assistant") == 3 and roles.count("toolResult") == 3
        results = {(p["toolName"], p["isError"]) for p in payload["tool_result"]}
        assert results == {("bash", False), ("probe_tool", False), ("bash", True)}
        calls = [(p["toolName"], p["input"]) for p in payload["tool_call"]]
        assert ("bash", {"command": "echo one-out"}) in calls and len(calls) == 3
        requests = stub.model_requests()
        assert len(requests) == 3
        for request in requests:
            system = request["body"]["messages"][0]
            assert system["role"] == "system" and system["content"].endswith("\n\nPI-SYS-APPEND-666")
        assert [t["function"]["name"] for t in requests[0]["body"]["tools"]] == [
            "read", "bash", "edit", "write", "probe_tool"]

    def test_registered_command_runs_without_model_call(self, stub, run_pi, tmp_path):
        log = tmp_path / "pi.jsonl"
        proc = run_pi.prompt("/probecmd alpha beta", extensions=[PI_PROBE], env_extra={"PROBE_LOG": str(log)})
        assert proc.returncode == 0 and proc.stdout == ""  # ctx.ui.notify prints nothing in -p
        command = [r for r in read_jsonl(log) if r["event"] == "command:probecmd"]
        assert command and command[0]["args"] == "alpha beta"
        assert "before_agent_start" not in [r["event"] for r in read_jsonl(log)]
        assert stub.model_requests() == []

    def test_exec_timeout_reports_code_zero_killed_true(self, stub, run_pi, tmp_path):
        log = tmp_path / "pi.jsonl"
        proc = run_pi.prompt("/probecmd exec-timeout", extensions=[PI_PROBE], env_extra={"PROBE_LOG": str(log)})
        assert proc.returncode == 0
        [command] = [r for r in read_jsonl(log) if r["event"] == "command:probecmd"]
        assert command["exec_result"] == {"stdout": "", "stderr": "", "code": 0, "killed": True}
        assert command["exec_ms"] < 2000
        # pi's 5 s SIGKILL fallback timer keeps the process alive after the command
        assert proc.duration >= 5.0

    def test_extension_locations_and_duplicates(self, stub, run_pi, tmp_path):
        log = tmp_path / "pi.jsonl"
        env = {"PROBE_LOG": str(log)}
        installed = run_pi.agent_dir / "extensions" / "probe" / "index.ts"
        installed.parent.mkdir(parents=True)
        shutil.copy(PI_PROBE, installed)
        assert run_pi.prompt("hello", env_extra=env).returncode == 0
        assert [r["event"] for r in read_jsonl(log)].count("load") == 1  # agent-dir extension autoloads
        log.unlink()
        assert run_pi.prompt("hello", extensions=[installed], env_extra=env).returncode == 0
        assert [r["event"] for r in read_jsonl(log)].count("load") == 1  # same path twice: loaded once
        log.unlink()
        clash = run_pi.prompt("hello", extensions=[PI_PROBE], env_extra=env)
        assert clash.returncode == 1 and 'Tool "probe_tool" conflicts' in clash.stdout + clash.stderr
        assert stub.model_requests()[-1:] and len(stub.model_requests()) == 2  # the clash never called the model
        log.unlink()
        alone = run_pi.prompt("hello", "--no-extensions", extensions=[PI_PROBE], env_extra=env)
        assert alone.returncode == 0 and [r["event"] for r in read_jsonl(log)].count("load") == 1

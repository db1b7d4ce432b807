"""A scripted model server for end-to-end tests against real agent hosts.

Claude Code, Hermes Agent and pi all talk to a model over HTTP and stream the
reply as server-sent events.  This module is a small stand-in model: an
stdlib ``ThreadingHTTPServer`` on 127.0.0.1 that answers

* ``POST /v1/messages`` (Anthropic Messages, what Claude Code sends, usually
  with ``?beta=true``) and
* ``POST /v1/chat/completions`` (OpenAI chat completions, what Hermes and pi
  send) and
* ``POST /v1/responses`` (OpenAI Responses API, what Codex CLI sends: it no
  longer accepts ``wire_api = "chat"``)

from an ordered list of rules, streaming when the request asks for it and
returning one JSON object when it does not.  Every request is appended as one
JSON line to a log, so a test can assert on what the host really sent (system
prompt, injected context, tool list, tool results).

Design decisions, and why:

* **A separate process, stdlib only.**  Tests start it with
  ``python stub_server.py --script S --log L --port-file F`` and kill it by
  PID in a fixture finaliser, so a hung host can never wedge the test
  process, and the stub runs under any interpreter without installing
  anything.  ``StubProcess`` at the bottom of this file is that launcher.
* **Rules, not a fixed reply sequence.**  A real host sends requests the test
  did not plan for (Hermes probes ``/api/show`` and ``/v1/models``, Claude Code
  may count tokens).  A rule answers only a request whose *last user or
  tool-result text* matches its regex (``match``, searched with
  ``re.MULTILINE`` so ``^``/``$`` anchor on lines), optionally also its system
  prompt (``match_system``), its model (``match_model``) or the raw body
  (``match_body``); the first matching rule wins; ``times: N`` makes it
  one-shot (N uses), no ``times`` makes it unlimited.  A request no rule
  matches gets the script's default reply.
* **Only the chat endpoints ever consume a rule.**  Any other path
  (``/api/show``, ``/v1/models``, ``/v1/messages/count_tokens`` ...) is
  answered 404 and logged; consuming a scripted tool call there would
  silently lose it.
* **No conversation-shape checks.**  Claude Code puts ``role:"system"``
  entries inside ``messages[]`` (hook-injected context arrives that way), so
  the stub never insists on user/assistant alternation; it only reads.
* **The script may change while running.**  The file is re-read when its
  (mtime, size, inode) signature changes, so a test can append rules between
  turns.  A rule's use count is keyed by its position *and* its content, so
  appending keeps the counts of the rules already there, and a replaced rule
  starts fresh.  A half-written or invalid script keeps the previous one and
  is logged as ``script_error``.
* **Proxy attempts are caught.**  Tests point ``HTTP(S)_PROXY`` at the stub;
  an absolute-URI request line or a ``CONNECT`` is something trying to leave
  127.0.0.1.  It is refused (403), never forwarded, and logged with
  ``"refused_proxy": true`` so a test can assert there were none.
* **Secrets stay out of the log.**  ``authorization``, ``x-api-key``,
  ``api-key``, ``cookie`` and ``proxy-authorization`` headers are dropped.

Script file format (JSON)::

    {"rules": [
        {"match": "run the tests", "tool_calls": [{"name": "Bash",
                   "input": {"command": "pytest -q"}}], "times": 1},
        {"match": "hello", "reply": "hi there"}
     ],
     "default": {"reply": "OK"}}

A bare list is also accepted (rules only, default reply ``"OK"``).  Rule keys:
``match``, ``match_system``, ``match_model``, ``match_body``, ``protocol``
(``"anthropic"`` / ``"openai"`` / ``"responses"``) — all optional, all must hold; ``reply``
(text) and/or ``tool_calls`` (``[{"name", "input", "id"?}]``); ``times``;
``delay`` (seconds before answering); ``status`` (answer with this HTTP error
status instead, in the protocol's error format); ``stop_reason`` (override).

Log line fields: ``seq``, ``time``, ``method``, ``path``, ``query``,
``headers``, ``body`` (parsed JSON, or text), ``protocol``, ``status``,
``stream``, ``rule`` (index, ``"default"`` or null), ``matched_text``,
``response`` (``{"text", "tool_calls", "stop_reason"}``), ``refused_proxy``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

DEFAULT_REPLY = "OK"
SECRET_HEADERS = {"authorization", "x-api-key", "api-key", "cookie", "proxy-authorization"}
ANTHROPIC_PATH = "/v1/messages"
OPENAI_PATH = "/v1/chat/completions"
RESPONSES_PATH = "/v1/responses"


# --------------------------------------------------------------------------
# Reading a request: which text does a rule match against?
# --------------------------------------------------------------------------

def _text_of(content: Any) -> str:
    """Flatten a message ``content`` (string, block list, tool_result) to text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        if content.get("type") in ("text", "input_text", "output_text"):
            return str(content.get("text", ""))
        if content.get("type") == "tool_result":
            return _text_of(content.get("content"))
        if "text" in content:
            return str(content["text"])
        return ""
    if isinstance(content, list):
        return "\n".join(t for t in (_text_of(part) for part in content) if t)
    return str(content)


def last_user_text(protocol: str, body: dict) -> str:
    """The text a rule's ``match`` is searched in.

    Anthropic: the last ``role:"user"`` message (its text blocks and
    tool_result contents; ``role:"system"`` entries are skipped).
    OpenAI: the last ``user`` message, or — when the conversation ends in tool
    results — all the trailing ``tool`` messages joined.
    Responses: the same over ``input[]`` items — the last ``role:"user"``
    message, or the trailing ``function_call_output`` items joined.
    """
    if protocol == "responses":
        return _responses_last_user_text(body)
    messages = body.get("messages") or []
    if protocol == "anthropic":
        for message in reversed(messages):
            if isinstance(message, dict) and message.get("role") == "user":
                return _text_of(message.get("content"))
        return ""
    tail: list[str] = []
    for message in reversed(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "tool":
            tail.append(_text_of(message.get("content")))
            continue
        if tail:
            break
        if role == "user":
            return _text_of(message.get("content"))
    return "\n".join(reversed(tail))


def _responses_last_user_text(body: dict) -> str:
    items = body.get("input")
    if isinstance(items, str):
        return items
    # Codex interleaves its function_call items and hook context (developer
    # messages) with the outputs: skip those, stop at a user/assistant message
    tail: list[str] = []
    for item in reversed(items if isinstance(items, list) else []):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call_output":
            tail.append(_text_of(item.get("output")))
            continue
        if item.get("type") == "function_call" or item.get("role") in ("developer", "system"):
            continue
        if tail:
            break
        if item.get("role") == "user":
            return _text_of(item.get("content"))
    return "\n".join(reversed(tail))


def system_text(protocol: str, body: dict) -> str:
    """The system prompt: Anthropic ``system`` plus any ``role:"system"``
    entries in ``messages[]``; OpenAI ``system``/``developer`` messages;
    Responses ``instructions`` plus ``system``/``developer`` items of ``input[]``."""
    parts: list[str] = []
    if protocol == "anthropic":
        parts.append(_text_of(body.get("system")))
    messages = body.get("messages") or []
    if protocol == "responses":
        parts.append(_text_of(body.get("instructions")))
        messages = body.get("input") if isinstance(body.get("input"), list) else []
    for message in messages:
        if isinstance(message, dict) and message.get("role") in ("system", "developer"):
            parts.append(_text_of(message.get("content")))
    return "\n".join(p for p in parts if p)


# --------------------------------------------------------------------------
# The script: rules, their use counts, hot reload
# --------------------------------------------------------------------------

class Script:
    """Ordered rules read from a JSON file, re-read whenever the file changes."""

    def __init__(self, path: Path | None):
        self.path = path
        self.rules: list[dict] = []
        self.default: dict = {"reply": DEFAULT_REPLY}
        self.uses: dict[tuple[int, str], int] = {}
        self._signature: tuple | None = None
        self.lock = threading.Lock()
        self.errors: list[str] = []

    def _reload_if_changed(self) -> None:
        if self.path is None:
            return
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return
        signature = (st.st_mtime_ns, st.st_size, st.st_ino)
        if signature == self._signature:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            rules, default = _parse_script(data)
        except (ValueError, TypeError, OSError) as exc:
            # keep the previous script: a test writing the file must not
            # make the host see a half-read rule list
            self.errors.append(f"{self.path}: {exc}")
            return
        self._signature = signature
        self.rules, self.default = rules, default

    def choose(self, protocol: str, body: dict, raw_body: str) -> tuple[Any, dict, str]:
        """Pick (and consume) the first matching rule: ``(index|"default", rule, text)``."""
        with self.lock:
            self._reload_if_changed()
            text = last_user_text(protocol, body)
            for index, rule in enumerate(self.rules):
                key = (index, json.dumps(rule, sort_keys=True))
                times = rule.get("times")
                if times is not None and self.uses.get(key, 0) >= int(times):
                    continue
                if not _rule_matches(rule, protocol, body, raw_body, text):
                    continue
                self.uses[key] = self.uses.get(key, 0) + 1
                return index, rule, text
            return "default", self.default, text


def _parse_script(data: Any) -> tuple[list[dict], dict]:
    if isinstance(data, list):
        rules, default = data, {"reply": DEFAULT_REPLY}
    elif isinstance(data, dict):
        rules = data.get("rules", [])
        default = data.get("default", {"reply": DEFAULT_REPLY})
        if isinstance(default, str):
            default = {"reply": default}
    else:
        raise TypeError("script must be a list of rules or an object with 'rules'")
    if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
        raise TypeError("'rules' must be a list of objects")
    if not isinstance(default, dict):
        raise TypeError("'default' must be a string or a rule object")
    for rule in rules + [default]:
        for key in ("match", "match_system", "match_model", "match_body"):
            if key in rule:
                re.compile(rule[key])
        for call in rule.get("tool_calls") or []:
            if not isinstance(call, dict) or "name" not in call:
                raise TypeError(f"tool call without a name: {call!r}")
    return rules, default


def _search(pattern: str, text: str) -> bool:
    # MULTILINE: hosts prepend context blocks to the user text (Claude Code's
    # <system-reminder>), so ^/$ must be able to anchor on the prompt's line
    return re.search(pattern, text, re.MULTILINE) is not None


def _rule_matches(rule: dict, protocol: str, body: dict, raw_body: str, text: str) -> bool:
    if rule.get("protocol") and rule["protocol"] != protocol:
        return False
    if "match" in rule and not _search(rule["match"], text):
        return False
    if "match_system" in rule and not _search(rule["match_system"], system_text(protocol, body)):
        return False
    if "match_model" in rule and not _search(rule["match_model"], str(body.get("model", ""))):
        return False
    if "match_body" in rule and not _search(rule["match_body"], raw_body):
        return False
    return True


# --------------------------------------------------------------------------
# Writing a reply in each protocol
# --------------------------------------------------------------------------

def _chunks(text: str, size: int = 24) -> list[str]:
    """Split text so streaming clients really have to reassemble deltas."""
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def _estimate_tokens(raw: str) -> int:
    return max(1, len(raw) // 4)


class Reply:
    """What one rule answers, independent of protocol."""

    def __init__(self, rule: dict, seq: int, request_raw: str):
        self.text = rule.get("reply")
        if self.text is None and not rule.get("tool_calls"):
            self.text = DEFAULT_REPLY
        self.tool_calls = [
            {"id": call.get("id") or f"stub_{seq}_{i}", "name": call["name"],
             "input": call.get("input") or {}}
            for i, call in enumerate(rule.get("tool_calls") or [])
        ]
        self.stop_reason_override = rule.get("stop_reason")
        self.input_tokens = _estimate_tokens(request_raw)
        self.output_tokens = _estimate_tokens((self.text or "") + json.dumps(self.tool_calls))

    def summary(self, stop_reason: str) -> dict:
        return {"text": self.text, "tool_calls": self.tool_calls, "stop_reason": stop_reason}


def anthropic_events(reply: Reply, model: str, seq: int) -> tuple[list[tuple[str, dict]], str]:
    stop_reason = reply.stop_reason_override or ("tool_use" if reply.tool_calls else "end_turn")
    usage = {"input_tokens": reply.input_tokens, "output_tokens": 1,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    events: list[tuple[str, dict]] = [("message_start", {"type": "message_start", "message": {
        "id": f"msg_stub_{seq}", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}})]
    index = 0
    if reply.text is not None:
        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": {"type": "text", "text": ""}}))
        for piece in _chunks(reply.text):
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                   "delta": {"type": "text_delta", "text": piece}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    for call in reply.tool_calls:
        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": {"type": "tool_use", "id": "toolu_" + call["id"],
                                                                 "name": call["name"], "input": {}}}))
        for piece in _chunks(json.dumps(call["input"])):
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                   "delta": {"type": "input_json_delta", "partial_json": piece}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                     "usage": {"output_tokens": reply.output_tokens}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events, stop_reason


def anthropic_message(reply: Reply, model: str, seq: int) -> tuple[dict, str]:
    stop_reason = reply.stop_reason_override or ("tool_use" if reply.tool_calls else "end_turn")
    content: list[dict] = []
    if reply.text is not None:
        content.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        content.append({"type": "tool_use", "id": "toolu_" + call["id"], "name": call["name"],
                        "input": call["input"]})
    return {"id": f"msg_stub_{seq}", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}, stop_reason


def _openai_usage(reply: Reply) -> dict:
    return {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens}


def openai_chunks(reply: Reply, model: str, seq: int, include_usage: bool) -> tuple[list[dict], str]:
    finish = reply.stop_reason_override or ("tool_calls" if reply.tool_calls else "stop")
    base = {"id": f"chatcmpl-stub-{seq}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}

    def chunk(delta: dict, finish_reason: str | None = None) -> dict:
        return dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish_reason}])

    chunks = [chunk({"role": "assistant", "content": ""})]
    if reply.text:
        chunks.extend(chunk({"content": piece}) for piece in _chunks(reply.text))
    for i, call in enumerate(reply.tool_calls):
        chunks.append(chunk({"tool_calls": [{"index": i, "id": "call_" + call["id"], "type": "function",
                                             "function": {"name": call["name"], "arguments": ""}}]}))
        for piece in _chunks(json.dumps(call["input"])):
            chunks.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    last = chunk({}, finish)
    if include_usage:
        chunks.append(last)
        chunks.append(dict(base, choices=[], usage=_openai_usage(reply)))
    else:
        # a client that did not ask for a usage chunk may index choices[0]
        # on every chunk; put usage on the final chunk instead
        last["usage"] = _openai_usage(reply)
        chunks.append(last)
    return chunks, finish


def openai_completion(reply: Reply, model: str, seq: int) -> tuple[dict, str]:
    finish = reply.stop_reason_override or ("tool_calls" if reply.tool_calls else "stop")
    message: dict = {"role": "assistant", "content": reply.text if reply.text is not None else None}
    if reply.tool_calls:
        message["tool_calls"] = [{"id": "call_" + c["id"], "type": "function",
                                  "function": {"name": c["name"], "arguments": json.dumps(c["input"])}}
                                 for c in reply.tool_calls]
    return {"id": f"chatcmpl-stub-{seq}", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": _openai_usage(reply)}, finish


def _responses_usage(reply: Reply) -> dict:
    return {"input_tokens": reply.input_tokens, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": reply.output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": reply.input_tokens + reply.output_tokens}


def _responses_items(reply: Reply, seq: int) -> list[dict]:
    """The finished output items: an assistant message, then function calls."""
    items: list[dict] = []
    if reply.text is not None:
        items.append({"type": "message", "id": f"msg_stub_{seq}", "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": reply.text, "annotations": []}]})
    for call in reply.tool_calls:
        items.append({"type": "function_call", "id": "fc_" + call["id"], "call_id": "call_" + call["id"],
                      "name": call["name"], "arguments": json.dumps(call["input"]), "status": "completed"})
    return items


def _responses_stop(reply: Reply) -> str:
    return reply.stop_reason_override or ("function_call" if reply.tool_calls else "completed")


def responses_events(reply: Reply, model: str, seq: int) -> tuple[list[tuple[str, dict]], str]:
    """Responses API stream: ``response.created``, per item ``output_item.added``
    → deltas → ``output_item.done``, then ``response.completed`` with usage.
    Codex acts on ``output_item.done`` and ``completed``; the deltas are there
    so a client that renders them has to reassemble pieces."""
    response = {"id": f"resp_stub_{seq}", "object": "response", "created_at": int(time.time()),
                "model": model, "status": "in_progress", "output": []}
    events: list[tuple[str, dict]] = [("response.created", {"type": "response.created",
                                                            "response": dict(response)})]
    items = _responses_items(reply, seq)
    for index, item in enumerate(items):
        if item["type"] == "message":
            started = dict(item, status="in_progress", content=[])
            events.append(("response.output_item.added", {"type": "response.output_item.added",
                                                          "output_index": index, "item": started}))
            for piece in _chunks(reply.text or ""):
                events.append(("response.output_text.delta", {
                    "type": "response.output_text.delta", "item_id": item["id"], "output_index": index,
                    "content_index": 0, "delta": piece}))
        else:
            started = dict(item, status="in_progress", arguments="")
            events.append(("response.output_item.added", {"type": "response.output_item.added",
                                                          "output_index": index, "item": started}))
            for piece in _chunks(item["arguments"]):
                events.append(("response.function_call_arguments.delta", {
                    "type": "response.function_call_arguments.delta", "item_id": item["id"],
                    "output_index": index, "delta": piece}))
        events.append(("response.output_item.done", {"type": "response.output_item.done",
                                                     "output_index": index, "item": item}))
    done = dict(response, status="completed", output=items, usage=_responses_usage(reply))
    events.append(("response.completed", {"type": "response.completed", "response": done}))
    return events, _responses_stop(reply)


def responses_object(reply: Reply, model: str, seq: int) -> tuple[dict, str]:
    return {"id": f"resp_stub_{seq}", "object": "response", "created_at": int(time.time()), "model": model,
            "status": "completed", "output": _responses_items(reply, seq),
            "usage": _responses_usage(reply)}, _responses_stop(reply)


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------

class StubState:
    """Shared by all handler threads: the script, the log, a request counter."""

    def __init__(self, script_path: Path | None, log_path: Path):
        self.script = Script(script_path)
        self.log_path = log_path
        self.log_lock = threading.Lock()
        self.seq = 0
        self.seq_lock = threading.Lock()

    def next_seq(self) -> int:
        with self.seq_lock:
            self.seq += 1
            return self.seq

    def write_log(self, record: dict) -> None:
        line = json.dumps(record, ensure_ascii=False, default=str)
        with self.log_lock:
            with open(self.log_path, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")
                fh.flush()


class StubHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "tacit-stub/1"
    state: StubState  # set on the subclass built by make_server

    # quiet: the JSONL log is the record
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    # -- plumbing ---------------------------------------------------------

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = bytearray()
            while True:
                size_line = self.rfile.readline().strip()
                size = int(size_line.split(b";")[0] or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _headers_for_log(self) -> dict:
        return {k.lower(): v for k, v in self.headers.items() if k.lower() not in SECRET_HEADERS}

    def _send_json(self, status: int, obj: dict) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        # the body ends when the connection closes: simplest valid framing
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _sse(self, data: str, event: str | None = None) -> None:
        frame = (f"event: {event}\n" if event else "") + f"data: {data}\n\n"
        self.wfile.write(frame.encode())
        self.wfile.flush()

    def _base_record(self, seq: int, raw: bytes) -> dict:
        split = urlsplit(self.path)
        body: Any
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        return {"seq": seq, "time": time.time(), "method": self.command, "path": split.path,
                "query": parse_qs(split.query), "headers": self._headers_for_log(), "body": body,
                "protocol": None, "status": None, "stream": None, "rule": None,
                "matched_text": None, "response": None, "refused_proxy": False}

    # -- proxy attempts ---------------------------------------------------

    def _is_proxy_request(self) -> bool:
        return self.command == "CONNECT" or self.path.startswith(("http://", "https://"))

    def _refuse_proxy(self) -> None:
        seq = self.state.next_seq()
        record = self._base_record(seq, b"")
        record.update(path=self.path, status=403, refused_proxy=True)
        record["query"] = {}
        if self.command != "CONNECT":
            try:
                raw = self._read_body()
                record["body"] = raw.decode("utf-8", "replace")[:2000] if raw else None
            except (OSError, ValueError):
                pass
        self.state.write_log(record)
        self.close_connection = True
        self._send_json(403, {"error": "tacit stub: outbound request refused (offline test)"})

    # -- dispatch ---------------------------------------------------------

    def do_CONNECT(self) -> None:  # noqa: N802
        self._refuse_proxy()

    def do_GET(self) -> None:  # noqa: N802
        self._handle()

    def do_POST(self) -> None:  # noqa: N802
        self._handle()

    def do_PUT(self) -> None:  # noqa: N802
        self._handle()

    def do_DELETE(self) -> None:  # noqa: N802
        self._handle()

    def do_HEAD(self) -> None:  # noqa: N802
        self._handle()

    def _handle(self) -> None:
        if self._is_proxy_request():
            self._refuse_proxy()
            return
        raw = self._read_body()
        seq = self.state.next_seq()
        record = self._base_record(seq, raw)
        path = record["path"].rstrip("/")
        protocol = {ANTHROPIC_PATH: "anthropic", OPENAI_PATH: "openai", RESPONSES_PATH: "responses"}.get(path)
        if self.command != "POST" or protocol is None:
            record["status"] = 404
            self.state.write_log(record)
            self._send_json(404, {"error": {"type": "not_found_error",
                                            "message": f"tacit stub: no {self.command} {path}"}})
            return
        body = record["body"]
        if not isinstance(body, dict):
            record.update(protocol=protocol, status=400)
            self.state.write_log(record)
            self._send_json(400, {"error": {"type": "invalid_request_error", "message": "body is not JSON"}})
            return
        record["protocol"] = protocol
        rule_id, rule, text = self.state.script.choose(protocol, body, raw.decode("utf-8", "replace"))
        record.update(rule=rule_id, matched_text=text[-2000:], stream=bool(body.get("stream")))
        if self.state.script.errors:
            record["script_error"] = self.state.script.errors.pop()
        if rule.get("delay"):
            time.sleep(float(rule["delay"]))
        if rule.get("status"):
            record["status"] = int(rule["status"])
            self.state.write_log(record)
            self._send_json(int(rule["status"]), {"type": "error", "error": {
                "type": "api_error", "message": rule.get("reply") or "tacit stub: scripted error"}})
            return
        reply = Reply(rule, seq, raw.decode("utf-8", "replace"))
        model = str(body.get("model") or "stub-model")
        stream = bool(body.get("stream"))
        # build the whole answer first and log it BEFORE sending: a host may
        # exit (and a test read the log) the moment the last byte arrives
        if protocol == "anthropic":
            if stream:
                events, stop = anthropic_events(reply, model, seq)
                frames = [(name, json.dumps(payload)) for name, payload in events]
            else:
                message, stop = anthropic_message(reply, model, seq)
        elif protocol == "responses":
            if stream:
                events, stop = responses_events(reply, model, seq)
                frames = [(name, json.dumps(payload)) for name, payload in events]
            else:
                message, stop = responses_object(reply, model, seq)
        else:
            if stream:
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                chunks, stop = openai_chunks(reply, model, seq, include_usage)
                frames = [(None, json.dumps(chunk)) for chunk in chunks] + [(None, "[DONE]")]
            else:
                message, stop = openai_completion(reply, model, seq)
        record.update(status=200, response=reply.summary(stop))
        self.state.write_log(record)
        if not stream:
            self._send_json(200, message)
            return
        self._start_sse()
        for name, data in frames:
            self._sse(data, event=name)


def make_server(script_path: Path | None, log_path: Path, port: int = 0) -> ThreadingHTTPServer:
    state = StubState(script_path, log_path)
    handler = type("BoundStubHandler", (StubHandler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix=path.name + ".")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def _raise_keyboard_interrupt(signum: int, frame: Any) -> None:
    # SIGTERM (the fixture's kill) ends serve_forever like Ctrl-C does
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted Anthropic/OpenAI model server for e2e tests.")
    parser.add_argument("--script", type=Path, help="JSON rule file (re-read when it changes)")
    parser.add_argument("--log", type=Path, required=True, help="JSONL request log (appended)")
    parser.add_argument("--port", type=int, default=0, help="port (default: ephemeral)")
    parser.add_argument("--port-file", type=Path, help="write the bound port here once listening")
    args = parser.parse_args(argv)
    server = make_server(args.script, args.log, args.port)
    signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    if args.port_file:
        _write_atomic(args.port_file, str(server.server_address[1]))
    print(f"tacit stub listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


# --------------------------------------------------------------------------
# Launcher used by the tests
# --------------------------------------------------------------------------

class StubProcess:
    """Start the stub as a child process and talk to its files.

    ``set_script`` writes the rule file atomically (the server re-reads it on
    its next request); ``requests()`` parses the log.  ``stop()`` kills the
    process by PID; it is safe to call twice.
    """

    def __init__(self, workdir: Path, rules: list[dict] | None = None,
                 default: str | dict | None = None, python: str | None = None):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.script_path = self.workdir / "script.json"
        self.log_path = self.workdir / "requests.jsonl"
        self.port_file = self.workdir / "port"
        self.stderr_path = self.workdir / "stub.stderr"
        self._rules: list[dict] = []
        self._default: dict = {"reply": DEFAULT_REPLY}
        self.set_script(rules or [], default)
        self.log_path.touch()
        self.port_file.unlink(missing_ok=True)
        self._stderr = open(self.stderr_path, "w")
        self.proc = subprocess.Popen(
            [python or sys.executable, str(Path(__file__).resolve()), "--script", str(self.script_path),
             "--log", str(self.log_path), "--port-file", str(self.port_file)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._stderr,
            start_new_session=True)
        deadline = time.monotonic() + 15
        while not self.port_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"stub server did not start: {self.stderr_path.read_text()[-2000:]}")
            time.sleep(0.02)
        self.port = int(self.port_file.read_text())
        self.url = f"http://127.0.0.1:{self.port}"
        self.pid = self.proc.pid

    def set_script(self, rules: list[dict], default: str | dict | None = None) -> None:
        """Replace the rules (and, if given, the default reply)."""
        self._rules = list(rules)
        if default is not None:
            self._default = {"reply": default} if isinstance(default, str) else dict(default)
        _parse_script({"rules": self._rules, "default": self._default})  # fail here, not in the server
        _write_atomic(self.script_path, json.dumps({"rules": self._rules, "default": self._default}, indent=1))

    def add_rules(self, *rules: dict) -> None:
        """Append rules; rules already there keep their use counts."""
        self.set_script(self._rules + list(rules))

    def requests(self, path: str | None = None, *, include_unmatched: bool = True) -> list[dict]:
        """The parsed log; ``path`` filters (e.g. ``"/v1/messages"``)."""
        records = []
        for line in self.log_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                records.append(json.loads(line))
        if path is not None:
            records = [r for r in records if r.get("path") == path]
        if not include_unmatched:
            records = [r for r in records if r.get("protocol")]
        return records

    def model_requests(self) -> list[dict]:
        """Only requests to the chat endpoints (the ones that consume rules)."""
        return [r for r in self.requests() if r.get("protocol") and r.get("status") == 200]

    def refused_proxy(self) -> list[dict]:
        return [r for r in self.requests() if r.get("refused_proxy")]

    def stop(self) -> None:
        proc = getattr(self, "proc", None)
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        stderr = getattr(self, "_stderr", None)
        if stderr is not None and not stderr.closed:
            stderr.close()


if __name__ == "__main__":
    sys.exit(main())

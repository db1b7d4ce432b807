"""What the host boundary costs per event (tacit.boundary), and the gate on the way out.

    python tests/benchmarks/boundary.py

Prints the best of 5 runs (µs per call) for: a typical user message, one
holding a secret and a private span, a tool call with a 2,000-character
command and nested arguments, a 1 MB paste, ``admit`` of a don't-keep
message, and ``gate_outgoing`` of a prompt's context (a fix-pattern block
and a notice). Not collected by pytest.
"""

from __future__ import annotations

import time

from tacit.boundary import admit, clean_event, gate_outgoing
from tacit.events import MessageEnd, ToolCall
from tacit.hookspecs import ContextResult, Injection
from tacit.session import SessionState

GHP = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
TYPICAL = ("the build fails on CI with a missing module error in src/api/handlers.py, can you check the "
           "imports and run the tests again with pytest -q")
SECRET = TYPICAL + f" <private>my pin is 9931</private> and export GITHUB_TOKEN={GHP}"
COMMAND = "pytest -q tests/ " + "--deselect tests/test_x.py::test_y " * 55
NESTED = {"command": COMMAND[:2000], "edits": [{"old_string": "a = 1\n" * 50, "new_string": "a = 2\n" * 50}] * 5}


def best(fn, runs: int = 5, inner: int = 200) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - start) / inner)
    return min(times) * 1e6


def main() -> None:
    cases = {
        "clean_event: typical user message (150 chars)":
            lambda: clean_event(MessageEnd(session_id="s", text=TYPICAL)),
        "clean_event: message with a secret and a private span":
            lambda: clean_event(MessageEnd(session_id="s", text=SECRET)),
        "clean_event: tool call, 2,000-char command + nested edits":
            lambda: clean_event(ToolCall(session_id="s", name="Bash", args=NESTED)),
        "admit: a don't-keep message": lambda: admit(
            MessageEnd(session_id="s", role="user", text="don't save this, the vault code is 4471"),
            SessionState(session_id="s")),
        "gate_outgoing: fix-pattern block + notice (memoised)": lambda: gate_outgoing(ContextResult(
            context=[Injection("<learned-patterns>\n1. Fix: restart the worker with make restart\n"
                               "</learned-patterns>", 40, "fixes.inject")],
            notices=["Memory adapted: uses pnpm"])),
    }
    for name, fn in cases.items():
        print(f"{name:60s} {best(fn):9.1f} µs")
    big = "lorem ipsum dolor " * 58_000  # ~1 MB
    print(f"{'clean_event: a 1 MB paste':60s} {best(lambda: clean_event(MessageEnd(session_id='s', text=big)), inner=3) / 1000:9.1f} ms")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A scripted fake child agent for tacit's tests.

Tests point ``child_command`` at this script instead of ``claude -p`` /
``hermes -z`` / ``pi -p``::

    child_command = "<python> tests/fake_agent/fake_agent.py --mode save --log calls.jsonl {prompt_file}"

It behaves like a real child agent where that matters: it reads the prompt
tacit rendered, and it changes MEMORY.md / USER.md only through the real
``tacit memory …`` CLI (the same commands the prompt tells a model to run),
so locks, limits, the scanner and atomic writes are exercised for real.
Every invocation appends one JSON line to ``--log`` (mode, pid, process
group, ``TACIT_CHILD``, the job kind guessed from the prompt) so tests can
count invocations.

Modes (``--mode`` or the ``FAKE_AGENT_MODE`` environment variable):

``save``        save what the prompt asks for: a correction → USER.md; a
                review / flush → one MEMORY.md entry; a skill → a skill;
                a consolidation → same as ``consolidate``; a rule reading →
                each line's first quoted name as ``tacit guard add --line``
``nothing``     change nothing and print ``Nothing to save.``
``consolidate`` merge the over-full target's entries into one short entry
                (``tacit memory batch``), so an add that overflowed then fits
``hang``        start a grandchild process (its pid goes to ``--pidfile``),
                then sleep forever; with ``--term-exit0`` SIGTERM makes it
                exit with status 0 (a killed child must still be a failure);
                with ``--escape`` the grandchild leaves the process group
                and keeps stdout open
``crash``       print to stderr and exit with status 3
``garbage``     write to MEMORY.md directly, bypassing tacit: a pasted build log
                larger than the limit (``--garbage text``) or invalid UTF-8
                (``--garbage binary``)
``recurse``     act as if tacit's hooks ran inside the child: build a
                hook-mode engine and feed it a correction quoted from the
                prompt; report the effects to ``--report`` (must be none)
``usage``       print a Claude Code ``--output-format json`` result with
                token usage and cost (then behave like ``save``)

``--sleep S`` waits S seconds before acting (a slow child).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

MODES = ("save", "nothing", "consolidate", "hang", "crash", "garbage", "recurse", "usage")


def tacit_argv() -> list[str]:
    # child_env puts tacit's interpreter folder first on PATH, like a real child
    found = shutil.which("tacit")
    return [found] if found else [sys.executable, "-m", "tacit"]


def tacit(*args: str, stdin: str | None = None) -> tuple[int, dict]:
    proc = subprocess.run([*tacit_argv(), *args, "--json"], input=stdin, capture_output=True, text=True)
    try:
        out = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}
    except ValueError:
        out = {"raw": proc.stdout, "stderr": proc.stderr}
    return proc.returncode, out


def job_kind(prompt: str) -> str:
    if "<correction>" in prompt:
        return "correction"
    if "too full" in prompt and "Consolidate" in prompt:
        return "consolidate"
    if "tacit's skill writer" in prompt:
        return "skill"
    if "reviewing a coding session" in prompt:
        return "review"
    if "about to be" in prompt:
        return "flush"
    if "tacit's rule reader" in prompt:
        return "rules"
    return "unknown"


def between(prompt: str, tag: str) -> str:
    match = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", prompt, re.S)
    return match.group(1).strip() if match else ""


def consolidate_targets(prompt: str) -> list[str]:
    # the line naming the over-full scopes ("GLOBAL NOTES … and USER PROFILE … are too full")
    first = next((line for line in prompt.splitlines() if "too full" in line), "")
    targets = []
    for title, scope in (("GLOBAL NOTES", "global"), ("PROJECT MEMORY", "project"), ("USER PROFILE", "user")):
        if title in first:
            targets.append(scope)
    return targets or ["global"]


def do_consolidate(prompt: str) -> int:
    status = 0
    for target in consolidate_targets(prompt):
        _, shown = tacit("memory", "show", *(["--target", "user"] if target == "user" else ["--scope", target]))
        entries = shown.get("entries", [])
        if len(entries) < 2:
            continue
        merged = "Merged: " + "; ".join(e[:12].strip() for e in entries)
        merged = merged[:200]
        ops = [{"action": "replace", "target": target, "old_text": entries[0], "content": merged}]
        ops += [{"action": "remove", "target": target, "old_text": e} for e in entries[1:]]
        code, result = tacit("memory", "batch", "-", stdin=json.dumps(ops))
        print(f"{target}: consolidated {len(entries)} entries -> 1 ({result.get('message') or result.get('error')})")
        status = status or code
    return status


def do_save(prompt: str, kind: str) -> int:
    if kind == "consolidate":
        return do_consolidate(prompt)
    if kind == "correction":
        text = " ".join(between(prompt, "correction").split())
        code, result = tacit("memory", "add", "--target", "user", f"Correction: {text}")
        print("Saved the correction to USER.md." if code == 0 else f"Could not save: {result}")
        return code
    if kind in ("review", "flush"):
        code, result = tacit("memory", "add", f"Noted during {kind}: the project uses pnpm.")
        print(f"Saved 1 entry ({kind}).")
        return code
    if kind == "rules":
        return do_rules(prompt)
    if kind == "skill":
        body = ("## When to Use\nWhen releasing.\n\n## Procedure\n1. Run the tests.\n2. Tag.\n\n"
                "## Pitfalls\nNone yet.\n\n## Verification\nThe tag exists.\n")
        path = os.path.join(os.getcwd(), f".fake-skill-{os.getpid()}.md")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(body)
        try:
            code, result = tacit("skill", "create", "--name", "release-procedure",
                                 "--description", "Cut a release: test, tag, push.", "--body-file", path)
        finally:
            os.unlink(path)
        print("Created skill release-procedure." if code == 0 else f"Could not create: {result}")
        return code
    print("Nothing to save.")
    return 0


def do_rules(prompt: str) -> int:
    """Propose each line's first quoted name as a guard in the reply (the rules child has no
    tools), as a model might: a name with a dot or slash is a path, anything else a command."""
    proposed = []
    for where, text in re.findall(r"^- `([^`]+:\d+)`: (.*)$", prompt, re.M):  # lines and `lesson:N`
        quoted = re.findall(r"`([^`]+)`", text)
        if not quoted:
            continue
        name = quoted[0]
        pattern = f"path:{name}" if ("/" in name or "." in name) and " " not in name else name
        proposed.append(f"GUARD {where} {pattern}")
    print("\n".join(["Proposed:", *proposed]) if proposed else "Nothing to save.")
    return 0


def do_hang(args) -> int:
    if args.term_exit0:
        signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    # --escape: the grandchild leaves the process group (like a daemon) and
    # keeps our stdout open — the runner must not wait for it forever
    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                                  start_new_session=args.escape)
    if args.pidfile:
        with open(args.pidfile, "w") as handle:
            json.dump({"child": os.getpid(), "grandchild": grandchild.pid}, handle)
    print("working…", flush=True)
    while True:
        time.sleep(1)


def do_garbage(args) -> int:
    path = os.path.join(os.environ.get("TACIT_HOME", os.getcwd()), "memories", "MEMORY.md")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if args.garbage == "binary":
        blob = b"\n\xff\xfe\x00 not utf-8 \xc3\x28"
    else:
        # a whole build log pasted in as one "entry", with a sloppy separator:
        # larger than the file's limit and not a clean round trip
        log_lines = [f"[{n:04d}] vite v5.2.0 building for production... chunk {n} ok" for n in range(45)]
        blob = ("\n§\n\nBUILD LOG (saved for later):\n" + "\n".join(log_lines) + "\n").encode("utf-8")
    with open(path, "ab") as handle:
        handle.write(blob)
    print("Edited MEMORY.md directly.")
    return 0


def do_recurse(prompt: str, args) -> int:
    """What a child would do if the host loaded tacit's hooks inside it."""
    from tacit.config import load_config
    from tacit.events import MessageEnd, ToolResult, TurnEnd
    from tacit.hosts.runtime import build_engine
    from tacit.stores.ledger import Ledger

    cfg = load_config()
    engine = build_engine(cfg, "oneshot")
    quoted = between(prompt, "correction") or "no, don't do that. I told you to use pnpm"
    results = [engine.dispatch(MessageEnd(session_id="grandchild", role="user", text=quoted))]
    for _ in range(10):
        results.append(engine.dispatch(ToolResult(session_id="grandchild", name="Bash")))
        results.append(engine.dispatch(ToolResult(session_id="grandchild", name="Edit")))
    results.append(engine.dispatch(TurnEnd(session_id="grandchild", assistant_text="ok")))
    with Ledger(cfg).read() as conn:
        sessions = [r[0] for r in conn.execute("SELECT session_id FROM sessions")]
    report = {"is_child": cfg.is_child,
              "effects": [repr(r) for r in results if r.notices or getattr(r, "context", None)],
              "state_files": sessions}
    # also through the CLI, like a model running `tacit …` from its shell tool
    proc = subprocess.run([*tacit_argv(), "detect", "correction", quoted], capture_output=True, text=True)
    report["detect_exit"] = proc.returncode
    if args.report:
        with open(args.report, "w", encoding="utf-8") as handle:
            json.dump(report, handle)
    print("Nothing to save.")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", default=os.environ.get("FAKE_AGENT_MODE", "save"), choices=MODES)
    parser.add_argument("--log", help="append one JSON line per invocation here")
    parser.add_argument("--pidfile", help="hang: write {child, grandchild} pids here")
    parser.add_argument("--report", help="recurse: write what the inner engine did here")
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--term-exit0", action="store_true")
    parser.add_argument("--escape", action="store_true", help="hang: the grandchild leaves the group")
    parser.add_argument("--garbage", choices=("text", "binary"), default="text")
    parser.add_argument("prompt_file", nargs="?")
    args = parser.parse_args(argv)

    prompt = ""
    if args.prompt_file:
        with open(args.prompt_file, encoding="utf-8") as handle:
            prompt = handle.read()
    kind = job_kind(prompt)
    if args.log:
        with open(args.log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"mode": args.mode, "kind": kind, "pid": os.getpid(),
                                     "pgid": os.getpgid(0), "tacit_child": os.environ.get("TACIT_CHILD"),
                                     "tacit_home": os.environ.get("TACIT_HOME"), "cwd": os.getcwd(),
                                     "time": time.time()}) + "\n")
    if args.sleep:
        time.sleep(args.sleep)

    if args.mode == "nothing":
        print("Nothing to save.")
        return 0
    if args.mode == "consolidate":
        return do_consolidate(prompt)
    if args.mode == "hang":
        return do_hang(args)
    if args.mode == "crash":
        print("fake agent: simulated crash", file=sys.stderr)
        return 3
    if args.mode == "garbage":
        return do_garbage(args)
    if args.mode == "recurse":
        return do_recurse(prompt, args)
    if args.mode == "usage":
        code = do_save(prompt, kind)
        print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1234,
                          "num_turns": 2, "result": "Saved.", "session_id": "fake",
                          "total_cost_usd": 0.0123,
                          "usage": {"input_tokens": 1500, "cache_read_input_tokens": 200,
                                    "output_tokens": 80}}))
        return code
    return do_save(prompt, kind)


if __name__ == "__main__":
    sys.exit(main())

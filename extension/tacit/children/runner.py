"""Running one child job to completion, supervised.

Design decisions
- **One runner for every kind** (consolidate, correction, review, skill,
  flush); the caller decides where it runs: ``tacit child run JOB_ID`` in its
  own session (the service and in-process hosts: the child outlives whoever
  asked for it), or inline (``tacit learn --apply``, consolidation on demand).
- **A timeout kills the whole process group**, and *killed or non-zero is a
  failure* whatever the exit code says (pi's exec reports code 0 when it kills
  on timeout; the original design took that for success). The agent also
  gets ``PR_SET_PDEATHSIG``-free isolation: it is its own process group, so
  the kill reaches everything it started that stayed in the group.
- **Output is read with a cap.** stdout/stderr go to files in the job's
  private temp folder and only their last ``OUTPUT_CAP`` bytes are read: a
  child printing 50 MB costs 1 MB, and a grandchild that keeps a pipe open
  can never hang the runner.
- **Every run is logged** to ``logs/children.jsonl`` (kind, command with the
  prompt elided, duration, exit, killed, usage) and recorded on the job row.
- **Children cannot lose memory** (``tacit.children.integrity``): what the
  child may change is copied before it runs and checked after it exits;
  what had to be put back is listed in the record (``restored``) and fails
  the run.
- **No agent? Deterministic fallbacks** (``tacit.children.fallbacks``). A
  correction whose child *failed* is also saved by the fallback: the user
  will not repeat it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from tacit.children import integrity
from tacit.children.commands import (
    NOTHING_TO_SAVE,
    agent_available,
    build_command,
    timeout_for,
)
from tacit.children.env import process_env
from tacit.children.fallbacks import run_fallback
from tacit.children.prompts import render_job_prompt
from tacit.fsutil import append_private_line, ensure_private_dir
from tacit.hosts.hermes.child_scopes import file_tagged
from tacit.log import log_exception
from tacit.projects import project_for
from tacit.stores import history

OUTPUT_CAP = 1_000_000  # bytes of a child's stdout / stderr kept


def run_job(cfg, job: dict, *, agent: bool | None = None) -> dict:
    """Run one child job; returns its log record. Never raises."""
    started = time.time()
    kind = job.get("kind", "?")
    host = job.get("host") or cfg.host
    record = {"job_id": job.get("id"), "kind": kind, "host": host, "session_id": job.get("session_id"),
              "start": started}
    try:
        use_agent = agent_available(cfg, host) if agent is None else agent
        if use_agent:
            record.update(_run_agent(cfg, host, job))
            if not record["ok"] and kind == "correction":
                # the child crashed, hung or was killed: keep the lesson
                record["fallback"] = {"mode": "deterministic", **run_fallback(cfg, job)}
        else:
            record.update({"mode": "deterministic", **run_fallback(cfg, job)})
    except Exception as exc:  # noqa: BLE001
        log_exception(cfg, f"child job {kind}", exc)
        record.update({"ok": False, "error": f"{type(exc).__name__}: {exc}"})
    record["duration"] = round(time.time() - started, 3)
    append_child_log(cfg, record)
    return record


def _run_agent(cfg, host, job) -> dict:
    snap = integrity.snapshot(cfg, job)  # what the child may change, before anything runs
    prompt = render_job_prompt(cfg, job)
    timeout = timeout_for(cfg, job["kind"])
    ensure_private_dir(cfg.home_str)
    with tempfile.TemporaryDirectory(prefix="tacit-child-") as tmp:
        workdir = Path(tmp)
        argv = build_command(cfg, host, job, prompt, workdir)
        out_path, err_path = workdir / "stdout", workdir / "stderr"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            project = project_for(job.get("cwd"), home=cfg.env.get("HOME"))
            env = process_env(cfg, host, child=True, project=project.root if project else None)
            # what the child saves is recorded as its doing, for this session (tacit.stores.history)
            actor = history.Actor(
                kind="child", name=job.get("kind", "?"), session_id=job.get("session_id") or "", host=host or "",
                cause=_cause_of(job)[:history.CAUSE_CHARS], group=f"job:{job.get('id', '')}",
                cause_event=str((job.get("variables") or {}).get("event_id") or ""))
            env["TACIT_ACTOR"] = actor.to_env()
            proc = subprocess.Popen(argv, cwd=cfg.home_str, env=env,
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True)  # its own process group: kill it whole
            killed = False
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                killed = True
                kill_group(proc)
        verdict = integrity.verify(cfg, job, snap)  # the child is gone (exited or killed)
        if host == "hermes" and verdict.ok and not cfg.child_command:
            file_tagged(cfg, project, actor)  # its project entries, saved through its own tool
        stdout, stderr = read_tail(out_path), read_tail(err_path)
        usage = parse_usage(stdout, workdir / "usage.json")
    ok = proc.returncode == 0 and not killed and verdict.ok  # what had to be put back fails the run
    stdout_text = stdout.decode("utf-8", "replace")
    return {
        "ok": ok,
        # the prompts ask for exactly this reply when nothing is worth keeping
        "nothing_to_save": ok and NOTHING_TO_SAVE in stdout_text,
        "mode": "agent",
        "command": redact_command(argv, prompt),
        "exit": proc.returncode,
        "killed": killed,
        "timeout": timeout,
        "usage": usage,
        "stdout_tail": stdout_text[-800:],
        "stderr_tail": stderr.decode("utf-8", "replace")[-800:],
        **verdict.fields(),
    }


def read_tail(path: Path, cap: int = OUTPUT_CAP) -> bytes:
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > cap:
                handle.seek(size - cap)
            return handle.read(cap)
    except OSError:
        return b""


def kill_group(proc: subprocess.Popen) -> None:
    """SIGTERM the child's process group, then SIGKILL what is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            continue
        break
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the leader is gone; no member may linger
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        pass


def redact_command(argv: list[str], prompt: str) -> list[str]:
    return ["<prompt>" if a == prompt else a for a in argv]


def parse_usage(stdout: bytes, usage_file: Path) -> dict | None:
    """Token/cost usage as the host printed it: Claude Code's ``--output-format
    json`` (``usage``, ``total_cost_usd``), Hermes's ``--usage-file``, or a
    JSON line with ``usage`` (pi, Codex)."""
    usage = None
    try:
        if usage_file.exists():
            usage = json.loads(usage_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        usage = None
    if usage is None:
        text = stdout.decode("utf-8", "replace").strip()
        for candidate in (text, *reversed(text.splitlines()[-5:])):
            try:
                data = json.loads(candidate)
            except ValueError:
                continue
            if isinstance(data, dict) and ("usage" in data or "total_cost_usd" in data):
                usage = {k: data[k] for k in ("usage", "total_cost_usd", "num_turns", "duration_ms",
                                              "is_error") if k in data}
                break
    return usage


def append_child_log(cfg, record: dict) -> None:
    append_private_line(os.path.join(cfg.state_dir_str, "logs", "children.jsonl"),
                        json.dumps(record, ensure_ascii=False, default=str))


def _cause_of(job) -> str:
    """The user's words that led to this job, for the history's "why"."""
    variables = job.get("variables") or {}
    for key in ("user_text", "message", "correction", "text"):
        if isinstance(variables.get(key), str) and variables[key].strip():
            return variables[key]
    return ""

"""Running one child job to completion, supervised and within budget.

Design notes: docs/design/children.md#tacitchildrenrunner
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from tacit.boundary import scrub
from tacit.children import budget, integrity, orphans, rule_replies
from tacit.children.commands import (
    default_model, NOTHING_TO_SAVE, REPLY_ONLY, agent_available, build_command, timeout_for,
)
from tacit.children.env import LAUNCH_FALLBACK, SESSION_ENV, process_env
from tacit.children.fallbacks import run_fallback, save_job_rules
from tacit.children.output import parse_usage, reply_text, why_failed
from tacit.children.prompts import render_job_prompt
from tacit.display import clip
from tacit.fsutil import append_private_line, ensure_private_dir, read_tail
from tacit.hosts import spec as host_specs
from tacit.log import log_exception
from tacit.projects import project_for
from tacit.safety import redact_secrets
from tacit.stores import history, notices
from tacit.stores.ledger import Ledger
from tacit.stores import jobs
from tacit.stores.jobs import insert as insert_job

OUTPUT_CAP = 1_000_000  # bytes of a child's stdout / stderr kept
PIPE_CHUNK = 65_536  # bytes of the prompt written at once
KIND_ORDER = ("correction", "review", "skill", "flush", "rules", "consolidate")  # tasks of a combined prompt


def run_job(cfg, job: dict, *, agent: bool | None = None, siblings: tuple | list = (),
            budget_checked: bool = False) -> dict:
    """Run one child job (and its merged ``siblings``); its log record. Never raises."""
    started = time.time()
    kind = job.get("kind", "?")
    host = job.get("host") or cfg.host
    # a replayed job with no agent host is still a session of some host: the transcript's (tacit learn)
    record = {"job_id": job.get("id"), "kind": kind, "host": host or job.get("learned_from"),
              "session_id": job.get("session_id"),
              "start": started}
    if (job.get("variables") or {}).get(LAUNCH_FALLBACK):  # started without its session's environment
        record[LAUNCH_FALLBACK] = job["variables"][LAUNCH_FALLBACK]
    try:
        use_agent = agent_available(cfg, host, kind) if agent is None else agent
        verdict = _verdict(cfg, job) if use_agent and not budget_checked else None
        if verdict is not None and not verdict.allowed:
            record.update(_over_budget(cfg, job, verdict))  # waits, or its deterministic fallback ran
        elif use_agent:
            jobs = sorted([job, *siblings], key=lambda j: _rank(j.get("kind")))
            try:
                record.update(_run_agent(cfg, host, job, jobs))
            except RuntimeError as exc:  # no safe way to start this agent (commands.build_command)
                log_exception(cfg, f"child job {kind}", exc)
                record.update({"ok": False, "mode": "agent", "error": str(exc)})
            if siblings:
                record["merged"] = [j.get("id") for j in siblings]
                record["kinds"] = [j.get("kind") for j in jobs]
            if not record["ok"]:
                for one in jobs:  # the child crashed, hung or was killed: keep the lesson
                    if one.get("kind") == "correction":
                        record.setdefault("fallback", {"mode": "deterministic", **run_fallback(cfg, one)})
                _tell_unsaved(cfg, record, jobs)
        else:
            record.update({"mode": "deterministic", **run_fallback(cfg, job)})
    except Exception as exc:  # noqa: BLE001
        log_exception(cfg, f"child job {kind}", exc)
        record.update({"ok": False, "error": f"{type(exc).__name__}: {exc}"})
    record["duration"] = round(time.time() - started, 3)
    _record_outcome(cfg, job, siblings, record)
    append_child_log(cfg, record)
    return record


def _tell_unsaved(cfg, record: dict, jobs: list[dict]) -> None:
    """The user was told it would be saved ("Noted …", a correction): when the child failed, one
    notice says what was not, why, and how to keep it. Never raises."""
    why = why_failed(record)
    lines = []
    left = (record.get("fallback") or {}).get("left_for_review") or []
    if left:  # a correction the fallback could not phrase either
        said = "; ".join(f'"{clip(text, 80)}"' for text in left)
        lines.append(f"tacit could not save your correction {said}: the background agent failed ({why}) and tacit "
                     "cannot phrase it as a rule itself, so it is not in memory; to keep it, save it in your words "
                     "with `tacit memory add \"…\"` (or /memory-teach).")
    noted = [h.get("text") for j in jobs if j.get("kind") == "review"
             for h in (j.get("variables") or {}).get("highlighted") or () if isinstance(h, dict) and h.get("durable")]
    if noted:  # "Noted (…): … — this session's memory review saves it."
        said = "; ".join(f'"{clip(str(text), 80)}"' for text in noted)
        lines.append(f"tacit could not save what it noted, {said}: the background review failed ({why}); "
                     "`tacit review` (/memory-review) shows it, to keep or drop.")
    try:
        with Ledger(cfg) as ledger, ledger.write() as conn:
            for line in lines:
                notices.add(conn, line)
    except Exception as exc:  # noqa: BLE001 — the run happened; the notice is best effort
        log_exception(cfg, "telling what a failed child could not save", exc)


def _rank(kind) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


def _verdict(cfg, job: dict) -> budget.Verdict:
    with Ledger(cfg) as ledger, ledger.read() as conn:
        return budget.check(cfg, conn, exclude_job=str(job.get("id") or ""))


def _over_budget(cfg, job: dict, verdict: budget.Verdict) -> dict:
    """No agent today: a consolidation merges now, a correction saves its exact rules now; all wait."""
    kind = job.get("kind")
    note = {"over_budget": verdict.describe()}
    if kind == "consolidate":
        return {**note, "mode": "deterministic", **run_fallback(cfg, job)}
    variables = dict(job.get("variables") or {})
    saved: list[str] = []
    if kind == "correction":
        texts = [t for t in [*variables.get("earlier_corrections", []), variables.get("correction", "")]
                 if isinstance(t, str) and t.strip()]
        left = []
        for text in texts:
            result = save_job_rules(cfg, job, [text])
            (saved.extend(result["saved"]) if result.get("saved") else left.append(text))
        if not left:
            return {**note, "ok": True, "mode": "deterministic", "saved": saved, "left_for_review": []}
        variables["correction"], variables["earlier_corrections"] = left[-1], left[:-1]
    with Ledger(cfg) as ledger, ledger.write() as conn:
        insert_job(conn, {**job, "status": "running"})  # a job run without a row (tests, old callers)
        held = budget.hold(cfg, conn, job, verdict, variables=variables)
    return {**note, **held, "saved": saved} if saved else {**note, **held}


def _record_outcome(cfg, job: dict, siblings, record: dict) -> None:
    """The outcome on the job rows (a waiting one kept as it is); the variables go, the record stays."""
    if record.get("waiting") or not job.get("id"):
        return
    try:
        with Ledger(cfg) as ledger, ledger.write() as conn:
            now = time.time()
            status = "done" if record.get("ok") else "failed"
            # a run with no queued row (the consolidation `tacit memory add` runs) gets one: its spend
            # counts against the daily budget and `tacit cost` shows it
            insert_job(conn, {"kind": "?", "session_id": "", **job, "status": "running",
                              "created": record.get("start") or now})
            jobs.finish(conn, job["id"], status, record, now, unless_waiting=True)
            for other in siblings:
                jobs.finish(conn, other.get("id"), status, {"ok": record.get("ok"), "mode": "merged",
                                                             "merged_into": job["id"], "kind": other.get("kind")}, now)
    except Exception as exc:  # noqa: BLE001 — the run happened; its row is best effort
        log_exception(cfg, "child job outcome", exc)


def combined_prompt(cfg, jobs: list[dict]) -> str:
    """One job's prompt, or one prompt with a section per job of a turn."""
    prompts = [render_job_prompt(cfg, job) for job in jobs]
    if len(prompts) == 1:
        return prompts[0]
    head = (f"You have {len(prompts)} tasks from the same session, one after the other. Do each one "
            "completely, in order; reply \"Nothing to save.\" only if none of them saved anything.\n")
    sections = [f"\n# Task {n} of {len(prompts)}: {job.get('kind')}\n\n{prompt}"
                for n, (job, prompt) in enumerate(zip(jobs, prompts), 1)]
    return head + "".join(sections)


def _run_agent(cfg, host, job, jobs) -> dict:
    snap = integrity.snapshot(cfg, job)  # what the child may change, before anything runs
    prompt = scrub(combined_prompt(cfg, jobs))
    timeout = max(timeout_for(cfg, j["kind"]) for j in jobs)
    ensure_private_dir(cfg.home_str)
    with tempfile.TemporaryDirectory(prefix="tacit-child-") as tmp:
        workdir = Path(tmp)
        command = build_command(cfg, host, job, prompt, workdir)
        out_path, err_path = workdir / "stdout", workdir / "stderr"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            project = project_for(job.get("cwd"), home=cfg.env.get("HOME"))
            env = process_env(cfg, host, child=True, project=project.root if project else None,
                              session=(job.get("variables") or {}).get(SESSION_ENV))
            # what the child saves is recorded as its doing, for this session (tacit.stores.history)
            actor = history.Actor(
                kind="child", name="+".join(j.get("kind", "?") for j in jobs), session_id=job.get("session_id") or "",
                host=history.learn_host(job, host), cause=scrub(" | ".join(c for c in map(_cause_of, jobs) if c))[:history.CAUSE_CHARS],
                group=f"job:{job.get('id', '')}",
                cause_event=str((job.get("variables") or {}).get("event_id") or ""))
            env["TACIT_ACTOR"] = actor.to_env()
            proc = subprocess.Popen(command.argv, cwd=cfg.home_str, env=env,
                                    stdin=subprocess.PIPE if command.stdin is not None else subprocess.DEVNULL,
                                    stdout=out, stderr=err, preexec_fn=orphans.die_with_parent,
                                    start_new_session=True)  # its own process group: kill it whole
            orphans.note(cfg, [j.get("id", "") for j in jobs or [job]], proc.pid)  # reaped if this runner dies
            killed = False
            deadline = time.monotonic() + timeout  # the prompt's write counts: a child may never read it
            try:
                if command.stdin is not None:
                    _feed(proc, command.stdin, deadline)
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                killed = True
                kill_group(proc)
            finally:
                orphans.forget(cfg, (jobs or [job])[0].get("id", ""))
        spec = host_specs.get(host or "")
        after = spec.load("after_child") if spec and not killed and not cfg.child_command else None
        if after is not None:
            after(cfg, project, actor)  # e.g. a Hermes child's project entries, saved through its own tool
        verdict = integrity.verify(cfg, job, snap)  # the child is gone (exited or killed)
        emptied = integrity.emptied_scopes(snap)  # kept (recorded, undoable) but never a success
        stdout, stderr = read_tail(out_path, OUTPUT_CAP), read_tail(err_path, OUTPUT_CAP)
        usage = parse_usage(stdout, workdir / "usage.json", None if cfg.child_command else host)
    ok = proc.returncode == 0 and not killed and verdict.ok and not emptied  # what had to be put back fails it
    stdout_text = stdout.decode("utf-8", "replace")
    reply = reply_text(stdout_text, None if cfg.child_command else host)
    spend = budget.normalise(cfg, usage, model=_model_of(cfg, host, job, command.argv))
    record = {
        "ok": ok,
        # the prompts ask for exactly this reply when nothing is worth keeping
        "nothing_to_save": ok and NOTHING_TO_SAVE in (reply if reply is not None else stdout_text),
        "mode": "agent",
        "command": command.shown,
        "prompt_via": command.prompt_via,
        "exit": proc.returncode,
        "killed": killed,
        "timeout": timeout,
        "usage": usage,
        "spend": asdict(spend) if spend else None,
        "stdout_tail": redact_secrets((reply if reply is not None else stdout_text)[-800:]),
        "stderr_tail": redact_secrets(stderr.decode("utf-8", "replace")[-800:]),
        **verdict.fields(),
        **({"suspicious": [f"emptied {scope}" for scope in emptied]} if emptied else {}),
    }
    if emptied:
        integrity.tell_emptied(cfg, job, emptied)
    if ok and job.get("kind") in REPLY_ONLY:
        record["proposals"] = _proposals(cfg, job, reply if reply is not None else stdout_text, actor)
    if command.argv != command.shown:
        record["exec"] = command.exec_shown or command.argv
    return record


def _proposals(cfg, job: dict, reply: str, actor) -> dict:
    """The guards a ``rules`` child proposed in its reply, applied (``tacit.children.rule_replies``)."""
    try:
        return rule_replies.apply(cfg, job, reply, actor)
    except Exception as exc:  # noqa: BLE001 — the run happened; nothing applied is the safe side
        log_exception(cfg, "applying a rules child's proposals", exc)
        return {"accepted": [], "refused": [], "error": f"{type(exc).__name__}: {exc}"}


def _feed(proc: subprocess.Popen, text: str, deadline: float) -> None:
    """Write the prompt to the child's stdin and close it, giving up at ``deadline`` or when the child
    exits: a child stuck before reading a prompt longer than the pipe holds must not stop the clock
    (not reading it all is not an error here)."""
    data = memoryview(text.encode("utf-8", "replace"))
    try:
        fd = proc.stdin.fileno()
        os.set_blocking(fd, False)
        while data and proc.poll() is None:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if select.select([], [fd], [], min(left, 0.5))[1]:
                with contextlib.suppress(BlockingIOError):
                    data = data[os.write(fd, data[:PIPE_CHUNK]):]
    except OSError:
        pass  # the child closed its end: it read what it wanted
    finally:
        with contextlib.suppress(OSError):
            proc.stdin.close()


def _model_of(cfg, host, job: dict, argv: list) -> str:
    """The model the child ran, when its report does not say (the host's ``child.default_model``)."""
    if "--model" in argv and argv.index("--model") + 1 < len(argv):
        return argv[argv.index("--model") + 1]
    model = cfg.child_model or (job.get("variables") or {}).get("model") or (
        "" if cfg.child_command else default_model(host))
    if model or cfg.child_command:
        return model
    spec = host_specs.get(host or "")
    child = spec.load("child") if spec is not None else None
    return child.default_model(cfg) if child is not None and hasattr(child, "default_model") else ""


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
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the leader is gone; no member may linger
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=3)


def append_child_log(cfg, record: dict) -> None:
    append_private_line(cfg.children_log, json.dumps(record, ensure_ascii=False, default=str))


def _cause_of(job) -> str:
    """The user's words that led to this job, for the history's "why"."""
    variables = job.get("variables") or {}
    return next((variables[key] for key in ("user_text", "message", "correction", "text")
                 if isinstance(variables.get(key), str) and variables[key].strip()), "")

"""Child agents: one runner for every job (consolidate, correction, review,
skill, flush).

Design decisions
- **One runner, a command template per host.** ``claude -p …``, ``hermes -z …``
  and ``pi -p …`` differ only in argv and in how they report usage, so they are
  data (``DEFAULT_COMMANDS``), overridable with ``child_command`` in config.
  Placeholders: ``{prompt}``, ``{prompt_file}``, ``{model}``, ``{max_turns}``,
  ``{usage_file}``, ``{tacit}`` (this interpreter running the tacit CLI),
  ``{pi_extension}``, ``{data_dir}``.
- **The child edits the files itself** through ``tacit memory …`` /
  ``tacit skill …`` (or Hermes's own tools, which write the same files under
  the same locks). The parent never writes back an in-memory copy: after a
  run, stores re-read from disk.
- **Inert children.** ``TACIT_CHILD=1`` is set, plus the host's own switch
  (``--settings '{"disableAllHooks": true}'`` for Claude Code), so a child never
  runs detectors, nudges or grandchildren — quoted corrections in the child's
  prompt cannot re-trigger anything.
- **A timeout kills the whole process group**, and *killed or non-zero is a
  failure* whatever the exit code says (pi's exec reports code 0 when it
  kills on timeout; the original design took that for success).
- **Every run is logged** to ``logs/children.jsonl``: kind, command (prompt
  elided), start, duration, exit, killed, and the token/cost usage the host
  printed.
- **No agent? Deterministic fallbacks.** Consolidation merges duplicates;
  a correction is saved verbatim; review, skill extraction and flush need a
  model and are skipped (logged). A correction whose child *failed* is also
  saved verbatim: the user will not repeat it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

# Claude Code child: only the tools it needs; Bash pre-approved for tacit's
# CLI only, file tools only inside the data folder (``//`` = absolute path in
# a permission rule); anything else is denied, never prompted (dontAsk).
# Verified on 2.1.197 (docs/hosts/claude-code.md, "Child agent").
CLAUDE_CHILD_TOOLS = "Bash,Read,Edit,Write"

DEFAULT_COMMANDS: dict[str, list[str]] = {
    "claude-code": [
        "claude", "-p", "{prompt}",
        "--settings", '{"disableAllHooks": true, "autoMemoryEnabled": false}',
        "--no-session-persistence",
        "--output-format", "json",
        "--max-turns", "{max_turns}",
        "--model", "{model}",
        "--tools", CLAUDE_CHILD_TOOLS,
        "--allowedTools", "Bash(tacit:*),Bash({tacit_cmd}:*),Read(/{data_dir}/**),Edit(/{data_dir}/**)",
        "--permission-mode", "dontAsk",
        "--strict-mcp-config",
        "--disable-slash-commands",
        "--add-dir", "{data_dir}",
    ],
    # Hermes's own memory/skill tools only (they write the same files); no
    # --model unless child_model is set: the child uses the user's configured model
    "hermes": ["hermes", "-z", "{prompt}", "-t", "memory,skills", "--usage-file", "{usage_file}",
               "--model", "{model}"],
    # --no-extensions + --extension: only tacit loads in the child (its bridge serves the
    # memory/skill tools; TACIT_CHILD=1 keeps it inert); empty values drop their flag
    "pi": ["pi", "-p", "--no-session", "--no-extensions", "--extension", "{pi_extension}",
           "--model", "{model}", "{prompt}"],
    # Codex CLI 0.171.0 (docs/hosts/codex.md): no hooks at all in the child, no
    # session files, the data folder (its cwd, not a git repo) as the writable
    # sandbox workspace, JSONL events (the last line carries token usage); no
    # --model unless child_model is set: the child uses the user's configured model
    "codex": ["codex", "exec", "--skip-git-repo-check", "--ephemeral", "--disable", "hooks",
              "--sandbox", "workspace-write", "--json", "--color", "never", "--model", "{model}",
              "--", "{prompt}"],
}
DEFAULT_MODELS = {"claude-code": "haiku", "hermes": "", "pi": "", "codex": ""}
NOTHING_TO_SAVE = "Nothing to save."


def timeout_for(cfg, kind: str) -> int:
    specific = cfg.settings.get(f"child_timeout_{kind}", 0)
    return int(specific or cfg.child_timeout_seconds)


def command_template(cfg, host: str | None) -> list[str] | None:
    if cfg.child_command:
        return shlex.split(cfg.child_command)
    return list(DEFAULT_COMMANDS[host]) if host in DEFAULT_COMMANDS else None


def agent_available(cfg, host: str | None) -> bool:
    """A child can run: children enabled, a template, and its program found."""
    if not cfg.child_enabled:
        return False
    template = command_template(cfg, host)
    if not template:
        return False
    program = template[0]
    if program in ("{tacit}",) or os.path.isabs(program):
        return program == "{tacit}" or os.access(program, os.X_OK)
    return shutil.which(program, path=cfg.env.get("PATH")) is not None


def tacit_command() -> list[str]:
    """How a child (or the agent) runs tacit's CLI: the console script next to
    this interpreter if present, else ``python -m tacit.cli``."""
    script = Path(sys.executable).parent / "tacit"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "tacit.cli"]


def build_command(cfg, host: str | None, job: dict, prompt: str, workdir: Path) -> list[str]:
    template = command_template(cfg, host)
    if template is None:
        raise RuntimeError(f"no child command for host {host!r}")
    prompt_file = workdir / "prompt.md"
    prompt_file.write_text(prompt, encoding="utf-8")
    tacit = tacit_command()
    values = {
        "prompt": prompt,
        "prompt_file": str(prompt_file),
        "model": cfg.child_model or job.get("variables", {}).get("model") or DEFAULT_MODELS.get(host or "", ""),
        "max_turns": str(cfg.child_max_turns),
        "usage_file": str(workdir / "usage.json"),
        "tacit_cmd": " ".join(tacit),
        "pi_extension": job.get("variables", {}).get("pi_extension", ""),
        "data_dir": cfg.home_str,
    }
    argv: list[str] = []
    for arg in template:
        if arg == "{tacit}":
            argv.extend(tacit)
            continue
        argv.append(_fill(arg, values))
    # a flag whose value came out empty (no --model configured) is dropped
    cleaned: list[str] = []
    for arg in argv:
        if arg == "" and cleaned and cleaned[-1].startswith("--"):
            cleaned.pop()
            continue
        cleaned.append(arg)
    return cleaned


def _fill(arg: str, values: dict) -> str:
    out = arg
    for key, value in values.items():
        out = out.replace("{" + key + "}", value)
    return out


def child_env(cfg, host: str | None) -> dict:
    env = dict(os.environ)
    env["TACIT_CHILD"] = "1"
    env["TACIT_HOME"] = cfg.home_str if cfg.home_str == cfg.state_dir_str else env.get("TACIT_HOME", "")
    if not env["TACIT_HOME"]:
        env.pop("TACIT_HOME")
    if host:
        env["TACIT_HOST"] = host
    # the tacit CLI must be on the child's PATH for `tacit memory add …`
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


# ---------------------------------------------------------------------------
# Running one job
# ---------------------------------------------------------------------------


def run_job(cfg, job: dict, *, agent: bool | None = None) -> dict:
    """Run one child job to completion (the caller decides where: detached
    process, thread, inline). Returns the log record; never raises."""
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
                # the child crashed, hung or was killed: keep the lesson verbatim
                # rather than lose it (a correction is not asked for twice)
                record["fallback"] = _run_fallback(cfg, job)
        else:
            record.update(_run_fallback(cfg, job))
    except Exception as exc:  # noqa: BLE001
        from tacit.log import log_exception

        log_exception(cfg, f"child job {kind}", exc)
        record.update({"ok": False, "error": f"{type(exc).__name__}: {exc}"})
    record["duration"] = round(time.time() - started, 3)
    append_child_log(cfg, record)
    return record


def _run_agent(cfg, host, job) -> dict:
    import tempfile

    from tacit.prompts import render_job_prompt

    prompt = render_job_prompt(cfg, job)
    timeout = timeout_for(cfg, job["kind"])
    with tempfile.TemporaryDirectory(prefix="tacit-child-") as tmp:
        workdir = Path(tmp)
        argv = build_command(cfg, host, job, prompt, workdir)
        cfg.home.mkdir(parents=True, exist_ok=True)
        proc = subprocess.Popen(
            argv,
            cwd=cfg.home_str,
            env=child_env(cfg, host),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: kill it whole
        )
        killed = False
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            killed = True
            _kill_group(proc)
            try:
                out, err = proc.communicate(timeout=3)
            except subprocess.TimeoutExpired:
                # a grandchild that left the group (setsid) still holds the
                # pipes: stop reading rather than wait for it forever
                for pipe in (proc.stdout, proc.stderr):
                    pipe.close()
                proc.wait()
                out, err = b"", b"(output lost: a process that left the child's group kept the pipes open)"
        usage = parse_usage(out, workdir / "usage.json")
    ok = proc.returncode == 0 and not killed
    stdout_text = out.decode("utf-8", "replace")
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
        "stderr_tail": err.decode("utf-8", "replace")[-800:],
    }


def _kill_group(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=3)
            # the leader is gone; make sure no member of the group lingers
            os.killpg(proc.pid, signal.SIGKILL)
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return


def redact_command(argv: list[str], prompt: str) -> list[str]:
    return ["<prompt>" if a == prompt else a for a in argv]


def parse_usage(stdout: bytes, usage_file: Path) -> dict | None:
    """Token/cost usage as the host printed it: Claude Code's ``--output-format
    json`` (``usage``, ``total_cost_usd``), Hermes's ``--usage-file``, or a
    JSON line with ``usage`` (pi)."""
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


def _run_fallback(cfg, job) -> dict:
    from tacit.fallbacks import run_fallback

    return {"mode": "deterministic", **run_fallback(cfg, job)}


def append_child_log(cfg, record: dict) -> None:
    try:
        cfg.logs_dir.mkdir(parents=True, exist_ok=True)
        with open(cfg.children_log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
    except OSError:
        pass


def run_job_file(cfg, path: str) -> dict:
    """``tacit child run FILE``: the detached side of ``detached_launcher``."""
    from tacit.state import FileStateStore

    job_path = Path(path)
    job = json.loads(job_path.read_text(encoding="utf-8"))
    try:
        return run_job(cfg, job)
    finally:
        store = FileStateStore(cfg.sessions_dir_str, cfg.session_state_max_age_days)
        # In-process hosts keep state in memory (their own launcher clears the
        # mark); only a hook host's session has a file to update.
        if Path(store.path_for(job["session_id"])).exists():
            with store.session(job["session_id"]) as state:
                state.clear_running(job["kind"], job.get("id"))
        try:
            job_path.unlink()
        except OSError:
            pass

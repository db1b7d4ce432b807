"""Where a child job runs. The engine calls ``launcher(job) -> pid | None``.

- ``detached_launcher`` (hook hosts): writes the job to ``<state>/jobs/`` and
  starts ``tacit child run FILE`` in its own session; returns at once, and the
  child outlives the hook process. Cheap to import: this is on the hook path.
- ``thread_launcher`` (in-process hosts): a daemon thread runs the job; the
  host's turn never waits.
- ``inline_launcher`` (``tacit learn --apply``, tests): runs it now.

When a thread/inline job ends, ``engine.child_finished(job)`` clears its
running mark and makes the stores re-read from disk; a detached job does the
same to the session's state file itself (``tacit.child.run_job_file``).
"""

from __future__ import annotations

import os


def detached_launcher(cfg):
    def launch(job: dict) -> int:
        from tacit.fastjson import DEFAULT_SEPARATORS, dumps
        from tacit.fsutil import atomic_write_text
        from tacit.spawn import spawn_detached, tacit_argv, tacit_process_env

        path = os.path.join(cfg.state_dir_str, "jobs", f"{job['id']}.json")
        atomic_write_text(path, dumps(job, separators=DEFAULT_SEPARATORS))  # = json.dumps(job, ensure_ascii=False)
        env = tacit_process_env(cfg, job.get("host"))
        return spawn_detached(tacit_argv("child", "run", path), env=env)

    return launch


def thread_launcher(cfg, engine_ref):
    import threading

    def launch(job: dict) -> None:
        threading.Thread(target=_run_then_finish, args=(cfg, engine_ref, job),
                         name=f"tacit-child-{job['kind']}", daemon=True).start()
        return None

    return launch


def inline_launcher(cfg, engine_ref):
    def launch(job: dict) -> None:
        _run_then_finish(cfg, engine_ref, job)
        return None

    return launch


def _run_then_finish(cfg, engine_ref, job: dict) -> None:
    """Run the job here, then tell the engine (if it still exists) that it
    ended — even when the job raised."""
    from tacit.child import run_job

    try:
        run_job(cfg, job)
    finally:
        engine = engine_ref()
        if engine is not None:
            engine.child_finished(job)

"""The detached side of the Hermes launcher: ``python -m tacit.hosts.hermes.jobs``.

``job FILE``  run one child job (``tacit.child.run_job``: the ``hermes -z``
              child, its usage into ``logs/children.jsonl``), then delete FILE.
``overflow``  add the entries queued when memory was full
              (``tacit.hosts.hermes.overflow.drain``).

Started by ``tacit.hosts.hermes.launcher`` in its own session with stdio on
/dev/null, so it outlives a ``hermes -z`` that ``os._exit``s right after its
turn. It builds its Config exactly as the plugin does (host "hermes",
Hermes's memory limits, this interpreter's folder first on PATH), so the
child it starts uses the same ``HERMES_HOME``, config and model as the
session it serves. Session state is the parent's business (in memory, cleared
by its watcher thread): unlike ``tacit child run`` this writes no session
files. Whatever happens is logged to the data folder's log; exit status 0
means "ran", not "saved" (that is in ``children.jsonl``).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cfg = None
    try:
        from tacit.config import load_config
        from tacit.hosts.hermes.settings import adapt_config

        cfg = adapt_config(load_config(host="hermes"))
        if argv[:1] == ["job"] and len(argv) == 2:
            run_job_file(cfg, argv[1])
            return 0
        if argv == ["overflow"]:
            from tacit.hosts.hermes.overflow import drain

            drain(cfg)
            return 0
        sys.stderr.write("usage: python -m tacit.hosts.hermes.jobs job FILE | overflow\n")
        return 2
    except BaseException as exc:  # noqa: BLE001 — a detached runner has no one to raise to
        from tacit.log import log_exception

        log_exception(cfg, f"hermes job runner {' '.join(argv)}", exc)
        return 1


def run_job_file(cfg, path: str) -> dict:
    import json
    import os

    from tacit.child import run_job

    try:
        with open(path, encoding="utf-8") as handle:
            job = json.load(handle)
        return run_job(cfg, job)
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


if __name__ == "__main__":  # pragma: no cover — exercised through subprocesses
    sys.exit(main())

"""The detached side of the Hermes overflow runner: ``python -m tacit.hosts.hermes.jobs overflow``
adds the entries queued when memory was full (``tacit.hosts.hermes.overflow.drain``)."""

from __future__ import annotations

import sys

from tacit.config import load_config
from tacit.hosts.hermes.overflow import drain
from tacit.hosts.hermes.settings import adapt_config
from tacit.log import log_exception


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cfg = None
    try:
        cfg = adapt_config(load_config(host="hermes"))
        if argv == ["overflow"]:
            drain(cfg)
            return 0
        sys.stderr.write("usage: python -m tacit.hosts.hermes.jobs overflow\n")
        return 2
    except BaseException as exc:  # noqa: BLE001 — a detached runner has no one to raise to
        log_exception(cfg, f"hermes job runner {' '.join(argv)}", exc)
        return 1


if __name__ == "__main__":  # pragma: no cover — exercised through subprocesses
    sys.exit(main())

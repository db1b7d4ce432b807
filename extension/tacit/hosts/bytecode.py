"""Make sure tacit's own modules are byte-compiled before hooks run them.

Hook hosts start a fresh interpreter per event, and compiling tacit's hook
path from source costs several times the whole hook budget. A normal
``pip install`` writes ``.pyc`` files, but an editable install (or an
environment with ``PYTHONDONTWRITEBYTECODE=1``) never does, so installers for
hook hosts call ``ensure_bytecode()``. ``compileall`` writes regardless of
that variable. Best effort: a read-only site-packages is not an error.
"""

from __future__ import annotations

import os


def ensure_bytecode() -> bool:
    """Compile the tacit package in place; True when it is (now) compiled."""
    try:
        import compileall

        import tacit

        package_dir = os.path.dirname(os.path.abspath(tacit.__file__))
        if not os.access(package_dir, os.W_OK):
            return False
        return bool(compileall.compile_dir(package_dir, quiet=1, workers=1))
    except Exception:  # noqa: BLE001 — an optimisation, never a reason to fail an install
        return False

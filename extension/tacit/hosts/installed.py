"""Which hosts tacit is installed into (for the user, every project): read
from each installer's own manifest (its spec's ``installer``), never by
running the host."""

from __future__ import annotations

from pathlib import Path

from tacit.hosts import spec as host_specs


def manifests(cfg) -> dict[str, Path]:
    """host → where its user-scope install manifest lives."""
    found = {}
    for name, host in host_specs.registry().items():
        try:
            installer = host.load("installer")
            if installer is not None and hasattr(installer, "manifest"):
                found[name] = Path(installer.manifest(cfg))
        except Exception:  # noqa: BLE001 — a broken host's package never breaks `tacit status`
            continue
    return found


def installed(cfg) -> dict[str, str | None]:
    """host → the manifest's path when tacit is installed there, else None."""
    found: dict[str, str | None] = {}
    for host, path in manifests(cfg).items():
        try:
            found[host] = str(path) if path.is_file() else None
        except OSError:
            found[host] = None
    return found

"""Which hosts tacit is installed into (for the user, every project): read
from each installer's own manifest, never by running the host."""

from __future__ import annotations

from pathlib import Path

from tacit.hosts.claude_code import install as claude_code
from tacit.hosts.codex import install as codex
from tacit.hosts.hermes import install as hermes
from tacit.hosts.hermes.settings import hermes_home_of
from tacit.hosts.pi import install as pi


def manifests(cfg) -> dict[str, Path]:
    """host → where its user-scope install manifest lives."""
    return {
        "claude-code": claude_code.locations(cfg, "user")["plugin_dir"] / claude_code.MANIFEST,
        "codex": codex.locations(cfg, "user")["manifest"],
        "hermes": Path(hermes.install_manifest_path(hermes_home_of(cfg))),
        "pi": pi.target_dir(cfg, "user") / pi.MANIFEST,
    }


def installed(cfg) -> dict[str, str | None]:
    """host → the manifest's path when tacit is installed there, else None."""
    found: dict[str, str | None] = {}
    for host, path in manifests(cfg).items():
        try:
            found[host] = str(path) if path.is_file() else None
        except OSError:
            found[host] = None
    return found

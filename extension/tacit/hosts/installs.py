"""Where each host's user-scope install wrote: the host's home-folder variables as the install saw
them (``CODEX_HOME=/x tacit install codex``), kept in tacit's data folder, so that ``tacit status``,
``tacit doctor`` and ``tacit uninstall`` run from another shell still find that install.

Design notes: docs/design/hosts.md#tacithostsinstalls
"""

from __future__ import annotations

import json
from pathlib import Path

from tacit.fsutil import atomic_write_text, read_json_or_none

RECORD = "installs.json"


def _record_path(cfg) -> Path:
    return cfg.state_dir / RECORD


def _read(cfg) -> dict:
    data = read_json_or_none(_record_path(cfg)) or {}
    return {k: v for k, v in data.items() if isinstance(v, dict) and isinstance(v.get("env"), dict)}


def _write(cfg, record: dict) -> None:
    _record_path(cfg).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(_record_path(cfg), json.dumps(record, indent=2, ensure_ascii=False) + "\n")


def _manifest(cfg, host) -> Path | None:
    """Where ``host``'s installer puts its user-scope manifest for ``cfg``'s environment, or None."""
    installer = host.load("installer")
    return Path(installer.manifest(cfg)) if installer is not None and hasattr(installer, "manifest") else None


def remember(cfg, host) -> None:
    """After a user-scope install of ``host``: its home-folder variables as this install saw them."""
    record = _read(cfg)
    record[host.name] = {"env": {var: cfg.env.get(var) for var in host.env_vars},
                         "manifest": str(_manifest(cfg, host))}
    _write(cfg, record)


def forget(cfg, host) -> None:
    """After a user-scope uninstall of ``host``: its record goes once no manifest is left where it says."""
    record = _read(cfg)
    entry = record.get(host.name)
    if entry is not None and not Path(entry.get("manifest") or "").is_file():
        del record[host.name]
        _write(cfg, record)


def at(cfg, env: dict):
    """A copy of ``cfg`` whose environment has ``env``'s variables (None: unset)."""
    copy = cfg.with_settings()
    copy.env = {**{k: v for k, v in cfg.env.items() if k not in env},
                **{k: v for k, v in env.items() if isinstance(v, str)}}
    return copy


def installed_at(cfg, host) -> tuple[object, Path | None, dict]:
    """(the config pointing at ``host``'s user-scope install, its manifest or None, the variables that
    install was made with when they are not this environment's, else {}): where this environment says
    when a manifest is there, else where the install recorded it wrote when its manifest is still there."""
    here = _manifest(cfg, host)
    if here is None or here.is_file():
        return cfg, here, {}
    entry = _read(cfg).get(host.name)
    if entry is not None:
        there = at(cfg, entry["env"])
        path = _manifest(there, host)
        if path is not None and path.is_file():
            return there, path, {k: v for k, v in entry["env"].items() if cfg.env.get(k) != v}
    return cfg, None, {}


def for_uninstall(cfg, host):
    """The config ``tacit uninstall`` works in: this environment's when it names the host's home folder
    itself (``CODEX_HOME=/y``), else where the install recorded it wrote."""
    if any(cfg.env.get(var) for var in host.env_vars):
        return cfg
    return installed_at(cfg, host)[0]


def elsewhere(host, manifest: Path, env: dict) -> str:
    """What to tell about an install made with other home-folder variables than this shell's."""
    made_with = " ".join(f"{k}={v}" if v is not None else f"{k} unset" for k, v in env.items())
    return (f"{host.label}: tacit is installed at {manifest.parent} (installed with {made_with}); this shell's "
            f"{host.label} looks elsewhere: start it with {made_with} to use that install")

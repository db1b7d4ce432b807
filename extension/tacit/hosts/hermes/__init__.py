"""tacit as a Hermes Agent plugin (see docs/hosts/hermes.md).

``plugin`` (the ``hermes_agent.plugins`` entry point: hooks → events),
``settings`` (what tacit reads from Hermes's config.yaml), ``launcher`` and
``jobs`` (child jobs in detached processes that outlive ``hermes -z``),
``overflow`` (memory full → queued add + consolidation child), ``install`` and
``hermes_config`` (``tacit install|uninstall hermes``, editing Hermes's config
with Hermes's own code).
"""

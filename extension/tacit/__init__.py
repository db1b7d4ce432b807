"""tacit — memory for coding agents that they never have to be told to keep.

The package is laid out one concern per folder (see docs/architecture.md):
``stores/`` hold the plain files and the ledger, ``detect/`` the pure text
detectors, ``handlers/`` and ``learn/`` react to host-neutral events,
``hosts/`` translate each agent host's payloads into those events.

Nothing is imported here on purpose: the hook path must stay light.
"""

__version__ = "0.1.0"

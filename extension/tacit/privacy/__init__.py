"""Privacy switches that need the data folder: a project tacit is off for.

``exclusion``: ``tacit off`` / ``tacit on`` markers and the ``exclude`` globs of config.toml; the
engine asks ``excluded`` before it keeps anything of an event. The pure text rules are in
``tacit.safety``; the host boundary that applies them is ``tacit.boundary``."""

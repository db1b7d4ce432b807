"""The detectors as they were before issue 16 (commit 74d60c6), frozen verbatim.

Test-only code, never shipped: ``tests/benchmarks/quality.py`` runs them on
the same rows as the new detectors so the "before" figures are computed, not
remembered. The only edits are import paths (``tacit.detect.x`` →
``.x``, ``tacit.values`` → ``.values``) so the copy runs standalone.
"""

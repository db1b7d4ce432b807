"""tacit's message detectors: pure text in, verdicts out.

- :func:`tacit.detect.analysis.analyse` — one analysis per user message
  (correction, failure report, durable statement, forget / review commands,
  lesson score, an exact rule when tacit can phrase one);
- :func:`tacit.detect.fix.detect_fix` — the fix statement in an agent reply;
- :mod:`tacit.detect.correction` and :mod:`tacit.detect.importance` — the
  older single-purpose entry points, as views of the same analysis.

How each works, the data they were tuned on and their measured figures: docs/detectors.md. (Nothing
is imported here: ``import tacit.detect.fix_tokens`` stays as small as that module.)"""

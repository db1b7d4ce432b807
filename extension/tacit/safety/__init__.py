"""Privacy and context safety: what tacit never keeps, and what never reaches an agent.

Pure text functions (stdlib only, linear time, never raising) that the host
boundary, the stores, child prompts and the session-start context call:

- ``strip_private(text)``: ``<private>…</private>`` spans become ``[private]``.
- ``asks_not_to_keep(text)``: the message asks not to be kept or learned from.
- ``find_secrets(text)`` / ``redact_secrets(text)``: credentials, as spans or
  replaced by ``[REDACTED:<kind>]``.
- ``clean_for_context(text)``: control, invisible and bidi characters out,
  line endings normalised.
- ``gate_context(blocks)``: the pieces that may be injected, and what was
  left out and why.
- ``dangerous_command(text)`` / ``find_dangers(text)``: why a "fix that
  worked" must not be kept.
- ``scan`` and friends: the content scanner (also importable as ``tacit.scan``).

One module per idea: ``private``, ``secrets``, ``invisible``, ``scanner``,
``commands``, ``context_gate``; and ``file_modes`` (import it as
``tacit.safety.file_modes``): files 0600 and folders 0700 in the data folder,
``check(cfg, repair=False)``. The host boundary that applies the text rules to
every event is ``tacit.boundary``. User-facing rules: docs/privacy.md and
docs/scanner.md.
"""

from tacit.safety.commands import Danger, dangerous_command, find_dangers
from tacit.safety.context_gate import (
    Block,
    GateResult,
    LeftOut,
    clean_for_context,
    gate_context,
)
from tacit.safety.private import (
    PRIVATE_MARKER,
    asks_not_to_keep,
    has_private,
    strip_private,
)
from tacit.safety.scanner import (
    CATEGORIES,
    Finding,
    clear_memo,
    describe,
    first_finding,
    pattern_ids,
    scan,
)
from tacit.safety.secrets import SecretSpan, find_secrets, redact_secrets, was_redacted

__all__ = [
    "Block", "CATEGORIES", "Danger", "Finding", "GateResult", "LeftOut", "PRIVATE_MARKER", "SecretSpan",
    "asks_not_to_keep", "clean_for_context", "clear_memo", "dangerous_command", "describe", "find_dangers",
    "find_secrets", "first_finding", "gate_context", "has_private", "pattern_ids", "redact_secrets", "scan",
    "strip_private", "was_redacted",
]

"""Privacy and context safety: what tacit never keeps, and what never reaches an agent.

Pure text functions (stdlib only, linear time, never raising) for the host boundary, the stores,
child prompts and the session-start context: ``strip_private``, ``asks_not_to_keep``,
``find_secrets`` / ``redact_secrets``, ``clean_for_context``, ``gate_context``,
``dangerous_command`` / ``find_dangers``.

Design notes: docs/design/safety.md#tacitsafety"""

from tacit.safety.commands import Danger, dangerous_command, find_dangers
from tacit.safety.context_gate import Block, GateResult, LeftOut, clean_for_context, gate_context
from tacit.safety.private import PRIVATE_MARKER, asks_not_to_keep, strip_private
from tacit.safety.scanner import CATEGORIES, Finding, clear_memo, describe, first_finding, pattern_ids, scan
from tacit.safety.secrets import SecretSpan, find_secrets, redact_secrets, was_redacted

__all__ = [
    "Block", "CATEGORIES", "Danger", "Finding", "GateResult", "LeftOut", "PRIVATE_MARKER", "SecretSpan",
    "asks_not_to_keep", "clean_for_context", "clear_memo", "dangerous_command", "describe", "find_dangers",
    "find_secrets", "first_finding", "gate_context", "pattern_ids", "redact_secrets", "scan",
    "strip_private", "was_redacted",
]

"""The content scanner, under its historical name: see ``tacit.safety.scanner``."""

from tacit.safety.scanner import (
    CATEGORIES,
    Finding,
    clear_memo,
    describe,
    first_finding,
    pattern_ids,
    scan,
)

__all__ = ["CATEGORIES", "Finding", "clear_memo", "describe", "first_finding", "pattern_ids", "scan"]

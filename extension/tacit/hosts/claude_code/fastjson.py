"""Moved to :mod:`tacit.fastjson` (session state, the journal and child job
files use it too, not only this adapter). This name stays so existing
imports keep working; the hook itself imports ``tacit.fastjson`` directly.
"""

from tacit.fastjson import COMPACT, DEFAULT_SEPARATORS, dumps, loads

__all__ = ["COMPACT", "DEFAULT_SEPARATORS", "dumps", "loads"]

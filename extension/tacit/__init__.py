"""tacit — memory for coding agents that they never have to be told to keep.

Design notes: docs/design/core.md#tacit
"""

__version__ = "0.1.0"

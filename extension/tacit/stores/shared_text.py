"""One copy of a text that many sessions hold alike.

Design notes: docs/design/stores.md#tacitstoresshared_text"""

from __future__ import annotations

import functools

KEEP = 64  # distinct texts remembered
SMALL = 256  # shorter texts are not worth a look-up


def shared(text: str) -> str:
    """``text``, or an equal string already held."""
    return text if len(text) < SMALL else _held(text)


@functools.lru_cache(maxsize=KEEP)
def _held(text: str) -> str:
    return text  # a hit answers the first equal text kept

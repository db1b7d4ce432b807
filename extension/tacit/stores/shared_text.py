"""One copy of a text that many sessions hold alike.

Design notes: docs/design/stores.md#tacitstoresshared_text"""

from __future__ import annotations

import threading
from collections import OrderedDict

KEEP = 64  # distinct texts remembered
SMALL = 256  # shorter texts are not worth a look-up

_texts: OrderedDict[str, str] = OrderedDict()
_lock = threading.Lock()


def shared(text: str) -> str:
    """``text``, or an equal string already held."""
    if len(text) < SMALL:
        return text
    with _lock:
        found = _texts.get(text)
        if found is None:
            _texts[text] = found = text
            while len(_texts) > KEEP:
                _texts.popitem(last=False)
        else:
            _texts.move_to_end(text)
        return found

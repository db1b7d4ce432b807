"""The host boundary: what every event's text goes through before tacit keeps it.

The engine calls ``clean_event`` first thing in ``dispatch``, so no handler,
store, log or child prompt ever sees text that could not be stored: lone
surrogates (broken text from a host: JSON allows ``"\\ud800"``, SQLite and
UTF-8 files do not) become U+FFFD. The agent itself still sees exactly what
the user typed; this only shapes what tacit keeps.
"""

from __future__ import annotations

from dataclasses import fields, replace

from tacit.events import Event


def clean_text(text: str) -> str:
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        # through UTF-16: a split pair is joined again, a lone half becomes U+FFFD
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def clean_value(value):
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(str(k)): clean_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(clean_value(v) for v in value)
    return value


def clean_event(event: Event) -> Event:
    changes = {}
    for f in fields(event):
        value = getattr(event, f.name)
        if isinstance(value, (str, dict)):
            cleaned = clean_value(value)
            if cleaned is not value and cleaned != value:
                changes[f.name] = cleaned
    return replace(event, **changes) if changes else event

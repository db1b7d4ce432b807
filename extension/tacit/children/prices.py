"""What a model's tokens cost, for hosts that report tokens but no cost.

Design notes: docs/design/children.md#tacitchildrenprices
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens."""

    pattern: str
    input: float
    output: float
    cache_read: float
    cache_write: float

    def cost(self, *, input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0) -> float:
        """USD for these token counts (``input`` excludes cached tokens)."""
        return (input * self.input + output * self.output + cache_read * self.cache_read
                + cache_write * self.cache_write) / 1_000_000


# pattern, input, output, cache read, cache write (USD per million tokens)
DEFAULT_PRICES: tuple[Price, ...] = tuple(Price(*row) for row in (
    ("claude-opus-4-5*", 5.0, 25.0, 0.50, 6.25),
    ("claude-opus-4*", 15.0, 75.0, 1.50, 18.75),
    ("*opus*", 15.0, 75.0, 1.50, 18.75),
    ("*sonnet*", 3.0, 15.0, 0.30, 3.75),
    ("*haiku-3-5*", 0.80, 4.0, 0.08, 1.0),
    ("*haiku*", 1.0, 5.0, 0.10, 1.25),
    ("gpt-5*-mini*", 0.25, 2.0, 0.025, 0.25),
    ("gpt-5*-nano*", 0.05, 0.40, 0.005, 0.05),
    ("gpt-5*", 1.25, 10.0, 0.125, 1.25),
    ("codex-mini*", 1.50, 6.0, 0.375, 1.50),
    ("gpt-4.1-mini*", 0.40, 1.60, 0.10, 0.40),
    ("gpt-4.1-nano*", 0.10, 0.40, 0.025, 0.10),
    ("gpt-4.1*", 2.0, 8.0, 0.50, 2.0),
    ("gpt-4o-mini*", 0.15, 0.60, 0.075, 0.15),
    ("gpt-4o*", 2.50, 10.0, 1.25, 2.50),
    ("o4-mini*", 1.10, 4.40, 0.275, 1.10),
    ("o3*", 2.0, 8.0, 0.50, 2.0),
))


def parse_price(entry: str) -> Price | None:
    """``"model-glob=input,output[,cache_read[,cache_write]]"`` → Price, or None (cache prices:
    read a tenth of input, write = input, when missing)."""
    if not isinstance(entry, str) or "=" not in entry:
        return None
    pattern, _, numbers = entry.partition("=")
    try:
        values = [float(v) for v in numbers.split(",") if v.strip()]
    except ValueError:
        return None
    if not pattern.strip() or not 2 <= len(values) <= 4 or any(v < 0 for v in values):
        return None
    inp, out = values[0], values[1]
    cache_read = values[2] if len(values) > 2 else inp / 10
    cache_write = values[3] if len(values) > 3 else inp
    return Price(pattern.strip().lower(), inp, out, cache_read, cache_write)


def price_table(cfg) -> tuple[Price, ...]:
    """The user's prices (``child_prices``) then the defaults."""
    own = tuple(p for p in (parse_price(e) for e in cfg.settings.get("child_prices") or ()) if p)
    return own + DEFAULT_PRICES


def price_for(cfg, model: str | None) -> Price | None:
    if not isinstance(model, str) or not model.strip():
        return None
    name = model.strip().lower()
    if "/" in name:  # "provider/model" (pi, OpenRouter)
        name = name.rsplit("/", 1)[1]
    return next((price for price in price_table(cfg) if fnmatch.fnmatchcase(name, price.pattern)), None)

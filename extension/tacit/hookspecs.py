"""The whole plugin contract of tacit, in one page.

A plugin is a module with ``register(engine)``; tacit's own behaviours are
plugins registered the same way (``tacit.handlers.BUILTIN_PLUGINS``), and a
third party adds one through ``plugins = [...]`` in config.toml or the
``tacit.plugins`` entry-point group. Inside ``register``::

    engine.on("tool_call", check, name="myplugin.check")            # foreground
    engine.on("tool_result", learn, name="myplugin.learn", background=True)

Design notes: docs/design/core.md#tacithookspecs
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tacit.events import EVENT_KINDS
from tacit.hosts import spec as host_specs

CHILD_KINDS = ("consolidate", "correction", "review", "skill", "flush", "rules")


@dataclass(frozen=True, slots=True)
class Injection:
    """Text for the model; lower ``priority`` is kept first when a host caps it (memory 10, skills 30)."""

    text: str
    priority: int = 50
    source: str = ""


def by_priority(injections) -> list[str]:
    """The injections' texts, stripped, lower ``priority`` first (ties in order), the empty ones left
    out: what each host joins, within its own bound and framing."""
    ordered = sorted(injections, key=lambda injection: injection.priority)  # a stable sort
    return [text for text in ((injection.text or "").strip() for injection in ordered) if text]


@dataclass(frozen=True, slots=True)
class ChildRequest:
    """Ask for a child agent of ``kind`` (one of ``CHILD_KINDS``)."""

    kind: str
    variables: dict = field(default_factory=dict)
    source: str = ""


@dataclass(slots=True)
class Result:
    notices: list[str] = field(default_factory=list)
    children: list[ChildRequest] = field(default_factory=list)

    def merge(self, other: "Result") -> None:
        self.notices.extend(other.notices)
        self.children.extend(other.children)


@dataclass(slots=True)
class ContextResult(Result):
    context: list[Injection] = field(default_factory=list)

    def merge(self, other: Result) -> None:
        Result.merge(self, other)
        if isinstance(other, ContextResult):
            self.context.extend(other.context)


@dataclass(slots=True)
class ToolCallResult(Result):
    """``block``: the call must not run; ``ask``: ask the user (else block); ``reason``: what is told."""

    block: bool = False
    ask: bool = False
    reason: str = ""

    def merge(self, other: Result) -> None:
        Result.merge(self, other)
        if isinstance(other, ToolCallResult) and (other.block or other.ask):
            self.block = self.block or other.block
            self.ask = (self.ask or other.ask) and not self.block
            self.reason = "\n".join(r for r in (self.reason, other.reason) if r)


RESULT_TYPES: dict[str, type[Result]] = {kind: Result for kind in EVENT_KINDS} | {
    "before_agent_start": ContextResult, "message_end": ContextResult, "tool_call": ToolCallResult}


def honoured(host: str) -> frozenset[str]:
    """What ``host`` shows of a handler's result (its spec's ``honoured``)."""
    spec = host_specs.get(host or "")
    return spec.honoured if spec is not None else frozenset()


def can_ask(host: str) -> bool:
    """Whether ``host`` can put a guard's question to someone now (a check that fails: no one)."""
    spec = host_specs.get(host or "")
    if spec is None or "tool_call.ask" not in spec.honoured:
        return False
    try:
        return not (spec.nobody_to_ask and spec.load("nobody_to_ask")())
    except Exception:  # noqa: BLE001 — a guard never fails open
        return False

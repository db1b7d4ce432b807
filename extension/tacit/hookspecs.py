"""The whole plugin contract of tacit, in one page.

A *plugin* is a module (or any object) with a ``register(engine)`` function.
tacit's own behaviours — correction detection, review nudges, skill
auto-trigger, consolidation, flush, and the learners — are plugins registered
exactly this way (``tacit.handlers.BUILTIN_PLUGINS``); a third-party package
adds its own through the ``tacit.plugins`` entry-point group or the
``plugins`` list in ``config.toml``.

Inside ``register`` a plugin subscribes handlers::

    def register(engine):
        engine.on("turn_end", my_handler, name="myplugin.turn")
        engine.on("tool_call", my_learner, name="myplugin.learn", background=True)

A handler is ``handler(event, ctx) -> Effect | list[Effect] | None``:

``event``
    one of the plain objects in ``tacit.events`` (``event.kind`` names it):

    ================== ==========================================================
    session_start      a session begins (``source``); stores load, snapshot frozen
    before_agent_start the host builds the system context (``prompt``)
    message_end        a complete message: ``role`` ("user"/"assistant"), ``text``
    tool_call          one tool call finished: ``name``, ``ok``, ``args``, ``error``
    command            a slash command or skill ran: ``name``, ``args``
    turn_end           the agent finished replying to one user message:
                       ``user_text``, ``assistant_text``, ``tool_calls`` (this
                       turn's only, as ``ToolCallRecord(name, ok)``)
    before_compact     the host is about to compact the conversation
    session_shutdown   the session ends
    ================== ==========================================================

``ctx``
    a ``tacit.engine.HandlerContext``: ``ctx.cfg`` (Config), ``ctx.state``
    (SessionState: counters and flags; writable only in foreground handlers),
    ``ctx.memory`` / ``ctx.skills`` / ``ctx.ledger`` (stores, opened lazily),
    ``ctx.child_available(kind)``, ``ctx.host``, ``ctx.now()``.

Effects (``tacit.events``) are returned, never performed by the handler:

    InjectContext(text, scope="session"|"prompt", priority)
        text for the model: at session start, or next to the current prompt
    Notify(text)
        a short notice for the user
    RunChild(kind, variables)
        start a child agent: consolidate | correction | review | skill | flush.
        The engine marks it running in the session state, then launches it
        detached (hook hosts) or on a background thread (in-process hosts).

Rules every handler follows:

* **Never raise into the host.** The engine catches, logs to the data
  folder's log, and carries on with the next handler — but a handler should
  not rely on that for expected failures.
* **Never block the turn.** Anything slow (a child agent, a model) is a
  ``RunChild`` effect; anything merely heavier than a few milliseconds (SQLite
  learners, mining) registers with ``background=True``: it runs on a worker
  thread (in-process hosts) or in a detached drain process fed by a journal
  (hook hosts), and its effects other than ``RunChild`` are dropped.
* **Inert in a child.** While ``TACIT_CHILD=1`` the engine dispatches nothing,
  so a child agent never detects, nudges or starts children of its own.
* **Lazy imports.** A handler module is imported on every hook: import
  detectors, SQLite, jinja2 or YAML inside the handler, not at module top.
"""

from tacit.events import EVENT_KINDS  # noqa: E402,F401 — the kinds, defined once


CHILD_KINDS = ("consolidate", "correction", "review", "skill", "flush")

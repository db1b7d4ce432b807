"""tacit's built-in behaviours, each a plugin with ``register(engine)``.

Design notes: docs/design/core.md#tacithandlers"""

BUILTIN_PLUGINS = [
    "tacit.handlers.context",  # frozen snapshot + skill index at session start
    "tacit.handlers.guards",  # lessons checked before every tool call; overrides and repeats
    "tacit.handlers.rule_reader",  # instruction-file lines tacit cannot read -> a child phrases them
    "tacit.handlers.corrections",  # correction detection -> correction-save child
    "tacit.handlers.review",  # tool-call-aware background review
    "tacit.handlers.skill_trigger",  # skill extraction after complex turns
    "tacit.handlers.flush",  # save what matters before compaction / at exit
    "tacit.handlers.forget",  # "forget that …": removed everywhere at once, tombstoned
    "tacit.handlers.host_memory",  # a host's own memory tool wrote: the agent's change, in the history
    "tacit.learn.observe",  # usage patterns + habits from tool calls and commands (ledger)
    "tacit.handlers.notices",  # deliver the learners' one-time "Memory adapted" notices
    "tacit.learn.fixes",  # fix patterns: forge, inject (<learned-patterns>), outcomes, metrics
    "tacit.learn.importance",  # importance captures, heartbeat, nightly review
]

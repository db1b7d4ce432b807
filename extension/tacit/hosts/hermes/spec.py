"""Hermes Agent, as tacit knows it (``tacit.hosts.spec``; docs/hosts/hermes.md)."""

from tacit.hosts.spec import Host

HOST = Host(
    name="hermes",
    label="Hermes Agent",
    honoured=frozenset({"message_end.context", "notices", "tool_call.block", "tool_call.ask"}),
    nobody_to_ask="tacit.hosts.hermes.plugin:nobody_to_ask",  # -z, --yolo, /yolo: a guard denies instead
    # Hermes shows USER.md and the global MEMORY.md (tacit's link to them) and has a memory tool,
    # and indexes tacit's global skills (linked into its skills folder); this project's memory
    # and skills come from tacit
    features=frozenset({"memory_snapshot", "memory_tool", "global_skill_index"}),
    memory_tools=("memory",),
    # Hermes's own memory/skill tools only (they write the same files); no --model unless
    # child_model is set: the child uses the user's configured model
    child_command=("hermes", "-z", "{prompt}", "-t", "memory,skills", "--usage-file", "{usage_file}",
                   "--model", "{model}"),
    # the prompt from stdin through its own entry point: hosts/hermes/child.py (command)
    sessions="tacit.hosts.hermes.sessions",
    child_own_tools=True,  # the child saves with Hermes's memory tool (-t memory,skills)
    after_child="tacit.hosts.hermes.child:file_tagged",  # its tagged project entries, filed
    adapt_config="tacit.hosts.hermes.settings:adapt_config",  # its memory limits (its config.yaml)
    child="tacit.hosts.hermes.child",
    installer="tacit.hosts.hermes.install",
    env_vars=("HERMES_HOME",),
)

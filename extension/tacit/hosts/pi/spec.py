"""pi, as tacit knows it (``tacit.hosts.spec``; docs/hosts/pi.md)."""

from tacit.hosts.spec import Host

HOST = Host(
    name="pi",
    label="pi",
    honoured=frozenset({"before_agent_start.context", "message_end.context", "notices", "tool_call.block"}),
    features=frozenset({"tacit_tools"}),  # tacit's own memory and skill tools (hosts/pi/tools.py)
    # --no-extensions + --extension: only tacit loads in the child (its bridge serves the
    # memory/skill tools; TACIT_CHILD=1 keeps it inert); empty values drop their flag;
    # --mode json: the events carry each message's usage and cost
    child_command=("pi", "-p", "--no-session", "--no-extensions", "--extension", "{pi_extension}",
                   "--model", "{model}", "--mode", "json", "{prompt}"),
    # the rules child: no tools, no extension (--no-tools), it answers in its reply
    child_reply_command=("pi", "-p", "--no-session", "--no-extensions", "--no-tools",
                         "--model", "{model}", "--mode", "json", "{prompt}"),
    sessions="tacit.hosts.pi.sessions",
    transcripts="tacit.hosts.pi.replay",  # `tacit learn` reads its session files
    transcript_label="pi session",
    child="tacit.hosts.pi.child",
    installer="tacit.hosts.pi.install",
    env_vars=("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR"),  # pi reads both; search reads its sessions
    rpc_session="tacit.hosts.pi.protocol:PiSession",  # its extension's session over the service socket
    stdio_session="tacit.hosts.pi.protocol:run_stdio",  # the same, when no service can start
)

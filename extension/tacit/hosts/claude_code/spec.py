"""Claude Code, as tacit knows it (``tacit.hosts.spec``; docs/hosts/claude-code.md)."""

from tacit.hosts.spec import COMMAND_HOOK_BOUNDS, Host

# the child reads its prompt and runs `tacit …` (Bash) to save; anything else is denied,
# never prompted (dontAsk). Verified on 2.1.197 (docs/hosts/claude-code.md, "The child agent").
CHILD_TOOLS = "Bash,Read"
_CHILD_BASE = ("claude", "-p", "{prompt}",
               "--settings", '{"disableAllHooks": true, "autoMemoryEnabled": false}',
               "--no-session-persistence",
               "--output-format", "json",
               "--max-turns", "{max_turns}",
               "--model", "{model}")

HOST = Host(
    name="claude-code",
    label="Claude Code",
    honoured=frozenset({"before_agent_start.context", "message_end.context", "notices",
                        "tool_call.block", "tool_call.ask"}),
    child_command=(
        *_CHILD_BASE,
        "--tools", CHILD_TOOLS,
        "--allowedTools", "Bash(tacit:*),Bash({tacit_cmd}:*),Read(/{data_dir}/**)",
        "--permission-mode", "dontAsk",
        "--strict-mcp-config",
        "--disable-slash-commands",
        "--add-dir", "{data_dir}",
    ),
    # the rules child: no tools at all (``--tools ""``), it answers in its reply
    child_reply_command=(*_CHILD_BASE, "--tools", "", "--strict-mcp-config", "--disable-slash-commands"),
    child_model="haiku",
    shell_marker="CLAUDECODE",
    sessions="tacit.hosts.claude_code.sessions",
    transcripts="tacit.hosts.claude_code.replay",
    transcript_label="Claude Code transcript",
    child="tacit.hosts.claude_code.child",
    installer="tacit.hosts.claude_code.install",
    hook_handler="tacit.hosts.claude_code.hook:handle",
    hook_bounds=COMMAND_HOOK_BOUNDS,
    hook_events={"SessionStart": 10, "PreToolUse": 5, "UserPromptSubmit": 10, "UserPromptExpansion": 5,
                 "PostToolUse": 5, "PostToolUseFailure": 5, "Stop": 10, "PreCompact": 10, "SessionEnd": 2},
    headless="env:CLAUDE_CODE_ENTRYPOINT=sdk,tty",  # claude -p: its stderr is otherwise empty
    env_vars=("CLAUDE_CONFIG_DIR",),
)

"""Codex CLI, as tacit knows it (``tacit.hosts.spec``; docs/hosts/codex.md)."""

from tacit.hosts.spec import COMMAND_HOOK_BOUNDS, Host

_EXEC = ("codex", "exec", "--skip-git-repo-check", "--ephemeral", "--disable", "hooks", "--sandbox")
_OUTPUT = ("--json", "--color", "never", "--model", "{model}", "--", "{prompt}")

HOST = Host(
    name="codex",
    label="Codex CLI",
    honoured=frozenset({"before_agent_start.context", "message_end.context", "notices", "tool_call.block"}),
    # Codex CLI 0.171.0: no hooks at all in the child, no session files, the data folder (its cwd,
    # not a git repo) as the writable sandbox workspace, JSONL events (the last line carries token
    # usage); no --model unless child_model is set: the child uses the user's configured model
    child_command=(*_EXEC, "workspace-write", *_OUTPUT),
    # the rules child answers in its reply: its shell cannot write or reach the network (read-only)
    child_reply_command=(*_EXEC, "read-only", *_OUTPUT),
    prompt_stdin="-",
    sessions="tacit.hosts.codex.sessions",
    transcripts="tacit.hosts.codex.replay",  # `tacit learn` reads its rollouts
    transcript_label="Codex rollout",
    child="tacit.hosts.codex.child",
    installer="tacit.hosts.codex.install",
    hook_handler="tacit.hosts.codex.hook:handle",
    hook_bounds=COMMAND_HOOK_BOUNDS,
    # in the order a turn fires them; Codex clamps SessionEnd to 3 s
    hook_events={"SessionStart": 10, "UserPromptSubmit": 10, "PreToolUse": 5, "PostToolUse": 5, "Stop": 10,
                 "PreCompact": 10, "SessionEnd": 2},
    headless="argv:exec,stderr",  # codex exec: its stderr is the run's transcript, where it reports hooks
    env_vars=("CODEX_HOME",),
    # 0.171.0 sets the thread id (the session id its hooks carry) in the environment of every command
    shell_marker="CODEX_THREAD_ID",
    shell_session="CODEX_THREAD_ID",
    # 0.171.0 runs every command as `bash -lc '…'`: /etc/profile may set PATH afresh, dropping the venv
    # tacit was installed in (observed: `tacit: command not found` while the hook's PATH had it)
    login_shell=True,
)

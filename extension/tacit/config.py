"""One config object: every path and setting tacit uses comes from here.

Design notes: docs/design/core.md#tacitconfig
"""

from __future__ import annotations

import contextlib
import json
import os
import tomllib
from pathlib import Path

from tacit.paths import data_dir

# Settings: name -> default. The type of the default is the type of the setting. Grouped by the
# concern that reads them; docs/configuration.md documents each one.
DEFAULTS: dict = {
    # stores
    "memory_char_limit": 2200,  # the global notes (MEMORY.md): Hermes's own limit
    "user_char_limit": 1375,  # the user profile (USER.md): Hermes's own limit
    "project_char_limit": 2200,  # each project's memory
    "team_char_limit": 2200,  # a repository's shared .tacit/MEMORY.md
    "skill_index_budget": 6000,
    # review nudge / flush / consolidation (engine)
    "nudge_interval": 10,
    "nudge_tool_calls": 15,
    "review_enabled": True,
    "review_min_user_turns": 3,
    "flush_on_compact": True,
    "flush_on_shutdown": True,
    "flush_min_turns": 6,
    "auto_consolidate": True,
    # correction detection
    "correction_detection": True,
    "correction_save_every_turns": 3,
    "correction_strong_patterns": [],  # empty = built-in list
    "correction_weak_patterns": [],
    "correction_negative_patterns": [],
    "correction_directive_words": [],
    # skill auto-trigger
    "skill_trigger_tool_calls": 8,
    "skill_trigger_min_tool_types": 2,
    # guards: lessons checked before every tool call (docs/guards.md)
    "guards_enabled": True,
    "instruction_files": True,  # rule lines of AGENTS.md, CLAUDE.md, .cursorrules … are guards too
    "rule_reader": True,  # rule lines and lessons no reading turns into a guard: a child phrases them, once each
    # child agents
    "child_enabled": True,
    "child_command": "",  # template; empty = the host's default command
    "child_model": "",  # empty = the host's default small model
    "child_timeout_seconds": 300,  # default for every kind; per kind below (0 = default)
    "child_timeout_consolidate": 0,
    "child_timeout_correction": 0,
    "child_timeout_review": 0,
    "child_timeout_skill": 0,
    "child_timeout_flush": 0,
    "child_timeout_rules": 0,
    "child_max_turns": 12,
    # background budget (docs/cost.md): checked before any child starts; over it, jobs wait
    "child_daily_tokens": 1_000_000,  # tokens (input, cached and output) per local day; 0 = no limit
    "child_daily_usd": 0.0,  # USD per local day; 0 = no limit
    "child_prices": [],  # "model-glob=input,output[,cache_read[,cache_write]]" USD per million tokens
    # privacy (docs/privacy.md): folders tacit is off for (like `tacit off` in each)
    "exclude": [],
    # third-party plugins (module names with a register(engine) function)
    "plugins": [],
    # the engine service and housekeeping (retention: docs/architecture.md)
    "service_idle_seconds": 900,
    # a child job whose session's environment the service lost (it restarted) waits this long for that
    # session's next hook before it runs with the service's own (docs/guide.md)
    "child_env_wait_seconds": 600,
    "session_state_max_age_days": 7,
    "observation_retention_days": 90,
    "trash_retention_days": 30,
    # learning ledger: usage patterns and habits
    "learning_enabled": True,
    "sequential_window_seconds": 30,
    "habit_min_frequency": 3,
    "habit_retention_days": 60,
    # fix patterns
    "forge_on_success": True,
    "max_injected": 5,
    "min_success_rate": 0.6,
    "decay_after_days": 90,
    "similarity": 0.6,
    # importance
    "importance_enabled": True,
    "importance_threshold": 0.70,
    "heartbeat_interval": 30,
    "review_time": "21:00",
    "acknowledge_captures": False,
    "silent": False,
    # fix patterns / importance (issue 8)
    # "category=minimum" pairs: below its minimum a capture is not even stored
    # for review; importance_threshold then decides what reaches a memory file
    "importance_category_minimums": ["fact=0.60", "context=0.50"],
}

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class ConfigError(ValueError):
    """A setting's value has the wrong type."""


def _coerce(key: str, value, *, from_env: bool):
    """Coerce ``value`` to the type of ``DEFAULTS[key]`` or raise ConfigError."""
    default = DEFAULTS[key]
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        if from_env and isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise ConfigError(f"{key}: expected true/false, got {value!r}")
    if isinstance(default, (int, float)):
        kind = type(default)
        number = None
        if isinstance(value, (int,) if kind is int else (int, float)) and not isinstance(value, bool):
            number = kind(value)
        elif from_env and isinstance(value, str):
            with contextlib.suppress(ValueError):
                number = kind(value.strip())
        if number is None:
            raise ConfigError(f"{key}: expected {'an integer' if kind is int else 'a number'}, got {value!r}")
        if key.endswith("_char_limit") and number < 1:  # a limit of 0 or less refuses every entry
            raise ConfigError(f"{key}: expected a positive number of characters, got {value!r}")
        return number
    if isinstance(default, list):
        if from_env and isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                try:
                    value = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise ConfigError(f"{key}: invalid JSON list ({exc})") from None
            else:
                value = [part.strip() for part in text.split(",") if part.strip()]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        raise ConfigError(f"{key}: expected a list of strings, got {value!r}")
    if isinstance(value, str):  # the rest of DEFAULTS are strings
        return value
    raise ConfigError(f"{key}: expected a string, got {value!r}")


def _path(base: str, *parts: str) -> property:
    """A path below the config's ``home_str`` or ``state_dir_str``, derived when read."""
    return property(lambda self: Path(getattr(self, base), *parts))


class Config:
    """Resolved configuration; paths derived from ``home``/``state_dir``, settings as attributes."""

    __slots__ = ("home_str", "state_dir_str", "host", "is_child", "settings", "problems", "env", "sources",
                 "launched")

    def __init__(self, home, state_dir, host=None, is_child=False, settings=None,
                 problems=None, env=None, sources=None, launched=None):
        self.home_str = os.fspath(home)
        self.state_dir_str = os.fspath(state_dir)
        self.host = host
        self.is_child = is_child
        self.settings = dict(DEFAULTS) if settings is None else settings
        self.problems = [] if problems is None else problems
        # the few environment facts other modules need, captured once here
        self.env = {} if env is None else env
        self.sources = {} if sources is None else sources  # setting -> where its value was set
        # a session served by a process its host did not start (the service): the environment that
        # host was launched with, which the processes started for it start from (children.env)
        self.launched = launched

    def source_of(self, key: str) -> str:
        """Where ``key`` was set: "config.toml", "environment TACIT_…", or "default"."""
        return self.sources.get(key, "default")

    def __getattr__(self, name: str):
        # Only called for names that are not slots: the settings.
        try:
            return object.__getattribute__(self, "settings")[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        return f"Config(home={self.home_str!r}, state_dir={self.state_dir_str!r}, host={self.host!r})"

    home = _path("home_str")
    state_dir = _path("state_dir_str")
    memories_dir = _path("home_str", "memories")
    memory_file = _path("home_str", "memories", "MEMORY.md")
    user_file = _path("home_str", "memories", "USER.md")
    skills_dir = _path("home_str", "skills")
    config_file = _path("state_dir_str", "config.toml")
    ledger_path = _path("state_dir_str", "ledger.db")
    log_file = _path("state_dir_str", "logs", "tacit.log")
    children_log = _path("state_dir_str", "logs", "children.jsonl")

    def with_settings(self, **overrides) -> "Config":
        """A copy with some settings replaced (validated like config.toml)."""
        settings = dict(self.settings)
        for key, value in overrides.items():
            if key not in DEFAULTS:
                raise ConfigError(f"unknown setting {key!r}")
            settings[key] = _coerce(key, value, from_env=False)
        sources = {**self.sources, **dict.fromkeys(overrides, "config.toml")}  # "validated like config.toml"
        return Config(self.home_str, self.state_dir_str, self.host, self.is_child, settings,
                      list(self.problems), dict(self.env), sources, self.launched)

    def for_session(self, host: str, launched: dict | None) -> "Config":
        """A copy for one session of ``host``, whose host was launched with the environment ``launched``
        (None: not known, this process's): ``env`` shows its facts (its PATH, its home folder)."""
        copy = self.with_settings()
        copy.host = host
        if launched is not None:
            copy.launched, copy.env = dict(launched), captured(launched)
        return copy


def with_session(env: dict, session: dict | None) -> dict:
    """``env`` with a session's variables (``session_env``) over it: a ``None`` one removed."""
    env = dict(env)
    for name, value in (session or {}).items():
        if value is None:
            env.pop(name, None)
        elif isinstance(value, str):
            env[name] = value
    return env


def _read_toml(path: str, problems: list) -> dict:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        problems.append(f"{path}: cannot read ({exc})")
        return {}
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        problems.append(f"{path}: not valid TOML ({exc}); using defaults")
        return {}
    return toml_settings(data)


def toml_settings(data: dict) -> dict:
    """The settings a parsed config.toml gives: its top-level keys and an optional [tacit] table's."""
    if isinstance(data.get("tacit"), dict):
        data = {**{k: v for k, v in data.items() if k != "tacit"}, **data["tacit"]}
    return data


# Environment variables that are switches, not settings.
_ENV_SWITCHES = {"TACIT_HOME", "TACIT_CHILD", "TACIT_HOST", "TACIT_LOG_LEVEL", "TACIT_PYTHON", "TACIT_PI_TRANSPORT",
                 "TACIT_PROJECT", "TACIT_ACTOR",  # these two: what a child works for, and who it is
                 "TACIT_READY_FD"}  # the socket a hook that started the service waits on (hook_client.start_service)
# variables of tacit's own test rig, not settings
_ENV_IGNORED_PREFIXES = ("TACIT_E2E_",)


def live_env(name: str) -> str:
    """``$name`` as the process has it now (``Config.env``: when the config was built)."""
    return os.environ.get(name, "")


def load_config(env=None, host: str | None = None) -> Config:
    """Build the Config from the environment and ``config.toml`` (bad values: ``Config.problems``)."""
    env = dict(os.environ if env is None else env)
    host = host or env.get("TACIT_HOST") or None
    # one data folder for every host (``tacit install hermes`` links Hermes's memories folder to it)
    home = state_dir = data_dir(env)
    problems: list = []
    settings, sources = dict(DEFAULTS), {}

    # (key, value, from the environment, where it was set, what an unknown key is called)
    found = [(key, value, False, "config.toml", f"config.toml: unknown key {key!r}")
             for key, value in _read_toml(os.path.join(state_dir, "config.toml"), problems).items()]
    names = [name for name in env if name.startswith("TACIT_") and name not in _ENV_SWITCHES
             and not name.startswith(_ENV_IGNORED_PREFIXES)]
    found += [(name[len("TACIT_"):].lower(), env[name], True, f"environment {name}",
               f"environment: unknown setting {name}") for name in names]
    for key, value, from_env, where, unknown in found:
        if key not in DEFAULTS:
            problems.append(f"{unknown} (ignored)")
            continue
        try:
            settings[key] = _coerce(key, value, from_env=from_env)
            sources[key] = where
        except ConfigError as exc:  # keeps the default (config.toml), or config.toml's value (environment)
            problems.append(f"{where}: {exc}; using {'' if from_env else 'default '}{settings[key]!r}")

    from tacit.hosts import spec as host_specs

    if host and host_specs.get(host) is None:
        host_specs.discover()  # a host shipped as its own package
    return Config(home=home, state_dir=state_dir, host=host, is_child=env.get("TACIT_CHILD") == "1",
                  settings=settings, problems=problems, env=captured(env), sources=sources)


def captured(env: dict) -> dict:
    """Of ``env``, the few facts a Config keeps (``Config.env``): HOME, PATH, a few of tacit's own, and
    what the hosts' specs name (their shell markers and home folders)."""
    from tacit.hosts import spec as host_specs

    hosts = host_specs.registry().values()
    wanted = [*(v for h in hosts for v in (h.shell_marker, h.shell_session) if v), *(v for h in hosts for v in h.env_vars)]
    return {k: env[k] for k in ("HOME", "PATH", "TACIT_LOG_LEVEL", "TACIT_ACTOR", "TACIT_PROJECT", *wanted)
            if isinstance(env.get(k), str)}

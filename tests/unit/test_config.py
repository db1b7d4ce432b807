"""Config: defaults, config.toml, TACIT_<KEY> overrides, problems, host data folders.

Every test builds its Config from an explicit environment dict
(``load_config(env=...)``): nothing here reads or changes ``os.environ``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tacit.config import DEFAULTS, Config, ConfigError, load_config

DOCS = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def _env(home: Path, **extra: str) -> dict:
    env = {"HOME": str(home / "user"), "TACIT_HOME": str(home / "data")}
    env.update(extra)
    return env


def _write_toml(home: Path, text: str, state_dir: Path | None = None) -> Path:
    folder = state_dir or home / "data"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


# ---------------------------------------------------------------------------
# defaults and precedence
# ---------------------------------------------------------------------------
def test_defaults_without_file_or_env(tmp_path):
    cfg = load_config(env=_env(tmp_path))
    assert cfg.problems == []
    assert cfg.settings == DEFAULTS and cfg.settings is not DEFAULTS
    # the defaults, spelled out
    assert (cfg.memory_char_limit, cfg.user_char_limit) == (2200, 1375)
    assert (cfg.nudge_interval, cfg.nudge_tool_calls, cfg.flush_min_turns) == (10, 15, 6)
    assert (cfg.skill_trigger_tool_calls, cfg.skill_trigger_min_tool_types) == (8, 2)
    assert all(getattr(cfg, k) is True for k in ("review_enabled", "flush_on_compact", "flush_on_shutdown",
                                                   "auto_consolidate", "correction_detection"))
    assert cfg.skill_index_budget == 6000


def test_precedence_default_then_toml_then_env(tmp_path):
    _write_toml(tmp_path, "memory_char_limit = 3000\nuser_char_limit = 900\nnudge_interval = 4\n")
    cfg = load_config(env=_env(tmp_path, TACIT_MEMORY_CHAR_LIMIT="5000", TACIT_NUDGE_INTERVAL="7"))
    assert cfg.memory_char_limit == 5000  # env beats toml
    assert cfg.nudge_interval == 7
    assert cfg.user_char_limit == 900  # toml beats default
    assert cfg.flush_min_turns == DEFAULTS["flush_min_turns"]  # default
    assert cfg.problems == []


def test_tacit_table_is_read_and_wins_over_top_level_keys(tmp_path):
    _write_toml(tmp_path, "nudge_interval = 3\nflush_min_turns = 2\n\n[tacit]\nnudge_interval = 9\n")
    cfg = load_config(env=_env(tmp_path))
    assert (cfg.nudge_interval, cfg.flush_min_turns) == (9, 2)
    assert cfg.problems == []


# ---------------------------------------------------------------------------
# environment coercion
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("1", True), ("true", True), ("YES", True), (" on ", True),
    ("0", False), ("false", False), ("No", False), ("off", False), ("", False),
])
def test_env_booleans(tmp_path, text, expected):
    cfg = load_config(env=_env(tmp_path, TACIT_REVIEW_ENABLED=text))
    assert cfg.review_enabled is expected and cfg.problems == []


def test_env_numbers_strings_and_lists(tmp_path):
    cfg = load_config(env=_env(
        tmp_path,
        TACIT_NUDGE_TOOL_CALLS=" 20 ",
        TACIT_MIN_SUCCESS_RATE="0.75",
        TACIT_IMPORTANCE_THRESHOLD="1",  # an integer is a valid float
        TACIT_CHILD_MODEL="sonnet",
        TACIT_PLUGINS="my_pkg.plugin, other.plugin ,",
        TACIT_CORRECTION_STRONG_PATTERNS='["^no,", "that\'s wrong"]',
    ))
    assert cfg.problems == []
    assert cfg.nudge_tool_calls == 20 and isinstance(cfg.nudge_tool_calls, int)
    assert cfg.min_success_rate == 0.75
    assert cfg.importance_threshold == 1.0 and isinstance(cfg.importance_threshold, float)
    assert cfg.child_model == "sonnet"
    assert cfg.plugins == ["my_pkg.plugin", "other.plugin"]
    assert cfg.correction_strong_patterns == ["^no,", "that's wrong"]


@pytest.mark.parametrize("name, value, key", [
    ("TACIT_MEMORY_CHAR_LIMIT", "lots", "memory_char_limit"),
    ("TACIT_MEMORY_CHAR_LIMIT", "2200.5", "memory_char_limit"),
    ("TACIT_REVIEW_ENABLED", "maybe", "review_enabled"),
    ("TACIT_SIMILARITY", "high", "similarity"),
    ("TACIT_PLUGINS", "[1, 2]", "plugins"),
    ("TACIT_PLUGINS", "[not json", "plugins"),
])
def test_env_wrong_type_is_a_problem_and_keeps_the_previous_value(tmp_path, name, value, key):
    cfg = load_config(env=_env(tmp_path, **{name: value}))
    assert getattr(cfg, key) == DEFAULTS[key]
    assert len(cfg.problems) == 1 and name in cfg.problems[0]


def test_env_wrong_type_falls_back_to_the_toml_value_not_the_default(tmp_path):
    _write_toml(tmp_path, "memory_char_limit = 3000\n")
    cfg = load_config(env=_env(tmp_path, TACIT_MEMORY_CHAR_LIMIT="a lot"))
    assert cfg.memory_char_limit == 3000
    assert "using 3000" in cfg.problems[0]


def test_env_unknown_setting_is_reported_but_switches_are_not(tmp_path):
    cfg = load_config(env=_env(tmp_path, TACIT_NUDGE_INTERVALL="3", TACIT_CHILD="1",
                               TACIT_HOST="pi", TACIT_LOG_LEVEL="debug"))
    assert cfg.problems == ["environment: unknown setting TACIT_NUDGE_INTERVALL (ignored)"]
    assert cfg.is_child and cfg.host == "pi" and cfg.env["TACIT_LOG_LEVEL"] == "debug"


def test_the_services_ready_socket_is_not_an_unknown_setting(tmp_path):
    """A hook that starts the service passes TACIT_READY_FD; the service's config used to log
    "unknown setting TACIT_READY_FD" at every start, and `tacit doctor` pointed at it."""
    cfg = load_config(env=_env(tmp_path, TACIT_READY_FD="3"))
    assert cfg.problems == []


# ---------------------------------------------------------------------------
# config.toml problems
# ---------------------------------------------------------------------------
def test_toml_wrong_types_and_unknown_keys_are_problems_with_defaults(tmp_path):
    _write_toml(tmp_path, "\n".join([
        'memory_char_limit = "big"',
        "review_enabled = 1",          # an integer is not a boolean in TOML
        "nudge_interval = true",       # nor is a boolean an integer
        "similarity = \"0.5\"",
        "plugins = \"one.plugin\"",     # a list is required in the file
        "child_command = 12",
        "nudge_intervall = 4",
        "user_char_limit = 1000",
    ]))
    cfg = load_config(env=_env(tmp_path))
    for key in ("memory_char_limit", "review_enabled", "nudge_interval", "similarity", "plugins",
                "child_command"):
        assert getattr(cfg, key) == DEFAULTS[key], key
        assert any(p.startswith(f"config.toml: {key}:") and "using default" in p for p in cfg.problems), key
    assert "config.toml: unknown key 'nudge_intervall' (ignored)" in cfg.problems
    assert cfg.user_char_limit == 1000  # the good line still counts
    assert len(cfg.problems) == 7


def test_toml_floats_accept_integers(tmp_path):
    _write_toml(tmp_path, "min_success_rate = 1\nsimilarity = 0.5\n")
    cfg = load_config(env=_env(tmp_path))
    assert cfg.min_success_rate == 1.0 and isinstance(cfg.min_success_rate, float)
    assert cfg.similarity == 0.5 and cfg.problems == []


@pytest.mark.parametrize("content", [
    "memory_char_limit = = 3\n",
    "[tacit\nnudge_interval = 3\n",
    b"nudge_interval = 3\n# caf\xe9\n",  # not UTF-8
])
def test_invalid_toml_is_one_problem_and_all_defaults(tmp_path, content):
    path = _write_toml(tmp_path, content)
    cfg = load_config(env=_env(tmp_path))
    assert cfg.settings == DEFAULTS
    assert len(cfg.problems) == 1
    assert cfg.problems[0].startswith(f"{path}: not valid TOML") and "using defaults" in cfg.problems[0]


def test_unreadable_config_file_is_a_problem_not_a_crash(tmp_path):
    # a folder where the file should be: reading it fails with an OSError
    (tmp_path / "data" / "config.toml").mkdir(parents=True)
    cfg = load_config(env=_env(tmp_path))
    assert cfg.settings == DEFAULTS
    assert len(cfg.problems) == 1 and "cannot read" in cfg.problems[0]


# ---------------------------------------------------------------------------
# data folders per host
# ---------------------------------------------------------------------------
def test_default_home_is_dot_tacit_under_home(tmp_path):
    env = {"HOME": str(tmp_path)}
    cfg = load_config(env=env)
    assert cfg.home == tmp_path / ".tacit" and cfg.state_dir == cfg.home
    assert cfg.memory_file == tmp_path / ".tacit" / "memories" / "MEMORY.md"
    assert cfg.user_file == tmp_path / ".tacit" / "memories" / "USER.md"
    assert cfg.skills_dir == tmp_path / ".tacit" / "skills"
    assert cfg.config_file == tmp_path / ".tacit" / "config.toml"
    assert cfg.ledger_path == tmp_path / ".tacit" / "ledger.db"
    assert cfg.log_file == tmp_path / ".tacit" / "logs" / "tacit.log"
    assert cfg.children_log == tmp_path / ".tacit" / "logs" / "children.jsonl"


def test_tacit_home_expands_user_and_is_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = load_config(env={"HOME": str(tmp_path), "TACIT_HOME": "rel/data"})
    assert cfg.home == tmp_path / "rel" / "data"
    cfg = load_config(env={"HOME": str(tmp_path), "TACIT_HOME": "~/x"})
    assert cfg.home == cfg.state_dir == tmp_path / "x"  # the HOME of the environment given, not the process's


def test_every_host_shares_one_data_folder_hermes_included(tmp_path):
    hermes = tmp_path / "hermes-home"
    env = {"HOME": str(tmp_path), "HERMES_HOME": str(hermes)}
    for host in ("hermes", "claude-code", "pi", None):
        cfg = load_config(env=env, host=host)
        assert cfg.home == cfg.state_dir == tmp_path / ".tacit"  # `tacit install hermes` links Hermes's memories here
        assert cfg.memory_file == tmp_path / ".tacit" / "memories" / "MEMORY.md"
    assert load_config(env=env, host="hermes").env["HERMES_HOME"] == str(hermes)


def test_tacit_host_env_selects_the_host(tmp_path):
    cfg = load_config(env={"HOME": str(tmp_path), "TACIT_HOST": "hermes"})
    assert cfg.host == "hermes" and cfg.home == tmp_path / ".tacit"


def test_tacit_home_wins_over_the_hermes_layout(tmp_path):
    env = {"HOME": str(tmp_path), "HERMES_HOME": str(tmp_path / "h"), "TACIT_HOME": str(tmp_path / "t")}
    cfg = load_config(env=env, host="hermes")
    assert cfg.home == cfg.state_dir == tmp_path / "t"


def test_other_hosts_use_the_tacit_home(tmp_path):
    for host in ("claude-code", "pi", None):
        cfg = load_config(env={"HOME": str(tmp_path)}, host=host)
        assert cfg.home == cfg.state_dir == tmp_path / ".tacit", host


# ---------------------------------------------------------------------------
# the Config object
# ---------------------------------------------------------------------------
def test_with_settings_validates_and_copies(tmp_path):
    cfg = load_config(env=_env(tmp_path))
    other = cfg.with_settings(memory_char_limit=100, review_enabled=False)
    assert (other.memory_char_limit, other.review_enabled) == (100, False)
    assert cfg.memory_char_limit == 2200  # the original is untouched
    assert other.home == cfg.home and other.env == cfg.env
    with pytest.raises(ConfigError):
        cfg.with_settings(memory_char_limit="100")  # no string coercion outside the environment
    with pytest.raises(ConfigError):
        cfg.with_settings(no_such_setting=1)


def test_unknown_attribute_raises_attribute_error(tmp_path):
    cfg = load_config(env=_env(tmp_path))
    with pytest.raises(AttributeError):
        cfg.no_such_setting  # noqa: B018
    assert "home=" in repr(cfg) and isinstance(cfg, Config)


def test_only_the_needed_environment_is_captured(tmp_path):
    cfg = load_config(env=_env(tmp_path, PATH="/usr/bin", SECRET_TOKEN="x", CLAUDE_CONFIG_DIR="/c"))
    assert set(cfg.env) == {"HOME", "PATH", "CLAUDE_CONFIG_DIR"}


def test_every_setting_is_documented():
    text = DOCS.read_text(encoding="utf-8")
    missing = [key for key in DEFAULTS if not re.search(rf"`{re.escape(key)}`", text)]
    assert missing == [], f"add these settings to docs/configuration.md: {missing}"


def test_the_documented_environment_facts_are_those_kept():
    """configuration.md's `Config.env` sentence names every variable a Config keeps (it missed
    TACIT_PROJECT, TACIT_ACTOR and the shell marker) and no other."""
    from tacit.config import captured
    from tacit.hosts import spec

    text = DOCS.read_text(encoding="utf-8")
    sentence = text[text.index("`Config.env` keeps only"):].split(").", 1)[0]
    named = set(re.findall(r"`([A-Z][A-Z_]+)`", sentence))
    hosts = {name for h in spec.registry().values() for name in (h.shell_marker, *h.env_vars) if name}
    everything = {name: "/x" for name in named | hosts | {"SHELL", "USER", "TACIT_HOST", "TACIT_CHILD"}}
    assert named == set(captured(everything))


def test_every_documented_default_is_the_real_one():
    """Each `| `key` | `default` |` row of docs/configuration.md names a real setting and shows its
    default as TOML of the same type, so the doc cannot drift from ``DEFAULTS``."""
    import tomllib

    rows = re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", DOCS.read_text(encoding="utf-8"), re.M)
    wrong = [(key, shown) for key, shown in rows if key not in DEFAULTS
             or (value := tomllib.loads(f"v = {shown}")["v"]) != DEFAULTS[key]
             or type(value) is not type(DEFAULTS[key])]
    assert wrong == [] and {key for key, _ in rows} == set(DEFAULTS), wrong

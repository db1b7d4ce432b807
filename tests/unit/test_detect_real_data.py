"""The real-conversation data: the fixed repository split, the quality benchmark,
and floors the check-split figures must stay above.

The data lives outside the repository (``<repo>/../shared/data/real`` or
``TACIT_REAL_DATA``); the tests that need it skip with a clear message when
it is absent. The benchmark itself is also run on a tiny generated data set,
so it is exercised everywhere.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import real_data  # noqa: E402

needs_data = pytest.mark.skipif(not real_data.available(),
                                reason=f"real-conversation data not found at {real_data.data_dir()}")


def test_the_split_file_is_the_seeded_rule_and_disjoint():
    split = json.loads(real_data.SPLIT_FILE.read_text(encoding="utf-8"))
    tune, check = set(split["tune"]), set(split["check"])
    assert tune and check and not tune & check
    assert all(real_data.rule_part(r) == "tune" for r in tune)
    assert all(real_data.rule_part(r) == "check" for r in check)
    assert 0.5 < len(tune) / (len(tune) + len(check)) < 0.7


def _tiny_data(folder: Path) -> None:
    """A few rows in the real files' shape, over repositories of both parts."""
    repos: dict[str, str] = {}
    i = 0
    while len(repos) < 2:  # one repository in each part (unknown names follow the seeded rule)
        name = f"example/repo{i}"
        repos.setdefault(real_data.rule_part(name), name)
        i += 1
    user, replies = [], []
    for part, repo in repos.items():
        for k, (text, prev, cls, cat) in enumerate([
            ("pnpm not npm here", "I ran npm install.", "correction", "preference"),
            ("still not working", "It should work now.", "failure_report", "none"),
            ("always use TypeScript", "", "none", "preference"),
            ("add a footer", "", "none", "none"),
        ]):
            user.append({"id": f"{part}-u{k}", "text": text, "prev_assistant": prev, "source": f"{repo}:a.md@1",
                         "repo": repo, "lang": "en", "correction_class": cls, "memory_category": cat,
                         "label_confidence": "high" if k % 2 else "low"})
        for k, (text, fix) in enumerate([
            ("The error happens because the promise isn't awaited; I added `await` in loadUser().", True),
            ("Let me check the logs first.", False),
        ]):
            replies.append({"id": f"{part}-a{k}", "text": text, "prev_user": "it fails", "source": f"{repo}:a.md@1",
                            "repo": repo, "lang": "en", "fix": fix, "problem": "", "solution": "",
                            "label_confidence": "high"})
    (folder / "user.jsonl").write_text("\n".join(json.dumps(r) for r in user) + "\n", encoding="utf-8")
    (folder / "assistant.jsonl").write_text("\n".join(json.dumps(r) for r in replies) + "\n", encoding="utf-8")


def _run(*args: str, data: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, TACIT_REAL_DATA=str(data))
    return subprocess.run([sys.executable, str(BENCH / "quality.py"), *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_the_benchmark_runs_and_reports_every_detector(tmp_path):
    _tiny_data(tmp_path)
    done = _run(data=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for needle in ("=== check split", "=== tune split", "corrections", "failure reports", "durable statements",
                   "fix statements", "original rule", "before (74d60c6)", "after", "review highlighting",
                   "per 100 messages", "speed: analyse median"):
        assert needle in out, needle


def test_the_benchmark_skips_cleanly_without_data(tmp_path):
    done = _run(data=tmp_path / "absent")
    assert done.returncode == 0 and done.stdout.startswith("SKIP:"), done.stdout


# Floors a little under the figures measured on the check split when the
# weights were trained (docs/detectors.md has the figures themselves).
FLOORS = {
    "correction": {"f1": 0.47, "p": 0.50},  # measured P 0.57 R 0.45 F1 0.51
    "durable": {"f1": 0.33},  # measured P 0.36 R 0.42 F1 0.39
    "fix": {"f1": 0.30, "p": 0.40},  # measured P 0.50 R 0.26 F1 0.35 (34 true fixes: coarse)
    "lesson_share": 0.37,  # measured 0.42
    "lesson_recall": 0.72,  # measured 0.76 ...
    "highlighted_at_most": 0.43,  # ... with 40.8 % of the messages highlighted
}


@needs_data
def test_check_split_figures_stay_above_their_floors():
    import quality

    res = quality.evaluate("check")
    after = res["correction"]["after"]["all"]
    assert after["f1"] >= FLOORS["correction"]["f1"] and after["p"] >= FLOORS["correction"]["p"], after
    before = res["correction"]["before (74d60c6)"]["all"]
    assert after["f1"] > before["f1"]
    durable = res["durable"]["after"]["all"]
    assert durable["f1"] >= FLOORS["durable"]["f1"], durable
    assert durable["f1"] > res["durable"]["before (74d60c6)"]["all"]["f1"]
    fix = res["fix"]["after"]["all"]
    assert fix["f1"] >= FLOORS["fix"]["f1"] and fix["p"] >= FLOORS["fix"]["p"], fix
    highlight = res["highlight"]["all"]
    assert highlight["p"] >= FLOORS["lesson_share"], highlight
    assert highlight["r"] >= FLOORS["lesson_recall"], highlight
    assert (highlight["tp"] + highlight["fp"]) / highlight["n"] <= FLOORS["highlighted_at_most"], highlight

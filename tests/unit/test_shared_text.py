"""Sessions that hold the same frozen text hold one copy of it (a long-lived
service keeps up to 256 sessions' memory blocks and skill index)."""

from __future__ import annotations

from tacit.config import load_config
from tacit.stores import shared_text
from tacit.stores.skill_scopes import ScopedSkills
from tacit.stores.skills import SkillStore


def test_an_equal_text_is_the_copy_already_held():
    times = int("40")  # built at run time: two equal strings, two objects
    first, again = "memory entry " * times, "memory entry " * times
    assert first == again and first is not again
    assert shared_text.shared(first) is first
    assert shared_text.shared(again) is first
    short = "x" * int("10")
    assert shared_text.shared(short) is short  # short texts are not looked up


def test_it_remembers_a_bounded_number_of_texts():
    texts = [f"{n:04d}" + "y" * 300 for n in range(shared_text.KEEP * 3)]
    for text in texts:
        shared_text.shared(text)
    assert shared_text._held.cache_info().currsize <= shared_text.KEEP  # noqa: SLF001 — the bound is the point
    late = (texts[-1] + "!")[:-1]
    assert late is not texts[-1]
    assert shared_text.shared(late) is texts[-1]


def test_two_sessions_share_one_skill_index(tacit_env):
    cfg = load_config(env=tacit_env)
    store = SkillStore(cfg)
    for n in range(12):
        assert store.create(f"deploy-step-{n}", f"---\nname: deploy-step-{n}\ndescription: Step {n} of the "
                            f"release, run from the repository root.\n---\n## Procedure\n1. Run step {n}.\n")[
            "success"]
    one, two = ScopedSkills(cfg, None), ScopedSkills(cfg, None)
    assert "deploy-step-11" in one.snapshot()
    assert two.snapshot() is one.snapshot()

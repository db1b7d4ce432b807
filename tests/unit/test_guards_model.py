"""tacit.guards.model: frozen values and their plain-dict round trip."""

from __future__ import annotations

import dataclasses
import json

import pytest

from tacit.guards.model import CommandMatch, Guard, GuardSpec, PathMatch, PushMatch, SudoMatch

SPECS = [
    GuardSpec(CommandMatch(("npm",), (), (), True), "we use pnpm here, never npm", "pnpm"),
    GuardSpec(CommandMatch(("terraform",), ("apply",), ("-auto-approve",)), "x", None, "deny"),
    GuardSpec(PathMatch(("migrations/", "*.lock")), "don't touch migrations/"),
    GuardSpec(PushMatch(("main", "master")), "never push to main"),
    GuardSpec(PushMatch((), True), "never force push"),
    GuardSpec(SudoMatch(), "never use sudo"),
]


@pytest.mark.parametrize("spec", SPECS)
def test_round_trip_through_json(spec):
    g = Guard(spec, 7, "project", "/repo", "memory:12")
    data = json.loads(json.dumps(g.to_dict()))
    assert data["kind"] == spec.kind
    assert Guard.from_dict(data) == g
    assert GuardSpec.from_dict(data) == spec


def test_guards_are_frozen_hashable_values():
    a = Guard(SPECS[0], 1, "project", "/repo")
    b = Guard(SPECS[0], 1, "project", "/repo")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.id = 2  # type: ignore[misc]
    assert (a.kind, a.because, a.instead, a.action) == ("command", SPECS[0].because, "pnpm", "ask")


@pytest.mark.parametrize("data", [
    None, 3, "x", [], {}, {"kind": "command"}, {"kind": "nope", "match": {}},
    {"kind": "command", "match": {"programs": []}, "because": "x"},
    {"kind": "command", "match": {"programs": "npm"}, "because": "x"},
    {"kind": "command", "match": {"programs": ["npm", 3]}, "because": "x"},
    {"kind": "path", "match": {"patterns": []}, "because": "x"},
    {"kind": "command", "match": {"programs": ["npm"]}, "because": 3},
    {"kind": "command", "match": {"programs": ["npm"]}, "because": "x", "action": "block"},
    {"kind": "command", "match": {"programs": ["npm"]}, "because": "x", "instead": 4},
    {"kind": "command", "match": {"programs": ["npm"]}, "because": "x", "scope": "galaxy"},
    {"kind": "command", "match": {"programs": ["npm"]}, "because": "x", "id": [1]},
    {"kind": "command", "match": {"programs": ["npm"]}, "because": "x", "id": True},
    {"kind": "command", "match": {"programs": ["npm"]}, "because": "x", "project_root": 5},
])
def test_from_dict_rejects_malformed_data(data):
    assert Guard.from_dict(data) is None


def test_from_dict_defaults():
    g = Guard.from_dict({"kind": "sudo", "match": {}, "because": "never use sudo"})
    assert g == Guard(GuardSpec(SudoMatch(), "never use sudo"), None, "project", None, "")

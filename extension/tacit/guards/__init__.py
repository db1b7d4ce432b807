"""Guards: lessons with an exact tool or command shape, checked before each
tool call (docs/guards.md).

    spec = derive_guard("we use pnpm here, never npm")       # or None
    guard = Guard(spec, id=3, scope="project", project_root="/repo", source="m:12")
    guards = GuardSet([guard])                               # compile once
    call = normalize_call("Bash", {"command": "npm i x"}, "/repo")
    for hit in guards.check(call):
        print(reason(hit, date="2026-12-01"))

Pure and deterministic: no file, clock or process access; the store, CLI,
history and host wiring live elsewhere.
"""

from tacit.guards.derive import derive_guard, derive_guards
from tacit.guards.patterns import spec_from_pattern
from tacit.guards.match import Call, GuardSet, Hit, check, normalize_call
from tacit.guards.model import ACTIONS, SCOPES, CommandMatch, Guard, GuardSpec, PathMatch, PushMatch, SudoMatch
from tacit.guards.reason import reason
from tacit.guards.shell import Invocation, Scan, Write, scan

__all__ = ["derive_guard", "derive_guards", "spec_from_pattern", "Call", "GuardSet", "Hit",
           "check", "normalize_call", "ACTIONS", "SCOPES", "CommandMatch", "Guard", "GuardSpec",
           "PathMatch", "PushMatch", "SudoMatch", "reason", "Invocation", "Scan", "Write", "scan"]

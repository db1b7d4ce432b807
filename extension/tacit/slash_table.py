"""The six slash commands every host lists: name -> (description, arguments hint).

Design notes: docs/design/core.md#tacitslash_table"""

COMMANDS = {
    "memory-consolidate": ("Consolidate tacit's memory near its limit (force: every scope) and show the report",
                           "[force]"),
    "memory-skills": ("List the skills tacit has saved, with their files", ""),
    "memory-show": ("Show tacit's memory per scope, then the candidates it is weighing", ""),
    "memory-forget": ("Forget what a text says, in every scope (or a candidate's key)", "TEXT"),
    "memory-teach": ("Teach tacit a memory explicitly (saved at once; --user for USER.md)", "[--user] TEXT"),
    "memory-review": ("Review what tacit noted today: keep, drop or edit before it becomes memory", ""),
}

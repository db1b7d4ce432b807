"""``tacit scan [TEXT|-]`` — run the content scanner on a text.

Design notes: docs/design/commands.md#tacitcommandsscan
"""

from __future__ import annotations

from tacit.commands import command, emit, read_text_arg


def add_parser(subparsers) -> None:
    parser = command(subparsers,
        "scan", run,
        help="check a text with the content scanner (exit 1 if it would be blocked)",
        description=(
            "Scan TEXT for invisible Unicode, prompt injection, hidden instructions, "
            "exfiltration and secrets. Exit 0 clean, 1 blocked (--json: one JSON object)."
        ),
    )
    parser.add_argument("text", nargs="?", default="-", help="the text to scan; - or omitted reads stdin")


def scan_result(text: str) -> dict:
    """The JSON-ready verdict for ``text`` (also usable without the CLI)."""
    from tacit.safety.scanner import describe, scan

    findings = scan(text)
    return {
        "success": not findings,  # clean; blocked is a refusal (exit 1), as for every command
        "findings": [finding.to_dict() for finding in findings],
        "message": describe(findings),
    }


def run(args, cfg=None) -> int:
    result = scan_result(read_text_arg(args.text, lenient=True))

    def text(r: dict) -> str:
        if r["success"]:
            return "clean: nothing the scanner blocks"
        return r["message"] if r["message"].lower().startswith("blocked") else f"blocked: {r['message']}"

    emit(result, text=text)
    return 0 if result["success"] else 1

"""``tacit detect correction|fix|importance`` — run one detector, see its verdict.

Design notes: docs/design/detect.md#tacitcommandsdetect
"""

from __future__ import annotations

import json
import sys

from tacit.commands import emit, one_line_json, read_text_arg, refuse


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("detect", help="run a detector on text (correction, fix, importance)")
    sub = parser.add_subparsers(dest="detect_command", metavar="DETECTOR", required=True)

    for detector, help_text, text, lines in (
            ("correction", "is this user message a correction?", "the user message",
             '{"text": …, "prev_assistant": …} lines on stdin, write one line each'),
            ("fix", "does this agent reply report a fix (problem → solution)?", "the agent's reply",
             '{"text": …} lines on stdin'),
            ("importance", "how worth keeping is this message, and what kind?", "the message",
             '{"text": …} lines on stdin')):
        p = sub.add_parser(detector, help=help_text)
        p.add_argument("text", nargs="?", help=f"{text}, or - for stdin")
        if detector == "correction":
            p.add_argument("--prev", "--prev-assistant", dest="prev", default=None,
                           help="the end of the agent's previous reply (context)")
        p.add_argument("--jsonl", action="store_true", help=f"read {lines}")
        p.set_defaults(func=_run, detector=detector)


# Detector adapters: text (+ context) -> one JSON-able dict
def _correction_detector(cfg):
    from tacit.detect.correction import detect_correction
    from tacit.detect.patterns import patterns_from_config

    patterns = patterns_from_config(cfg)
    for problem in patterns.problems:
        sys.stderr.write(f"tacit: {problem}\n")

    def run(text: str, item: dict) -> dict:
        prev = item.get("prev_assistant")
        return detect_correction(text, prev_assistant=prev if isinstance(prev, str) else None,
                                 patterns=patterns).as_dict()

    return run


def _fix_detector(cfg):
    from tacit.detect.fix import detect_fix

    def run(text: str, item: dict) -> dict:
        found = detect_fix(text)  # a FixStatement (problem, solution, pattern, confidence), or None
        if found is None:
            return {"fix": False, "problem": None, "solution": None}
        return {"fix": True, **found.as_dict()}

    return run


def _importance_detector(cfg):
    from dataclasses import asdict

    from tacit.detect.importance import score_importance

    return lambda text, item: asdict(score_importance(text))  # category, importance, markers, emphasis, …


_FACTORIES = {"correction": _correction_detector, "fix": _fix_detector, "importance": _importance_detector}


def _run(args, cfg) -> int:
    try:
        detector = _FACTORIES[args.detector](cfg)
    except ImportError as exc:
        emit({"success": False, "error": f"the {args.detector} detector is not available: {exc}"})
        return 1
    if args.jsonl:
        if args.text is not None:
            return refuse("usage: give TEXT or --jsonl, not both", 2, "tacit detect")
        return _run_jsonl(detector, args.detector)
    if args.text is None:
        return refuse("usage: TEXT is required (or - for stdin, or --jsonl)", 2, "tacit detect")
    item = {"prev_assistant": getattr(args, "prev", None)}
    emit(detector(read_text_arg(args.text, lenient=True), item))
    return 0


def _run_jsonl(detector, name: str) -> int:
    """One output line per input line, in order; bad lines get an error object."""
    out = sys.stdout
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", errors="replace").strip()
        try:
            if not line:
                raise ValueError("empty line")
            item = json.loads(line)
            if isinstance(item, str):
                item = {"text": item}
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                raise ValueError('expected {"text": "…"}')
            result = detector(item["text"], item)
        except ValueError as exc:
            result = {name: None, "error": f"bad input line: {exc}"}
        except Exception as exc:  # noqa: BLE001 — one bad line never stops the stream
            result = {name: None, "error": f"{type(exc).__name__}: {exc}"}
        out.write(one_line_json(result) + "\n")
    out.flush()
    return 0

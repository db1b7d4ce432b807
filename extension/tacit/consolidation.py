"""Consolidation: what happens when memory is full.

Design decisions
- **An over-limit add consolidates instead of failing.** ``add_entry`` tries
  the add; if it does not fit and ``auto_consolidate`` is on, it consolidates
  that target (a child agent when one is available, the deterministic merge
  otherwise), re-reads the file from disk, and retries the add **exactly
  once**. If it still does not fit, the caller gets the *original* over-limit
  error (with the consolidation report attached). There is no loop: the
  original design's "retry once" was written as unbounded recursion.
- **The child edits the file; we re-read it.** Nothing here writes back an
  in-memory copy after a child ran.
- **The deterministic merge never silently loses a thing.** It only merges
  entries that are the same after normalising case, whitespace and trailing
  punctuation, or where one entry's words are wholly contained in another's
  (the longer one is kept). It never drops a distinct entry: what still does
  not fit is reported, and the person (or a child) decides.
- **Inside a child** (``TACIT_CHILD=1``) only the deterministic merge runs: a
  child never starts children of its own.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[\w./-]+", re.UNICODE)


def add_entry(cfg, target: str, text: str, *, use_agent: bool | None = None) -> dict:
    """Add an entry; on overflow consolidate and retry exactly once."""
    from tacit.stores.memory import MemoryStore

    store = MemoryStore(cfg)
    result = store.add(target, text)
    if result["success"] or not result.get("over_limit") or not cfg.auto_consolidate:
        return result
    report = consolidate_target(cfg, target, use_agent=use_agent)
    retry = MemoryStore(cfg).add(target, text)  # re-read from disk: a child may have edited it
    if retry["success"]:
        retry["consolidation"] = report
        retry["message"] = f"{retry['message']} (memory was consolidated first: {report['summary']})"
        return retry
    result["consolidation"] = report
    return result


def _agent_default(cfg, use_agent: bool | None) -> bool:
    if use_agent is not None:
        return use_agent and not cfg.is_child
    if cfg.is_child:
        return False
    from tacit.child import agent_available

    return agent_available(cfg, cfg.host)


def consolidate_target(cfg, target: str, *, use_agent: bool | None = None) -> dict:
    """Consolidate one target; returns a report with before/after usage."""
    from tacit.stores.memory import MemoryStore

    store = MemoryStore(cfg)
    before = store.usage(target)
    report: dict = {"target": target, "before": before["text"]}
    if _agent_default(cfg, use_agent):
        from tacit.child import run_job

        record = run_job(cfg, {"id": f"consolidate-{target}", "kind": "consolidate", "host": cfg.host,
                               "session_id": "consolidate", "variables": {"targets": [target]}},
                         agent=True)
        report["mode"] = "agent"
        report["child_ok"] = bool(record.get("ok"))
        if not record.get("ok"):
            # the child failed (killed, crashed, non-zero): fall back, lose nothing
            report["merge"] = merge_duplicates(cfg, target)
            report["mode"] = "agent-failed+deterministic"
    else:
        report["mode"] = "deterministic"
        report["merge"] = merge_duplicates(cfg, target)
    after = MemoryStore(cfg).usage(target)
    report["after"] = after["text"]
    report["fits"] = after["current"] <= after["limit"]
    report["summary"] = f"{target}: {before['text']} → {after['text']}"
    return report


def consolidate_all(cfg, *, use_agent: bool | None = None) -> dict:
    """``/memory-consolidate``: both targets, skipping empty ones."""
    from tacit.stores.memory import MemoryStore

    store = MemoryStore(cfg)
    reports = []
    for target in ("memory", "user"):
        if not store.entries(target):
            reports.append({"target": target, "skipped": "empty"})
            continue
        reports.append(consolidate_target(cfg, target, use_agent=use_agent))
    lines = [r.get("summary") or f"{r['target']}: skipped ({r['skipped']})" for r in reports]
    return {"success": True, "reports": reports, "message": "\n".join(lines)}


# ---------------------------------------------------------------------------
# The deterministic merge
# ---------------------------------------------------------------------------


def _normal(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".!;,: ")


def _words(text: str) -> set[str]:
    return {w.strip(".,;:") for w in _WORD.findall(text.casefold())} - {""}


def plan_merge(entries: list[str]) -> tuple[list[str], list[dict]]:
    """Pure: (kept entries in order, merges made). Keeps the first position of
    each group and the most informative text of it."""
    kept: list[str] = []
    merges: list[dict] = []
    for entry in entries:
        norm, words = _normal(entry), _words(entry)
        merged = False
        for i, existing in enumerate(kept):
            ex_norm, ex_words = _normal(existing), _words(existing)
            same = norm == ex_norm
            contained = bool(words) and (words <= ex_words or ex_words <= words) and min(
                len(words), len(ex_words)) >= 3
            if same or contained:
                # the entry whose words include the other's carries more
                winner = entry if (not same and words > ex_words) else existing
                merges.append({"kept": winner, "dropped": entry if winner == existing else existing,
                               "why": "duplicate" if same else "contained"})
                kept[i] = winner
                merged = True
                break
        if not merged:
            kept.append(entry)
    return kept, merges


def merge_duplicates(cfg, target: str) -> dict:
    """Apply ``plan_merge`` to a target under its lock (atomic write)."""
    from tacit.fsutil import lock_for
    from tacit.stores.memory import DriftError, MemoryStore

    store = MemoryStore(cfg)
    try:
        with lock_for(store.path_for(target)):
            try:
                entries = store._load_for_write(target, roundtrip_guard=True)
            except DriftError as exc:
                return {"merged": 0, "error": store._drift_result(target, exc)["error"]}
            kept, merges = plan_merge(entries)
            if merges:
                store._write(target, kept)
    except TimeoutError:  # filelock.Timeout is one too
        return {"merged": 0, "error": f"{store.path_for(target).name} stayed locked; nothing merged"}
    usage = store.usage(target, kept)
    return {"merged": len(merges), "merges": merges, "usage": usage["text"],
            "still_over": usage["current"] > usage["limit"]}

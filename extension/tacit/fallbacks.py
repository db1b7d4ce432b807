"""What a child job does when no agent can run (no host binary, children
disabled, or inside a child).

- ``consolidate``: the deterministic merge (see ``tacit.consolidation``).
- ``correction``: the correction is saved as said, to USER.md — a verbatim
  "User correction: …" entry is less polished than an agent's summary, but a
  lesson kept beats a lesson lost. Trivially long texts are cut at a sentence.
- ``review``, ``skill``, ``flush``: need a model to decide what matters;
  skipped and logged, never faked.
"""

from __future__ import annotations


def run_fallback(cfg, job: dict) -> dict:
    kind = job.get("kind")
    variables = job.get("variables", {})
    if kind == "consolidate":
        from tacit.consolidation import merge_duplicates

        results = {t: merge_duplicates(cfg, t) for t in variables.get("targets", ["memory", "user"])}
        return {"ok": True, "results": results}
    if kind == "correction":
        from tacit.consolidation import add_entry

        texts = [correction_entry(t) for t in [*variables.get("earlier_corrections", []),
                                               variables.get("correction", "")]]
        texts = [t for t in texts if t]
        if not texts:
            return {"ok": False, "error": "empty correction"}
        saved, results = [], []
        for text in texts:  # oldest first, so USER.md reads in the order they were said
            result = add_entry(cfg, "user", text, use_agent=False)
            results.append(result)
            if result["success"]:
                saved.append(text)
        ok = len(saved) == len(texts)
        out = {"ok": ok, "saved": (saved[0] if len(saved) == 1 else saved) if saved else None,
               "result": results[-1] if len(results) == 1 else results}
        if not ok:
            out["error"] = next(r.get("error") for r in results if not r["success"])
        return out
    return {"ok": False, "skipped": f"no agent available for {kind!r}"}


def correction_entry(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        cut = text[:limit]
        stop = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
        text = (cut[: stop + 1] if stop > 80 else cut.rstrip() + "…")
    return f"User correction: {text}" if text else ""

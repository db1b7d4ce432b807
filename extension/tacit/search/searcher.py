"""``search``: catch the index up, then answer a query with exchanges.

Design notes: docs/design/search.md#tacitsearchsearcher
"""

from __future__ import annotations

import contextlib
from datetime import datetime, timezone

from tacit.search import query as q
from tacit.search.indexer import Projects, catch_up, host_tag, open_index, project_tag
from tacit.search.source import host_sources

ROLES = {"u": "user", "a": "assistant", "t": "tool"}  # as the index stores them
DEFAULT_LIMIT = 5
MAX_LIMIT = 50


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).astimezone().isoformat(timespec="seconds")


def _exchange(index, by_host: dict, sess: int, turn: int) -> tuple[str, float | None]:
    from tacit.boundary import scrub

    parts, fetched, first_ts, tools = [], {}, None, 0
    for role, part, ts, pos, length, host, path in index.exchange(sess, turn):
        first_ts = ts if first_ts is None else first_ts
        if role == "t":
            tools += 1
            if tools > q.TOOL_LINES:
                continue  # not shown: not read
        key = (host, path, pos, length)
        if key not in fetched:
            source = by_host.get(host)
            fetched[key] = source.fetch(path, pos, length) if source else []
        messages = fetched[key]
        if part < len(messages) and messages[part].role[0] == role:
            text = scrub(messages[part].text)
            if text.strip():
                parts.append((messages[part].role, text))
    return q.exchange_text(parts), first_ts


def _gate(results: list) -> int:
    from tacit.safety.context_gate import NOTICE, Block, gate_context

    if not results:
        return 0
    gated = gate_context([Block(NOTICE, f"result {n + 1}", r["text"], f"r{n}") for n, r in enumerate(results)])
    allowed = {b.group: b.text for b in gated.allowed}
    kept = [dict(r, text=allowed[f"r{n}"]) for n, r in enumerate(results) if f"r{n}" in allowed]
    left_out = len(results) - len(kept)
    results[:] = kept
    return left_out


def _project_tags(key: str, cwd: str | None, cfg) -> tuple:
    """The project's tag, and for a repository that of its main folder: sessions it had before
    ``git init`` were indexed under the folder (docs/search.md, "The index")."""
    from tacit.projects import project_for

    project = project_for(cwd, home=cfg.env.get("HOME")) if cwd else None
    folder = project.main_root if project is not None and project.kind == "git" else key
    return tuple(dict.fromkeys((project_tag(key), project_tag(folder))))


def search(cfg, text: str, *, cwd: str | None = None, all_projects: bool = False, host: str | None = None,
           since: float | None = None, limit: int = DEFAULT_LIMIT, refresh: bool = True, index=None) -> dict:
    """Ranked exchanges for ``text`` (see the module docstring)."""
    with contextlib.closing(open_index(cfg)) if index is None else contextlib.nullcontext(index) as index:
        caught = catch_up(cfg, index) if refresh else None
        tags, project = [], None
        if not all_projects:
            key, name, _tag, _off = Projects(cfg).of(cwd)
            if key:
                tags.append(_project_tags(key, cwd, cfg))
                project = {"key": key, "name": name}
        if host:
            tags.append(host_tag(host))
        limit = max(1, min(int(limit), MAX_LIMIT))
        rows = q.candidates(index, text, tags, since)
        by_host = {s.host: s for s in host_sources()} if rows else {}
        results = []
        for hit in q.rank(rows):
            if len(results) >= limit:
                break
            body, first_ts = _exchange(index, by_host, hit.sess, hit.turn)
            if not body:
                continue  # its file changed or is gone
            sess = index.session_row(hit.sess)
            results.append({"session_id": sess["session_id"], "host": sess["host"],
                            "project": sess["project_name"] or None, "time": iso(first_ts or hit.ts),
                            "role": ROLES.get(hit.role, hit.role), "text": body, "turn": hit.turn})
        left_out = _gate(results)
        return {"success": True, "query": text, "scope": {"project": project, "host": host, "since": since},
                "results": results, "left_out": left_out, "indexed": caught}

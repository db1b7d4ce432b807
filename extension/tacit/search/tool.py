"""The search tool the agent gets in every host (``search_sessions``).

Design notes: docs/design/search.md#tacitsearchtool
"""

from __future__ import annotations

from tacit.search.source import host_names as hosts

NAME = "search_sessions"
TOOL = {
    "name": NAME,
    "label": "Search past sessions",
    "description": (
        "Search what was said and done in past coding sessions of every agent tacit runs in, in this "
        "project: how something was fixed, which command was used, what was decided. Returns the best "
        "exchanges (the user's message and the agent's reply), newest breaking ties. Use a few plain "
        "words: 'seed database command', 'CORS error fix'."),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what to look for, in a few plain words"},
            "all_projects": {"type": "boolean", "description": "search every project, not only this one"},
            "host": {"type": "string", "enum": list(hosts()),
                     "description": "only sessions of this agent"},
            "since": {"type": "string", "description": "only since then: 7d, 12h, 2w or a date"},
            "limit": {"type": "integer", "description": "at most this many exchanges (default 5)"},
        },
        "required": ["query"],
    },
}


def run(cfg, args, cwd: str | None) -> dict:
    """``{"success": true, "results": [...]}`` or ``{"success": false, "error": ...}``."""
    from tacit.search.searcher import DEFAULT_LIMIT, search
    from tacit.timespan import parse_since

    if not isinstance(args, dict) or not isinstance(args.get("query"), str) or not args["query"].strip():
        return {"success": False, "error": "query (a string of plain words) is required"}
    host = args.get("host")
    if host not in (None, "", *hosts()):
        return {"success": False, "error": f"host must be one of {', '.join(hosts())}"}
    limit = args.get("limit", DEFAULT_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int):
        return {"success": False, "error": "limit must be an integer"}
    try:
        since = parse_since(args.get("since") if isinstance(args.get("since"), str) else None)
    except ValueError as exc:
        return {"success": False, "error": str(exc)}
    result = search(cfg, args["query"], cwd=cwd, all_projects=bool(args.get("all_projects")), host=host or None,
                    since=since, limit=limit)
    return {"success": True, "results": result["results"], "left_out": result["left_out"]}

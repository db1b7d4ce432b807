"""Huge input to ``tacit search``: a query of one 120,000-character word
took a minute (a term probe per possible cut of the word). A word is split
into two joined terms only when it is of a length a word has."""

from __future__ import annotations

from tacit.search.query import alternatives


class CountingIndex:
    def __init__(self, terms=()):
        self.terms, self.probes = set(terms), 0

    def has_term(self, term: str) -> bool:
        self.probes += 1
        return term in self.terms


def test_a_huge_word_is_probed_a_bounded_number_of_times():
    index = CountingIndex()
    groups = alternatives(index, "x" * 120_000)
    assert index.probes <= 100, index.probes
    assert groups == [['"' + "x" * 120_000 + '"']]


def test_an_ordinary_joined_word_is_still_split():
    index = CountingIndex({"time", "out"})
    assert '"time out"' in alternatives(index, "timeout")[0]


def test_a_searched_word_that_starts_with_a_dash_says_to_put_it_after_two_dashes(run):
    """`tacit search --json git push --force` (an agent asking for a flag) was only "unrecognized
    arguments: --force": nothing said the word could be searched at all."""
    import json

    code, out, _ = run("search", "--json", "git", "push", "--force")
    error = json.loads(out)["error"]
    assert code == 2 and "unrecognized arguments: --force" in error and "put them after '--'" in error, error
    code, out, _ = run("search", "--json", "git", "push", "--", "--force")
    assert code == 0 and json.loads(out)["query"] == "git push --force", out


def test_a_damaged_search_index_is_made_again_or_named_never_an_internal_error(run, tacit_env, web):
    """search.db is a cache of the hosts' files; one that was not a database (a crash, a bad copy)
    failed every search with "internal error: DatabaseError" until --reindex, which nothing named."""
    import json
    from pathlib import Path

    index = Path(tacit_env["TACIT_HOME"]) / "search.db"
    index.write_bytes(b"\x8f not sqlite " * 400)
    code, out, err = run("search", "--json", "deploy")
    assert code == 0 and json.loads(out)["success"] is True, out + err
    assert index.read_bytes().startswith(b"SQLite format 3\x00")
    # in tacit's log (it went to Python's logging: stderr, which no host shows)
    logged = (Path(tacit_env["TACIT_HOME"]) / "logs" / "tacit.log").read_text(encoding="utf-8")
    assert "WARNING" in logged and f"search index {index} is damaged" in logged and "made again" in logged, logged
    with open(index, "r+b") as handle:  # its first page whole, every other one garbage: "malformed"
        size = handle.seek(0, 2)
        handle.seek(4096)
        handle.write(b"\xff" * (size - 4096 + 8192))
    code, out, _ = run("search", "--json", "deploy")
    result = json.loads(out)
    assert code == 1 and "is damaged" in result["error"] and "tacit search --reindex" in result["error"], out
    assert run("search", "--reindex", "--json")[0] == 0
    assert run("search", "--json", "deploy")[0] == 0

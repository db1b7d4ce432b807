"""Search every past session, in every host (``tacit search``).

``source`` says what a host's session files give (the host-neutral shape each
``hosts/<name>/sessions.py`` fills in), ``jsonl`` reads a growing JSONL file
from where it was left, ``indexer`` catches the index up with every host's
files, ``query`` turns words into a ranked list of exchanges. All SQL lives
in ``tacit.stores.search_index``. Design notes: docs/search.md.
"""

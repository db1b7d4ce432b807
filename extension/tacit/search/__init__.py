"""Search every past session, in every host (``tacit search``); all SQL in ``tacit.stores.search_index``.

Design notes: docs/search.md.
"""

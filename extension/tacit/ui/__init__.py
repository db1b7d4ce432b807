"""``tacit ui``: a local page onto memory, history, guards, review, cost and skills.

Design notes: docs/design/search.md#tacitui
"""

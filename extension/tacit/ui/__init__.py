"""``tacit ui``: a local page onto memory, history, guards, review, cost and skills.

``server`` serves it (127.0.0.1 only, a token, same-origin writes: see
docs/ui.md); ``pages`` gathers what each page shows from the same stores the
CLI and the hosts use, read live on every request; ``actions`` makes the
changes a page offers, recorded with you as the actor; ``markdown`` renders
a skill as escaped HTML; ``templates/`` holds the jinja2 pages.
"""

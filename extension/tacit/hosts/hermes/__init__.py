"""tacit as a Hermes Agent plugin (see docs/hosts/hermes.md).

Design notes: docs/design/hosts.md#tacithostshermes
"""

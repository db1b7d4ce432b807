"""The engine service: ``tacit serve``, its housekeeping, and its client."""

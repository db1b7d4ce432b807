"""tacit's pi host: a TypeScript extension (``extension/index.ts``) that talks
JSON lines to ``tacit bridge --stdio`` (``protocol.py``); see docs/hosts/pi.md."""

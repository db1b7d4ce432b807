"""tacit's pi host: a TypeScript extension (``extension/index.ts``) that talks
JSON lines to ``tacit bridge --stdio`` (``bridge.py``); see docs/hosts/pi.md."""

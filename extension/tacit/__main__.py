"""``python -m tacit`` runs the command line."""

from tacit.cli import main

raise SystemExit(main())

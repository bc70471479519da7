"""``python -m sitar`` runs the CLI."""

import sys

from sitar.cli import main

sys.exit(main())

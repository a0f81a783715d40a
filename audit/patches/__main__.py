"""``python -m audit.patches REQUEST.json``: one side of a patch validation."""

import sys

from .worker import main

sys.exit(main())

"""``python -m audit.patch_validation REQUEST.json``: one side of a patch validation."""

import sys

from .worker import main

sys.exit(main())

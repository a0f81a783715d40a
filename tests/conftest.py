"""Shared test configuration: Hypothesis profiles.

Profiles (no on-disk example database anywhere: saved cases live under cases/ only; no
./.hypothesis either):

* ``dev`` (default): random, Hypothesis' default deadline.
* ``ci``: derandomized, no deadline, failing examples printed as reproduction blobs.
  Selected when the environment variable ``CI`` is set (any value) or
  ``CHRF_AUDIT_PROFILE=ci``; ``CHRF_AUDIT_PROFILE`` may also name ``dev`` explicitly.
"""

import atexit
import os
import shutil
import tempfile

from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

# Hypothesis keeps caches (mined constants, the Unicode table) under its home directory,
# ./.hypothesis by default: the test session uses a temporary one, so that running the tests
# leaves nothing in the checkout (chrf-audit itself does the same, see audit.hypothesis_profiles).
_HOME = tempfile.mkdtemp(prefix="chrf-audit-tests-hypothesis-")
set_hypothesis_home_dir(_HOME)
atexit.register(shutil.rmtree, _HOME, True)

settings.register_profile("dev", database=None)
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, database=None)

_profile = os.environ.get("CHRF_AUDIT_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
settings.load_profile(_profile)

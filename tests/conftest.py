"""Shared test configuration: Hypothesis profiles.

Profiles (no on-disk example database anywhere: saved cases live under cases/ only):

* ``dev`` (default): random, Hypothesis' default deadline.
* ``ci``: derandomized, no deadline, failing examples printed as reproduction blobs.
  Selected when the environment variable ``CI`` is set (any value) or
  ``CHRF_AUDIT_PROFILE=ci``; ``CHRF_AUDIT_PROFILE`` may also name ``dev`` explicitly.
"""

import os

from hypothesis import settings

settings.register_profile("dev", database=None)
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, database=None)

_profile = os.environ.get("CHRF_AUDIT_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
settings.load_profile(_profile)

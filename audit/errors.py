"""User-facing errors: the CLI prints their message on one line and exits 2, no traceback."""


class UsageError(Exception):
    """A mistake in how chrf-audit was called: bad flag, bad spec, bad file, bad config."""

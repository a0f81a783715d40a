"""User-facing errors: the CLI prints their message on one line and exits 2, no traceback."""


class UsageError(Exception):
    """A mistake in how chrf-audit was called: bad flag, bad spec, bad file, bad config."""


class WriteError(UsageError, OSError):
    """A file chrf-audit could not write (a full disk, a quota, a read-only mount): one line
    naming the file it was writing (never a temporary name, never "None"), exit 2.  It is an
    ``OSError`` too, with the errno, for a caller that can do without the file (a cache)."""

    def __init__(self, path, exc: OSError):
        OSError.__init__(self, exc.errno, exc.strerror or str(exc), str(path))

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"

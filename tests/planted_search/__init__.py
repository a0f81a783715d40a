"""Planted implementations for the search tests (tests/test_search.py): several bugs at once,
bugs that only a new input class shows (a lone surrogate, NUL), and one whose divergence the
bug models used to drop.  Kept apart from ``tests/planted`` (one family per row of its catalogue)."""

"""Implementations that break a metamorphic relation in ways no bug model describes."""

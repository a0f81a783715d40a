"""chrf-audit: differential auditing of chrF / chrF++ implementations against an exact reference."""

__version__ = "0.1.0"

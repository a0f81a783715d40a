"""pytest plugin entry point for chrf-audit (filled in by the CI-gate work)."""

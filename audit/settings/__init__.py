"""Settings: the one option table and what reads it (configuration, limits, Hypothesis
profiles)."""

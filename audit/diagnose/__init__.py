"""The diagnose stage: the deviation registry, the exact bug models, and the classification
and explanation of a divergence (pure computation on statistics; no I/O)."""

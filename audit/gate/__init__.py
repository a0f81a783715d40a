"""The CI gate: the accepted-findings baseline and the pytest plugin."""

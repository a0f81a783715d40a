"""The collect stage: replay cases, search with Hypothesis, check every input against the
reference, fit the model of the implementation, shrink, assemble findings."""

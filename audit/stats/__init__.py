"""Audit of chrF's statistical procedures: bootstrap confidence intervals and paired tests.

``procedures`` (the interface and float64 interval constructions), ``builtin`` (sacreBLEU, run
in callable workers through ``sacrebleu_calls``;
chrf-audit's own), ``callables`` and ``external`` (any Python callable, any program; evaluatio
runs through ``evaluatio_env`` + ``evaluatio_server``), ``data`` (seeded corpora built to
expose each bug), ``models`` (float64 models), ``checks_*`` and ``stat_tests`` (the checks and their tests, by family:
``families``), ``runner``, ``report``/``markdown``/``snippets`` (JSON, terminal, markdown).
See docs/stats.md.
"""

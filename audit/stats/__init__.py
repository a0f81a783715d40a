"""Audit of chrF's statistical procedures: bootstrap confidence intervals and paired tests.

``procedures`` (the interface and float64 interval constructions), ``builtin`` (sacreBLEU, run
in callable workers through ``sacrebleu_calls``; chrf-audit's own), ``callables`` and
``external`` (any Python callable, any program; evaluatio runs through ``evaluatio_env`` +
``evaluatio_server``), ``side_effects`` (the probe run where a procedure runs), ``data``
(seeded corpora built to expose each bug), ``models`` (float64 models and replays),
``checks`` (settings, results, the session that keeps every answer), ``checks_ci``,
``checks_paired``, ``checks_edge`` (checks on chosen inputs), ``checks_answers`` (checks over
every answer) and ``stat_tests`` (the tests they use), by family (``families``), ``runner``,
``report``/``markdown``/``snippets`` (JSON, terminal, markdown).  See docs/stats.md.
"""

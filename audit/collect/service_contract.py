"""A service's contract checks, scheduled after its search (``audit.collect.unit.finish_summary``):
the inputs drawn from the search's own strategies (seeded, no clock), then one call of the
contract's run, ``audit.contract.checks.check_service``, which sends, judges and reports."""

from __future__ import annotations

from ..contract.checks import check_service
from ..settings import options

#: sentences drawn for the batched segment sample, per --max-examples
SENTENCES_PER_EXAMPLE = 8


def audit_contract(adapter, summary, seed: int = 0, max_examples: int = options.BUDGET) -> None:
    """Check every promise of the service's contract; add the findings and ``summary.contract``
    (the table).  ``max_examples`` corpora and ``SENTENCES_PER_EXAMPLE`` times as many
    sentences are drawn besides the contract's own probes."""
    budget = max(1, int(max_examples))
    corpora, sentences = _drawn(adapter, seed, budget, budget * SENTENCES_PER_EXAMPLE)
    service = adapter.service()  # what the checks send through and name
    check_service(service, summary, corpora, sentences)


def _drawn(adapter, seed: int, corpora: int, sentences: int) -> tuple[list, list]:
    """(hypotheses, references) corpora and (hypothesis, reference) sentences drawn from the
    search's strategies, one reference each (seeded, no clock)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from .search import derived_seed, no_wall_clock, strategies

    sentence, corpus, _ = strategies(adapter)
    out = {"corpus": [], "sentence": []}

    def collect(level, strategy, n):
        @hseed(derived_seed(seed, "contract", level))
        @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None, derandomize=False,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def run(x):
            if len(out[level]) < n:
                out[level].append(x)
        with no_wall_clock():
            run()

    collect("corpus", corpus, corpora)
    collect("sentence", sentence, sentences)
    return ([(x["hypotheses"], [r[0] for r in x["references"]]) for x in out["corpus"]],
            [(x["hypothesis"], x["references"][0]) for x in out["sentence"]])

"""benchmarks/mutation_sample.py: the mutants a seed picks are the same every time, whatever
order the tool listed them in; another seed picks others; 0 keeps all (docs/mutation.md)."""

import sys
from pathlib import Path
from types import SimpleNamespace as G

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import mutation_sample  # noqa: E402

MUTANTS = [G(file_path=f"audit/m{i % 3}.py", line_number=i, operator_name="comparison", description=f"d{i}")
           for i in range(40)]


def _keys(gs):
    return [(g.file_path, g.line_number) for g in gs]


def test_a_seed_picks_the_same_mutants_in_any_listing_order():
    a = mutation_sample.sample(MUTANTS, 8, 0)
    b = mutation_sample.sample(list(reversed(MUTANTS)), 8, 0)
    assert len(a) == 8 and _keys(a) == _keys(b) == sorted(_keys(a))
    assert _keys(mutation_sample.sample(MUTANTS, 8, 1)) != _keys(a)


def test_zero_or_more_than_there_are_keeps_every_mutant():
    assert len(mutation_sample.sample(MUTANTS, 0, 0)) == 40 == len(mutation_sample.sample(MUTANTS, 99, 5))

"""End-to-end: the reference against sacreBLEU on the WMT17 en-de systems (slow).

Reads ../shared/data/wmt17-en-de (3004 segments x 16 systems, third-party data: never
copied into the repository).  Run with ``pytest -m slow tests/test_reference_wmt17.py``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from reference_impl import SegmentStats, corpus_score, sentence_score

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wmt17-en-de"
TOL = 1e-9


def _lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _systems() -> list[str]:
    if not (DATA / "reference.txt").is_file():
        return []
    return sorted(p.name for p in DATA.glob("*.txt") if p.name != "reference.txt")


SYSTEMS = _systems()


@pytest.fixture(scope="module")
def references() -> list[str]:
    assert SYSTEMS, f"the WMT17 data (third-party, never committed) is needed in {DATA} for the slow tests"
    return _lines(DATA / "reference.txt")


@pytest.fixture(scope="module")
def sacrebleu_metrics(references):
    from sacrebleu.metrics import CHRF

    # Reference n-grams cached once per metric, as sacreBLEU's own test suite does.
    return {w: CHRF(word_order=w, references=[references]) for w in (0, 2)}


def test_sixteen_systems_present():
    assert len(SYSTEMS) == 16, f"the WMT17 data (third-party, never committed) is needed in {DATA}"


@pytest.mark.parametrize("system", SYSTEMS or ["no WMT17 data"])  # then the references fixture fails
@pytest.mark.parametrize("word_order", [0, 2], ids=["chrF", "chrF++"])
def test_wmt17_system(system, word_order, references, sacrebleu_metrics):
    hyps = _lines(DATA / system)
    assert len(hyps) == len(references) == 3004
    metric = sacrebleu_metrics[word_order]
    ours = corpus_score(hyps, [[r] for r in references], word_order=word_order)
    theirs = metric.corpus_score(hyps, None).score
    assert abs(float(ours.score) - theirs) <= TOL, (system, ours.score, theirs)

    # identical integer statistics, segment by segment
    their_stats = metric._extract_corpus_statistics(hyps, None)
    assert [s.flat() for s in ours.segment_stats] == [tuple(s) for s in their_stats]

    # spot-check sentence scores on a seeded sample
    rng = random.Random(f"{system}/{word_order}")
    for i in rng.sample(range(len(hyps)), 60):
        s = sentence_score(hyps[i], [references[i]], word_order=word_order)
        assert s.segment_stats[0] == SegmentStats.from_flat(their_stats[i])
        t = metric.sentence_score(hyps[i], [references[i]]).score
        assert abs(float(s.score) - t) <= TOL, (system, i, s.score, t)

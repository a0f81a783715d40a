"""The deviation registry is the one place a family lives, and what reads it agrees with it."""

from __future__ import annotations

import re

import pytest

from audit import deviations
from audit.classify import MIN_PREDICTED, PER_FAMILY, Classifier
from audit.families import FAMILIES, title
from audit.impact import family_model
from audit.models import ScoreVariant, TextVariant, predict
from audit.upstream import nltk as up_nltk
from audit.upstream import sacrebleu as up_sacrebleu
from reference_impl import ChrfParams

MODELLED = [d for d in deviations.DEVIATIONS if d.models]
_NEW = ["precision-recall-pooled", "wrong-beta", "whitespace-stripped-ends-only", "format-characters-deleted",
        "best-reference-sentinel-zero", "float32-arithmetic"]


def test_families_are_the_registry():
    assert list(FAMILIES) == [d.id for d in deviations.DEVIATIONS]
    assert all(title(d.id) == d.title for d in deviations.DEVIATIONS)
    assert set(_NEW) <= set(FAMILIES)


def test_titles_are_implementation_neutral():
    for d in deviations.DEVIATIONS:
        assert not re.search(r"\bnltk\b|\bsacrebleu\b|\d+\.\d+\.\d+", d.title, re.I), d.id
        assert not d.title.endswith("."), d.id


@pytest.mark.parametrize("dev", MODELLED, ids=lambda d: d.id)
def test_each_model_is_named_by_its_family(dev):
    for fld, value in dev.models:
        variant = TextVariant(**{fld: value}) if dev.stage == "text" else ScoreVariant(**{fld: value})
        assert variant.families() == [dev.id]


def _params_for(dev) -> ChrfParams:
    for p in (ChrfParams.make(), ChrfParams.make(word_order=2), ChrfParams.make(lowercase=True),
              ChrfParams.make(whitespace=True), ChrfParams.make(definition="chrfpp"),
              ChrfParams.make(definition="sacrebleu-eps")):
        for level, nrefs, nsegs in (("sentence", 1, 1), ("sentence", 3, 1), ("corpus", 1, 3)):
            if dev.applies(p, level, nrefs, nsegs):
                return p, level, nrefs
    raise AssertionError(dev.id)


@pytest.mark.parametrize("dev", [d for d in MODELLED], ids=lambda d: d.id)
def test_triggers_exercise_every_model(dev):
    """Each model of each family differs from the definition on enough trigger inputs to be
    confirmed (else no implementation could ever earn the name)."""
    p, level, nrefs = _params_for(dev)
    for m in dev.models:
        if dev.model_filter is not None and not dev.model_filter(p, m):
            continue
        variant = (TextVariant(**{m[0]: m[1]}), ScoreVariant()) if dev.stage == "text" else \
            (TextVariant(), ScoreVariant(**{m[0]: m[1]}))
        inputs = Classifier(1e-9).targeted_inputs([dev.id], p, level, nrefs, variant)
        assert MIN_PREDICTED <= len(inputs) <= PER_FAMILY, (dev.id, m, len(inputs))
        claimed = (TextVariant(), ScoreVariant())
        assert all(predict(s, p, level, variant) != predict(s, p, level, claimed) for s in inputs)


def test_impact_single_models_come_from_the_registry():
    p = ChrfParams.make()
    assert family_model("no-clipping", p) == (TextVariant(clip=False), ScoreVariant())
    assert family_model("precision-recall-pooled", p) == (TextVariant(), ScoreVariant(average="pooled"))
    assert family_model("wrong-ngram-orders", p) is None  # several variants
    assert family_model("crash", p) is None


def test_upstream_root_causes_read_the_registry():
    nltk = up_nltk._root_causes()
    for fam in ("requested-order-divisor", "f-score-averaged", "whitespace-set-white-space", "corpus-macro-average"):
        assert fam in nltk
    assert "nltk" in nltk["whitespace-set-white-space"][1]  # the library remark lives here, not in the title
    assert up_sacrebleu._root_causes()["no-clipping"][0] == r"def _get_match_statistics"


@pytest.mark.parametrize("family", _NEW)
def test_new_families_have_a_sweep(family):
    """Each new family's registry entry names a sweep, which the upstream sweeps draw."""
    from types import SimpleNamespace

    from audit import upstream
    from audit.enrich.scoring import AdapterScorer

    pytest.importorskip("sacrebleu")
    kind = deviations.sweep_of(family)
    assert kind is not None
    with AdapterScorer() as scorer:  # sacreBLEU through its isolated adapter
        out = upstream.scope("sacrebleu", SimpleNamespace(family=family, claims={}), scorer("sacrebleu"))
    assert out is not None and len(out["rows"]) >= 5
    # sacreBLEU is the definition: every row agrees with the reference
    assert all(r["difference"] is not None and abs(r["difference"]) < 1e-9 for r in out["rows"])

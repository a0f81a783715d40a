"""The deviation registry is the one place a family lives, and what reads it agrees with it."""

from __future__ import annotations

import re

import pytest

from audit.diagnose import deviations
from audit.diagnose.classify import MIN_PREDICTED, PER_FAMILY, Classifier
from audit.diagnose.families import FAMILIES, title
from audit.impact import family_model
from audit.diagnose.models import predict
from audit.diagnose.variants import ScoreVariant, TextVariant
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
        for level, nrefs, nsegs in (("sentence", 1, 1), ("sentence", 3, 1), ("corpus", 1, 3), ("corpus", 3, 3)):
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
    """A plug-in declares no root-cause table of its own: upstream.root_cause reads the
    registry under the plug-in's NAME."""
    from audit import upstream
    from audit.diagnose.deviations import root_causes

    nltk = root_causes(up_nltk.NAME)
    for fam in ("requested-order-divisor", "f-score-averaged", "whitespace-set-white-space", "corpus-macro-average"):
        assert fam in nltk
    assert "nltk" in nltk["whitespace-set-white-space"][1]  # the library remark lives here, not in the title
    assert root_causes(up_sacrebleu.NAME)["no-clipping"][0] == r"def _get_match_statistics"
    for module in (up_nltk, up_sacrebleu):
        assert not hasattr(module, "root_cause") and not hasattr(module, "_root_causes")
    rc = upstream.root_cause("sacrebleu-chrf++-eps", "no-clipping")
    assert rc["function"] == "CHRF._get_match_statistics" and rc["why"] == root_causes("sacrebleu")["no-clipping"][1]


UPSTREAMS = ("nltk", "sacrebleu", "torchmetrics")


def _knowledge(library: str):
    """The upstream knowledge module (importing it needs neither torch nor torchmetrics)."""
    import importlib

    return importlib.import_module(f"audit.upstream.{library}")


@pytest.mark.parametrize("library", UPSTREAMS)
def test_every_upstream_reads_its_root_causes_from_the_registry(library):
    mod = _knowledge(library)
    assert mod.NAME == library
    assert deviations.root_causes(library), library  # each knows at least one cause
    # no table or lookup of its own beside the registry (torchmetrics had one, with an alias)
    assert not [n for n in vars(mod) if "ROOT_CAUSE" in n.upper()]


@pytest.mark.parametrize("library", UPSTREAMS)
def test_no_family_borrows_another_familys_root_cause(library):
    """Two families of one library share a root-cause pattern only where SHARED_ROOTS says
    why; the only sharing today is nltk's whitespace line, which the metamorphic-whitespace
    relation breaks on for the same reason as the whitespace set."""
    roots = deviations.root_causes(library)
    shared = deviations.shared_roots(library)
    by_pattern: dict = {}
    for fam, (pattern, _why) in roots.items():
        by_pattern.setdefault(pattern, set()).add(fam)
    groups = {frozenset(f) for f in by_pattern.values() if len(f) > 1}
    assert groups == set(shared)
    assert {lib: set(v) for lib, v in deviations.SHARED_ROOTS.items()} == {
        "nltk": {frozenset({"whitespace-set-white-space", "metamorphic-whitespace"})}}
    assert "empty-input-perfect" not in roots or roots["empty-input-perfect"][0] != \
        roots.get("unmatched-segment-reference-dropped", ("",))[0]


@pytest.mark.parametrize("library", ["nltk", "sacrebleu"])
def test_distinct_patterns_find_distinct_lines_in_the_installed_source(library):
    """Distinct patterns could still find one line: they do not (torchmetrics: in
    tests/test_torchmetrics.py, which needs torch)."""
    from audit import upstream

    lines: dict = {}
    for fam, (pattern, _) in deviations.root_causes(library).items():
        rc = upstream.root_cause(library, fam)
        assert rc is not None, (library, fam)
        lines.setdefault((rc["file"], rc["line"]), set()).add(fam)
    assert all(len(f) == 1 or frozenset(f) in deviations.shared_roots(library) for f in lines.values()), lines


@pytest.mark.parametrize("library", UPSTREAMS)
def test_every_patch_is_keyed_by_a_family_of_the_registry(library):
    mod = _knowledge(library)
    edits = getattr(mod, "_EDITS", {})
    opt_in = getattr(mod, "nltk_patches", None)  # nltk: each family's edits built by nltk_patches
    if opt_in is not None:
        edits = {fam: opt_in.edits({fam}) for fam in opt_in.FAMILIES}
        assert all(edits.values()), edits
    assert set(edits) <= set(deviations.REGISTRY), library
    assert set(mod.PATCH_DESCRIPTIONS) == set(edits)
    # one fix per group (issue 42: findings fixed by one patch are one issue): families of one
    # patch group share its patch; no family reuses the patch of another group
    groups = getattr(opt_in, "GROUPS", None) or tuple((fam,) for fam in edits)
    group = {fam: g for g in groups for fam in g}
    keys = list(edits)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            shared = group.get(a, (a,)) == group.get(b, (b,))
            assert (edits[a] == edits[b]) == shared, (library, a, b)
            assert (mod.PATCH_DESCRIPTIONS[a] == mod.PATCH_DESCRIPTIONS[b]) <= shared, (library, a, b)


def test_a_borrowed_root_cause_is_refused():
    """The check the registry runs when it is built, on planted registries: a family pointing
    at another family's line, a sharing without a reason, a sharing that is not one."""
    from audit.diagnose.deviations import Deviation, borrowed_roots

    a = Deviation(id="unmatched-segment-reference-dropped", title="t", stage="score",
                  roots={"torchmetrics": ("if f > b:", "why")})
    b = Deviation(id="empty-input-perfect", title="t", stage="score", roots={"torchmetrics": ("if f > b:", "why")})
    c = Deviation(id="no-clipping", title="t", stage="text", roots={"torchmetrics": ("other", "why")})
    assert borrowed_roots([a, c], {}) == []
    (msg,) = borrowed_roots([a, b, c], {})
    assert "empty-input-perfect, unmatched-segment-reference-dropped share the root-cause pattern" in msg
    pair = frozenset({a.id, b.id})
    assert borrowed_roots([a, b, c], {"torchmetrics": {pair: "both come from the one comparison that picks "
                                                              "the best reference"}}) == []
    assert "gives no reason" in borrowed_roots([a, b], {"torchmetrics": {pair: "same"}})[0]
    assert "do not share one pattern" in borrowed_roots([a, c], {"torchmetrics": {
        frozenset({a.id, c.id}): "a reason long enough to count as one for the check"}})[0]


@pytest.mark.parametrize("family", _NEW)
def test_new_families_have_a_sweep(family):
    """Each new family's registry entry names a sweep, which the upstream sweeps draw."""
    from types import SimpleNamespace

    from audit import upstream
    from audit.enrich.scoring import AdapterScorer

    kind = deviations.sweep_of(family)
    assert kind is not None
    with AdapterScorer() as scorer:  # sacreBLEU through its isolated adapter
        out = upstream.scope("sacrebleu", SimpleNamespace(family=family, claims={}), scorer("sacrebleu"))
    assert out is not None and len(out["rows"]) >= 5
    # sacreBLEU is the definition: every row agrees with the reference
    assert all(r["difference"] is not None and abs(r["difference"]) < 1e-9 for r in out["rows"])

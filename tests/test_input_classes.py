"""The input classes and the fit's scope (issue 41, item 1): a class counts as tried only when
an input characteristic of it (its witness) was sent and answered; the classes real callers
send are drawn at the default budget; an implementation that refuses reference lists of
different lengths is a fact about what it takes, not a wrong score; a fit line never reads
complete beside an unexplained row of its level."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.adapters import resolve
from audit.collect import realtext
from audit.collect.checker import Checker
from audit.diagnose.reduce import segments_of
from reference_impl import DEFINITIONS, corpus_score, sentence_score

NEW = ("ragged-references", "empty-reference-beside-others", "texts-over-1000", "several-lines", "special-tokens",
       "markup", "hyphen-line-breaks")


def _draws(cls, level, n=25):
    make = realtext.sentence_inputs if level == "sentence" else realtext.corpus_inputs
    seen = []

    @settings(max_examples=n, database=None, derandomize=True)
    @given(make(cls, 5))
    def collect(x):
        seen.append(segments_of(level, x))

    collect()
    return seen


@pytest.mark.parametrize("level", ["sentence", "corpus"])
def test_every_class_draws_inputs_its_witness_accepts_from_the_simplest_on(level):
    for cls in realtext.applicable(level, 5):
        drawn = _draws(cls, level)
        assert cls.witness(drawn[0]), (cls.id, drawn[0])
        assert sum(map(cls.witness, drawn)) >= 0.75 * len(drawn), cls.id


def test_the_classes_real_callers_send_are_declared_with_their_scope():
    assert set(NEW) <= set(realtext.BY_ID)
    ragged = realtext.BY_ID["ragged-references"]
    assert ragged.applies("corpus", 3) and not ragged.applies("sentence", 5) and not ragged.applies("corpus", 1)
    assert not realtext.BY_ID["empty-reference-beside-others"].applies("sentence", 1)
    assert [c.id for c in realtext.applicable("sentence", 1)] == [
        c.id for c in realtext.CLASSES if c.min_refs == 1 and "sentence" in c.levels]


@pytest.mark.parametrize("cls, characteristic, not_characteristic", [
    # the feature on one side, not copied on both
    ("special-tokens", [("a <unk> b", ["a b"])], [("a <unk> b", ["a <unk> b"]), ("a b", ["a c"])]),
    ("special-tokens", [("a b", ["a </s>"])], [("a [MASK]", ["a [MASK]"])]),
    ("markup", [("a<br/>b", ["ab"])], [("a <b>x</b>", ["a <b>x</b>"])]),
    ("html-entities", [("a &amp; b", ["a & b"])], [("&amp;", ["&amp;"])]),
    ("hyphen-line-breaks", [("inter-\nnational", ["international"])], [("a-\nb", ["a-\nb"])]),
    ("several-lines", [("a\nb\nc", ["a\nc\nb"])], [("a\nb", ["a\nb"]), ("a b", ["a c"]), ("ab\n", ["b"])]),
    ("texts-over-1000", [("x" * 1001 + "a", ["x" * 1001 + "b"])],
     [("x" * 1001, ["y" + "x" * 1000]), ("x" * 999, ["y" * 999])]),
    ("ragged-references", [[("a", ["a"]), ("b", ["b", "c"])]], [[("a", ["a", "d"]), ("b", ["b", "c"])], [("a", ["a"])]]),
    ("empty-reference-beside-others", [("a", ["", "a"])], [("a", [""]), ("a", ["a", "b"])]),
    ("several-references", [("a", ["a", "b", "c"])], [("a", ["a", "a", "a"]), ("a", ["a", "b"])]),
])
def test_a_witness_needs_the_feature_where_the_sides_differ(cls, characteristic, not_characteristic):
    witness = realtext.BY_ID[cls].witness
    as_segments = lambda x: x if isinstance(x, list) else [x]  # noqa: E731
    assert all(witness(as_segments(x)) for x in characteristic)
    assert not any(witness(as_segments(x)) for x in not_characteristic)


def test_the_budget_is_shared_by_counting_and_reaches_every_class():
    classes = realtext.applicable("corpus", 5)
    from audit.settings.options import BUDGET

    from audit.collect.unit import REAL_TEXT_SHARE

    shares = realtext.budget_split(BUDGET // REAL_TEXT_SHARE, classes)
    assert sum(n for _, n in shares) == BUDGET // REAL_TEXT_SHARE
    assert all(n >= 1 for _, n in shares), shares  # the default budget draws every class
    assert [c.id for c, _ in shares] == [c.id for c in classes]


def _planted(name: str):
    import tests.planted as planted

    row = planted.get(name)
    [adapter] = resolve(row.spec("sentence"), corpus_impl=row.spec("corpus"), overrides=row.claims, isolate=False)
    return adapter


@pytest.mark.parametrize("level", ["sentence", "corpus"])
def test_the_default_budget_tries_every_class_that_applies(level):
    """A correct implementation searched at the default budget: every class that applies to
    the unit was tried (an input characteristic of it answered), none is left "never tried"."""
    from audit.collect import fitting
    from audit.collect.unit import UnitAudit
    from audit.settings.options import BUDGET

    adapter = _planted("correct_exact")
    u = UnitAudit(adapter, level, seed=0, max_examples=BUDGET, tolerance=1e-9, cases_dir=None, progress=None,
                  profile=None)
    u.search()
    scope = fitting.fit_summary(u)["scope"]
    assert scope["never_tried"] == [], scope
    assert scope["classes"] == [c.id for c in realtext.applicable(level, 5)]


class _Skipped:
    """An adapter whose every call the fault budget skipped (no answer was given)."""

    def __init__(self, adapter):
        from audit.adapters.base import Outcome
        from audit.adapters.faults import SKIPPED

        self.inner, self.claims, self.supports = adapter, adapter.claims, adapter.supports
        self.outcome = Outcome("timeout", None, None, "skipped", SKIPPED)

    def sentence_scores(self, items):
        return [self.outcome for _ in items]

    corpus_scores = sentence_scores

    def __getattr__(self, name):  # every other capability is the adapter's (audit.adapters.base)
        return getattr(self.inner, name)


def test_a_class_is_tried_only_when_the_implementation_answered():
    adapter = _planted("correct_exact")
    inputs = {"hypothesis": "a <unk> b", "references": ["a b"]}
    checker = Checker(_Skipped(adapter), 1e-9)
    checker.check("sentence", inputs)
    assert "special-tokens" not in checker.classes["sentence"]
    checker = Checker(adapter, 1e-9)
    checker.check("sentence", inputs)
    assert "special-tokens" in checker.classes["sentence"]


def _streams(kind: str):
    [adapter] = resolve(corpus_impl=f"tests.planted_search.ragged_streams:{kind}_corpus",
                        overrides=__import__("tests.planted_search.ragged_streams", fromlist=["CLAIMS"]).CLAIMS,
                        isolate=False)
    return adapter


RAGGED = {"hypotheses": ["the cat sat", "a dog ran"], "references": [["the cat sat"], ["x y z", "a dog ran"]]}


def test_an_implementation_that_refuses_ragged_reference_lists_is_told_apart_from_a_bug():
    """Refused (an exception where the same lists padded to one length are scored): no
    finding, the fit's scope says "refused" with its message and not "tried"; a wrong number
    on the same corpus (zip(*references) stops at the shortest list) is a divergence."""
    strict = Checker(_streams("strict"), 1e-9)
    obs = strict.check("corpus", RAGGED)
    assert obs.outcome.kind == "exception" and obs.key is None
    assert strict.refused["corpus"] == {"ragged-references": "ValueError: every segment needs the same number of "
                                                             "references"}
    assert "ragged-references" not in strict.classes["corpus"]
    zipped = Checker(_streams("zipped"), 1e-9)
    obs = zipped.check("corpus", RAGGED)
    assert obs.outcome.kind == "value" and obs.key is not None and obs.key[0] != "exception"
    assert "ragged-references" in zipped.classes["corpus"] and not zipped.refused


def test_an_exception_on_a_ragged_corpus_that_its_padded_twin_raises_too_is_an_exception():
    strict = Checker(_streams("strict"), 1e-9)
    obs = strict.check("corpus", {"hypotheses": ["a"], "references": [["a", "b"]]})
    assert obs.key is None and obs.outcome.kind == "value"  # rectangular: scored
    from audit.collect.ragged import padded, refused_ragged

    assert padded([("a", ["x"]), ("b", ["y", "z"])]) == [("a", ["x", "x"]), ("b", ["y", "z"])]
    failing = SimpleNamespace(kind="exception")
    assert not refused_ragged([("a", ["x"]), ("b", ["y", "z"])], lambda twin: failing)
    assert not refused_ragged([("a", ["x"]), ("b", ["y"])], lambda twin: SimpleNamespace(kind="value"))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_reference_scores_ragged_corpora_as_sacrebleu_2_6_scores_none_padded_streams(data):
    """sacreBLEU takes streams and drops a None in them (an empty string stays an empty
    reference): its corpus score of the streams padded with None is the reference's score of
    the per-segment lists; and padding a segment with copies of its last reference changes no
    definition's score (the padded twin of ``audit.collect.ragged``)."""
    from sacrebleu.metrics import CHRF

    from audit.collect.ragged import padded

    text = st.text(st.sampled_from("ab c.é\t"), max_size=6)
    n = data.draw(st.integers(2, 4))
    hyps = [data.draw(text) for _ in range(n)]
    refs = [data.draw(st.lists(text, min_size=1, max_size=3)) for _ in range(n)]
    k = max(map(len, refs))
    streams = [[rs[j] if j < len(rs) else None for rs in refs] for j in range(k)]
    word_order = data.draw(st.sampled_from([0, 2]))
    theirs = CHRF(word_order=word_order).corpus_score(hyps, streams).score
    twin = padded(list(zip(hyps, refs)))
    assert theirs == CHRF(word_order=word_order).corpus_score(hyps, [list(s) for s in zip(*[r for _, r in twin])]).score
    ours = corpus_score(hyps, refs, word_order=word_order, definition="sacrebleu").score
    tied = any(len({sentence_score(h, [r], word_order=word_order).score for r in rs}) < len(set(rs))
               for h, rs in zip(hyps, refs))  # float ties between references: docs/definitions.md
    assert tied or abs(theirs - float(ours)) < 1e-9, (hyps, refs)
    for definition in DEFINITIONS:
        assert corpus_score(hyps, [r for _, r in twin], definition=definition).score == \
            corpus_score(hyps, refs, definition=definition).score


def _unit_with(found: dict, samples: list):
    """A unit whose fitted model is the definition, with ``samples`` observed."""
    from audit.collect.unit import UnitAudit

    adapter = _planted("correct_exact")
    u = UnitAudit(adapter, "sentence", seed=0, max_examples=1, tolerance=1e-9, cases_dir=None, progress=None,
                  profile=None)
    u.checker.samples["sentence"] = samples
    u.found = found
    return u


def test_a_fit_never_reads_complete_beside_an_unexplained_row():
    """An unexplained row whose repro was seen under changed parameters (not an observed
    score of the claimed ones), or whose recorded score the model reproduces (the value
    changed between calls), still makes the fit read incomplete at its level."""
    from audit.collect import fitting
    from audit.collect.search import _Collected

    seg = [("ab", ["ab"])]
    samples = [(seg, 100.0), ([("a", ["b"])], 0.0)]
    elsewhere = SimpleNamespace(inputs={"hypothesis": "x", "references": ["y"]}, changes={"beta": 1})
    same = SimpleNamespace(inputs={"hypothesis": "ab", "references": ["ab"]}, changes={})
    for obs, expected in ((elsewhere, (2, 3)), (same, (1, 2))):
        u = _unit_with({("unexplained", "~digits"): _Collected(minimal=obs)}, samples)
        fit = fitting.fit_summary(u)
        assert (fit["explained"], fit["observed"]) == expected and fit["leaves_out"], fit
    u = _unit_with({("wrong-beta",): _Collected(minimal=same)}, samples)
    fit = fitting.fit_summary(u)
    assert (fit["explained"], fit["observed"], fit["leaves_out"]) == (2, 2, []), fit


def test_a_ragged_corpus_is_explained_by_the_families_of_its_longest_reference_list():
    """A corpus whose first segment has one reference and a later one two: a family about
    several references applies (it was judged by the first segment's count)."""
    from audit.collect.fitting import part_of
    from audit.diagnose.fitted import FittedModel
    from audit.diagnose.models import predict
    from reference_impl import ChrfParams

    model = FittedModel("sacrebleu")
    model.accept(["first-reference-only"], part_of("score", "references", "first"))
    params = ChrfParams(definition="sacrebleu")
    segs = [("the cat", ["the cat"]), ("a dog", ["x y", "a dog"])]
    actual = float(predict(segs, params, "corpus", model.variant()))
    assert actual != float(corpus_score([h for h, _ in segs], [r for _, r in segs]).score)
    assert model.explains(segs, params, "corpus", actual, 100, 1e-9) is not None


def test_a_repeated_hypothesis_comes_back_with_another_reference():
    """The class that finds a memo keyed on the hypothesis: its draws share the hypothesis and
    differ in the reference (two draws at the default budget's share)."""
    drawn = _draws(realtext.BY_ID["repeated-hypotheses"], "sentence", n=4)
    assert len({h for [(h, _)] in drawn}) == 1 and len({tuple(r) for [(_, r)] in drawn}) > 1

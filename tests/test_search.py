"""The search: the whole budget spent, the same answer under a 20-times-faster clock and in any
number of processes, every bug of a several-bug implementation found at its level, no
divergence dropped, and the new input classes (lone surrogates, control characters) drawn.

Each audit here runs the planted modules of ``tests/planted_search`` through isolated
adapters, ``cases_dir=None`` (the search alone).  Audits shared by several tests are cached
per module.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from audit.adapters import resolve  # noqa: E402
from audit.collect.checker import Checker
from audit.settings.options import BUDGET as DEFAULT_MAX_EXAMPLES
from audit.collect.runner import run_audit


def _adapters(name: str, timeout: float = 5.0, **overrides):
    mod = importlib.import_module(f"tests.planted_search.{name}")
    return resolve(f"tests.planted_search.{name}:sentence", corpus_impl=f"tests.planted_search.{name}:corpus",
                   overrides=dict(mod.CLAIMS, **overrides), timeout=timeout)


def _audit(name: str, max_examples: int, *, timeout: float = 5.0, jobs: int = 1):
    adapters = _adapters(name, timeout)
    try:
        return run_audit(adapters, seed=0, max_examples=max_examples, cases_dir=None, jobs=jobs)
    finally:
        for a in adapters:
            a.close()


def _fingerprint(result) -> list[tuple]:
    return [(s.implementation, s.examples, repr(s.conformance),
             [(f.family, f.level, tuple(f.explanation), repr(f.minimal.inputs), f.minimal.actual,
               f.minimal.outcome, f.examples, f.flaky) for f in s.findings])
            for s in result.adapters]


_CACHE: dict = {}


def _cached(name: str, max_examples: int, **kw):
    key = (name, max_examples, tuple(sorted(kw.items())))
    if key not in _CACHE:
        _CACHE[key] = _audit(name, max_examples, **kw)
    return _CACHE[key]


def _by_family_level(result) -> dict:
    return {(f.family, f.level): f for f in result.findings}


# ------------------------------------------------------------------- the whole budget


def test_generation_spends_the_whole_budget_although_every_input_fails(monkeypatch):
    """requested-order-divisor shows on most short inputs: the old search stopped generating
    soon after the first one; the generate phase now runs its whole budget per level."""
    import audit.collect.unit as R

    calls: dict = {}
    real = R.generate

    def counting(p, found, **kw):
        examine = p.examine

        def counted(inputs, changes):
            calls[kw["seed"], p.name] = calls.get((kw["seed"], p.name), 0) + 1
            return examine(inputs, changes)

        return real(dataclasses.replace(p, examine=counted), found, **kw)

    monkeypatch.setattr(R, "generate", counting)
    adapters = resolve("tests.planted:requested_order_divisor.sentence",
                       corpus_impl="tests.planted:requested_order_divisor.corpus")
    try:
        result = run_audit(adapters, seed=0, max_examples=30, cases_dir=None)
    finally:
        for a in adapters:
            a.close()
    # under the claimed parameters: the generic pass and one pass per real-text class, per level
    claimed = {}
    for (seed, name), n in calls.items():
        if name == "claimed" or name.startswith("class "):
            claimed[name] = claimed.get(name, 0) + n
    assert sum(1 for (_, name) in calls if name == "claimed") == 2, calls
    assert sum(claimed.values()) >= 2 * 30, calls
    assert {(f.family, f.level) for f in result.findings} == {("requested-order-divisor", "sentence"),
                                                              ("requested-order-divisor", "corpus")}


# ----------------------------------------------------------------- no wall clock


class _FastClock:
    """Stands in for the ``time`` module of Hypothesis's engine: every clock reads ``factor``
    times the real elapsed time (as on a machine that much slower, seen from the engine)."""

    def __init__(self, real, factor: int):
        self._real, self._start, self.reads, self.factor = real, {}, 0, factor

    def __getattr__(self, name):
        return getattr(self._real, name)

    def _scaled(self, name):
        now = getattr(self._real, name)()
        start = self._start.setdefault(name, now)
        self.reads += 1
        return start + (now - start) * self.factor

    def perf_counter(self):
        return self._scaled("perf_counter")

    def monotonic(self):
        return self._scaled("monotonic")

    def time(self):
        return self._scaled("time")


#: Hypothesis gives up shrinking after MAX_SHRINKING_SECONDS (300 s) of its clock: seen
#: through a clock 100,000 times faster, after 3 ms, so every shrink run of the audit is cut
#: short -- unless ``audit.collect.search.no_wall_clock`` lifts the limit.
FACTOR = 100_000


@pytest.mark.parametrize("neutraliser", ["kept", "removed"])
def test_same_findings_under_a_much_faster_clock_and_only_thanks_to_the_neutraliser(monkeypatch, neutraliser):
    """The same findings and repros when Hypothesis's clock runs 100,000 times fast; and the
    test can fail: with ``no_wall_clock`` made a no-op, the same run gives other repros."""
    import contextlib

    import hypothesis.core
    import hypothesis.internal.conjecture.data
    import hypothesis.internal.conjecture.engine

    import audit.collect.search

    normal = _cached("three_levels", 20)
    clock = _FastClock(time, FACTOR)
    for module in (hypothesis.internal.conjecture.engine, hypothesis.internal.conjecture.data, hypothesis.core):
        monkeypatch.setattr(module, "time", clock)
    if neutraliser == "removed":
        monkeypatch.setattr(audit.collect.search, "no_wall_clock", contextlib.nullcontext)
    fast = _audit("three_levels", 20)
    assert clock.reads > 100  # the engine did read the patched clock
    if neutraliser == "kept":
        assert _fingerprint(fast) == _fingerprint(normal)
    else:
        assert _fingerprint(fast) != _fingerprint(normal)


# ------------------------------------------------------------- several bugs, levels


def test_three_bugs_at_different_levels_give_three_findings_at_the_default_budget():
    mod = importlib.import_module("tests.planted_search.three_levels")
    result = _cached("three_levels", DEFAULT_MAX_EXAMPLES)
    found = _by_family_level(result)
    families = {fam for fam, _ in found}
    assert set(mod.FAMILIES) <= families, sorted(found)
    # Known misclassification, not a search issue (classification is issue 11's): a corpus
    # with first-reference-only + corpus-macro-average is also matched by whitespace-kept +
    # corpus-macro-average.  Nothing else may appear.
    assert families - set(mod.FAMILIES) <= {"whitespace-kept"}, sorted(found)
    # each bug at the level it shows at; the corpus-only one never at sentence level
    assert ("whitespace-set-ascii-space", "sentence") in found and ("first-reference-only", "sentence") in found
    assert ("corpus-macro-average", "corpus") in found and ("corpus-macro-average", "sentence") not in found
    macro = found["corpus-macro-average", "corpus"]
    assert macro.explanation == ["corpus-macro-average"] and len(macro.minimal.inputs["hypotheses"]) >= 2
    # the conformance matrix: the corpus level does not meet the claimed definition because
    # of the corpus-only bug, which the sentence level knows nothing of
    conf = result.adapters[0].conformance["sacrebleu"]
    assert "corpus-macro-average" in conf["corpus"] and "corpus-macro-average" not in conf["sentence"]
    assert {"whitespace-set-ascii-space", "first-reference-only"} <= set(conf["sentence"])


def test_jobs_2_gives_the_findings_of_jobs_1():
    one = _cached("three_levels", 20)
    two = _audit("three_levels", 20, jobs=2)
    assert _fingerprint(one) == _fingerprint(two) and one.findings


# ------------------------------------------------------------------- no silent drop


_EPS_REPRO = {"hypotheses": ["a", ""], "references": [["", "a", ""], ["a", "", "a"]]}


def test_the_silent_drop_repro_is_a_finding():
    """sacrebleu-eps, char_order 1, beta 1: the reference gives 100, an implementation that
    picks the best reference without the epsilons gives 200/3 -- which the identity bug model
    used to reproduce, and the empty explanation made the divergence read as agreement."""
    from reference_impl import corpus_score

    claims = dict(char_order=1, beta=1, definition="sacrebleu-eps")
    assert corpus_score(_EPS_REPRO["hypotheses"], _EPS_REPRO["references"], **claims).score == 100
    [adapter] = resolve(corpus_impl="tests.planted_search.eps_best_reference:corpus", overrides=claims)
    try:
        obs = Checker(adapter, 1e-9).check("corpus", _EPS_REPRO)
    finally:
        adapter.close()
    assert obs.outcome.value == pytest.approx(200 / 3) and obs.expected == 100
    assert obs.key and "" not in obs.key  # a finding, whatever explains it


def test_an_empty_explanation_of_a_divergence_is_unexplained():
    """Whatever the classifier answers, a divergence beyond the tolerance keeps a key."""
    from audit.diagnose.explain import Explanation

    [adapter] = resolve("tests.planted:requested_order_divisor.sentence", isolate=False)
    checker = Checker(adapter, 1e-9)
    checker.classifier.classify = lambda *a, **k: Explanation([], Fraction(50, 3))
    obs = checker.check("sentence", {"hypothesis": "a", "references": ["a"]})
    assert obs.key == ("unexplained",) and obs.outcome.value == pytest.approx(50 / 3)


# ------------------------------------------------------------------- input classes


def test_a_bug_only_a_lone_surrogate_shows_is_found():
    result = _cached("lone_surrogate", 30)
    found = _by_family_level(result)
    assert {fam for fam, _ in found} == {"exception"}
    f = found["exception", "sentence"]
    texts = [f.minimal.inputs["hypothesis"], *f.minimal.inputs["references"]]
    assert any("\ud800" <= c <= "\udfff" for t in texts for c in t)
    assert "UnicodeEncodeError" in f.minimal.detail


def test_a_hang_only_nul_shows_is_found():
    # 45: a third of the budget goes to the real-text classes (issue 30), which hold no NUL;
    # the generic strategies keep the 30 draws this test had, among which NUL is (at 30 in
    # all, i.e. 20 generic draws, it is not drawn: a recall cost of the split at tiny budgets)
    result = _cached("nul_hang", 45, timeout=0.25)
    found = _by_family_level(result)
    assert {fam for fam, _ in found} == {"timeout"}
    f = found["timeout", "sentence"]
    assert "\x00" in f.minimal.inputs["hypothesis"] + "".join(f.minimal.inputs["references"])
    assert f.minimal.outcome == "timeout"


def test_no_lone_surrogate_for_an_implementation_that_does_not_take_them():
    from audit.collect.search import strategies

    from audit.adapters.base import Support

    class _Plain:
        supports = Support(sentence=True, corpus=True, multi_reference=True)
        accepts = frozenset()
        accepts_surrogates = False

    from hypothesis import given, settings

    sentence, corpus, _ = strategies(_Plain())
    seen = []

    @settings(max_examples=300, database=None, derandomize=True)
    @given(sentence)
    def draw(inputs):
        seen.append(inputs)

    draw()
    assert not any("\ud800" <= c <= "\udfff" for i in seen for t in [i["hypothesis"], *i["references"]] for c in t)
    from audit.collect.strategies import CONTROLS

    assert any(c in CONTROLS for i in seen for t in [i["hypothesis"], *i["references"]] for c in t)


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f", "\x85", "\x9f", "\ud800", "\udce9"])
def test_each_new_character_is_drawn(char):
    from hypothesis import find, settings

    from audit.collect import strategies as S

    strategy = S.sentence_inputs(surrogates=True)
    hit = find(strategy, lambda hr: char in hr[0] + "".join(hr[1]),
               settings=settings(max_examples=2000, database=None, derandomize=True))
    assert char in hit[0] + "".join(hit[1])


def test_the_reference_treats_control_characters_as_sacrebleu_does():
    """The ten of them str.isspace() accepts are removed, the other 55 are characters; lone
    surrogates are characters too."""
    import sacrebleu

    from audit.collect.strategies import CONTROLS, SURROGATES
    from reference_impl import sentence_score

    whitespace = {c for c in CONTROLS if c.isspace()}
    assert whitespace == set("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85")
    assert len(CONTROLS) == 65 and set(CONTROLS) == {chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]}
    for ch in CONTROLS + SURROGATES:
        for hyp, ref in ((f"ab{ch}cd", "abcd"), (f"a{ch}", f"a{ch}"), (ch, "b")):
            ours = sentence_score(hyp, [ref]).score
            theirs = sacrebleu.sentence_chrf(hyp, [ref]).score
            assert float(ours) == pytest.approx(theirs, abs=1e-9), (ch, hyp, ref)
        assert (sentence_score(f"ab{ch}cd", ["abcd"]).score == 100) == (ch in whitespace)


@pytest.mark.parametrize("accept", [True, False])
def test_lone_surrogates_reach_an_external_program_only_when_its_hello_accepts_them(accept):
    cmd = f"{sys.executable} {ROOT / 'tests' / 'planted_search' / 'external_surrogates.py'}" + (" --accept" if accept else "")
    adapters = resolve(external=cmd)
    try:
        assert adapters[0].accepts_surrogates is accept
        result = run_audit(adapters, seed=0, max_examples=30, cases_dir=None)
    finally:
        for a in adapters:
            a.close()
    families = {(f.family, f.level) for f in result.findings}
    if accept:  # sent as \udXXX escapes, decoded by the program into unpaired surrogates
        assert ("exception", "sentence") in families and families <= {("exception", "sentence"), ("exception", "corpus")}
        f = next(f for f in result.findings if f.level == "sentence")
        assert f.minimal.detail == "lone surrogate"
    else:
        assert families == set()

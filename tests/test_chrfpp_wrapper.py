"""examples/chrfpp_wrapper.py speaks the external protocol around a chrF++.py-shaped script.

CI has no chrF++.py (GPL, never committed), so a stand-in script with the same entry point
(``computeChrF(ref_lines, hyp_lines, nworder, ncorder, beta)``), written here on top of
reference_impl, checks the wrapper's plumbing: the handshake, line/``*#`` encoding, the 0..1
scale, parameters, the script's stdout kept off the protocol, and exceptions as errors.
With ``CHRFPP_SCRIPT`` set, the last test runs the real script through it.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from audit.adapters import AdapterError, resolve
from reference_impl import corpus_score, sentence_score

ROOT = Path(__file__).resolve().parents[1]
WRAPPER = ROOT / "examples" / "chrfpp_wrapper.py"

STAND_IN = textwrap.dedent('''
    from fractions import Fraction
    from reference_impl import corpus_score, sentence_score

    def computeChrF(fpRef, fpHyp, nworder, ncorder, beta, sentence_level_scores=None):
        print("chatter on stdout")  # the real script prints too; the wrapper must swallow it
        hyps = [h[:-1] for h in fpHyp]
        refs = [r[:-1].split("*#") for r in fpRef]
        if "boom" in hyps:
            raise UnboundLocalError("local variable 'bestMatchingCount' referenced before assignment")
        kw = dict(char_order=ncorder, word_order=nworder, beta=Fraction(beta), definition="chrfpp")
        doc = corpus_score(hyps, refs, **kw).score
        avg = sum(sentence_score(h, r, **kw).score for h, r in zip(hyps, refs)) / len(hyps)
        return float(doc) / 100, float(avg) / 100, 0.0, 0.0
''')


@pytest.fixture()
def stand_in(tmp_path, monkeypatch):
    path = tmp_path / "chrF++.py"
    path.write_text(STAND_IN, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    return path


def test_wrapper_handshake_and_scores(stand_in):
    [a] = resolve(external=f"{sys.executable} {WRAPPER} {stand_in}", name="chrF++.py")
    try:
        assert a.name == "chrF++.py"
        assert a.claims.definition == "chrfpp" and a.claims.word_order == 2 and a.claims.scale == 1
        assert a.accepts == frozenset({"char_order", "word_order", "beta"})
        assert a.version.startswith("sha256:") and len(a.version) == 19
        items = [("a\tb c", ["a b c", "x"]), ("the cat.", ["the (cat)"])]
        got = [o.value for o in a.sentence_scores(items)]
        want = [float(sentence_score(h, r, word_order=2, definition="chrfpp").score) for h, r in items]
        assert got == pytest.approx(want, abs=1e-12)
        hyps, refs = ["a\tb c", "the cat."], [["a b c", "x"], ["the (cat)"]]
        c = a.configure(char_order=3, word_order=1, beta=1)
        assert c.name == "chrF++.py"  # a variant keeps the user's name
        got = c.corpus_scores([(hyps, refs)])[0].value
        want = float(corpus_score(hyps, refs, char_order=3, word_order=1, beta=1, definition="chrfpp").score)
        assert got == pytest.approx(want, abs=1e-12)
        [err] = a.sentence_scores([("boom", ["x"])])
        assert err.kind == "exception" and "UnboundLocalError" in err.detail
        c.close()
    finally:
        a.close()


def test_wrapper_without_script_is_a_startup_error(tmp_path, monkeypatch):
    monkeypatch.delenv("CHRFPP_SCRIPT", raising=False)
    with pytest.raises(AdapterError, match="path of chrF\\+\\+.py"):
        resolve(external=f"{sys.executable} {WRAPPER} {tmp_path / 'missing.py'}")


@pytest.mark.skipif(not os.path.isfile(os.environ.get("CHRFPP_SCRIPT", "")),
                    reason="the GPL chrF++.py script is never shipped: set CHRFPP_SCRIPT to the path of a copy")
def test_wrapper_around_the_real_script():
    [a] = resolve(external=f"{sys.executable} {WRAPPER}")
    try:
        [o] = a.sentence_scores([("the cat.", ["the (cat)"])])
        assert o.value == pytest.approx(float(sentence_score("the cat.", ["the (cat)"], word_order=2,
                                                             definition="chrfpp").score), abs=1e-9)
        [crash] = a.sentence_scores([("xyz", ["abc"])])  # matches nothing: the script raises
        assert crash.kind == "exception" and "UnboundLocalError" in crash.detail
    finally:
        a.close()

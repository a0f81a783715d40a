"""sacreBLEU 1.x in ``chrf-audit versions``: the release's backend says what it cannot compute
(``audit/upstream/sacrebleu_v1.py``), the versions server narrows its hello answer by it, an
implementation whose claims the release cannot compute is listed as unsupported (never scored
with other settings), and a family absent from a narrowed audit is "not comparable", not
"absent" (no transition is read across it).  The last test installs the real 1.5.1 wheel."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from audit.render import versions as render
from audit.versions import matrix, server
from tests import planted_versions as P

LIMITS = {
    "claims": {"scale": 1},
    "supports": {"multi_reference": False, "max_refs": 1},
    "accepts": ["beta", "char_order", "whitespace"],
    "fixed": {"word_order": {"value": 0, "why": "no word n-grams"},
              "definition": {"value": "sacrebleu", "why": "no eps smoothing"}},
    "note": "one reference per segment",
}
CLAIMS = {"char_order": 6, "word_order": 0, "beta": 2, "lowercase": False, "whitespace": False,
          "definition": "sacrebleu", "scale": 100}
SPEC = {"name": "lib-chrf", "claims": CLAIMS, "supports": {"sentence": True, "corpus": True, "multi_reference": True},
        "accepts": ["beta", "char_order", "lowercase", "whitespace", "word_order"]}


def test_without_limits_the_hello_answer_is_the_spec():
    found = {"version": "2.6.0", "sources": {}}
    assert server.hello(SPEC, found, 1) == {
        "id": 1, "name": "lib-chrf", "version": "2.6.0", "protocol": 1, "claims": CLAIMS,
        "supports": SPEC["supports"], "accepts": SPEC["accepts"], "lone_surrogates": True, "sources": {}}


def test_limits_narrow_the_hello_answer_and_name_what_cannot_be_computed():
    found = {"version": "1.5.1", "sources": {}, "limits": LIMITS}
    h = server.hello(SPEC, found, 1)
    assert h["claims"] == dict(CLAIMS, scale=1)
    assert h["supports"] == {"sentence": True, "corpus": True, "multi_reference": False, "max_refs": 1}
    assert h["accepts"] == ["beta", "char_order", "whitespace"]
    assert h["limits"] == "one reference per segment" and "unsupported" not in h
    plus = server.hello(dict(SPEC, claims=dict(CLAIMS, word_order=2, definition="sacrebleu-eps")), found, 1)
    assert plus["unsupported"] == ("lib-chrf 1.5.1 cannot compute definition 'sacrebleu-eps': no eps smoothing; "
                                   "word_order 2: no word n-grams")


def test_the_1x_backend_refuses_claims_it_cannot_compute():
    from audit.upstream import sacrebleu_v1 as V

    assert V.unsupported(CLAIMS) is None
    assert V.unsupported(dict(CLAIMS, lowercase=True)) == "sacreBLEU 1.x cannot compute lowercase True: no lowercase option"
    backend = object.__new__(V.Sacrebleu1Backend)  # no sacreBLEU 1.x here: the check comes before any call
    backend.eps, backend.sentence_chrf = False, None
    with pytest.raises(ValueError, match="word_order 2: no word n-grams"):
        backend.sentence(dict(CLAIMS, word_order=2), "a", ["a"])
    backend.eps = True
    with pytest.raises(ValueError, match="definition 'sacrebleu-eps'"):
        backend.sentence(CLAIMS, "a", ["a"])


def _result(families, impl="i", **extra):
    return {"status": "audited", "families": families, "sources": {}, "functions": {},
            "findings": [{"implementation": impl, "family": f, "level": "corpus"} for f in families], **extra}


def test_a_family_absent_from_a_narrowed_audit_is_not_comparable():
    # "g" is shown by the implementation 1.0 audited narrowed, "h" by the one 1.0 could not
    # compute: neither is "introduced in 2.0"; "f" (shown in the narrowed audit) is fixed in 2.0
    results = {"1.0": _result(["f"], limits={"i": "one reference"},
                              unsupported=[{"implementation": "j", "reason": "no word n-grams"}]),
               "2.0": _result(["g"]) | {"findings": [{"implementation": "i", "family": "g", "level": "corpus"},
                                                    {"implementation": "j", "family": "h", "level": "corpus"}],
                                       "families": ["g", "h"]},
               "3.0": _result([])}
    doc = matrix.document("p", ["1.0", "2.0", "3.0"], results, implementations=["i", "j"], settings={}, library=None)
    assert doc["families"] == {"f": {"introduced": None, "fixed": "2.0"},
                               "g": {"introduced": None, "fixed": "3.0", "narrowed": ["1.0"]},
                               "h": {"introduced": None, "fixed": "3.0", "narrowed": ["1.0"]}}
    assert doc["releases"][0]["unsupported"] == [{"implementation": "j", "reason": "no word n-grams"}]
    assert doc["releases"][0]["limits"] == {"i": "one reference"} and "limits" not in doc["releases"][1]
    page = render.render(doc, {})["p.md"].decode()
    assert "| `g` | n/c | **x** | · |" in page and "| `f` | **x** | · | · |" in page
    assert "| `g` | before 2.0 (the oldest audited shows it) | 3.0 |" in page
    assert "| 1.0 | `j` | unsupported: no word n-grams |" in page
    assert "| 1.0 | `i` | audited narrowed: one reference |" in page


@pytest.mark.index
def test_sacrebleu_1_5_1_is_audited_with_what_it_can_compute(tmp_path):
    """The real 1.5.1 wheel from the package index: sacrebleu-chrf audited on 0..1 with one
    reference (1.x's corpus totals keep the hypothesis n-grams of orders its reference lacks:
    the torchmetrics family, gone in 2.0); chrF++ unsupported, with why; newest has findings."""
    argv = [sys.executable, "-m", "audit.cli", "versions", "sacrebleu", "1.5.1", "--impl",
            "sacrebleu-chrf,sacrebleu-chrf++", "--max-examples", "30", "--json", str(tmp_path / "out.json"), "--quiet"]
    env = dict(os.environ, CHRF_AUDIT_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(P.ROOT))
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    release = json.loads((tmp_path / "out.json").read_text())["releases"][0]
    assert release["status"] == "audited"
    assert release["unsupported"] == [{"implementation": "sacrebleu-chrf++", "reason": (
        "sacrebleu-chrf++ 1.5.1 cannot compute word_order 2: no word n-grams (chrF++ is new in 2.0)")}]
    assert release["limits"] == {"sacrebleu-chrf": "sacreBLEU 1.x: scores on 0..1, one reference per segment, "
                                                   "varies char_order, beta and whitespace only"}
    assert "hypothesis-ngrams-where-reference-has-none" in release["families"]
    assert {f["implementation"] for f in release["findings"]} == {"sacrebleu-chrf"}
    printed = " ".join(proc.stdout.split())  # the console wraps long lines
    assert "1.5.1: sacrebleu-chrf++ not audited: sacrebleu-chrf++ 1.5.1 cannot compute word_order 2" in printed


def test_the_issue_names_no_narrowed_release_as_the_last_correct_one():
    from audit.enrich.issue_facts import regression

    doc = {"releases": [{"version": v, "status": "audited", "families": fams} for v, fams in
                        (("1.0", []), ("1.5", []), ("2.0", ["g"]))],
           "families": {"g": {"introduced": "2.0", "fixed": None, "narrowed": ["1.5"]}}}
    assert regression(doc, "g", "2.0")["last_good"] == "1.0"
    doc["families"]["g"]["narrowed"] = ["1.0", "1.5"]
    assert regression(doc, "g", "2.0") is None

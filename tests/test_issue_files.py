"""The upstream issue files as a maintainer reads them (issue 31 items 1, 5, 6): each library
held to what ITS documentation claims (bug or definition difference, quoted), the title with
"chrF", the function and the symptom, the library's own parameter names, the environment
that matters, related upstream discussion, a "checked" sentence saying exactly what was
checked, and nothing filed for a negligible difference or one fixed upstream."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from audit.enrich import enrich
from audit.enrich.issue_facts import issue_facts
from audit.errors import UsageError
from audit.findings import Finding, Repro
from audit.upstream import nltk_record, torchmetrics_record
from audit.upstream.records import load_related
from tests.fixtures.report_examples import example_result

FAMILIES = ["requested-order-divisor", "f-score-averaged", "whitespace-set-white-space", "corpus-macro-average"]


def _summary(family, before_raw="0.16666666666666666", after_raw="1.0", options=None):
    return {"verified": True, "status": "verified", "families": [family], "options": options or {},
            "repros": {family: {"level": "sentence", "inputs": {"hypothesis": "a", "references": ["a"]},
                                "minimal": True, "holds": True, "expected": 100.0, "expected_fraction": "100/1",
                                "before": 16.67, "before_raw": before_raw, "after": 100.0, "after_raw": after_raw,
                                "after_key": None}},
            "default_unchanged": True if options else None,
            "library_tests": {"files": ["nltk/translate/chrf_score.py"], "before": {"passed": 2, "failed": 0},
                              "after": {"passed": 2, "failed": 0}, "broken": 0,
                              "regression": {"added": 2, "failing_before": 1}}}


@pytest.fixture(scope="module")
def issues(tmp_path_factory):
    from audit import upstream
    from audit.commands.writing import write_reports

    res = example_result(sacrebleu=False)
    verified = {("nltk", f): _summary(f, options=upstream.patch_options("nltk", [f])) for f in FAMILIES}
    out = tmp_path_factory.mktemp("reports")
    write_reports(enrich(res, verified=verified), out)
    return {f: (out / "issues" / "nltk" / f"{f}.md").read_text() for f in FAMILIES}, (out / "nltk.md").read_text()


def test_titles_name_chrf_the_function_and_the_symptom(issues):
    heads = {f: text.splitlines()[0] for f, text in issues[0].items()}
    assert heads == {
        "requested-order-divisor": "# nltk sentence_chrf: chrF of an output shorter than max_len is averaged over all "
                                   "max_len orders, up to 6x below sacreBLEU's default",
        "f-score-averaged": "# nltk sentence_chrf: chrF averages the per-order F-scores, where sacreBLEU's default "
                            "averages precision and recall",
        "whitespace-set-white-space": "# nltk sentence_chrf: chrF with ignore_whitespace=True scores U+001C..U+001F as "
                                      "characters",
        "corpus-macro-average": "# nltk corpus_chrf: corpus chrF is the mean of the sentence scores, not the score of "
                                "the summed n-gram statistics",
    }
    assert "precision and recall are averaged" not in heads["requested-order-divisor"]  # nltk averages F


def test_first_paragraph_says_bug_or_definition_difference(issues):
    first = {f: text.split("\n\n")[1] for f, text in issues[0].items()}
    for f in ("requested-order-divisor", "f-score-averaged", "corpus-macro-average"):
        assert first[f].startswith("This is a definition difference, not a bug against nltk's documentation")
    assert "sacreBLEU's CHRF(eps_smoothing=True)" in first["requested-order-divisor"]
    assert "there 'c' against 'c' scores 100, here 0.1667" in first["requested-order-divisor"]
    assert first["whitespace-set-white-space"].startswith("This breaks what nltk documents")
    assert "up to 6x" in issues[0]["requested-order-divisor"]  # the honest case: the consequence


def test_environment_parameters_patch_and_related(issues):
    from importlib.metadata import version

    for f, text in issues[0].items():
        env = re.search(r"\*\*Environment:\*\* (.*?)\. \*\*Parameters:\*\* (.*?)\n", text)
        assert env.group(1).startswith(f"nltk {version('nltk')}, regex {version('regex')}, CPython ")
        assert env.group(2) == "max_len=6, beta=3, ignore_whitespace=True (held to definition=sacrebleu)."
        assert "char_order" not in env.group(2)
    div = issues[0]["requested-order-divisor"]
    assert "called with `effective_order=True`, prints `1.0` on the patched copy" in div
    assert "2 passed and 0 failed on the released package, 2 passed and 0 failed on the patched copy" in div
    assert "the default is unchanged" in div and "Making effective_order=True the default" in div
    assert '- nltk/nltk#2069 (pull request, merged, 2018): "Chrf bug fixes"' in div
    assert "mjpost/sacrebleu#144 (issue, closed, 2021)" in div
    ws = issues[0]["whitespace-set-white-space"]
    assert "nltk/nltk#3833 (pull request, merged, 2026)" in ws and "the default is unchanged" not in ws
    assert "**Against nltk's documentation:** definition difference:" in issues[1]


def test_documented_quotes_are_nltks_own_words():
    """Each quote of nltk's record occurs verbatim (up to line breaks) in the installed source."""
    from nltk.translate import chrf_score

    source = " ".join(Path(chrf_score.__file__).read_text().split())
    for quote in nltk_record.KNOWLEDGE.documented.quotes:
        assert " ".join(quote.split()) in source, quote


def test_torchmetrics_quotes_are_its_own_words():
    tm = pytest.importorskip("torchmetrics.functional.text.chrf")
    source = " ".join(Path(tm.__file__).read_text().split())
    for quote in torchmetrics_record.KNOWLEDGE.documented.quotes:
        assert " ".join(quote.split()) in source, quote


def _finding(impl, family, difference, level="sentence"):
    m = Repro(level, {"hypothesis": "ab", "references": ["ab"]}, 50.0, "50/1", 50.0 + difference, "x", "value")
    return Finding(impl, family, level, "t", {}, "", "", m)


def test_negligible_and_fixed_upstream_are_not_filed():
    got = issue_facts("torchmetrics-chrf", "float32-arithmetic", [_finding("torchmetrics-chrf", "float32-arithmetic", 5e-7)],
                      version="1.9.0")
    assert got["filed"] is False and got["not_filed"].startswith("every difference is below 1e-06 on the 0..1 scale")
    assert issue_facts("torchmetrics-chrf", "float32-arithmetic",
                       [_finding("torchmetrics-chrf", "float32-arithmetic", 2e-3)], version="1.9.0")["filed"] is True
    got = issue_facts("torchmetrics-chrf", "unmatched-segment-reference-dropped",
                      [_finding("torchmetrics-chrf", "unmatched-segment-reference-dropped", 7.4, "corpus")],
                      version="1.9.0")
    assert got["filed"] is False and got["fixed_upstream"]["number"] == 3481
    assert got["fixed_upstream"]["state"] == "merged" and got["fixed_upstream"]["fixed_in"] == ""
    assert [r["number"] for r in got["related"]] == [3480, 3481]
    bug = issue_facts("torchmetrics-chrf", "hypothesis-ngrams-where-reference-has-none",
                      [_finding("torchmetrics-chrf", "hypothesis-ngrams-where-reference-has-none", -2.7, "corpus")],
                      version="1.9.0")
    assert bug["filed"] and bug["kind"] == "bug" and bug["function"] == "CHRFScore"
    assert bug["parameters"]["char_order"] == "n_char_order" and "torch" in bug["dependencies"]


def test_unfiled_families_have_no_issue_file(tmp_path):
    from audit.render import issues as render_issues

    doc = {"environment": {"chrf_audit": "0", "python": "CPython 3", "platform": "Linux-x"},
           "implementations": [{"implementation": "t", "report": "t.md", "version": "1"}],
           "findings": [{"implementation": "t", "family": "float32-arithmetic", "level": "sentence", "title": "x",
                         "minimal": {"inputs": {"hypothesis": "a", "references": ["a"]}, "actual": 1.0,
                                     "actual_raw": "0.01", "expected": 1.0, "expected_fraction": "1/1",
                                     "outcome": "value"},
                         "issue": {"filed": False, "not_filed": "below"}}]}
    assert render_issues.render(doc) == {}
    doc["findings"][0]["issue"] = None
    assert list(render_issues.render(doc)) == ["issues/t/float32-arithmetic.md"]


def test_related_file(tmp_path):
    p = tmp_path / "r.json"
    rec = {"repository": "me/lib", "number": 7, "kind": "issue", "title": "chrF off", "state": "open",
           "families": ["no-clipping"]}
    p.write_text(json.dumps([rec]))
    assert load_related(p) == [{**rec, "year": None, "fixed_in": None, "note": ""}]
    got = issue_facts("mypkg:fn", "no-clipping", [_finding("mypkg:fn", "no-clipping", 3.0)], version=None,
                      related=load_related(p))
    assert got["related"][0]["number"] == 7 and got["kind"] is None
    assert issue_facts("mypkg:fn", "other", [_finding("mypkg:fn", "other", 3.0)], version=None,
                       related=load_related(p))["related"] == []
    for bad, msg in (({}, "expected a JSON list"), ([{"number": 1}], "lacks repository"),
                     ([dict(rec, number=0)], "positive integer"), ([dict(rec, extra=1)], "unknown key")):
        p.write_text(json.dumps(bad))
        with pytest.raises(UsageError, match=msg):
            load_related(p)

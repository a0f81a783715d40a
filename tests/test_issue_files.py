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
DEFINITION = ["requested-order-divisor", "f-score-averaged", "corpus-macro-average"]


def _summary(families, options=None):
    """A verification summary of one patch (nltk's three definition differences share one)."""
    return {"verified": True, "status": "verified", "families": list(families), "options": options or {},
            "repros": {f: {"level": "sentence", "inputs": {"hypothesis": "a", "references": ["a"]},
                           "minimal": True, "holds": True, "expected": 100.0, "expected_fraction": "100/1",
                           "before": 16.67, "before_raw": "0.16666666666666666", "after": 100.0, "after_raw": "1.0",
                           "after_key": None} for f in families},
            "default_unchanged": True if options else None,
            "library_tests": {"files": ["nltk/translate/chrf_score.py"], "before": {"passed": 2, "failed": 0},
                              "after": {"passed": 2, "failed": 0}, "broken": 0,
                              "regression": {"added": 2, "failing_before": 1}},
            "gates": {"where": "nltk's .pre-commit-config.yaml", "not_run": ["local hooks: not shipped"],
                      "before": [{"gate": "black", "result": "passed", "detail": None}],
                      "after": [{"gate": "black", "result": "passed", "detail": None}]},
            "check": {"output": ["all three: differs from CHRF() in 0 of 300"], "holds": True, "error": None}
            if options else None}


@pytest.fixture(scope="module")
def issues(tmp_path_factory):
    from audit import upstream
    from audit.commands.writing import write_reports

    res = example_result(sacrebleu=False)
    verified = {("nltk", "requested-order-divisor"): _summary(DEFINITION, upstream.patch_options("nltk", DEFINITION)),
                ("nltk", "whitespace-set-white-space"): _summary(["whitespace-set-white-space"])}
    out = tmp_path_factory.mktemp("reports")
    write_reports(enrich(res, verified=verified), out)
    files = sorted(p.name for p in (out / "issues" / "nltk").glob("*.md"))
    return {p[:-3]: (out / "issues" / "nltk" / p).read_text() for p in files}, (out / "nltk.md").read_text()


def test_one_issue_per_patch_with_titles_naming_chrf_the_function_and_the_symptom(issues):
    """The three definition differences share one patch (three keywords): one issue; the
    whitespace bug has its own."""
    heads = {f: text.splitlines()[0] for f, text in issues[0].items()}
    assert heads == {
        "requested-order-divisor": "# nltk sentence_chrf and corpus_chrf: three documented differences from "
                                   "sacreBLEU's chrF, and opt-in keywords that give sacreBLEU's scores",
        "whitespace-set-white-space": "# nltk sentence_chrf: chrF with ignore_whitespace=True scores U+001C..U+001F as "
                                      "characters",
    }
    div = issues[0]["requested-order-divisor"]
    for fam in DEFINITION:  # each difference has its section, with its title and repro
        assert f"### `{fam}`: " in div
    assert "up to 6x below sacreBLEU's default" in div


def test_first_paragraph_says_bug_or_definition_difference(issues):
    first = {f: text.split("\n\n")[1] for f, text in issues[0].items()}
    assert first["requested-order-divisor"].startswith("These are definition differences, not bugs against nltk's "
                                                       "documentation")
    assert first["whitespace-set-white-space"].startswith("This breaks what nltk documents")


def test_environment_parameters_patch_and_related(issues):
    from importlib.metadata import version

    for f, text in issues[0].items():
        env = re.search(r"\*\*Environment:\*\* (.*?)\. \*\*Parameters:\*\* (.*?)\n", text)
        assert env.group(1).startswith(f"nltk {version('nltk')}, regex {version('regex')}, CPython ")
        assert env.group(2) == "max_len=6, beta=3, ignore_whitespace=True (held to definition=sacrebleu)."
        assert "char_order" not in env.group(2)
    div = issues[0]["requested-order-divisor"]
    assert ("a differential audit of the patched copy, called with `effective_order=True`, "
            "`order_average=\"precision_recall\"`, `average=\"micro\"`, finds") in div
    assert "2 passed and 0 failed on the released package, 2 passed and 0 failed on the patched copy" in div
    assert "nltk's gates (nltk's .pre-commit-config.yaml): black leave the patched file unchanged" in div
    assert "the default is unchanged" in div and "keeps the defaults" in div
    assert "Together, the keywords are `effective_order=True" in div and "It prints:" in div
    assert '- [nltk/nltk#2069](https://github.com/nltk/nltk/pull/2069) (pull request, merged, 2018): "Chrf bug fixes"' \
        in div
    assert '  > alvations: "Regarding macro vs micro average' in div  # the thread quoted, not paraphrased
    assert "[nltk/nltk#3577](https://github.com/nltk/nltk/pull/3577) (pull request, open, 2026)" in div
    assert "mjpost/sacrebleu#144" in div
    ws = issues[0]["whitespace-set-white-space"]
    assert "nltk/nltk#3833" in ws and "the default is unchanged" not in ws
    assert "It stacks with the patch of [requested-order-divisor.md](requested-order-divisor.md)" in ws
    assert "**Against nltk's documentation:** definition difference:" in issues[1]


def test_every_related_record_quotes_its_thread():
    """Each related record carries a link and at least one line of its thread, verbatim."""
    from audit.upstream.scripts import SCRIPTS

    records = [*nltk_record.KNOWLEDGE.related, *torchmetrics_record.KNOWLEDGE.related,
               *(r for s in SCRIPTS.values() for r in s.knowledge.related)]
    for r in records:
        assert r.quotes and all(who and line for who, line in r.quotes), r
        assert r.url.startswith(f"https://github.com/{r.repository}/")


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
    assert load_related(p) == [{**rec, "year": None, "fixed_in": None, "note": "", "quotes": [],
                                "url": "https://github.com/me/lib/issues/7"}]
    got = issue_facts("mypkg:fn", "no-clipping", [_finding("mypkg:fn", "no-clipping", 3.0)], version=None,
                      related=load_related(p))
    assert got["related"][0]["number"] == 7 and got["kind"] is None
    assert issue_facts("mypkg:fn", "other", [_finding("mypkg:fn", "other", 3.0)], version=None,
                       related=load_related(p))["related"] == []
    for bad, msg in (({}, "expected a JSON list"), ([{"number": 1}], "lacks repository"),
                     ([dict(rec, number=0)], "positive integer"), ([dict(rec, extra=1)], "unknown key"),
                     ([dict(rec, quotes=["who said"])], "quotes must be")):
        p.write_text(json.dumps(bad))
        with pytest.raises(UsageError, match=msg):
            load_related(p)


def test_one_file_per_fix_across_configurations_and_families():
    """``issue_units``: the findings one patch fixes share one file (several families of one
    implementation, or one family of several configurations of one library), named after the
    first; another diff is another file; a family not filed has none."""
    from audit.render.issue_units import issue_paths, issue_units

    def finding(impl, family, diff, filed=True):
        return {"implementation": impl, "family": family, "level": "corpus", "title": family,
                "patch": {"diff": diff, "verified": True} if diff else None,
                "issue": {"kind": "bug", "library": "lib", "filed": filed}}

    doc = {"implementations": [{"implementation": "lib-chrf", "report": "lib-chrf.md"},
                               {"implementation": "lib-chrf++", "report": "lib-chrfpp.md"}],
           "findings": [finding("lib-chrf", "a", "D1"), finding("lib-chrf", "b", "D1"), finding("lib-chrf", "c", "D2"),
                        finding("lib-chrf", "d", "D3", filed=False), finding("lib-chrf++", "a", "D1"),
                        finding("lib-chrf++", "e", None)]}
    units = issue_units(doc)
    assert [(u["path"], [(e["implementation"], g[0]["family"]) for e, g, _ in u["sections"]]) for u in units] == [
        ("issues/lib-chrf/a.md", [("lib-chrf", "a"), ("lib-chrf", "b"), ("lib-chrf++", "a")]),
        ("issues/lib-chrf/c.md", [("lib-chrf", "c")]),
        ("issues/lib-chrfpp/e.md", [("lib-chrf++", "e")]),
    ]
    assert issue_paths(doc)[("lib-chrf++", "a")] == "issues/lib-chrf/a.md" and ("lib-chrf", "d") not in issue_paths(doc)

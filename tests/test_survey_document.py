"""The survey's document and table from units' results (no package installed): which definition
a row follows, whether the two routes agree, the verdict, the exit code, the markdown table,
and the second route's control and reproduction on known values."""

from __future__ import annotations

import pytest

from audit.render import survey as render
from audit.survey import differential, document, registry, reproduce

IMPLS = {i.name: i for i in registry.load()}


@pytest.fixture(autouse=True)
def no_issue_files(monkeypatch):
    """The fabricated findings below are not whole findings: the issue files are rendered in
    tests/test_survey.py from real audits."""
    monkeypatch.setattr(document, "issue_files", lambda name, row: {})


def _result(name: str, families=(), route=None, config="chrF") -> dict:
    findings = [{"family": f, "level": "sentence"} for f in families]
    route = route or {"against": "sacreBLEU", "inputs": 10, "disagreements": 0, "reproduced_by_families": 0,
                      "definitions": {"sacrebleu": 0, "sacrebleu-eps": 7, "chrfpp": 8}, "records": []}
    doc = {"implementations": [{"version": "9.9", "fit": {"sentence": {
        "explained": 5, "observed": 5, "scope": {"classes": ["a", "b"], "never_tried": ["long-texts"]}}}}],
        "findings": findings}
    claims = dict(IMPLS[name].configurations[0].claims)
    return {"name": name, "status": "audited", "python": "3.11", "rows": [
        {"configuration": config, "implementation": f"{name}-chrf", "claims": claims, "document": doc,
         "differential": route, "seconds": 1.5}]}


def test_a_clean_row_conforms_and_follows_the_claimed_definition():
    doc = document.document([IMPLS["fastchrf"]], {"fastchrf": _result("fastchrf")}, {})
    row = doc["implementations"][0]
    assert (row["verdict"], row["definition_followed"], row["agreement"], row["version"]) == (
        "conforms", "sacrebleu", "agree", "9.9")
    assert row["fit"] == {"sentence": {"explained": 5, "observed": 5, "classes": 2, "never_tried": ["long-texts"]}}
    assert document.exit_code(doc) == 0


def test_a_row_whose_findings_reproduce_every_disagreement_follows_none_and_the_routes_agree():
    route = {"against": "sacreBLEU", "inputs": 10, "disagreements": 4, "reproduced_by_families": 4,
             "definitions": {"sacrebleu": 4, "sacrebleu-eps": 2, "chrfpp": 9}, "records": [{"x": 1}]}
    doc = document.document([IMPLS["nltk"]], {"nltk": _result("nltk", ["f-score-averaged", "unexplained"], route)}, {})
    row = doc["implementations"][0]
    assert (row["families"], row["unexplained"], row["verdict"]) == (["f-score-averaged"], 1, "deviates")
    assert (row["definition_followed"], row["nearest"], row["agreement"]) == (None, "sacrebleu-eps", "agree")
    assert "records" not in row["differential"]  # kept out of the document
    assert document.exit_code(doc) == 1


def test_routes_that_disagree_say_where_and_why():
    unseen = {"against": "s", "inputs": 30, "disagreements": 1, "reproduced_by_families": 0,
              "definitions": {"sacrebleu": 1, "sacrebleu-eps": 20, "chrfpp": 22}}
    unseen["by_class"] = {"ragged-references": 1}
    assert document._agreement([], 0, unseen) == ("1 disagreements of the second route are not seen by the audit "
                                                  "(inputs of ragged-references: classes its search did not draw)")
    assert "names no family (2 unexplained rows), so no model reproduces the 1 disagreements" in \
        document._agreement([], 2, unseen)
    quiet = dict(unseen, disagreements=0)
    assert "do not show on the second route's 30 inputs" in document._agreement(["exception"], 0, quiet)
    partly = dict(unseen, disagreements=5, reproduced_by_families=3)
    assert document._agreement(["exception"], 0, partly) == (
        "agree that it deviates; 2 of 5 disagreements are not reproduced by the named families")
    assert document._agreement([], 0, {"against": None, "note": "n"}) == "no second route: n"


def test_a_definition_the_reference_matches_everywhere_is_followed_even_when_another_is_claimed():
    route = {"inputs": 10, "disagreements": 3, "definitions": {"sacrebleu": 3, "sacrebleu-eps": 0, "chrfpp": 5}}
    assert document._followed("sacrebleu", False, route) == ("sacrebleu-eps", None)
    assert document._followed("sacrebleu", True, dict(route, disagreements=0)) == ("sacrebleu", None)
    # the audit found deviations from the claimed definition: the route's 0 there does not make it followed
    quiet = {"inputs": 10, "disagreements": 0, "definitions": {"sacrebleu": 0, "sacrebleu-eps": 4, "chrfpp": 5}}
    assert document._followed("sacrebleu", False, quiet) == (None, "sacrebleu")


def test_skipped_implementations_have_a_row_per_configuration_and_nothing_audited_is_exit_2():
    doc = document.document([IMPLS["evaluate"], IMPLS["jury"]],
                            {"jury": {"name": "jury", "status": "skipped", "reason": "cannot install it", "rows": []}}, {})
    rows = [(r["name"], r["configuration"], r["status"], r["reason"]) for r in doc["implementations"]]
    assert rows[0][:3] == ("evaluate", None, "skipped") and "hub" in rows[0][3]
    assert rows[1:] == [("jury", "chrF", "skipped", "cannot install it"), ("jury", "chrF++", "skipped", "cannot install it")]
    assert document.exit_code(doc) == 2


def test_the_markdown_table_has_one_line_per_audited_row_and_lists_the_skipped():
    settings = {"seed": 0, "max_examples": 10, "tolerance": 1e-9, "differential": 10, "timeout": 5.0}
    doc = document.document([IMPLS["fastchrf"], IMPLS["evaluate"]], {"fastchrf": _result("fastchrf")}, settings,
                            {"npm": "none found"})
    page = render.render(doc)["survey.md"].decode()
    assert "| fastchrf | 9.9 | python 3.11 | chrF | sacrebleu | sacrebleu | none | 0 | sentence 5/5, 2 classes " \
           "(1 never tried) | conforms | 0/10 | agree | 2 s |" in page
    assert "- **evaluate** 0.4.6: evaluate.load" in page and "- **npm**: none found" in page
    assert render.render(doc) == render.render(doc)


def test_the_control_is_sacrebleus_chrf_at_the_claimed_parameters():
    claims = {"char_order": 6, "word_order": 2, "beta": 2, "lowercase": False, "whitespace": False,
              "definition": "sacrebleu-eps", "scale": 100}
    metric = differential.control(claims)
    assert (metric.word_order, metric.eps_smoothing) == (2, True)
    assert differential.control(dict(claims, definition="chrfpp")).eps_smoothing is True  # the nearest it computes
    assert "chrF++.py-compatible mode" in differential.describe_control(dict(claims, definition="chrfpp"))
    assert differential.streams([["a", "b"], ["c"]]) == [["a", "c"], ["b", None]]
    # sacreBLEU's own value, with a None-padded stream (as it accepts)
    got = differential._expected(differential.control(dict(claims, definition="sacrebleu")), "corpus",
                                 (["a b", "c"], [["a b", "x"], ["c"]]))
    assert got == ("value", 100.0)


@pytest.mark.parametrize("families,expected", [(["requested-order-divisor"], 1), (["f-score-averaged"], 0), ([], 0)])
def test_the_named_families_reproduce_a_disagreement_only_with_their_own_model(families, expected):
    claims = {"char_order": 6, "word_order": 0, "beta": 2, "lowercase": False, "whitespace": False,
              "definition": "sacrebleu", "scale": 100}
    # "ab" against "ab": 2 effective orders of 6; averaged over all six: P = R = 2/6
    record = {"level": "sentence", "input": {"hypothesis": "ab", "references": ["ab"]}, "actual": 100 / 3,
              "outcome": "value"}
    assert reproduce.reproduced(families, claims, [record], 1e-9) == expected
    crash = {"level": "sentence", "input": {"hypothesis": "a", "references": ["a"]}, "actual": None,
             "outcome": "exception"}
    assert reproduce.reproduced(["exception"], claims, [crash], 1e-9) == 1
    assert reproduce.reproduced(["crash"], claims, [crash], 1e-9) == 0


def test_the_reports_directory_is_written_strictly_inside_and_stale_issue_files_go(tmp_path):
    from audit.commands.survey import write_reports
    from audit.errors import UsageError

    rep, outside = tmp_path / "rep", tmp_path / "outside"
    (rep / "issues" / "old").mkdir(parents=True)
    (rep / "issues" / "old" / "chrf-gone.md").write_text("stale")
    (rep / "notes.txt").write_text("kept")
    write_reports(rep, {"survey.md": b"table", "issues/lib/chrf-f.md": b"issue"})
    assert sorted(p.relative_to(rep).as_posix() for p in rep.rglob("*") if p.is_file()) == [
        "issues/lib/chrf-f.md", "notes.txt", "survey.md"]
    outside.mkdir()
    (rep / "issues" / "lib" / "chrf-f.md").unlink()
    (rep / "issues" / "lib").rmdir()
    (rep / "issues" / "lib").symlink_to(outside)
    with pytest.raises(UsageError, match="issues/lib is a symbolic link"):
        write_reports(rep, {"survey.md": b"table2", "issues/lib/chrf-f.md": b"issue"})
    assert list(outside.iterdir()) == [] and (rep / "survey.md").read_bytes() == b"table"


def test_the_claimed_definition_alone_reproduces_where_chrfpp_and_sacrebleus_eps_mode_differ_and_float32_is_a_bound():
    import struct

    import reference_impl

    chrfpp = {"char_order": 6, "word_order": 0, "beta": 2, "lowercase": False, "whitespace": False,
              "definition": "chrfpp", "scale": 100}
    hyp, refs = "a\tbc", ["a bc"]  # chrF++.py keeps the tab as a character; sacreBLEU removes it
    value = float(reference_impl.sentence_score(hyp, refs, definition="chrfpp").score)
    eps = differential._expected(differential.control(chrfpp), "sentence", (hyp, refs))[1]
    assert abs(value - eps) > 1e-6
    record = {"level": "sentence", "input": {"hypothesis": hyp, "references": refs}, "actual": value, "outcome": "value"}
    assert reproduce.reproduced([], chrfpp, [record], 1e-9) == 1
    assert reproduce.reproduced([], dict(chrfpp, definition="sacrebleu"), [record], 1e-9) == 0
    sacre = dict(chrfpp, definition="sacrebleu")
    single = struct.unpack("f", struct.pack("f", 100 / 3))[0]
    rounded = {"level": "sentence", "input": {"hypothesis": "ab", "references": ["ab"]}, "actual": single,
               "outcome": "value"}
    assert reproduce.reproduced(["requested-order-divisor", "float32-arithmetic"], sacre, [rounded], 1e-9) == 1
    assert reproduce.reproduced(["requested-order-divisor"], sacre, [rounded], 1e-9) == 0


def test_the_committed_survey_follows_its_schema_audits_at_least_twelve_and_its_table_is_its_json():
    """reports/survey/ (reports/README.md's command): the document is valid, at least 12
    implementations are audited and every other one says why not, every audited row says whether
    its two routes agree, and survey.md is the renderer's view of survey.json, byte for byte."""
    import json
    from pathlib import Path

    import jsonschema

    root = Path(__file__).resolve().parents[1]
    doc = json.loads((root / "reports" / "survey" / "survey.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, json.loads((root / "audit" / "survey" / "survey.schema.json").read_text()))
    audited = {r["name"] for r in doc["implementations"] if r["status"] == "audited"}
    assert len(audited) >= 12
    for r in doc["implementations"]:
        assert (r["status"] == "audited") == bool(r["agreement"]) and (r["status"] == "skipped") == bool(r["reason"])
        for path in r["issues"]:
            assert (root / "reports" / "survey" / path).is_file(), path
    assert render.render(doc)["survey.md"] == (root / "reports" / "survey" / "survey.md").read_bytes()

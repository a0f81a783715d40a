"""The survey's registry (audit/survey/registry.json, loaded and validated in one place), the
expression backend its implementations are called through, their issue snippets, and the
second route's inputs: no package installed, no process started."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from audit.survey import inputs, registry

RAW = json.loads(registry.PATH.read_text(encoding="utf-8"))


def test_the_packaged_registry_names_at_least_twelve_runnable_implementations_and_says_why_not_the_rest():
    impls = registry.load()
    runnable = [i for i in impls if not i.skip]
    assert len(runnable) >= 12
    assert [i.name for i in impls if i.kind == "control"] == ["sacrebleu"]
    own = {i.name for i in impls if i.kind == "own"}
    assert {"nltk", "torchmetrics", "fastchrf", "sacrebleu-mojo", "inferencebench-mt", "sacrebleu-macrof",
            "blazemetrics"} <= own
    wrappers = {i.name for i in impls if i.kind == "wrapper"}
    assert {"opik", "jury", "mt-eval-harness", "urdu-text-eval", "ragas", "lm-eval", "lighteval"} <= wrappers
    for i in impls:
        assert i.licence and i.tracker.startswith("https://") and i.docs_claim
        for c in i.configurations:
            assert c.claims["definition"] in ("sacrebleu", "sacrebleu-eps", "chrfpp")
            assert (c.claims["word_order"] == 2) == (c.name == "chrF++")
    skipped = {i.name: i.skip for i in impls if i.skip}
    assert "hub" in skipped["evaluate"] and "\n" not in skipped["evaluate"]
    assert {i.name: i.shadows for i in impls if i.shadows} == {"sacrebleu-macrof": "sacrebleu"}
    assert {i.name: i.timeout for i in impls if i.timeout} == {"torchmetrics": 60.0, "lighteval": 60.0, "ragas": 60.0}
    assert {i.name: i.python for i in impls if i.name in ("sacrebleu-mojo", "inferencebench-mt")} == {
        "sacrebleu-mojo": ("3.12", "3.13"), "inferencebench-mt": ("3.12", "3.13")}


def _broken(change) -> dict:
    doc = copy.deepcopy(RAW)
    change(doc["implementations"])
    return doc


@pytest.mark.parametrize("change,message", [
    (lambda d: d[3].update(kind="fork"), "kind 'fork' is not one of"),
    (lambda d: d[3].update(python=["3"]), "python lists versions"),
    (lambda d: d[3]["configurations"][0].update(sentence="pairwise_chrf(("), "fastchrf' chrF sentence: not Python"),
    (lambda d: d[3].update(setup="from x import"), "setup: not Python"),
    (lambda d: d[3].update(configurations=[]), "no configuration and no skip reason"),
    (lambda d: d[3]["configurations"][0].update(name="chrF++"), "word_order 0 does not make a chrF++"),
    (lambda d: d[0]["configurations"][0].update(adapter="nltk"), "'nltk' is not an adapter of the built-in"),
    (lambda d: d[3]["configurations"][0].pop("sentence"), "neither a sentence nor a corpus expression"),
    (lambda d: d[3]["configurations"][0]["claims"].update(scale=10), "claims: scale must be 1 or 100"),
    (lambda d: d.append(copy.deepcopy(d[3])), "'fastchrf' is listed twice"),
    (lambda d: d[3].pop("tracker"), "'tracker' is missing"),
    (lambda d: d[3].update(timeout=0), "timeout is seconds per call"),
])
def test_a_wrong_registry_entry_is_one_line_naming_it(change, message):
    with pytest.raises(registry.RegistryError, match=message.replace("(", r"\(").replace("+", r"\+")):
        registry.parse(_broken(change))


def test_select_names_or_all_and_an_unknown_name_is_a_usage_error():
    from audit.errors import UsageError

    assert [i.name for i in registry.select(("nltk", "fastchrf", "nltk"))] == ["nltk", "fastchrf"]
    assert len(registry.select(())) == len(RAW["implementations"])
    with pytest.raises(UsageError, match="'nope' is not in the survey's registry"):
        registry.select(("nope",))


def test_the_expression_backend_runs_setup_once_and_evaluates_each_level():
    from audit.adapters.backends import ExpressionBackend, SpecError

    b = ExpressionBackend("import statistics\ncalls = []\n", "statistics.fmean([len(hypothesis), len(references[0])])",
                          "sum(map(len, hypotheses)) + len(references)", distribution="pytest",
                          source="statistics:fmean", name="t")
    assert b.call("sentence", {}, ("abcd", ["xy", "y"]))[:2] == ("value", 3.0)
    assert b.call("corpus", {}, (["ab", "c"], [["x"], ["y"]]))[:2] == ("value", 5.0)
    d = b.describe()
    assert d["version"] == __import__("importlib.metadata").metadata.version("pytest")
    assert d["sources"]["sentence"][:2] == ("statistics", "fmean") and d["sources"]["sentence"][2].endswith("statistics.py")
    assert b.call("sentence", {}, ("abcd", [])) == ("exception", "IndexError: list index out of range")
    with pytest.raises(SpecError, match="cannot run the setup of t: ModuleNotFoundError"):
        ExpressionBackend("import no_such_module_here", "1", None, distribution="x", name="t")


def test_an_expression_findings_snippet_is_the_setup_the_inputs_and_the_call_and_runs_standalone(tmp_path):
    from audit.findings import Finding, Repro
    from audit.upstream import repro_snippet, snippet_language

    repro = Repro(level="sentence", inputs={"hypothesis": "a\u001e", "references": ["a", "b\ud800"]}, expected=50.0,
                  expected_fraction="50/1", actual=0.25, actual_raw="0.25", outcome="value")
    f = Finding(implementation="demo-chrf", family="whitespace-set-white-space", title="t", level="sentence",
                reference_signature="", implementation_signature="",
                minimal=repro, claims={"scale": 1}, source={"call": "expression", "setup": "import json",
                                                              "expression": "json.dumps([hypothesis, references])"})
    text = repro_snippet("demo-chrf", f)
    assert snippet_language("demo-chrf", f) == "python"
    assert "# It answers on 0..1: expected 0.5 there." in text and text.startswith("# chrF repro for demo-chrf")
    script = tmp_path / "repro.py"
    script.write_text(text, encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and json.loads(out.stdout) == ["a\u001e", ["a", "b\ud800"]]


def test_the_second_routes_inputs_are_seeded_and_draw_every_class():
    a = inputs.draw(7, 45, None, "sentence")
    assert a == inputs.draw(7, 45, None, "sentence") and a != inputs.draw(8, 45, None, "sentence")
    assert {c for c, _ in a} == set(inputs.CLASSES)
    longest = max(len(item[1][0]) for c, item in a if c == "long")
    assert longest > 1000
    assert any("" in item[1] and len(item[1]) > 1 for c, item in a if c == "empty-reference-beside-others")
    assert any("\n" in item[0] for c, item in a if c == "several-lines")
    corpora = inputs.draw(7, 30, None, "corpus")
    ragged = [item for c, item in corpora if c == "ragged-references"]
    assert any(len({len(r) for r in refs}) > 1 for _, refs in ragged)
    single = inputs.draw(7, 30, 1, "corpus")
    assert all(len(r) == 1 for _, (_, refs) in single for r in refs)
    assert "ragged-references" not in {c for c, _ in single}

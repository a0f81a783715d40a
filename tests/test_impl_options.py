"""Implementation options met by first-time users: ``--max-refs`` (a single-reference library
given as a Python callable), ``--name`` (report names), one implementation for
``--impl X --corpus-impl Y``, and ``impact`` with the same options as ``run``."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from audit.adapters import AdapterError, Support, resolve
from audit.collect.cases import _applicable
from audit.cli import main
from audit.collect.runner import run_audit

ROOT = Path(__file__).resolve().parents[1]

SINGLE_REF = textwrap.dedent('''
    """A correct chrF library that takes exactly one reference (like nltk's API)."""
    from reference_impl import corpus_score, sentence_score

    def sentence(hypothesis, references):
        if len(references) != 1:
            raise TypeError(f"one reference please, got {len(references)}")
        return float(sentence_score(hypothesis, references).score)

    def corpus(hypotheses, references):
        if any(len(r) != 1 for r in references):
            raise TypeError("one reference per segment please")
        return float(corpus_score(hypotheses, references).score)
''')


@pytest.fixture()
def single_ref_module(tmp_path, monkeypatch):
    (tmp_path / "singleref_lib.py").write_text(SINGLE_REF, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}:{ROOT}")
    return "singleref_lib"


def _audit(**kw):
    adapters = resolve("singleref_lib:sentence", corpus_impl="singleref_lib:corpus", **kw)
    try:
        return run_audit(adapters, seed=0, max_examples=15, derandomize=True, cases_dir=ROOT / "cases")
    finally:
        for a in adapters:
            a.close()


def test_single_reference_callable_needs_max_refs(single_ref_module):
    # without the claim the search sends several references: the library raises
    without = _audit()
    assert "exception" in {f.family for f in without.findings}
    # with --max-refs 1 it is never sent more than one, and it is correct
    result = _audit(max_refs=1)
    assert result.findings == []
    assert result.adapters[0].examples > 15


def test_support_limits():
    one, two, many = Support(True, True, False), Support(True, True, True, 2), Support(True, True, True)
    assert [s.refs_limit(3) for s in (one, two, many)] == [1, 2, 3]
    assert [s.takes(2) for s in (one, two, many)] == [False, True, True]
    assert [s.takes(3) for s in (one, two, many)] == [False, False, True]

    class A:
        supports = two

    assert _applicable(A, "sentence", {"hypothesis": "a", "references": ["a", "b"]})
    assert not _applicable(A, "sentence", {"hypothesis": "a", "references": ["a", "b", "c"]})
    assert not _applicable(A, "corpus", {"hypotheses": ["a", "b"], "references": [["a"], ["a", "b", "c"]]})


def test_adapter_refuses_more_references_than_claimed(single_ref_module):
    [a] = resolve("singleref_lib:sentence", max_refs=2, isolate=False)
    try:
        assert a.supports == Support(True, False, True, 2)
        with pytest.raises(ValueError, match="at most 2 reference"):
            a.sentence_scores([("a", ["a", "b", "c"])])
        assert a.sentence_scores([("a", ["a", "b"])])[0].kind == "exception"  # the library's own refusal
    finally:
        a.close()


def test_name_and_one_implementation_with_two_entry_points(single_ref_module, tmp_path):
    [a] = resolve("singleref_lib:sentence", corpus_impl="singleref_lib:corpus", isolate=False)
    assert a.name == "singleref_lib"  # not "...:sentence": both entry points, one implementation
    assert a.supports.sentence and a.supports.corpus
    a.close()
    [c] = resolve("singleref_lib:sentence", name=" My chrF ", isolate=False)
    assert c.name == "My chrF"
    c.close()
    out = tmp_path / "reports"
    code = main(["run", "--impl", "singleref_lib:sentence", "--corpus-impl", "singleref_lib:corpus",
                 "--max-refs", "1", "--name", "mylib", "--max-examples", "5", "--quiet", "--reports-dir", str(out)])
    assert code == 0
    names = sorted(p.name for p in out.iterdir())
    assert "mylib.md" in names and not any("sentence" in n for n in names)
    doc = json.loads((out / "audit.json").read_text())
    assert [i["implementation"] for i in doc["implementations"]] == ["mylib"]


@pytest.mark.parametrize("argv, needle", [
    (["--impl", "nltk", "--max-refs", "1"], "--max-refs describes one package.module:function"),
    (["--impl", "sacrebleu", "--name", "x"], "--name describes one"),
    (["--impl", "singleref_lib:sentence", "--max-refs", "0"], "--max-refs must be an integer >= 1"),
    (["--impl", "singleref_lib:sentence", "--name", "  "], "--name needs a non-empty name"),
])
def test_option_mistakes_are_one_line_exit_2(single_ref_module, capsys, argv, needle):
    assert main(["run", *argv, "--max-examples", "1", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_impact_takes_external_programs(tmp_path, capsys):
    stand_in = tmp_path / "prog.py"
    stand_in.write_text(textwrap.dedent('''
        import json, sys
        from reference_impl import corpus_score, sentence_score
        for line in sys.stdin:
            req = json.loads(line)
            if req["op"] == "hello":
                print(json.dumps({"id": 0, "claims": {"beta": 2}, "supports": {"max_refs": 1}}), flush=True)
            elif req["op"] == "sentence":
                print(json.dumps({"id": req["id"], "score": float(sentence_score(req["hypothesis"], req["references"]).score)}), flush=True)
            else:
                print(json.dumps({"id": req["id"], "score": float(corpus_score(req["hypotheses"], req["references"]).score)}), flush=True)
    '''), encoding="utf-8")
    ref, s1, s2 = tmp_path / "ref.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    ref.write_text("the cat sat on the mat\nhello world\n", encoding="utf-8")
    s1.write_text("the cat sat on a mat\nhello world\n", encoding="utf-8")
    s2.write_text("a dog\nhello\n", encoding="utf-8")
    out = tmp_path / "impact.json"
    code = main(["impact", str(s1), str(s2), "--ref", str(ref), "--external", f"{sys.executable} {stand_in}",
                 "--name", "prog", "--resamples", "50", "--json", str(out)])
    assert code == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    text = json.dumps(doc)
    assert "prog" in text
    # the program computes the reference exactly: no system's score moves
    assert "external:" not in text


def test_callable_version_comes_from_the_distribution_that_owns_the_module(single_ref_module):
    from importlib import metadata

    [a] = resolve("reference_impl.api:sentence_score", isolate=False)  # module reference_impl, distribution chrf-audit
    assert a.version == metadata.version("chrf-audit")
    a.close()
    [b] = resolve("singleref_lib:sentence", isolate=False)  # a file in the working directory: no distribution
    assert b.version is None and "|unknown|" in b.signature
    b.close()


@pytest.mark.parametrize("given, message", [
    (dict(mcp="http://127.0.0.1:9/"), "--mcp URL and --tool NAME@VERSION go together"),
    (dict(tool="chrf-plus-plus-compute@1.0.0"), "--mcp URL and --tool NAME@VERSION go together"),
    (dict(mcp="http://127.0.0.1:9/", tool="t@1", http="http://127.0.0.1:9/", contract="auto"),
     "--http and --mcp: one service at a time"),
    (dict(mcp="http://127.0.0.1:9/", tool="t@1", max_refs=1), "--max-refs: an --mcp tool takes"),
    (dict(mcp="http://127.0.0.1:9/", tool="t@1", overrides={"beta": 3}), r"claim flags \(beta\) do not apply"),
])
def test_the_mcp_kind_checks_its_options_before_anything_starts(given, message):
    """The MCP adapter is one kind of resolve() (audit.adapters.kinds): its options' combinations
    are refused in one line, before a connection is tried (port 9 would refuse it)."""
    with pytest.raises(AdapterError, match=message):
        resolve(None, **given)

"""Report repros for implementations chrf-audit has no knowledge of: an external program's
repro is a protocol request piped into the program as is; a named callable's snippet imports
it from its module; a metamorphic finding says whose "expected" it shows, with the
reference's value beside it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from audit import upstream
from audit.enrich import enrich
from audit.findings import AdapterSummary, AuditResult, Finding, Repro
from audit.render.json_report import build
from reference_impl import corpus_score

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = textwrap.dedent('''
    import json, sys
    from reference_impl import sentence_score
    for line in sys.stdin:
        req = json.loads(line)
        assert set(req) >= {"id", "op", "params"}, req
        p = req["params"]
        score = sentence_score(req["hypothesis"], req["references"], char_order=p["char_order"],
                               word_order=p["word_order"], beta=p["beta"], definition=p["definition"]).score
        print(json.dumps({"id": req["id"], "score": float(score) / 2}), flush=True)  # a planted bug
''')


def _finding(impl, family, level, inputs, expected, actual, source=None, claims=None) -> Finding:
    m = Repro(level=level, inputs=inputs, expected=expected, expected_fraction="1/1", actual=actual,
              actual_raw=repr(actual), outcome="value")
    return Finding(implementation=impl, family=family, level=level, title=family,
                   claims=claims or {"char_order": 6, "word_order": 2, "beta": 2, "lowercase": False,
                                     "whitespace": False, "definition": "chrfpp", "scale": 100},
                   reference_signature="", implementation_signature="", minimal=m, source=source)


def test_external_repro_is_a_pipeable_protocol_request(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM, encoding="utf-8")
    command = f"{sys.executable} {prog}"
    f = _finding("halver", "unexplained", "sentence", {"hypothesis": "the cat\t", "references": ["the cat", "x"]},
                 100.0, 50.0, source={"call": "external", "command": command})
    request = upstream.protocol_request(f)
    assert request["id"] == 1 and request["op"] == "sentence" and request["params"]["definition"] == "chrfpp"
    assert upstream.snippet_language("halver", f) == "sh"
    snippet = upstream.repro_snippet("halver", f)
    assert command in snippet
    out = subprocess.run(["bash", "-c", snippet], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == {"id": 1, "score": 50.0}


def test_named_callable_snippet_imports_from_its_module():
    f = _finding("my chrF", "unexplained", "sentence", {"hypothesis": "ab", "references": ["ab"]}, 100.0, 99.0,
                 source={"call": "python", "module": "reference_impl.api", "qualname": "sentence_score",
                         "file": "reference_impl/api.py", "line": 1, "function": "reference_impl.api.sentence_score"})
    snippet = upstream.repro_snippet("my chrF", f)
    assert upstream.snippet_language("my chrF", f) == "python"
    assert "from reference_impl.api import sentence_score" in snippet
    out = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, check=True).stdout
    assert "ChrfResult" in out  # it really called the function on the repro


def test_metamorphic_expected_is_labelled_with_the_reference_beside(tmp_path):
    inputs = {"hypotheses": ["a", "", "aa"], "references": [["a"], [""], ["a"]]}
    f = _finding("prog", "metamorphic-segment-order", "corpus", inputs, 15.196078431372555, 20.052083333333343,
                 source={"call": "external", "command": "prog"})
    plain = _finding("prog", "unexplained", "corpus", inputs, 13.0, 25.0, source={"call": "external", "command": "prog"})
    result = AuditResult(seed=0, max_examples=1, tolerance=1e-9, adapters=[
        AdapterSummary(implementation="prog", version=None, claims=f.claims, signature="", findings=[f, plain])])
    det = enrich(result, with_upstream=False)
    exact = corpus_score(inputs["hypotheses"], inputs["references"], word_order=2, definition="chrfpp").score
    assert det.of(f).reference_value == (str(exact), float(exact))
    assert det.of(plain).reference_value is None
    doc = build(det)
    meta, other = doc["findings"]
    assert meta["expected_source"] == "implementation" and meta["reference_fraction"] == str(exact)
    assert other["expected_source"] == "reference" and "reference_value" not in other
    from audit.commands.writing import write_reports

    write_reports(enrich(result), tmp_path)
    md = (tmp_path / "prog.md").read_text(encoding="utf-8")
    assert "prog's own score before the transformation" in md
    assert f"`{exact}`" in md and "Reference on this input" in md
    assert "15.19607843 (own)" in md and "its own score before the transformation" in md

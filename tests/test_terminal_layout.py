"""The terminal table at 80 and 200 columns, as snapshots (tests/snapshots/terminal-*.txt).

The findings are built by hand so that the layout is tested on what used to break it: an
external program's long name, a long callable name, a repro whose first text is a control
character and whose reference is long, a corpus repro, a metamorphic finding, an exception.
Regenerate after an intended change with ``CHRF_AUDIT_UPDATE_SNAPSHOTS=1 pytest tests/test_terminal_layout.py``.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from audit.findings import AdapterSummary, AuditResult, Finding, Repro
from audit.render.terminal import elide, repro_cell, table_lines
from tests.fixtures.render import doc_of, terminal_text

SNAPSHOTS = Path(__file__).parent / "snapshots"
EXTERNAL = "external:python3 /home/someone/projects/chrf-tools/examples/chrfpp_wrapper.py /opt/chrF/chrF++.py"
CALLABLE = "mycompany_metrics.text.chrf_implementation:sentence_chrf_score"


def _finding(impl, family, level, inputs, expected, actual, outcome="value") -> Finding:
    m = Repro(level=level, inputs=inputs, expected=expected, expected_fraction="1/1", actual=actual,
              actual_raw=None if actual is None else repr(actual), outcome=outcome)
    return Finding(implementation=impl, family=family, level=level, title=family, claims={},
                   reference_signature="", implementation_signature="", minimal=m)


def _result() -> AuditResult:
    findings_ext = [
        _finding(EXTERNAL, "exception", "sentence", {"hypothesis": "", "references": [""]}, 0.0, None, "exception"),
        _finding(EXTERNAL, "metamorphic-segment-order", "corpus",
                 {"hypotheses": ["a", "", "aa"], "references": [["a"], [""], ["a"]]}, 15.196078431372555,
                 20.052083333333343),
    ]
    findings_call = [
        _finding(CALLABLE, "hypothesis-ngrams-where-reference-has-none", "corpus",
                 {"hypotheses": ["a", "a"], "references": [["a"], [""]]}, 16.666666666666675, 13.8888880610466),
        _finding(CALLABLE, "whitespace-set-white-space", "sentence",
                 {"hypothesis": "\x1c", "references": ["a reference that is much longer than the column is wide, "
                                                       "with its end still worth seeing: END"]},
                 0.0, 37.59541984732824),
    ]
    return AuditResult(adapters=[
        AdapterSummary(implementation=EXTERNAL, version="sha256:0123456789ab", claims={}, signature="",
                       findings=findings_ext, examples=400),
        AdapterSummary(implementation=CALLABLE, version="1.2.3", claims={}, signature="",
                       findings=findings_call, examples=400),
        AdapterSummary(implementation="sacrebleu-chrf", version="2.6.0", claims={}, signature="", examples=400),
    ], seed=0, max_examples=100, tolerance=1e-9)


def _render(width: int) -> str:
    return terminal_text(_result(), width)


@pytest.mark.parametrize("width", [80, 200])
def test_snapshot(width):
    text = _render(width)
    path = SNAPSHOTS / f"terminal-{width}.txt"
    if os.environ.get("CHRF_AUDIT_UPDATE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("width", [80, 100, 149, 150, 160, 200])
def test_layout_properties(width):
    text = _render(width)
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    # a family is never broken across lines, and every one appears whole
    for fam in ("exception", "metamorphic-segment-order", "hypothesis-ngrams-where-reference-has-none",
                "whitespace-set-white-space"):
        assert fam in text
    # the names keep both ends: what the program is and which script it runs
    assert "external:python3" in text and "chrF++.py" in text
    assert "mycompany_metrics" in text
    # the control character is escaped, and the repro shows the reference's end
    assert "\x1c" not in text and '"\\u001c"' in text and "END" in text
    assert "15.19608*" in text and "metamorphic: expected is the implementation's own" in text
    assert "sacrebleu-chrf 2.6.0: no finding" in text


def test_wide_is_one_line_per_finding_narrow_two():
    rows = lambda w: [line for line, role in table_lines(doc_of(_result())["findings"], w) if role == "row"]  # noqa: E731
    assert len(rows(150)) == 4 and len(rows(149)) == 8
    # widths outside 80..200 are clamped
    assert all(len(line) <= 80 for line, _ in table_lines(doc_of(_result())["findings"], 40))


def test_elide_and_repro_cell():
    assert elide("abcdef", 6) == "abcdef"
    assert elide("abcdefgh", 5) == "ab…gh"
    assert elide("abcdefgh", 4) == "ab…h" and elide("abc", 1) == "…" and elide("abc", 0) == ""
    cell = repro_cell({"hypothesis": "x" * 50, "references": ["y" * 50]}, 40)
    assert len(cell) == 40 and cell.startswith('hyp "xx') and cell.endswith('yy"') and " ref " in cell
    corpus = repro_cell({"hypotheses": ["a"] * 30, "references": [["b"]] * 30}, 30)
    assert len(corpus) == 30 and corpus.startswith("30 seg:") and corpus.endswith('"b"')


def test_the_corpus_repro_notation_has_a_key():
    """``N seg: "h"→"r1"/"r2"; ...`` had no key (issue 29 item 16): under a table that shows one,
    the key says what → , / and ; mean; a table of sentence repros alone needs none."""
    from audit.render._text import REPRO_KEY

    text = _render(100)
    assert " seg: " in text and " ".join(text.split()).count(" ".join(REPRO_KEY.split())) == 1
    sentence_only = AuditResult(adapters=[AdapterSummary(
        implementation=CALLABLE, version="1", claims={}, signature="", examples=1,
        findings=[_finding(CALLABLE, "exception", "sentence", {"hypothesis": "", "references": [""]}, 0.0, None,
                           "exception")])], seed=0, max_examples=100, tolerance=1e-9)
    assert "repro key" not in terminal_text(sentence_only, 100)

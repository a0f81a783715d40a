"""Every writer takes every string the search can produce (issue 19, item 2).

The search feeds implementations lone surrogates, NUL and the C0/C1 controls
(audit/collect/strategies.py), and implementations answer with names, versions and error texts of
their own.  A property test renders findings whose repros hold every input class the
strategies generate, under names and details drawn the same way, through every output:
the terminal table (on a strict UTF-8 stream, as a real stdout), the markdown reports,
audit.json, junit.xml, the SVG charts' text, the GitHub step summary, ``validate-patch``'s
text and ``--json``, saved cases and the baseline.  Every file must be valid UTF-8 with no
non-printable character in the text formats, and every JSON file must give back the very
strings (the repro stays a repro)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import date
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from audit.gate import baseline
from audit.collect import strategies as S
from audit.collect.cases import save_findings_as_cases
from audit.commands.validate_patch import write_json as write_validation_json
from audit.enrich import enrich
from audit.findings import AdapterSummary, AuditResult, Finding, Repro
from audit.patches import render as render_validation
from audit.patches.validate import FIXED, INTRODUCED, STILL, FamilyStatus, Validation
from audit.commands.writing import write_reports
from tests.fixtures.render import summary_text, terminal_text
from audit.render._text import quoted

ROOT = Path(__file__).resolve().parents[1]

#: one string holding a member of every class the strategies draw from (surrogates included)
EVERY_CLASS = "".join([
    "a", S.WHITESPACE, S.NOT_WHITESPACE, S.COMBINING, "".join(S.NORMALIZATION_PAIRS), S.NON_BMP, S.CJK,
    S.CASE_SPECIALS, "".join(S.PUNCT_WORDS), S.CONTROLS, S.SURROGATES,
])
TEXTS = S.texts(surrogates=True)
NAMES = st.one_of(st.just("nltk"), S.texts(min_size=1, max_size=30, surrogates=True))


def _joined_pairs(s: str) -> str:
    """What JSON reads back: a high surrogate directly followed by a low one is that pair's
    character (jsontext's docstring); everything else exactly as it was."""
    return s.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


@st.composite
def repros(draw, level: str) -> dict:
    if level == "sentence":
        return {"hypothesis": draw(TEXTS), "references": draw(st.lists(TEXTS, min_size=1, max_size=3))}
    n = draw(st.integers(1, 3))
    return {"hypotheses": draw(st.lists(TEXTS, min_size=n, max_size=n)),
            "references": draw(st.lists(st.lists(TEXTS, min_size=1, max_size=2), min_size=n, max_size=n))}


def _finding(impl: str, family: str, level: str, inputs: dict, outcome: str, detail: str, raw: str) -> Finding:
    value = outcome == "value"
    m = Repro(level=level, inputs=inputs, expected=50.0, expected_fraction="50/1", actual=12.5 if value else None,
              actual_raw=raw if value else None, outcome=outcome, detail=detail)
    return Finding(implementation=impl, family=family, level=level, title="t" + detail[:20], claims={"char_order": 6},
                   reference_signature="nc:6", implementation_signature=detail[:30], minimal=m, evidence=detail)


@st.composite
def results(draw) -> AuditResult:
    impl = draw(NAMES)
    version = draw(st.one_of(st.none(), TEXTS))
    findings = []
    for family, level in (("crash", "sentence"), ("unexplained", "corpus")):
        inputs = draw(repros(level))
        findings.append(_finding(impl, family, level, inputs, draw(st.sampled_from(["value", "exception", "crash"])),
                                 draw(TEXTS), draw(TEXTS)))
    every = {"hypothesis": EVERY_CLASS, "references": [EVERY_CLASS[::-1], ""]}
    findings.append(_finding(impl, "invalid-output", "sentence", every, "exception", EVERY_CLASS, EVERY_CLASS))
    summary = AdapterSummary(impl, version, {"char_order": 6}, draw(TEXTS), examples=3, findings=findings)
    return AuditResult(seed=0, max_examples=3, tolerance=1e-9, adapters=[summary])


def _strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from _strings(v)


def _printable(text: str, where: str, keep: str = "\n") -> None:
    """Nothing a terminal or a markdown viewer would act on: no control character (ESC, BEL,
    NUL ...), no surrogate; newlines (and, in markdown, tabs: a diff may hold them)."""
    bad = sorted({f"U+{ord(c):04X}" for c in text if not (c.isprintable() or c in keep)})
    assert not bad, (where, bad)


def _validation(result: AuditResult) -> Validation:
    fams = [FamilyStatus(f.implementation, f.family, status, f.level, f.minimal.inputs, f.minimal.expected,
                         f.minimal.actual, None, f.minimal.outcome, "crash", note=f.minimal.detail)
            for f, status in zip(result.findings, (FIXED, STILL, INTRODUCED))]
    a = result.adapters[0]
    return Validation(implementation=a.implementation, patch="p.diff", source=None, files=[a.implementation],
                      before_versions={a.implementation: a.version}, after_versions={}, families=fams,
                      notes=[result.findings[0].minimal.detail])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                 HealthCheck.function_scoped_fixture])
@given(result=results())
@example(result=AuditResult(seed=0, max_examples=1, tolerance=1e-9, adapters=[AdapterSummary(
    "\udc00\x1b[31m\x07", "\x00", {}, "\x9b", findings=[_finding(
        "\udc00\x1b[31m\x07", "crash", "sentence", {"hypothesis": EVERY_CLASS, "references": ["\udbff\udc00"]},
        "crash", "\x1b]0;pwned\x07\udc00", "")])]))
def test_every_output_takes_every_string(result, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    originals = [f.minimal.inputs for f in result.findings]
    enriched = enrich(result, with_upstream=False)

    # reports directory: markdown, audit.json, junit.xml (+ charts, manifest)
    paths = write_reports(enriched, out / "reports")
    texts = {p.name: p.read_bytes().decode("utf-8") for p in paths}  # strict: valid UTF-8
    md = next(t for name, t in texts.items() if name.endswith(".md"))
    _printable(md, "markdown", keep="\n\t")
    for f in result.findings:
        for s in _strings(f.minimal.inputs):
            assert quoted(s) in md  # the repro, escaped, is in the report
    doc = json.loads(texts["audit.json"])
    assert [f["repro"] for f in doc["findings"]] == [json.loads(json.dumps(o)) for o in originals]
    assert [list(_strings(f["repro"])) for f in doc["findings"]] == \
        [[_joined_pairs(s) for s in _strings(o)] for o in originals]
    assert texts["audit.json"].isascii()
    junit = ET.fromstring(texts["junit.xml"].encode("utf-8"))  # well-formed XML
    _printable(texts["junit.xml"], "junit")
    assert len(junit.findall(".//failure")) == len(result.findings)

    # terminal table, on a stream that encodes strictly (a UTF-8 stdout)
    _printable(terminal_text(result, 120), "terminal")

    # GitHub step summary
    _printable(summary_text(result, ["check passed"]), "step summary")

    # validate-patch: its text and --json
    v = _validation(result)
    _printable(render_validation(v), "validate-patch")
    write_validation_json(v, out / "validate.json")
    vdoc = json.loads((out / "validate.json").read_bytes().decode("ascii"))
    assert [f["repro"] for f in vdoc["families"]] == [json.loads(json.dumps(o)) for o in originals]
    assert vdoc["notes"] == [_joined_pairs(result.findings[0].minimal.detail)]

    # saved cases and the baseline
    for p in save_findings_as_cases(result, out / "cases"):
        case = json.loads(p.read_bytes().decode("ascii"))
        assert case["inputs"] in [json.loads(json.dumps(o)) for o in originals]
    baseline.update_file(out / "baseline.json", result.findings, audited=[result.adapters[0].implementation],
                         today=date(2025, 1, 1))
    btext = (out / "baseline.json").read_bytes().decode("utf-8")
    _printable(btext, "baseline")
    accepted = json.loads(btext)["accepted"]
    assert {e["implementation"] for e in accepted} == {_joined_pairs(result.adapters[0].implementation)}


def test_validate_patch_json_at_the_default_seed(tmp_path):
    """The issue's command: nltk's suggested corpus-macro-average patch at the default seed: the
    verdict AND the JSON are written.  (At bbc3481 its audit's whitespace repro held a lone
    surrogate; each fitted bug now shrinks to its own minimal repro, "aaaaaa" against
    "aaaaa\u001e", so the writer's lone-surrogate path is held by the test above, which
    plants such repros in every writer.)"""
    from audit import upstream

    (tmp_path / "fix.diff").write_text(upstream.patch("nltk", "corpus-macro-average"))
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "validate-patch", "--impl", "nltk", "--patch", "fix.diff",
                           "--json", "out.json"], cwd=tmp_path, capture_output=True, text=True, timeout=900,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads((tmp_path / "out.json").read_text(encoding="ascii"))
    assert {f["family"] for f in doc["families"]} >= {"corpus-macro-average", "whitespace-set-white-space"}

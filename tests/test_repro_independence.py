"""Cases speed a run up; they never decide what is found (issue 20).

The main job, ``chrf-audit run --impl nltk``, run from an empty directory with an empty
cases directory (``--cases EMPTY``: no curated case replayed) gives the same findings and
the same repros as from the checkout (its curated cases replayed first), and those are the
repros the README shows.  torchmetrics, audited with an
empty cases directory, gives all its known bugs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(cwd: Path, out: Path, *extra) -> dict:
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")  # the README sample's width
    # --no-verify: what is found and its repros come before the patches are verified (and the
    # verification of each run's patches, keyed on its cases, cost 30 s of CI per run)
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "run", "--impl", "nltk", "--quiet", "--no-verify",
                           "--json", str(out / "audit.json"), "--reports-dir", str(out / "reports"), *extra],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    return {"findings": [(f["family"], f["level"], f["repro"], f["expected_fraction"], f["actual"])
                         for f in doc["findings"]],
            "stdout": proc.stdout}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    empty = tmp_path_factory.mktemp("empty-dir")
    # an empty directory alone would still replay the curated cases (``DEFAULT_CASES`` falls
    # back to chrf-audit's own, issue 29 item 14): the cases directory is named, and empty
    no_cases = tmp_path_factory.mktemp("no-cases")
    from_empty = _run(empty, tmp_path_factory.mktemp("out-empty"), "--cases", str(no_cases))
    from_checkout = _run(ROOT, tmp_path_factory.mktemp("out-checkout"), "--cases", str(ROOT / "cases"))
    return from_empty, from_checkout


def test_the_same_findings_and_repros_with_and_without_the_curated_cases(runs):
    from_empty, from_checkout = runs
    assert from_empty["findings"] == from_checkout["findings"]
    families = {f[0] for f in from_empty["findings"]}
    assert families == {"requested-order-divisor", "f-score-averaged", "whitespace-set-white-space",
                        "corpus-macro-average"}
    assert len(from_empty["findings"]) == 7


def test_a_family_shows_the_same_input_at_both_levels(runs):
    """A family whose trigger inputs are one-segment inputs has, at the corpus level, the
    sentence repro as a one-segment corpus: hypothesis and reference are not swapped between
    the levels (issue 29 item 16: f-score-averaged showed hyp "aaaaaaa" ref "aaaaaa" and
    1 seg: "aaaaaa"→"aaaaaaa", whitespace-set-white-space two different separators)."""
    from audit.diagnose.deviations.triggers import one_segment

    from_empty, _ = runs
    repros = {(fam, level): repro for fam, level, repro, *_ in from_empty["findings"]}
    compared = 0
    for (fam, level), repro in repros.items():
        if level != "corpus" or (fam, "sentence") not in repros or not one_segment(fam):
            continue
        sentence = repros[(fam, "sentence")]
        assert repro == {"hypotheses": [sentence["hypothesis"]], "references": [sentence["references"]]}, fam
        compared += 1
    assert compared == 3  # requested-order-divisor, f-score-averaged, whitespace-set-white-space


def test_the_readme_shows_these_repros(runs):
    """The README's sample table is this run's table (repro lines and numbers)."""
    from_empty, _ = runs
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```\n\$ chrf-audit run\n(.*?)```", readme, re.S).group(1)

    def rows(text: str) -> list[str]:
        """The repro and its numbers, at any terminal width (on their own line at 100
        columns, after the implementation and family at 200)."""
        return [" ".join(m.group(0).split()) for m in re.finditer(r"(?m)(hyp |\d seg: ).*$", text)]

    assert rows(block) and rows(block) == rows(from_empty["stdout"])


@pytest.mark.slow  # a whole audit of both adapters (6 minutes on a loaded machine); CI installs the extra
# (.ci/run) and runs the README's `chrf-audit run --impl torchmetrics`, which audits them with the cases
def test_torchmetrics_known_bugs_without_cases():
    pytest.importorskip("torchmetrics")  # the optional extra the README names
    from audit.adapters import resolve
    from audit.settings.options import BUDGET as DEFAULT_MAX_EXAMPLES
    from audit.collect.runner import run_audit

    adapters = resolve("torchmetrics", isolate=False)
    try:
        result = run_audit(adapters, seed=0, max_examples=DEFAULT_MAX_EXAMPLES, cases_dir=None)
    finally:
        for a in adapters:
            a.close()
    for summary in result.adapters:
        found = {(f.family, f.level) for f in summary.findings}
        assert found == {("hypothesis-ngrams-where-reference-has-none", "corpus"),
                         ("unmatched-segment-reference-dropped", "corpus"),
                         ("float32-arithmetic", "sentence"), ("float32-arithmetic", "corpus")}, \
            (summary.implementation, sorted(found))


def test_the_passes_draw_the_same_with_and_without_the_curated_cases(tmp_path, monkeypatch):
    """Every search pass gets the same seed, and the claimed-parameter pass draws the same
    inputs, whether the curated cases were replayed first or not (issue 34 probe c).  The
    findings test above cannot see this: every repro it compares comes from the reducer,
    which is seeded on its own, so pass seeds that depended on how many cases were replayed
    left it green."""
    from audit.adapters import resolve
    from audit.collect import unit

    real = unit.generate

    def audit(cases_dir):
        seeds, drawn = {}, []

        def spy(p, found, *, seed, **kw):
            seeds[p.name] = seed
            if p.name == "claimed":
                examine = p.examine

                def recording(inputs, changes):
                    drawn.append(repr(inputs))
                    return examine(inputs, changes)
                p = dataclasses.replace(p, examine=recording)
            return real(p, found, seed=seed, **kw)

        monkeypatch.setattr(unit, "generate", spy)
        adapters = resolve("nltk", isolate=False)
        try:
            unit.audit_level(adapters[0], "sentence", seed=0, max_examples=20, cases_dir=cases_dir)
        finally:
            for a in adapters:
                a.close()
        return seeds, drawn

    (tmp_path / "empty").mkdir()
    with_cases, without = audit(ROOT / "cases"), audit(tmp_path / "empty")
    assert any(c.get("level", "sentence") == "sentence" for _, c in unit.load_cases(ROOT / "cases")), \
        "the curated cases replay nothing at this level: the comparison would be vacuous"
    seeds_with, seeds_without = with_cases[0], without[0]
    assert "claimed" in seeds_with and "claimed" in seeds_without
    common = seeds_with.keys() & seeds_without.keys()
    assert {n: seeds_with[n] for n in common} == {n: seeds_without[n] for n in common}
    assert with_cases[1] and with_cases[1] == without[1]

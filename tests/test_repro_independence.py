"""Cases speed a run up; they never decide what is found (issue 20).

The main job, ``chrf-audit run --impl nltk``, run from an empty directory (no ``cases/``)
gives the same findings and the same repros as from the checkout (its curated cases
replayed first), and those are the repros the README shows.  torchmetrics, audited with an
empty cases directory, gives all its known bugs.
"""

from __future__ import annotations

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
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "run", "--impl", "nltk", "--quiet",
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
    from_empty = _run(empty, tmp_path_factory.mktemp("out-empty"))
    from_checkout = _run(ROOT, tmp_path_factory.mktemp("out-checkout"), "--cases", str(ROOT / "cases"))
    return from_empty, from_checkout


def test_the_same_findings_and_repros_with_and_without_the_curated_cases(runs):
    from_empty, from_checkout = runs
    assert from_empty["findings"] == from_checkout["findings"]
    families = {f[0] for f in from_empty["findings"]}
    assert families == {"requested-order-divisor", "f-score-averaged", "whitespace-set-white-space",
                        "corpus-macro-average"}
    assert len(from_empty["findings"]) == 7


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

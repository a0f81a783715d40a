"""A finding of a sacreBLEU adapter reaches sacreBLEU's plug-in end to end.

The bug is planted in a temporary copy of the installed sacreBLEU (matches no longer
clipped), audited as the built-in adapter ``sacrebleu-chrf`` by the real CLI in a child
process whose PYTHONPATH starts at the copy.  The report must then speak sacreBLEU: its repro
snippet imports sacreBLEU and, run against the same copy, prints the wrong value the audit
saw; its root cause points at sacreBLEU's matching function, found in the audited source.
Before upstream plug-ins were resolved by adapter name, this finding got the generic
external-program snippet and no root cause.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from audit.upstream._base import module_source
from audit.upstream.patching import apply_to_copy, make_diff

CLIPPED = "match_count += min(count, ref_ngrams[ng])"


@pytest.fixture(scope="module")
def unclipped_sacrebleu(tmp_path_factory) -> Path:
    path, site_dir, text = module_source("sacrebleu.metrics.chrf")
    # sacreBLEU is bounded to the tested series (pyproject.toml): a release that counts matches
    # differently fails here by name instead of skipping the test
    assert text.count(CLIPPED) == 1, "this sacreBLEU version counts matches differently"
    rel = path.relative_to(site_dir).as_posix()
    root = tmp_path_factory.mktemp("planted") / "site"
    apply_to_copy(make_diff(rel, text, text.replace(CLIPPED, "match_count += count")), site_dir, root)
    return root


def _env(pythonpath: Path) -> dict:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=os.pathsep.join(
        [str(pythonpath), str(Path(__file__).resolve().parents[1])]))
    env.pop("GITHUB_STEP_SUMMARY", None)
    return env


def test_a_planted_sacrebleu_bug_gets_sacrebleu_snippet_and_root_cause(unclipped_sacrebleu, tmp_path):
    out = tmp_path / "reports"
    proc = subprocess.run(
        [sys.executable, "-m", "audit.cli", "run", "--impl", "sacrebleu-chrf", "--max-examples", "20", "--seed", "0",
         "--reports-dir", str(out), "--no-verify", "--quiet"],
        cwd=tmp_path, env=_env(unclipped_sacrebleu), capture_output=True, text=True, timeout=900)
    assert proc.returncode == 1, proc.stderr[-2000:]
    doc = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    assert {f["family"] for f in doc["findings"]} == {"no-clipping"}
    [impl] = doc["implementations"]
    assert Path(impl["sources"]["sentence"]["file"]).resolve().is_relative_to(unclipped_sacrebleu.resolve())

    md = (out / "sacrebleu-chrf.md").read_text(encoding="utf-8")
    # the root cause: sacreBLEU's matching function, in the source that was audited
    assert re.search(r"`sacrebleu/metrics/chrf\.py`, line \d+, in `CHRF\._get_match_statistics`", md)
    assert "def _get_match_statistics" in md
    # the snippet: sacreBLEU's own API, runnable, printing the value the audit saw
    blocks = [b.split("```", 1)[0] for b in md.split("```python\n")[1:] if "from sacrebleu.metrics import CHRF" in b]
    assert len(blocks) == 1 and len(doc["findings"]) == 2  # one block, each level's snippet whole in it
    for finding in doc["findings"]:
        code = finding["snippet"]
        assert code in blocks[0]
        call = "chrf.sentence_score" if finding["level"] == "sentence" else "chrf.corpus_score"
        assert call in code and "printf" not in code
        run = subprocess.run([sys.executable, "-c", code], env=_env(unclipped_sacrebleu), capture_output=True,
                             text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        printed = float(run.stdout.strip())
        assert printed == pytest.approx(float(finding["actual"]), abs=1e-9)
        assert printed != pytest.approx(float(finding["expected"]), abs=1e-6)
        stated = re.search(r"# prints ([0-9.e+-]+); expected", code)
        assert stated and float(stated.group(1)) == pytest.approx(printed, abs=1e-9)
    # the block as one program prints both levels' values, in its order
    run = subprocess.run([sys.executable, "-c", blocks[0]], env=_env(unclipped_sacrebleu), capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert [float(x) for x in run.stdout.split()] == pytest.approx([float(f["actual"]) for f in doc["findings"]], abs=1e-9)

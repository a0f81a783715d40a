"""The committed nltk issue files hold (issue 31, "done when"): for each, its repro prints the
expected value on a copy of the installed nltk patched with that issue's patch ALONE (called
with its opt-in keyword), nltk's own doctests pass on that copy, and the combined patch does
both for every family; the divisor, F-averaging and corpus-averaging issues are definition
differences with opt-in patches, the whitespace issue a bug and a regression since 3.10.4."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from audit import upstream
from audit.patches.library_tests import run_tests
from audit.upstream.patching import apply_to_copy

REPORTS = Path(__file__).resolve().parent.parent / "reports"
DOC = json.loads((REPORTS / "audit.json").read_text(encoding="utf-8"))
NLTK = [f for f in DOC["findings"] if f["implementation"] == "nltk"]
FAMILIES = list(dict.fromkeys(f["family"] for f in NLTK))
DEFINITION = ["requested-order-divisor", "f-score-averaged", "corpus-macro-average"]


def _issue(family: str) -> str:
    return (REPORTS / "issues" / "nltk" / f"{family}.md").read_text(encoding="utf-8")


def _patch(family: str) -> dict:
    if family == "(combined)":
        entry = next(e for e in DOC["implementations"] if e["implementation"] == "nltk")
        return entry["combined_patch"]
    return next(f["patch"] for f in NLTK if f["family"] == family and f.get("patch"))


def _call(level: str, inputs: dict, keywords: dict) -> str:
    kw = "".join(f", {k}={v!r}" for k, v in keywords.items() if level == "corpus" or k != "micro_average")
    if level == "sentence":
        return (f"from nltk.translate.chrf_score import sentence_chrf\n"
                f"print(sentence_chrf({inputs['references'][0]!r}, {inputs['hypothesis']!r}{kw}))")
    refs = [r[0] for r in inputs["references"]]
    return f"from nltk.translate.chrf_score import corpus_chrf\nprint(corpus_chrf({refs!r}, {inputs['hypotheses']!r}{kw}))"


def _run(code: str, root=None) -> str:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if root is not None:
        env["PYTHONPATH"] = str(root)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_the_issues_say_bug_or_definition_difference_and_the_regression():
    assert sorted(FAMILIES) == sorted(DEFINITION + ["whitespace-set-white-space"])
    for family in DEFINITION:
        text = _issue(family)
        assert text.split("\n\n")[1].startswith("This is a definition difference, not a bug against nltk's documentation")
        assert "the default is unchanged" in text and "the default would" in text
    ws = _issue("whitespace-set-white-space")
    assert ws.splitlines()[0].endswith("(regression since 3.10.4)")
    assert ws.split("\n\n")[1].startswith("This breaks what nltk documents")
    assert "**Regression since 3.10.4 (3.10.3 correct):**" in ws
    assert "up to 6x" in _issue("requested-order-divisor")


@pytest.mark.parametrize("family", FAMILIES + ["(combined)"])
def test_each_repro_holds_after_its_own_patch_and_nltks_doctests_pass(family, tmp_path):
    import nltk

    site = Path(nltk.__file__).parent.parent
    patch = _patch(family)
    ver = patch["verification"]
    assert patch["verified"] is True and ver["status"] == "verified"
    fams = ver["families"]
    assert fams == ([family] if family != "(combined)" else ver["families"]) and set(fams) <= set(FAMILIES)
    root = apply_to_copy(patch["diff"], site, tmp_path / "site")
    keywords = upstream.patch_options("nltk", fams)
    assert ver["options"] == keywords
    for fam in fams:
        r = ver["repros"][fam]
        code = _call(r["level"], r["inputs"], keywords)
        assert _run(code, root) == r["after_raw"]  # on the patched copy, with the opt-in keyword
        assert float(r["after_raw"]) * 100 == pytest.approx(r["expected"], abs=1e-9)  # the reference's value
        assert _run(_call(r["level"], r["inputs"], {})) == r["before_raw"]  # the released nltk
        if family != "(combined)":
            text = _issue(fam)
            assert f"prints `{r['after_raw']}` on the patched copy" in text
            assert f"where the released nltk prints `{r['before_raw']}`" in text
    before = run_tests(site, ["nltk/translate/chrf_score.py"])
    after = run_tests(root, ["nltk/translate/chrf_score.py"])
    assert (before["passed"], before["failed"]) == (after["passed"], after["failed"]) == (2, 0), (before, after)


def test_every_committed_issue_file_is_a_maintainers_issue():
    """Each committed issue file names chrF in its title, links only files that exist, and no
    issue is written for a family the document marks as not filed."""
    import re

    for doc_path in sorted(REPORTS.rglob("audit.json")):
        doc = json.loads(doc_path.read_text(encoding="utf-8"))
        for entry in doc["implementations"]:
            folder = doc_path.parent / "issues" / entry["report"][:-3]
            for f in doc["findings"]:
                if f["implementation"] == entry["implementation"] and (f.get("issue") or {}).get("filed") is False:
                    assert not (folder / f"{f['family']}.md").exists(), (doc_path, f["family"])
            for path in sorted(folder.glob("*.md")):
                text = path.read_text(encoding="utf-8")
                assert "chrF" in text.splitlines()[0], path
                for link in re.findall(r"\]\(([^)#]+\.md)\)", text):
                    assert (path.parent / link).is_file(), (path, link)

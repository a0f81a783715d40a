"""audit.upstream: patches against the installed nltk, applied to temporary copies only and
verified by ``audit.patches.verify_suggested`` (the patched copy audited and the
before repros replayed in a separate process); root causes found in the installed source;
repro snippets that run with the installed library alone and print the reported values."""

from __future__ import annotations

import ast
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from audit import upstream
from audit.enrich import enrich
from audit.patches import FIXED, INTRODUCED, STILL, verify_suggested
from tests.fixtures.report_examples import example_result, nltk_findings
from audit.upstream.patching import PatchError, apply_to_copy, apply_unified_diff, make_diff

FAMILIES = ["requested-order-divisor", "f-score-averaged", "corpus-macro-average", "whitespace-set-white-space"]

# family -> a probe printing True when the family is absent (fails on the installed nltk)
PROBES = {
    "requested-order-divisor": "from nltk.translate.chrf_score import sentence_chrf as s; print(s('c', 'c') == 1.0)",
    "f-score-averaged": (
        "from nltk.translate.chrf_score import sentence_chrf as s\n"
        "from reference_impl import sentence_score\n"
        "print(abs(100 * s('abcdefghij', 'abcdefgh') - float(sentence_score('abcdefgh', ['abcdefghij'], beta=3).score)) < 1e-9)"
    ),
    "corpus-macro-average": (
        "from nltk.translate.chrf_score import corpus_chrf, sentence_chrf\n"
        "r, h = ['abcdefxy', 'abcdefgh'], ['abcdefgh', 'abcdefghij']\n"
        "macro = sum(sentence_chrf(a, b) for a, b in zip(r, h)) / 2\n"
        "print(abs(corpus_chrf(r, h) - macro) > 1e-9)  # not a macro-average"
    ),
    "whitespace-set-white-space": "from nltk.translate.chrf_score import sentence_chrf as s; print(s('abcdef', 'abc\\x1cdef') == s('abcdef', 'abcdef'))",
}


def _installed_digest() -> str:
    import nltk

    root = Path(nltk.__file__).parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(p.read_bytes())
    return h.hexdigest()


def _run(code: str, pythonpath: Path | None = None) -> str:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.fixture(scope="module")
def digest_before():
    return _installed_digest()


@pytest.fixture(scope="module")
def before():
    """The before side: the findings of an audit of the installed nltk (the report fixture's
    real nltk repros, one per family)."""
    return [f.to_dict() for f in nltk_findings()]


def test_verification_budget_reaches_the_families():
    """The budget of the after audit (packaged cases, then 20 derandomized examples per
    level) finds every nltk family on the unpatched nltk, and none on sacreBLEU."""
    from audit.adapters import resolve
    from audit.collect.cases import default_cases_dir
    from audit.patches import VERIFY_EXAMPLES
    from audit.collect.runner import run_audit

    for name, want in (("nltk", set(FAMILIES)), ("sacrebleu", set())):
        adapters = resolve(name)
        try:
            res = run_audit(adapters, seed=0, max_examples=VERIFY_EXAMPLES, cases_dir=default_cases_dir(),
                            derandomize=True)
        finally:
            for a in adapters:
                a.close()
        assert {f.family for f in res.findings} == want, name


def test_probes_fail_on_installed_nltk():
    assert [_run(PROBES[f]) for f in FAMILIES] == ["False"] * 4


@pytest.mark.parametrize("family", FAMILIES)
def test_patch_verified_and_isolated(family, tmp_path, digest_before, before):
    diff = upstream.patch("nltk", family)
    assert diff and diff.startswith("--- a/nltk/translate/chrf_score.py\n+++ b/nltk/translate/chrf_score.py\n")
    v = verify_suggested("nltk", diff, before)
    assert v.error is None and v.fixes(family), v
    status = {s.family: s.status for s in v.families}
    assert status == {f: FIXED if f == family else STILL for f in FAMILIES}
    fixed = v.of(FIXED)[0]
    want = next(f for f in before if f["family"] == family)
    # the before repro, replayed on the patched copy, now scores what the reference says, or
    # (the corpus repro also shows f-score-averaged) diverges only as the other family
    assert fixed.repro == want["repro"] and fixed.before == want["actual"] and fixed.after_outcome == "value"
    if family == "corpus-macro-average":
        assert fixed.note == "its repro now diverges only as f-score-averaged, which the implementation had before"
        assert fixed.after != pytest.approx(want["expected"], abs=1e-6)
    else:
        assert fixed.note == "" and fixed.after == pytest.approx(want["expected"], abs=1e-9)
    assert v.files == ["nltk/translate/chrf_score.py"]
    # the family's own probe passes on the patched copy; the other probes are unchanged
    import nltk

    site = Path(nltk.__file__).parent.parent
    root = apply_to_copy(diff, site, tmp_path / "site")
    for other in FAMILIES:
        got = _run(PROBES[other], root)
        assert got == ("True" if other == family else "False"), (family, other)
    assert _run("import nltk; print(nltk.__file__)", root).startswith(str(root))
    assert _installed_digest() == digest_before  # the installed package is untouched


def test_no_before_repro_nothing_fixed():
    """Without the before findings there is no repro to call fixed: the families the after
    audit finds are replayed before the patch, diverge there too, and are "still present"."""
    v = verify_suggested("nltk", upstream.patch("nltk", "f-score-averaged"), [])
    assert v.error is None and not v.fixes("f-score-averaged")
    assert {s.family: s.status for s in v.families} == {f: STILL for f in FAMILIES if f != "f-score-averaged"}
    assert all(s.note == "the before search missed it; its repro diverged before too" for s in v.families)


def test_empty_or_foreign_diff_is_an_error_not_a_crash(before):
    for impl, diff, msg in (("nltk", "", "malformed diff: no file in the diff"),
                            ("mypkg:fn", "--- a/x\n+++ b/x\n", "not a file of any importable package")):
        v = verify_suggested(impl, diff, before)
        assert msg in v.error and not v.families and not v.fixes("whitespace-set-white-space")


def test_bad_patch_not_verified(before):
    # removing only U+0020 breaks every other whitespace, and leaves the repro's U+001C a
    # character: the repro scores the same wrong value, now named as the new family (issue
    # 19, item 5: a family is fixed when its repro scores what the reference says)
    diff = upstream.patch("nltk", "whitespace-set-white-space").replace('"".join(sent.split())', 'sent.replace(" ", "")')
    v = verify_suggested("nltk", diff, before)
    assert v.error is None
    assert not v.of(FIXED)
    [ws] = [s for s in v.families if s.family == "whitespace-set-white-space"]
    assert ws.status == STILL and ws.after == ws.before and ws.note.startswith(
        "its repro still diverges, now as whitespace-set-ascii-space")
    assert [s.family for s in v.of(INTRODUCED)] == ["whitespace-set-ascii-space"]
    introduced = v.of(INTRODUCED)[0]
    assert introduced.before_outcome == "value" and introduced.after != introduced.before  # replayed before: fine
    assert not v.fixes("whitespace-set-white-space")


def test_patch_that_does_not_apply(before):
    diff = upstream.patch("nltk", "requested-order-divisor").replace("    num_sents = len(hypotheses)", "    num_sents = 0")
    v = verify_suggested("nltk", diff, before)
    assert "does not apply" in v.error and not v.fixes("requested-order-divisor")


def test_the_applier_reproduces_each_suggested_patch(tmp_path):
    """chrf-audit applies diffs itself (no `patch` program, issue 19): each suggested patch,
    applied to a copy, gives a source whose diff against the installed one is that patch."""
    import nltk

    site = Path(nltk.__file__).parent.parent
    rel = "nltk/translate/chrf_score.py"
    for family in FAMILIES:
        diff = upstream.patch("nltk", family)
        a = apply_to_copy(diff, site, tmp_path / family)
        assert (a / rel).read_text() != (site / rel).read_text()
        assert make_diff(rel, (site / rel).read_text(), (a / rel).read_text()) == diff


def test_no_newline_at_end_of_file(tmp_path):
    """GNU diff's "\\ No newline at end of file" after a removed, an added or a context line."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("a\nb")
    diff = ("--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
            "\\ No newline at end of file\n")
    apply_unified_diff(diff, tmp_path)
    assert (tmp_path / "pkg" / "m.py").read_text() == "a\nc"
    diff = "--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -1,2 +1,3 @@\n-a\n+z\n+y\n c\n\\ No newline at end of file\n"
    apply_unified_diff(diff, tmp_path)
    assert (tmp_path / "pkg" / "m.py").read_text() == "z\ny\nc"


def test_apply_unified_diff_with_offset(tmp_path):
    old = "".join(f"line {i}\n" for i in range(1, 21))
    new = old.replace("line 10\n", "line ten\n")
    diff = make_diff("pkg/m.py", old, new)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/m.py").write_text("extra\nextra\n" + old)  # shifted by two lines
    apply_unified_diff(diff, tmp_path)
    assert (tmp_path / "pkg/m.py").read_text() == "extra\nextra\n" + new
    with pytest.raises(PatchError):
        apply_unified_diff(diff, tmp_path)  # already applied: context gone


def test_root_causes_found_in_installed_source():
    expect = {
        "requested-order-divisor": ("corpus_chrf", "num_ngram_sizes = len(ngram_fscores)"),
        "f-score-averaged": ("corpus_chrf", "ngram_fscores[n].append(fscore)"),
        "corpus-macro-average": ("corpus_chrf", "/ num_sents"),
        "whitespace-set-white-space": ("_preprocess", 'redos.sub(r"\\s+", "", sent)'),
    }
    for family, (function, text) in expect.items():
        rc = upstream.root_cause("nltk", family)
        assert rc["file"] == "nltk/translate/chrf_score.py" and rc["function"] == function
        assert text in Path(rc["path"]).read_text().splitlines()[rc["line"] - 1]
        assert f"{rc['line']}>" in rc["excerpt"]
    assert upstream.root_cause("nltk", "no-clipping") is None
    assert upstream.patch("nltk", "no-clipping") is None
    assert upstream.root_cause("sacrebleu", "corpus-macro-average")["function"] == "CHRF._aggregate_and_compute"


@pytest.mark.parametrize("family", FAMILIES)
def test_repro_snippet_runs_and_prints_actual(family):
    finding = next(f for f in example_result().findings if f.family == family)
    code = upstream.repro_snippet("nltk", finding)
    imported = {
        (n.module if isinstance(n, ast.ImportFrom) else a.name).split(".")[0]
        for n in ast.walk(ast.parse(code)) if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in (n.names if isinstance(n, ast.Import) else [None])
    }
    assert imported == {"nltk"}
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    printed = proc.stdout.strip()
    assert printed == finding.minimal.actual_raw
    assert float(printed) * 100 == pytest.approx(finding.minimal.actual, abs=1e-9)


def test_repro_snippet_in_markdown_is_the_same(tmp_path):
    from audit.commands.writing import write_reports

    res = example_result()
    write_reports(enrich(res), tmp_path)
    md = (tmp_path / "nltk.md").read_text()
    blocks = [b.split("```", 1)[0] for b in md.split("```python\n")[1:]]
    snippets = [b for b in blocks if "print(score)" in b]
    assert len(snippets) == 4
    for f, code in zip(res.findings, snippets):
        assert code == upstream.repro_snippet("nltk", f)


def test_sacrebleu_snippet_runs():
    from audit.findings import Finding, Repro

    m = Repro("corpus", {"hypotheses": ["abc", "de"], "references": [["abc"], ["dx"]]}, 0.0, "0", None, None, "value")
    f = Finding("sacrebleu", "corpus-macro-average", "corpus", "t", {"beta": 2}, "", "", m)
    code = upstream.repro_snippet("sacrebleu", f)
    from sacrebleu.metrics import CHRF

    want = CHRF().corpus_score(["abc", "de"], [["abc", "dx"]]).score
    assert float(_run(code)) == want

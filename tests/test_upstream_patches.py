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
from audit.patches import FIXED, INTRODUCED, STILL, verdict, verify_suggested
from tests.fixtures.report_examples import example_result, nltk_findings
from audit.upstream.patching import PatchError, apply_to_copy, apply_unified_diff, make_diff

FAMILIES = ["requested-order-divisor", "f-score-averaged", "corpus-macro-average", "whitespace-set-white-space"]

DEFINITION = ["requested-order-divisor", "f-score-averaged", "corpus-macro-average"]
#: the patches (one per fix): the three definition differences' keywords, the whitespace bug
PATCHES = {"requested-order-divisor": DEFINITION, "whitespace-set-white-space": ["whitespace-set-white-space"]}
# family -> a probe printing True when the family is absent: it fails on the installed nltk,
# and on a patched copy passes for the patched families, called with the patch's keywords
KEYWORDS = 'effective_order=True, order_average="precision_recall"'


def probe(family: str, keywords: str = "") -> str:
    kw = f", {keywords}" + (', average="micro"' if keywords else "") if keywords else ""
    sent_kw = f", {keywords}" if keywords else ""
    return {
        "requested-order-divisor": f"from nltk.translate.chrf_score import sentence_chrf as s; print(s('c', 'c'{sent_kw}) == 1.0)",
        "f-score-averaged": (
            "from nltk.translate.chrf_score import sentence_chrf as s\n"
            "from reference_impl import sentence_score\n"
            f"print(abs(100 * s('abcdefghij', 'abcdefgh'{sent_kw}) - float(sentence_score('abcdefgh', ['abcdefghij'], beta=3).score)) < 1e-9)"
        ),
        "corpus-macro-average": (
            "from nltk.translate.chrf_score import corpus_chrf, sentence_chrf\n"
            "r, h = ['abcdefxy', 'abcdefgh'], ['abcdefgh', 'abcdefghij']\n"
            "macro = sum(sentence_chrf(a, b) for a, b in zip(r, h)) / 2\n"
            f"print(abs(corpus_chrf(r, h{kw}) - macro) > 1e-9)  # not a macro-average"
        ),
        "whitespace-set-white-space": f"from nltk.translate.chrf_score import sentence_chrf as s; print(s('abcdef', 'abc\\x1cdef'{sent_kw}) == s('abcdef', 'abcdef'))",
    }[family]


PROBES = {f: probe(f) for f in FAMILIES}


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
    from audit.settings.options import packaged_cases
    from audit.patches import VERIFY_EXAMPLES
    from audit.collect.runner import run_audit

    for name, want in (("nltk", set(FAMILIES)), ("sacrebleu", set())):
        adapters = resolve(name)
        try:
            res = run_audit(adapters, seed=0, max_examples=VERIFY_EXAMPLES, cases_dir=packaged_cases(),
                            derandomize=True)
        finally:
            for a in adapters:
                a.close()
        assert {f.family for f in res.findings} == want, name


def test_probes_fail_on_installed_nltk():
    assert [_run(PROBES[f]) for f in FAMILIES] == ["False"] * 4


@pytest.mark.parametrize("head", list(PATCHES))
def test_patch_verified_and_isolated(head, tmp_path, digest_before, before):
    """Each patch alone: verified by the one judge (its families fixed, none introduced, each
    family's repro scores the reference's value, the default unchanged for an opt-in patch,
    nltk's doctests pass before and after and its added doctest lines fail before, nltk's
    gates leave the patched file unchanged, the record's check holds)."""
    from audit.enrich.verification import _check
    from audit.patches import summary

    family_set = PATCHES[head]
    diff = upstream.patch("nltk", head)
    assert diff and diff.startswith("--- a/nltk/translate/chrf_score.py\n+++ b/nltk/translate/chrf_score.py\n")
    assert all(upstream.patch("nltk", f) == diff for f in family_set)  # one patch, one issue
    options = upstream.patch_options("nltk", family_set)
    v = verify_suggested("nltk", diff, before, families=family_set, options=options,
                         default_kept=family_set if options else [], candidates=upstream.issue_candidates("nltk"),
                         gates=upstream.gates("nltk"), check=_check("nltk", family_set))
    got = summary(v, family_set)
    assert (got["verified"], got["status"]) == (True, "verified"), got
    assert {s.family: s.status for s in v.families} == {f: FIXED if f in family_set else STILL for f in FAMILIES}
    for family in family_set:
        chk = v.repro_checks[family]
        want = next(f for f in before if f["family"] == family)
        assert chk["holds"] and chk["after"] == pytest.approx(chk["expected"], abs=1e-9)
        # the fixture's corpus-macro-average repro shows f-score-averaged too: the patch fixes both
        assert chk["minimal"] and chk["before"] == want["actual"] and chk["expected"] == pytest.approx(want["expected"])
    lt = v.library_tests
    assert lt["files"] == ["nltk/translate/chrf_score.py"] and lt["broken"] == 0
    added = 1 if head == "whitespace-set-white-space" else 0  # _preprocess's new docstring
    assert (lt["before"]["passed"], lt["before"]["failed"], lt["after"]["passed"], lt["after"]["failed"]) == (
        2, 0, 2 + added, 0)
    assert lt["regression"]["added"] >= 1 and lt["regression"]["failing_before"] >= 1  # the regression test
    assert [g["result"] for g in v.gates["after"]] == ["passed"] * len(upstream.gates("nltk").gates)
    if head == "whitespace-set-white-space":
        assert options == {} and v.default_check is None and v.check is None  # a bug: the default changes
    else:
        assert v.options == options and v.default_check == {"unchanged": True, "changed": []}
        assert v.check["holds"] and len(v.check["output"]) == 4
    assert v.files == ["nltk/translate/chrf_score.py"]
    # the families' own probes pass on the patched copy called with the keywords; without them,
    # an opt-in patch leaves every probe as it was
    import nltk

    site = Path(nltk.__file__).parent.parent
    root = apply_to_copy(diff, site, tmp_path / "site")
    for other in FAMILIES:
        assert _run(probe(other, KEYWORDS if options and other in family_set else ""), root) == (
            "True" if other in family_set else "False"), (head, other)
    if options:
        assert [_run(PROBES[f], root) for f in family_set] == ["False"] * 3  # the default is today's behaviour
    assert _run("import nltk; print(nltk.__file__)", root).startswith(str(root))
    assert _installed_digest() == digest_before  # the installed package is untouched


def test_no_before_repro_nothing_fixed():
    """Without the before findings there is no repro to call fixed: the families the after
    audit finds are replayed before the patch, diverge there too, and are "still present"."""
    v = verify_suggested("nltk", upstream.patch("nltk", "f-score-averaged"), [],
                         options={"order_average": "precision_recall"}, library_tests=False)
    assert v.error is None and not any(s.status == FIXED for s in v.families)
    assert {s.family: s.status for s in v.families} == {f: STILL for f in FAMILIES if f != "f-score-averaged"}
    assert all(s.note == "the before search missed it; its repro diverged before too" for s in v.families)


def test_empty_or_foreign_diff_is_an_error_not_a_crash(before):
    for impl, diff, msg in (("nltk", "", "malformed diff: no file in the diff"),
                            ("mypkg:fn", "--- a/x\n+++ b/x\n", "not a file of any importable package")):
        v = verify_suggested(impl, diff, before)
        assert msg in v.error and not v.families
        assert verdict(v, ["whitespace-set-white-space"]) == {"verified": False, "status": f"not verified: {v.error}"}


def test_bad_patch_not_verified(before):
    # removing only U+0020 breaks every other whitespace, and leaves the repro's U+001C a
    # character: the repro scores the same wrong value, now named as the new family (issue
    # 19, item 5: a family is fixed when its repro scores what the reference says)
    diff = upstream.patch("nltk", "whitespace-set-white-space").replace('"".join(sent.split())', 'sent.replace(" ", "")')
    v = verify_suggested("nltk", diff, before, library_tests=False)
    assert v.error is None
    assert not v.of(FIXED)
    [ws] = [s for s in v.families if s.family == "whitespace-set-white-space"]
    assert ws.status == STILL and ws.after == ws.before and ws.note.startswith(
        "its repro still diverges, now as whitespace-set-ascii-space")
    assert [s.family for s in v.of(INTRODUCED)] == ["whitespace-set-ascii-space"]
    introduced = v.of(INTRODUCED)[0]
    assert introduced.before_outcome == "value" and introduced.after != introduced.before  # replayed before: fine
    assert verdict(v, ["whitespace-set-white-space"])["status"] == "not verified: it introduces whitespace-set-ascii-space"


def test_patch_that_does_not_apply(before):
    diff = upstream.patch("nltk", "requested-order-divisor")
    assert "\n-    reference, hypothesis, min_len=1, max_len=6" in diff
    diff = diff.replace("\n-    reference, hypothesis, min_len=1, max_len=6", "\n-    reference, hypothesis, min_len=2, max_len=6")
    v = verify_suggested("nltk", diff, before)
    assert "does not apply" in v.error and not verdict(v, ["requested-order-divisor"])["verified"]


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


def test_the_two_nltk_patches_stack_in_either_order(monkeypatch):
    """The definition keywords' patch and the whitespace fix touch no common line: each applies
    after the other, both orders give one text, which is the source with both fixes
    (``nltk_patches.edits`` of all four); a patch that rewrites a line the other removes does
    not stack (the check can fail)."""
    from audit.upstream import nltk_patches
    from audit.upstream._base import apply_edits

    got = upstream.stacking("nltk", FAMILIES)
    assert got == {"patches": [DEFINITION, ["whitespace-set-white-space"]], "orders": 2, "applies": True,
                   "same": True}
    rel, original, both = apply_edits("nltk.translate.chrf_score", nltk_patches.edits(FAMILIES))
    from audit.upstream.patching import apply_diff_text

    text = original
    for head in PATCHES:
        text = apply_diff_text(upstream.patch("nltk", head), text)
    assert text == both
    real = upstream.patch
    line = "    reference, hypothesis, min_len=1, max_len=6, beta=3.0, ignore_whitespace=True\n"
    clash = make_diff(rel, original, original.replace(line, line.replace("min_len=1", "min_len=2"), 1))
    monkeypatch.setattr(upstream, "patch", lambda impl, fam: clash if fam == "whitespace-set-white-space" else real(impl, fam))
    assert upstream.stacking("nltk", FAMILIES) == {"patches": [DEFINITION, ["whitespace-set-white-space"]],
                                                   "orders": 2, "applies": False, "same": False}


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

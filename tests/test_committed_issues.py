"""Every committed upstream issue file holds, read from its own text (issue 42, items 1 and 2).

For each ``reports/**/issues/*/*.md`` the test takes the file apart as a maintainer would copy
it: its python repros, the diff, the repros "on the patched copy", the check and what it prints,
the "Checked" paragraph.  It runs each repro on the installed (released) library and compares
every "# prints" comment; applies the diff to a temporary copy of the installed package
(``audit.upstream.patching``) and runs the repros and the check there; compares the values the
"Checked" paragraph quotes, its doctest counts (the patched module's doctests, run here) and the
gates it names (the library's formatter and linters, run here on the patched file); and applies
the patches the file says it stacks with, in every order.  chrF++.py's file (GPL, never
committed: its repros run the script's own command line) is run where ``CHRFPP_SCRIPT`` names a
copy; torchmetrics' where it is installed (CI installs it, ``.ci/run``).

Item 2: in each report set no two issue files carry one fix (the same diff), no file is written
for a family its library's record says upstream already fixed, and the files are exactly one per
fix of the document (``audit.render.issue_units``)."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from audit.upstream.patching import apply_diff_text, apply_to_copy

REPORTS = Path(__file__).resolve().parent.parent / "reports"
#: every committed issue file but the survey's: each of those calls a package only its own survey
#: environment holds (15 of them, built by `chrf-audit survey`, 29 min from an empty cache), so
#: CI cannot run them (tests/test_survey.py reads a planted survey's issue file and its snippet's call)
FILES = sorted(p for p in REPORTS.rglob("*.md") if p.parent.parent.name == "issues" and p.name != "all-families.md"
               and "survey" not in p.relative_to(REPORTS).parts)
FENCE = re.compile(r"^(```|~~~~)(\w*)\n(.*?)^\1$", re.M | re.S)
PRINTS = re.compile(r"# prints (.*?)(?:; expected .*|; the definition gives .*)?$")


def _blocks(text: str) -> list[dict]:
    """Each fenced block with its language, code, the line before it and whether it comes
    after the "## Suggested patch" heading."""
    out, last = [], 0
    patch_at = text.find("\n## Suggested patch\n")
    for m in FENCE.finditer(text):
        before = [line for line in text[last:m.start()].splitlines() if line.strip()]
        out.append({"lang": m.group(2), "code": m.group(3), "label": before[-1] if before else "",
                    "after_patch": patch_at != -1 and m.start() > patch_at})
        last = m.end()
    return out


def _prints(code: str) -> list[str]:
    """The values the "# prints" comments of a block promise, in order."""
    return [PRINTS.search(line).group(1) for line in code.splitlines()
            if line.startswith(("print(", "python3 ")) and PRINTS.search(line)]


def _run(code: str, root=None, timeout: float = 600) -> list[str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    if root is not None:
        env["PYTHONPATH"] = str(root)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=timeout,
                          cwd=str(REPORTS.parent))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip().splitlines()


class Issue:
    """One committed issue file, taken apart."""

    def __init__(self, path: Path):
        self.path, self.text = path, path.read_text(encoding="utf-8")
        blocks = _blocks(self.text)
        self.diffs = [b["code"] for b in blocks if b["lang"] == "diff"]
        self.repros = [b["code"] for b in blocks if b["lang"] == "python" and not b["after_patch"] and _prints(b["code"])]
        self.shell = [b["code"] for b in blocks if b["lang"] == "sh"]
        self.after = [b["code"] for b in blocks if b["label"].startswith("On the patched copy, with the patch's keywords")]
        self.check = [b["code"] for b in blocks if b["label"].startswith("The check, run on the patched copy")]
        self.check_output = [b["code"] for b in blocks if b["lang"] == "text" and b["label"] == "It prints:"]
        self.checked = [line for line in self.text.splitlines() if "**Checked** on a patched copy" in line]

    @property
    def package(self) -> str:
        return self.diffs[0].split("\n", 1)[0].split("a/", 1)[1].split("/")[0]

    @property
    def module_file(self) -> str:
        return self.diffs[0].split("\n", 1)[0].split("a/", 1)[1].strip()


def _site(package: str) -> Path:
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None:
        pytest.skip(f"{package} is not installed (an optional extra; CI installs it)")
    return Path(list(spec.submodule_search_locations)[0]).parent


def _patched(issue: Issue, tmp_path: Path) -> Path:
    assert len(issue.diffs) == 1, f"{issue.path}: one diff per issue (one fix), not {len(issue.diffs)}"
    return apply_to_copy(issue.diffs[0], _site(issue.package), tmp_path / "site")


def _claims(issue: Issue) -> tuple[list[str], list[str]]:
    """The "Checked" paragraphs' values: printed on the patched copy, printed by the release."""
    after, before = [], []
    for para in issue.checked:
        after += re.findall(r"prints `([^`]*)` on the patched copy", para)
        before += re.findall(r"where the released \S+ prints(?:, without the keywords,)? `([^`]*)`", para)
    return after, before


@pytest.mark.parametrize("path", [p for p in FILES if "chrfpp" not in p.parts], ids=lambda p: str(p.relative_to(REPORTS)))
def test_every_claim_of_an_issue_file_is_what_its_own_snippets_print(path, tmp_path):
    issue = Issue(path)
    assert issue.repros, "an issue without a repro"
    released = [line for code in issue.repros for line in _run(code)]
    promised = [v for code in issue.repros for v in _prints(code)]
    assert released == promised  # every "# prints" of the repros, on the released library
    if not issue.diffs:
        return
    root = _patched(issue, tmp_path)
    after_claims, before_claims = _claims(issue)
    assert before_claims == released  # what the paragraph says the released library prints
    on_copy = [line for code in issue.repros for line in _run(code, root)]
    if issue.after:  # an opt-in patch: the repros keep their scores; with its keywords, they print these
        assert on_copy == released  # the default is unchanged
        got = [line for code in issue.after for line in _run(code, root)]
        assert got == [v for code in issue.after for v in _prints(code)]
        assert after_claims == got
    else:  # a fix: the repro itself prints what the paragraph says
        assert after_claims == on_copy
    if issue.check:
        assert _run(issue.check[0], root) == issue.check_output[0].strip().splitlines()


@pytest.mark.parametrize("path", [p for p in FILES if "chrfpp" not in p.parts], ids=lambda p: str(p.relative_to(REPORTS)))
def test_the_library_tests_and_gates_the_checked_paragraph_names_pass(path, tmp_path):
    issue = Issue(path)
    if not issue.diffs:
        pytest.skip("no patch")
    root = _patched(issue, tmp_path)
    site = _site(issue.package)
    para = " ".join(issue.checked)
    counts = re.search(r"(\d+) passed and (\d+) failed on the released package, (\d+) passed and (\d+) failed on the "
                       r"patched copy", para)
    assert counts, para
    assert _doctests(site, issue.module_file) == (int(counts.group(1)), int(counts.group(2)))
    assert _doctests(root, issue.module_file) == (int(counts.group(3)), int(counts.group(4))) and counts.group(4) == "0"
    added = re.search(r"of the (\d+) doctest examples? the patch adds, (\d+) fails? on the released package", para)
    if added:
        mine, base = _examples(root / issue.module_file, issue.module_file), _examples(site / issue.module_file,
                                                                                     issue.module_file)
        assert (mine[0] - base[0], mine[1] - base[1]) == (int(added.group(1)), int(added.group(2)))
    from audit.patches.gates import run_gates

    gates = _gates_of(issue.package)
    named = re.search(r"gates \(.*?\): (.*?) leave the patched file unchanged", para)
    assert gates is not None and named, para
    result = run_gates(gates, site, root, [issue.module_file])
    assert [g["result"] for g in result["after"]] == ["passed"] * len(gates.gates), result["after"]
    assert named.group(1).split(", ") == [g.name for g in gates.gates]


def _gates_of(package: str):
    from audit.upstream.registry import libraries

    lib = next(lib for lib in libraries().values() if lib.package == package)
    return lib.knowledge.gates


def _doctests(root: Path, rel: str) -> tuple[int, int]:
    """(passed, failed) of ``pytest --doctest-modules`` on the module under ``root``."""
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                          "-c", os.devnull, "--doctest-modules", str(root / rel)],
                         capture_output=True, text=True, timeout=600, cwd=str(root),
                         env=dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1",
                                  PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"))
    passed = re.search(r"(\d+) passed", out.stdout)
    failed = re.search(r"(\d+) failed", out.stdout)
    return (int(passed.group(1)) if passed else 0, int(failed.group(1)) if failed else 0)


_EXAMPLES = r'''
import ast, doctest, importlib, json, sys
source = open(sys.argv[1], encoding="utf-8").read()
released = importlib.import_module(sys.argv[2])
total = failed = 0
for node in [ast.parse(source)] + [n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]:
    doc = ast.get_docstring(node, clean=False)
    if doc:
        test = doctest.DocTestParser().get_doctest(doc, dict(vars(released)), "x", sys.argv[1], 0)
        for ex in test.examples:
            r = doctest.DocTestRunner(optionflags=0).run(doctest.DocTest([ex], test.globs, "x", "f", 0, None),
                                                        out=lambda s: None)
            total, failed = total + 1, failed + r.failed
print(json.dumps([total, failed]))
'''


def _examples(file: Path, rel: str) -> tuple[int, int]:
    """(examples, failing against the RELEASED module) of a module file's doctests."""
    module = rel[:-len(".py")].replace("/", ".")
    total, failed = json.loads(_run(_EXAMPLES.replace("sys.argv[1]", repr(str(file))).replace("sys.argv[2]",
                                                                                               repr(module)))[-1])
    return total, failed


@pytest.mark.parametrize("path", [p for p in FILES if "It stacks with the patch of" in p.read_text(encoding="utf-8")],
                         ids=lambda p: str(p.relative_to(REPORTS)))
def test_the_patches_a_file_stacks_with_apply_in_every_order(path):
    issue = Issue(path)
    line = next(line for line in issue.text.splitlines() if line.startswith("It stacks with the patch of"))
    others = [Issue(path.parent / name) for name in re.findall(r"\]\(([^)]+\.md)\)", line)]
    diffs = [issue.diffs[0]] + [o.diffs[0] for o in others]
    original = (_site(issue.package) / issue.module_file).read_text(encoding="utf-8")
    results = set()
    orders = list(itertools.permutations(diffs))
    for order in orders:
        text = original
        for diff in order:
            text = apply_diff_text(diff, text)  # raises PatchError on a conflict
        results.add(text)
    assert len(results) == 1
    assert f"in each of the {len(orders)} orders" in line


def _units(doc_path: Path) -> list[dict]:
    from audit.render.issue_units import issue_units

    return issue_units(json.loads(doc_path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("doc_path", sorted(REPORTS.rglob("audit.json")), ids=lambda p: str(p.relative_to(REPORTS)))
def test_one_file_per_fix_and_nothing_upstream_already_fixed(doc_path):
    from audit import upstream

    units = _units(doc_path)
    on_disk = {p.relative_to(doc_path.parent).as_posix() for p in doc_path.parent.glob("issues/*/*.md")}
    combined = {p for p in on_disk if p.endswith("/all-families.md")}
    assert on_disk - combined == {u["path"] for u in units}
    diffs = [Issue(doc_path.parent / u["path"]).diffs for u in units]
    flat = [d[0] for d in diffs if d]
    assert len(flat) == len(set(flat)), "two issue files carry one fix"
    for unit in units:
        for entry, group, _ in unit["sections"]:
            know = upstream.knowledge(entry["implementation"])
            note = (know.notes if know is not None else {}).get(group[0]["family"])
            assert note is None or not note.fixed_upstream, (unit["path"], group[0]["family"])


def test_chrfpp_has_one_issue_for_its_one_root_cause():
    """chrF++.py's exception and its unexplained row are one cause (the evidence is in the
    file: the unexplained score is exactly what reusing the previous segment's counts gives)."""
    files = sorted((REPORTS / "chrfpp" / "issues").rglob("*.md"))
    assert [p.name for p in files] == ["exception.md"]
    text = files[0].read_text(encoding="utf-8")
    assert "The same root cause also shows as `unexplained`" in text
    assert "exactly the definition's score of the statistics where a segment no reference scores above 0" in text


@pytest.mark.skipif(not os.path.isfile(os.environ.get("CHRFPP_SCRIPT", "")),
                    reason="the GPL chrF++.py script is never shipped: set CHRFPP_SCRIPT to the path of a copy")
def test_chrfpp_issue_commands_print_what_the_file_says(tmp_path):
    issue = Issue(REPORTS / "chrfpp" / "issues" / "chrFpp.py" / "exception.md")
    script = Path(os.environ["CHRFPP_SCRIPT"])
    (tmp_path / "chrF++.py").write_bytes(script.read_bytes())
    for code in issue.shell:
        out = subprocess.run(["bash", "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        said = [line for line in code.splitlines() if line.startswith("# prints ") or line.startswith("# raises ")]
        for line in said:
            if line.startswith("# raises "):
                assert line[len("# raises "):].split(":")[0] in out.stderr
            else:
                label_value = line[len("# prints "):].split(";")[0]
                assert label_value.split()[-1] in out.stdout, (code, out.stdout)


def test_nltk_and_torchmetrics_have_one_file_per_fix():
    """nltk: the three definition differences' keywords (one patch, a section per family) and the
    whitespace fix; torchmetrics: its one new bug, both configurations in one file, nothing for
    the bug upstream already fixed (#3481) and no combined patch redoing it."""
    nltk = sorted(p.name for p in (REPORTS / "issues" / "nltk").glob("*.md"))
    assert nltk == ["requested-order-divisor.md", "whitespace-set-white-space.md"]
    text = (REPORTS / "issues" / "nltk" / "requested-order-divisor.md").read_text(encoding="utf-8")
    for family in ("requested-order-divisor", "f-score-averaged", "corpus-macro-average"):
        assert f"### `{family}`: " in text
    tm = sorted(p.relative_to(REPORTS / "torchmetrics").as_posix() for p in (REPORTS / "torchmetrics").rglob("issues/*/*.md"))
    assert tm == ["issues/torchmetrics-chrf/hypothesis-ngrams-where-reference-has-none.md"]
    text = (REPORTS / "torchmetrics" / tm[0]).read_text(encoding="utf-8")
    assert "### torchmetrics-chrf: n_char_order=6, n_word_order=0" in text
    assert "### torchmetrics-chrf++: n_char_order=6, n_word_order=2" in text
    assert "Lightning-AI/torchmetrics#3481" in text  # the merged fix it overlaps, cited where it overlaps
    for report in ("torchmetrics-chrf.md", "torchmetrics-chrfpp.md"):
        assert f"({tm[0]})" in (REPORTS / "torchmetrics" / report).read_text(encoding="utf-8")

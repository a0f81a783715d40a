"""The differential runner finds and names every planted bug, and nothing else.

For every row of ``tests/planted/catalogue.py`` (see its README) the isolated adapter is audited with
``run_audit(..., seed=0, derandomize=True, cases_dir=None)`` -- the search alone, no curated
case helps it -- and:

* a planted bug yields a finding of its ``family`` whose minimal repro is small, replays
  to the same family on a fresh checker, and whose explanation is *exactly* ``[FAMILY]``
  (it holds for every row today; ``EXPLANATION_EXCEPTIONS`` would document one that
  needed a compound explanation, and is empty);
* no other family appears, except the ones listed in ``ALLOWED_EXTRA`` (may appear, need
  not);
* a correct row (``correct_*``) yields no finding at all.

Budgets: ``MAX_EXAMPLES`` is per row, a margin above the smallest budget at which the
derandomized search finds the family (most rows find it at 5).  A run's cost is
dominated by fixed parts (shrinking, the metamorphic searches, conformance), not by the
budget.  The ``timeout`` row sleeps 600 s when triggered, so its adapter's per-call
timeout is 0.25 s; it still costs ~40 timeouts (one worker restart each), ~15 s.

The audits run in a pool of two worker processes (the machine has two cores), submitted
when the first test asks for one: only the audits of the selected tests are run, so
``pytest -k crash`` runs one audit.
"""

from __future__ import annotations

import importlib
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import pytest

from audit.diagnose.families import key_families

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # ``tests.planted`` is imported by name, here and in the workers
    sys.path.insert(0, str(ROOT))

import tests.planted as planted_pkg  # noqa: E402
import tests.planted_unknown as unknown_pkg  # noqa: E402

from audit.diagnose.classify import MIN_PREDICTED
from audit.diagnose.deviations import DEVIATIONS

ALL = planted_pkg.names()
MODELLED = {d.id for d in DEVIATIONS if d.stage in ("text", "score", "output")}
PLANTED = [m for m in ALL if not m.startswith("correct_")]
CORRECT = [m for m in ALL if m.startswith("correct_")]
#: Out-of-catalogue bugs (tests/planted_unknown): no family describes them.
UNKNOWN = unknown_pkg.modules()

#: Hypothesis examples per level; rows not listed use DEFAULT_MAX_EXAMPLES.
DEFAULT_MAX_EXAMPLES = 10
MAX_EXAMPLES = {
    # found at 40, 60, 70, 100, not at 10, 20, 50: a case-only difference is rare among the
    # drawn inputs; the CLI default budget (100) is the margin
    "case_folded": 100,
    # found at 5, 40, 50, 60, 70, 100, not at 10 or 20: a word with punctuation at both ends is rare
    "word_punctuation_split_both": 60,
    # found at 40, 50, 60, 70, 100, not at 10 or 30: U+FEFF is one of the rare look-alikes
    # the strategies draw
    "format_characters_deleted": 60,
    # found at 20 and 40, not at 10 (which the lone-surrogate exception fills)
    "utf16_code_units": 20,
    # the outcome rows trigger on the first (simplest) input: keep them cheap
    "crash": 5,
    "exception": 5,
    "invalid_output": 5,
    "timeout": 3,
    # an out-of-range value is classified only after an exhaustive explain() finds no
    # model, so each shrink step of a corpus repro is slow: 10.5 s at 10, 2.3 s at 5
    "out_of_range": 5,
}
#: Per-call timeout of the adapter (seconds).  the ``timeout`` row sleeps 600 s on an empty hypothesis.
TIMEOUTS = {"timeout": 0.25, "crash": 1.0}
DEFAULT_TIMEOUT = 5.0

#: Families that may appear besides the planted one.  Each entry is a known runner issue, not
#: a property of the planted row (reported to the lead; remove the entry once fixed).
ALLOWED_EXTRA: dict[str, set[str]] = {
    # no runner issue today: the runner skips the metamorphic relations once calls disagree
    # (nondeterminism), hang or crash, and leaves violations a model explains to the
    # differential search.
    #
    # A second, real bug of the row: str.encode("utf-8") / ("utf-16-le") raises on a lone
    # surrogate, which the search draws for Python callables (a Rust- or C-backed chrF fails
    # the same way).
    "utf8_bytes": {"exception"},
    "utf16_code_units": {"exception"},
}
#: row -> the explanation its finding has, where it is not exactly [FAMILY] (none today).
EXPLANATION_EXCEPTIONS: dict[str, list[str]] = {}

#: A minimal repro is small: total characters over the hypotheses and references.
MAX_REPRO_CHARS = 16
#: Outcome families shrink to the simplest input of all.
EMPTY_SENTENCE = {"hypothesis": "", "references": [""]}
SHRINKS_TO_EMPTY = {"crash", "exception", "invalid_output", "timeout"}

DETERMINISM_PLANTED = "no_clipping"
NLTK_MAX_EXAMPLES = 40  # ~12 s: shrinking dominates (30 costs the same)


# ----------------------------------------------------------------------------- audits
# (module-level functions: they run in the pool's worker processes)


def _adapters(name: str, timeout: float, package: str = "tests.planted"):
    from audit.adapters import resolve

    if package == "tests.planted":
        row = planted_pkg.get(name)
        return resolve(row.spec("sentence"), corpus_impl=row.spec("corpus"), overrides=row.claims, timeout=timeout)
    mod = importlib.import_module(f"{package}.{name}")
    sentence = f"{package}.{name}:sentence" if hasattr(mod, "sentence") else None
    corpus = f"{package}.{name}:corpus" if hasattr(mod, "corpus") else None
    return resolve(sentence, corpus_impl=corpus, overrides=mod.CLAIMS, timeout=timeout)


def _audit(adapters, max_examples: int):
    from audit.collect.runner import run_audit

    try:
        return run_audit(adapters, seed=0, max_examples=max_examples, cases_dir=None, derandomize=True)
    finally:
        for a in adapters:
            a.close()


def audit_planted(name: str) -> dict:
    """Findings of one row, each with the key its minimal repro gives on a fresh checker."""
    from audit.collect.checker import Checker

    start = time.monotonic()
    row = planted_pkg.get(name)
    timeout = TIMEOUTS.get(name, DEFAULT_TIMEOUT)
    result = _audit(_adapters(name, timeout), MAX_EXAMPLES.get(name, DEFAULT_MAX_EXAMPLES))
    findings = result.adapters[0].findings
    replays = {}
    if findings:
        [adapter] = _adapters(name, timeout)
        try:
            checker = Checker(adapter, result.tolerance)
            for f in findings:
                if f.origin == "search" and not f.family.startswith("metamorphic-"):
                    if f.level == row.level or f.family not in replays:
                        replays[f.family] = checker.check(f.level, f.minimal.inputs).key
        finally:
            adapter.close()
    return {"findings": findings, "replays": replays, "elapsed": time.monotonic() - start}


def audit_unknown(name: str) -> list:
    """Findings of one out-of-catalogue module at the default budget."""
    return _audit(_adapters(name, DEFAULT_TIMEOUT, "tests.planted_unknown"), DEFAULT_MAX_EXAMPLES).findings


def _fingerprint(result) -> list[tuple]:
    return [(s.implementation, f.family, f.level, tuple(f.explanation), repr(f.minimal.inputs),
             f.minimal.actual, f.minimal.outcome)
            for s in result.adapters for f in s.findings]


def audit_twice_in_process(name: str) -> tuple[list, list]:
    """The same seed twice in one process (no state may leak from one audit into the next)."""
    return tuple(_fingerprint(_audit(_adapters(name, DEFAULT_TIMEOUT), 10)) for _ in range(2))


def audit_nltk() -> list:
    """One nltk audit (run in two processes: different PYTHONHASHSEEDs, same findings)."""
    from audit.adapters import resolve

    return _fingerprint(_audit(resolve("nltk"), NLTK_MAX_EXAMPLES))


# ---------------------------------------------------------------------- the job pool

#: job key -> (function, args); the longest jobs first, so the pool ends evenly.
JOBS = {("nltk", 1): (audit_nltk, ()), ("nltk", 2): (audit_nltk, ()),
        ("twice", DETERMINISM_PLANTED): (audit_twice_in_process, (DETERMINISM_PLANTED,))}
JOBS.update({("audit", "timeout"): (audit_planted, ("timeout",))})
JOBS.update({("audit", m): (audit_planted, (m,)) for m in ALL if m != "timeout"})
JOBS.update({("unknown", m): (audit_unknown, (m,)) for m in UNKNOWN})


#: test function -> the jobs it reads (the parametrized ones read ("audit", name)).
FIXED_JOBS = {
    "test_same_seed_same_findings_planted": [("twice", DETERMINISM_PLANTED)],
    "test_same_seed_same_findings_nltk": [("nltk", 1), ("nltk", 2)],
}


def _jobs_of(item) -> list:
    if getattr(item, "originalname", None) in FIXED_JOBS:
        return FIXED_JOBS[item.originalname]
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "unknown" in callspec.params:
        return [("unknown", callspec.params["unknown"])]
    if callspec is not None and "name" in callspec.params:
        return [("audit", callspec.params["name"])]
    return []


class _Pool:
    def __init__(self, session):
        self.session = session
        self.executor = None
        self.futures = {}

    def result(self, key):
        if self.executor is None:
            me = sys.modules[__name__]
            wanted = {k for item in self.session.items if getattr(item, "module", None) is me for k in _jobs_of(item)}
            self.executor = ProcessPoolExecutor(max_workers=2, mp_context=get_context("spawn"))
            for k, (fn, args) in JOBS.items():  # in JOBS order: longest first
                if k in wanted:
                    self.futures[k] = self.executor.submit(fn, *args)
        if key not in self.futures:  # not foreseen (e.g. selected by an unusual plugin)
            fn, args = JOBS[key]
            self.futures[key] = self.executor.submit(fn, *args)
        return self.futures[key].result(timeout=600)

    def close(self):
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def pool(request):
    p = _Pool(request.session)
    yield p
    p.close()


# ----------------------------------------------------------------------------- tests


def _chars(inputs: dict) -> int:
    if "hypothesis" in inputs:
        texts = [inputs["hypothesis"], *inputs["references"]]
    else:
        texts = [*inputs["hypotheses"], *(r for rs in inputs["references"] for r in rs)]
    return sum(len(t) for t in texts)


@pytest.mark.parametrize("name", PLANTED)
def test_planted_family_is_found_and_named(pool, name):
    row = planted_pkg.get(name)
    out = pool.result(("audit", name))
    # Findings are keyed by (family, level): a sentence-level bug shows at corpus level too
    # (as its own finding, which a small budget may find first); the one read here is the
    # one at the row's level when there is one.
    by_family = {f.family: f for f in sorted(out["findings"], key=lambda f: f.level != row.level, reverse=True)}
    assert row.family in by_family, f"{name}: no {row.family} finding, got {sorted(by_family)}"

    extra = set(by_family) - {row.family} - ALLOWED_EXTRA.get(name, set())
    assert not extra, f"{name}: unrelated families {sorted(extra)}: " + "; ".join(
        f"{by_family[f].explanation} on {by_family[f].minimal.inputs!r}" for f in sorted(extra))

    f = by_family[row.family]
    assert f.explanation == EXPLANATION_EXCEPTIONS.get(name, [row.family])
    if f.origin == "search" and row.family in MODELLED:
        # the name is earned: it predicted every held-out input drawn for the family
        m = re.match(r"explains (\d+) of (\d+) distinguishing inputs", f.evidence or "")
        assert m and m.group(1) == m.group(2) and int(m.group(1)) >= MIN_PREDICTED, f.evidence
    assert f.minimal.explanation == f.explanation
    assert not f.flaky
    if row.level == "corpus":
        assert f.level == "corpus"  # the planted bug cannot show at sentence level
    inputs = f.minimal.inputs
    assert set(inputs) == ({"hypothesis", "references"} if f.level == "sentence" else {"hypotheses", "references"})
    assert _chars(inputs) <= MAX_REPRO_CHARS, f"{name}: repro not shrunk: {inputs!r}"
    if name in SHRINKS_TO_EMPTY:
        assert inputs == EMPTY_SENTENCE and f.level == "sentence"
        assert f.minimal.outcome == {"invalid_output": "invalid"}.get(name, name)
    elif row.family != "nondeterminism":
        assert f.minimal.outcome == "value"
        assert abs(f.minimal.actual - f.minimal.expected) > 1e-9
    # The repro replays to the same family on a fresh checker (a new worker process).
    # (an exception's or a non-number's key carries its signature: type and masked message)
    assert key_families(out["replays"][row.family]) == [row.family]


@pytest.mark.parametrize("name", CORRECT)
def test_correct_implementation_has_no_finding(pool, name):
    out = pool.result(("audit", name))
    assert [(f.family, f.minimal.inputs) for f in out["findings"]] == []


@pytest.mark.parametrize("unknown", UNKNOWN)
def test_out_of_catalogue_bug_is_one_honest_finding(pool, unknown):
    """A bug no family describes comes out as exactly one finding (BUGS of them where the
    module plants several), named ``unexplained``, a family the module lists as truthful, or
    a metamorphic relation the implementation does break on the repro -- never a wrong name."""
    mod = importlib.import_module(f"tests.planted_unknown.{unknown}")
    findings = pool.result(("unknown", unknown))
    # findings are keyed by (family, level): one bug may show at both levels, under one name
    # (an unexplained group's title carries its signature)
    k = getattr(mod, "BOUNDARY", None)
    if k is not None:  # a truncation's inputs on a rounding boundary: one unexplained row, only there
        on_edge = [f for f in findings if f.family == "unexplained"]
        for f in on_edge:
            scaled = f.minimal.expected * 10 ** k
            assert abs(scaled - round(scaled)) < 1e-6 and abs(f.minimal.actual - (round(scaled) - 1) / 10 ** k) < 1e-9, \
                (f.minimal.inputs, f.minimal.expected, f.minimal.actual)
        findings = [f for f in findings if f not in on_edge]
        assert findings, "the truncation itself is named"
    names = {(f.family, f.title) for f in findings}
    assert len(names) == getattr(mod, "BUGS", 1), [(f.family, f.level, f.title, f.minimal.inputs) for f in findings]
    for f in findings:
        assert f.family == "unexplained" or f.family in mod.TRUTHFUL or f.family.startswith("metamorphic-"), \
            f"{unknown}: wrongly named {f.family} ({f.evidence}) on {f.minimal.inputs!r}"
        assert f.minimal.outcome == "value" and f.minimal.actual != f.minimal.expected
        if f.family == "metamorphic-identical-not-perfect":  # the relation holds on the repro
            assert [f.minimal.inputs["hypothesis"]] == f.minimal.inputs["references"] and f.minimal.actual != 100


def test_same_seed_same_findings_planted(pool):
    first, second = pool.result(("twice", DETERMINISM_PLANTED))
    assert first and first == second


def test_same_seed_same_findings_nltk(pool):
    first, second = pool.result(("nltk", 1)), pool.result(("nltk", 2))
    assert first == second
    assert "requested-order-divisor" in {fam for _, fam, *_ in first}

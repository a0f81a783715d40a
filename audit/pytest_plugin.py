"""pytest plugin (entry point ``chrf_audit``): hold a chrF function to its definition from a
library's own test suite.

Fixture::

    def test_chrf_conforms(chrf_audit):
        chrf_audit.check("mypkg.chrf:sentence_chrf", corpus_impl="mypkg.chrf:corpus_chrf",
                         beta=3, scale=1, definition="sacrebleu")

Marker (the test body runs after the audit passed)::

    @pytest.mark.chrf_audit("mypkg.chrf:sentence_chrf", beta=3, scale=1)
    def test_chrf_conforms():
        pass

A divergence fails the test with one block per family: the minimal repro, expected and
actual.  ``accept=("family-id", ...)`` tolerates known families.  The search is seeded (same
code and seed, same inputs and result; another seed draws other inputs).  Options:
--chrf-audit-max-examples, --chrf-audit-seed, --chrf-audit-hypothesis-profile,
--chrf-audit-tolerance, --chrf-audit-timeout, --chrf-audit-cases.

Hypothesis settings come from a settings profile (default ``chrf-audit``; ``chrf-audit-ci``,
``chrf-audit-dev``, or any registered one, e.g. in conftest.py: see docs/hypothesis.md and
``audit.hypothesis_profiles``); its max_examples is the budget unless one is given.

Everything heavy (Hypothesis, the adapters, the reference) is imported on first use, so the
plugin costs nothing to test suites that do not use it.
"""

from __future__ import annotations

import pytest

DEFAULT_MAX_EXAMPLES = 100


def pytest_addoption(parser):
    group = parser.getgroup("chrf-audit", "chrF conformance audit (chrf-audit)")
    group.addoption("--chrf-audit-max-examples", type=int, default=None, metavar="N",
                    help=f"Hypothesis examples per level (default: the Hypothesis profile's max_examples, "
                         f"{DEFAULT_MAX_EXAMPLES} for chrf-audit)")
    group.addoption("--chrf-audit-seed", type=int, default=None, metavar="N",
                    help="search seed (default 0): the same seed draws the same inputs, another seed other inputs")
    group.addoption("--chrf-audit-hypothesis-profile", default=None, metavar="NAME",
                    help="Hypothesis settings profile (default chrf-audit; chrf-audit-ci, chrf-audit-dev or one "
                         "registered in conftest.py)")
    group.addoption("--chrf-audit-tolerance", type=float, default=None, metavar="X",
                    help="absolute tolerance on the 0..100 scale (default 1e-9)")
    group.addoption("--chrf-audit-timeout", type=float, default=None, metavar="SECONDS",
                    help="per-call timeout (default 5)")
    group.addoption("--chrf-audit-cases", default=None, metavar="DIR",
                    help="regression cases replayed first (default: chrf-audit's curated cases, when present)")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "chrf_audit(impl, corpus_impl=None, accept=(), **claims): audit a chrF implementation "
        "(package.module:function) against the definition it claims; fail with the minimal repro",
    )


def _default_cases():
    from .cases import default_cases_dir

    return default_cases_dir()


class ChrfAudit:
    """The ``chrf_audit`` fixture: ``check(...)`` fails the test on a divergence, ``run(...)``
    returns the ``audit.findings.AuditResult``."""

    def __init__(self, config):
        self._config = config

    def _opt(self, name, given, default):
        if given is not None:
            return given
        value = self._config.getoption(f"--chrf-audit-{name}")
        return default if value is None else value

    def run(self, impl=None, *, corpus_impl=None, external=None, max_examples=None, seed=None, tolerance=None,
            timeout=None, cases=None, hypothesis_profile=None, **claims):
        from .adapters import resolve
        from .hypothesis_profiles import resolve as resolve_profile
        from .runner import run_audit

        profile = self._opt("hypothesis-profile", hypothesis_profile, None)
        resolve_profile(profile)  # an unknown name fails before any adapter starts
        adapters = resolve(impl, corpus_impl=corpus_impl, external=external, overrides=claims or None,
                           timeout=self._opt("timeout", timeout, 5.0))
        try:
            cases_dir = self._opt("cases", cases, None) or _default_cases()
            return run_audit(adapters, seed=self._opt("seed", seed, 0),
                             max_examples=self._opt("max-examples", max_examples, None),  # None: the profile's
                             tolerance=self._opt("tolerance", tolerance, 1e-9), cases_dir=cases_dir,
                             derandomize=True, hypothesis_profile=profile)
        finally:
            for a in adapters:
                a.close()

    def check(self, impl=None, *, corpus_impl=None, external=None, accept=(), **kwargs):
        """Audit and fail the calling test (with one block per family) on any finding whose
        family is not in ``accept``.  Returns the AuditResult when it passes."""
        from .errors import UsageError

        if isinstance(accept, str):
            accept = (accept,)
        try:
            result = self.run(impl, corpus_impl=corpus_impl, external=external, **kwargs)
        except UsageError as exc:
            pytest.fail(f"chrf-audit: {exc}", pytrace=False)
        failing = [f for f in result.findings if f.family not in set(accept)]
        if failing:
            pytest.fail(failure_message(result, failing), pytrace=False)
        return result


def _number(x):
    return "-" if x is None else format(x, ".10g")


def _call(finding) -> str:
    impl = finding.implementation
    src = finding.source or {}
    if src.get("call") == "python" and src.get("qualname"):
        fn = src["qualname"]  # the function that ran at this level (the name may be the module's)
    else:
        fn = impl.partition(":")[2] if ":" in impl else impl
    m = finding.minimal
    if m.level == "sentence":
        return f"{fn}({m.inputs['hypothesis']!r}, {list(m.inputs['references'])!r})"
    return f"{fn}({list(m.inputs['hypotheses'])!r}, {[list(r) for r in m.inputs['references']]!r})"


def failure_message(result, findings) -> str:
    """One block per family: what is wrong, the minimal repro as a call, expected vs actual."""
    claims = findings[0].claims
    n = len(findings)
    head = (f"chrF audit: {n} {'family diverges' if n == 1 else 'families diverge'} from the claimed "
            f"definition ({', '.join(f'{k}={v!r}' for k, v in claims.items())})")
    blocks = [head]
    for f in findings:
        m = f.minimal
        actual = _number(m.actual) if m.outcome == "value" else f"{m.outcome}" + (f": {m.detail}" if m.detail else "")
        raw = f" (returned {m.actual_raw})" if m.actual_raw and m.outcome == "value" else ""
        lines = [
            "",
            f"[{f.family}] {f.implementation}, {f.level} level",
            f"  {f.title}",
            f"  repro:    {_call(f)}",
            f"  expected: {_number(m.expected)} ({m.expected_fraction}) on 0..100",
            f"  actual:   {actual}{raw}",
        ]
        if m.actual is not None:
            lines.append(f"  difference: {m.actual - m.expected:+.6g}")
        if f.flaky:
            lines.append("  (flaky: the repro did not reproduce on replay)")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


@pytest.fixture
def chrf_audit(request) -> ChrfAudit:
    """Audit a chrF implementation against its claimed definition (see audit.pytest_plugin)."""
    return ChrfAudit(request.config)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    marker = item.get_closest_marker("chrf_audit")
    if marker is not None:
        ChrfAudit(item.config).check(*marker.args, **marker.kwargs)

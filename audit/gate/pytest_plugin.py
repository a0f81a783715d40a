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
--chrf-audit-tolerance, --chrf-audit-timeout, --chrf-audit-cases: the options of the CLI
(``audit.settings.options``: the same defaults and the same checks; a bad value stops the session with
one line, as the CLI exits 2 on it), and so are the fixture's keywords.

Hypothesis settings come from a settings profile (default ``chrf-audit``; ``chrf-audit-ci``,
``chrf-audit-dev``, or any registered one, e.g. in conftest.py: see docs/hypothesis.md and
``audit.settings.hypothesis_profiles``); its max_examples is the budget unless one is given.

Everything heavy (Hypothesis, the adapters, the reference) is imported on first use, so the
plugin costs nothing to test suites that do not use it.
"""

from __future__ import annotations

import pytest

from ..settings import options


def pytest_addoption(parser):
    group = parser.getgroup("chrf-audit", "chrF conformance audit (chrf-audit)")
    for o in options.on(options.PLUGIN):  # text: converted and checked by the table (_given)
        group.addoption(o.plugin_flag, default=None, metavar=o.metavar, help=o.help)


def _given(config) -> dict:
    """The plugin options given on the command line, converted and checked by the option
    table (UsageError naming the option).  A Hypothesis profile is only checked for shape
    here: it may be registered by a test module, so it is looked up when an audit starts."""
    out = {}
    for o in options.on(options.PLUGIN):
        text = config.getoption(o.plugin_flag)
        if text is not None:
            out[o.name] = o.parse(str(text), o.plugin_flag)
    return out


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "chrf_audit(impl, corpus_impl=None, accept=(), **claims): audit a chrF implementation "
        "(package.module:function) against the definition it claims; fail with the minimal repro",
    )
    from ..errors import UsageError

    try:
        _given(config)
    except UsageError as exc:  # before any test runs, as the CLI refuses it before any audit
        raise pytest.UsageError(f"chrf-audit: {exc}") from None


class ChrfAudit:
    """The ``chrf_audit`` fixture: ``check(...)`` fails the test on a divergence, ``run(...)``
    returns the ``audit.findings.AuditResult``."""

    def __init__(self, config):
        self._config = config

    def settings(self, **given) -> dict:
        """The search options of one audit: the keywords given (checked by the option table as
        the fixture's keywords), else the command line's, else the table's defaults."""
        kw = options.validate({k: v for k, v in given.items() if v is not None},
                              label=lambda o: f"chrf_audit keyword {o.name}")
        line = _given(self._config)
        return {o.name: kw.get(o.name, line.get(o.name, o.default)) for o in options.on(options.PLUGIN)}

    def run(self, impl=None, *, corpus_impl=None, external=None, max_examples=None, seed=None, tolerance=None,
            timeout=None, cases=None, hypothesis_profile=None, **claims):
        from ..settings import limits
        from ..adapters import resolve
        from ..settings.hypothesis_profiles import resolve as resolve_profile
        from ..collect.runner import run_audit

        limits.check_environment()
        s = self.settings(max_examples=max_examples, seed=seed, tolerance=tolerance, timeout=timeout,
                          cases=cases, hypothesis_profile=hypothesis_profile)
        options.validate({k: v for k, v in claims.items() if k in options.CLAIMS},
                         label=lambda o: f"chrf_audit keyword {o.name}")
        resolve_profile(s["hypothesis_profile"])  # an unknown name fails before any adapter starts
        adapters = resolve(impl, corpus_impl=corpus_impl, external=external, overrides=claims or None,
                           timeout=s["timeout"])
        try:
            return run_audit(adapters, seed=s["seed"],
                             max_examples=s["max_examples"],  # None: the profile's
                             tolerance=s["tolerance"], cases_dir=s["cases"],
                             derandomize=True, hypothesis_profile=s["hypothesis_profile"])
        finally:
            for a in adapters:
                a.close()

    def check(self, impl=None, *, corpus_impl=None, external=None, accept=(), **kwargs):
        """Audit and fail the calling test (with one block per family) on any finding whose
        family is not in ``accept``.  Returns the AuditResult when it passes."""
        from ..errors import UsageError

        if isinstance(accept, str):
            accept = (accept,)
        try:
            result = self.run(impl, corpus_impl=corpus_impl, external=external, **kwargs)
        except UsageError as exc:
            from ..render._text import terminal_line

            pytest.fail(f"chrf-audit: {terminal_line(exc)}", pytrace=False)
        failing = [f for f in result.findings if f.family not in set(accept)]
        if failing:
            pytest.fail(failure_message(result, failing), pytrace=False)
        return result


def _number(x):
    return "-" if x is None else format(x, ".10g")


def _call(finding) -> str:
    impl = finding.implementation
    src = finding.source or {}
    if src.get("call") == "python" and str(src.get("qualname") or "").replace(".", "_").isidentifier():
        fn = src["qualname"]  # the function that ran at this level (the name may be the module's)
    else:
        fn = impl.partition(":")[2] if ":" in impl else impl
    m = finding.minimal
    if m.level == "sentence":
        return f"{fn}({m.inputs['hypothesis']!r}, {list(m.inputs['references'])!r})"
    return f"{fn}({list(m.inputs['hypotheses'])!r}, {[list(r) for r in m.inputs['references']]!r})"


def failure_message(result, findings) -> str:
    """One block per family: what is wrong, the minimal repro as a call, expected vs actual."""
    from ..findings import family_count
    from ..render._text import terminal_line

    claims = findings[0].claims
    n = family_count(findings)
    head = (f"chrF audit: {n} {'family diverges' if n == 1 else 'families diverge'} from the claimed "
            f"definition ({', '.join(f'{k}={v!r}' for k, v in claims.items())})")
    blocks = [terminal_line(head)]
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
        # pytest prints it on the terminal: each line's name or error text shows no control
        # character (a newline in it is \u000a: it cannot start a line of its own)
        blocks.append("\n".join(terminal_line(line) for line in lines))
    return "\n".join(blocks)


@pytest.fixture
def chrf_audit(request) -> ChrfAudit:
    """Audit a chrF implementation against its claimed definition (see audit.gate.pytest_plugin)."""
    return ChrfAudit(request.config)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    marker = item.get_closest_marker("chrf_audit")
    if marker is not None:
        ChrfAudit(item.config).check(*marker.args, **marker.kwargs)

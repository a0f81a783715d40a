"""The example external program (examples/chrf.js, Node.js) is audited end to end.  Node.js is
on the machine (the README's --external example runs it): no skip."""

from pathlib import Path

from audit.adapters import resolve
from audit.collect.runner import run_audit

ROOT = Path(__file__).resolve().parent.parent


def _audit(**claims):
    adapters = resolve(external=f"node {ROOT / 'examples' / 'chrf.js'}", overrides=claims or None, timeout=10)
    try:
        return run_audit(adapters, seed=0, max_examples=30, cases_dir=ROOT / "cases", derandomize=True)
    finally:
        for a in adapters:
            a.close()


def test_example_program_conforms_to_sacrebleu_definition():
    result = _audit()
    summary = result.adapters[0]
    assert summary.implementation.startswith("external:")
    assert summary.examples > 30
    assert result.findings == []
    assert summary.conformance["sacrebleu"] == {"sentence": [], "corpus": []}


def test_example_program_configured_for_eps_conforms_to_it():
    """The protocol sends the claims as parameters: configured for sacreBLEU's eps mode,
    the program computes it, and the audit finds it meets that definition (and, by the
    conformance matrix, not the effective-order one)."""
    result = _audit(definition="sacrebleu-eps")
    assert result.findings == []
    matrix = result.adapters[0].conformance
    assert matrix["sacrebleu-eps"] == {"sentence": [], "corpus": []}
    assert "requested-order-divisor" in matrix["sacrebleu"]["sentence"]

"""Determinism on tested releases (issue 34 item 4): pyproject.toml bounds Hypothesis, nltk and
sacreBLEU (the byte-for-byte repro tests depend on them) to the tested series, constraints.txt
pins the releases CI installs, and .ci/run installs with it before running exactly the README's
test command."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
PINNED = ("hypothesis", "nltk", "sacrebleu")


def _pins() -> dict:
    lines = [line.split("#")[0].strip() for line in (ROOT / "constraints.txt").read_text().splitlines()]
    reqs = [Requirement(line) for line in lines if line]
    return {r.name: r for r in reqs}


def test_pyproject_bounds_the_pinned_packages_and_the_pins_satisfy_them():
    deps = {Requirement(d).name: Requirement(d) for d in
            tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}
    pins = _pins()
    assert set(PINNED) <= set(pins)
    for name in PINNED:
        spec = deps[name].specifier
        assert any(s.operator in ("<", "<=", "==", "~=") for s in spec), f"{name}: no upper bound"
        [pin] = pins[name].specifier
        assert pin.operator == "==" and spec.contains(pin.version), (name, str(spec), pin.version)


def test_the_tests_run_on_the_pinned_releases():
    """What this suite asserts byte for byte was measured on these releases."""
    assert {n: version(n) for n in PINNED} == {n: next(iter(_pins()[n].specifier)).version for n in PINNED}


def test_ci_installs_with_the_constraints_then_runs_the_readmes_command():
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    readme = (ROOT / "README.md").read_text().splitlines()
    command = next(line for line in readme if line.startswith("python3 -m venv .venv") and "pytest" in line)
    assert ci[-1] == command
    assert any("-c constraints.txt" in line for line in ci[:-1])


def test_ci_installs_the_torchmetrics_extra_at_the_audited_release():
    """torchmetrics' tests and committed issue files run in CI (issue 42 item 1): .ci/run installs
    the extra with the constraints, which pin the release reports/torchmetrics/ audits."""
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert any("-c constraints.txt" in line and "[test,torchmetrics]" in line for line in ci[:-1])
    pins = _pins()
    assert str(pins["torchmetrics"].specifier) == "==1.9.0" and str(pins["torch"].specifier) == "==2.13.0"
    import json

    doc = json.loads((ROOT / "reports" / "torchmetrics" / "audit.json").read_text(encoding="utf-8"))
    assert {e["version"] for e in doc["implementations"]} == {"1.9.0"}

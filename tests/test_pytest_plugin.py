"""The pytest plugin (audit.pytest_plugin) under pytester: a correct implementation passes,
a planted bug fails with its family, minimal repro and expected/actual in the message."""

import shutil
from pathlib import Path

pytest_plugins = ["pytester"]

PLANTED = Path(__file__).resolve().parent / "planted"


def _project(pytester):
    # the pytester cwd is a temp dir: make the planted implementations importable there
    shutil.copytree(PLANTED, pytester.path / "plantedpkg", ignore=shutil.ignore_patterns("__pycache__"))


def test_plugin_passes_a_correct_implementation(pytester):
    _project(pytester)
    pytester.makepyfile(test_lib="""
        import pytest

        def test_fixture(chrf_audit):
            result = chrf_audit.check("plantedpkg:correct_float.sentence",
                                      corpus_impl="plantedpkg:correct_float.corpus", beta=2, scale=100)
            assert result.findings == []

        @pytest.mark.chrf_audit("plantedpkg:correct_float.sentence", beta=2, scale=100)
        def test_marker():
            pass
    """)
    result = pytester.runpytest("--chrf-audit-max-examples=20", "--chrf-audit-seed=1", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_plugin_fails_a_planted_bug_with_the_repro(pytester):
    _project(pytester)
    pytester.makepyfile(test_lib="""
        import pytest

        def test_fixture(chrf_audit):
            chrf_audit.check("plantedpkg:requested_order_divisor.sentence",
                             corpus_impl="plantedpkg:requested_order_divisor.corpus",
                             beta=2, scale=100, definition="sacrebleu")

        @pytest.mark.chrf_audit("plantedpkg:requested_order_divisor.sentence", beta=2, scale=100)
        def test_marker():
            pass

        def test_accepted(chrf_audit):
            chrf_audit.check("plantedpkg:requested_order_divisor.sentence",
                             accept=["requested-order-divisor"])

        def test_bad_spec(chrf_audit):
            chrf_audit.check("plantedpkg.no_such_module:sentence")
    """)
    result = pytester.runpytest("--chrf-audit-max-examples=20", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=3)
    out = result.stdout.str()
    # once per failing test (fixture and marker); with CI set, pytest's short summary repeats
    # the messages untruncated, hence "at least"
    # the fixture audits one implementation with two entry points (named after the module),
    # the marker its sentence entry point
    assert out.count("[requested-order-divisor] plantedpkg:requested_order_divisor, sentence level") >= 1
    assert out.count("[requested-order-divisor] plantedpkg:requested_order_divisor.sentence, sentence level") >= 1
    assert "repro:    requested_order_divisor.sentence(" in out  # the call as the spec reaches it
    assert "1 family diverges from the claimed definition" in out
    assert "expected: 100 (100/1) on 0..100" in out
    assert "actual:   16.66666" in out
    assert "cannot import module 'plantedpkg.no_such_module'" in out
    assert "Traceback" not in out

"""The pytest plugin (audit.gate.pytest_plugin) under pytester: a correct implementation passes,
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


_SEED_PROBE = """
    import json, os

    def test_largest(chrf_audit):
        result = chrf_audit.run("plantedpkg:requested_order_divisor.sentence", beta=2, scale=100)
        with open(os.environ["CHRF_SEED_OUT"], "w") as fh:
            json.dump([[f.family, f.largest.inputs, result.seed, result.max_examples] for f in result.findings], fh)
"""


def _largest(pytester, monkeypatch, *args, subprocess=False):
    out = pytester.path / f"out{len(list(pytester.path.glob('out*')))}.json"
    monkeypatch.setenv("CHRF_SEED_OUT", str(out))
    run = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    result = run("-p", "no:cacheprovider", *args)
    result.assert_outcomes(passed=1)
    import json

    return json.loads(out.read_text())


def test_plugin_seed_changes_the_inputs_and_the_same_seed_repeats_them(pytester, monkeypatch):
    """--chrf-audit-seed reaches the search: an implementation that logs every call shows the
    inputs drawn (the findings alone would not: shrinking converges to the same repro)."""
    pytester.makepyfile(recorder="""
        import os

        def sentence(hypothesis, references):
            with open(os.environ["CHRF_INPUTS"], "a", encoding="utf-8") as fh:
                fh.write(repr((hypothesis, references)) + "\\n")
            return 0.0
    """)
    pytester.makepyfile(test_lib="""
        def test_calls(chrf_audit):
            chrf_audit.run("recorder:sentence", beta=2, scale=100, cases=None)
    """)

    def calls(*args):
        log = pytester.path / f"calls{len(list(pytester.path.glob('calls*')))}.txt"
        monkeypatch.setenv("CHRF_INPUTS", str(log))
        pytester.runpytest("-p", "no:cacheprovider", "--chrf-audit-max-examples=10", *args).assert_outcomes(passed=1)
        return log.read_text(encoding="utf-8").splitlines()

    a, b, c = calls("--chrf-audit-seed=1"), calls("--chrf-audit-seed=1"), calls("--chrf-audit-seed=2")
    assert len(a) >= 10
    assert a == b
    assert a != c


def test_plugin_profile_option_sets_the_budget(pytester, monkeypatch):
    _project(pytester)
    pytester.makepyfile(test_lib=_SEED_PROBE)
    assert _largest(pytester, monkeypatch)[0][3] == 100
    assert _largest(pytester, monkeypatch, "--chrf-audit-hypothesis-profile=chrf-audit-dev")[0][3] == 25
    assert _largest(pytester, monkeypatch, "--chrf-audit-hypothesis-profile=chrf-audit-dev",
                    "--chrf-audit-max-examples=9")[0][3] == 9
    result = pytester.runpytest("-p", "no:cacheprovider", "--chrf-audit-hypothesis-profile=nope")
    result.assert_outcomes(failed=1)
    assert "unknown Hypothesis profile 'nope'" in result.stdout.str()


def test_plugin_takes_a_profile_registered_in_conftest(pytester, monkeypatch):
    """A conftest.py that registers "chrf-audit" (before chrf-audit's own: the plugin imports
    its profiles on first use) sets the budget.  In a subprocess: a profile registered here
    would stay registered for the rest of this session."""
    _project(pytester)
    pytester.makeconftest("""
        from hypothesis import settings
        settings.register_profile("chrf-audit", max_examples=13)
    """)
    pytester.makepyfile(test_lib=_SEED_PROBE)
    assert _largest(pytester, monkeypatch, subprocess=True)[0][3] == 13


def test_plugin_leaves_no_hypothesis_directory(pytester, monkeypatch):
    """In a fresh process whose current directory is the project (pytester's temp dir), an
    audit leaves no ./.hypothesis (Hypothesis caches its Unicode table there otherwise)."""
    _project(pytester)
    pytester.makepyfile(test_lib=_SEED_PROBE)
    monkeypatch.setenv("CHRF_SEED_OUT", str(pytester.path / "out.json"))
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--chrf-audit-max-examples=10")
    result.assert_outcomes(passed=1)
    assert (pytester.path / "out.json").exists()
    assert not (pytester.path / ".hypothesis").exists()

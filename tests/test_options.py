"""One option table (audit.settings.options) for the CLI, ``[tool.chrf-audit]`` and the pytest plugin
(issue 19, item 7): the same value is refused with the same words on every surface, and every
default is the table's, whichever surface reads it."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from audit.settings import options
from audit.cli import main

pytest_plugins = ["pytester"]

NEVER = "no_such_module_for_chrf_audit:f"
ROOT = Path(__file__).resolve().parents[1]

#: option -> (a bad value as text, as TOML, the words every surface says)
BAD = {
    "timeout": ("inf", "inf", "must be > 0 and <= 3600"),
    "max_examples": ("-5", "-5", "must be >= 1 and <= 100000"),
    "tolerance": ("nan", "nan", "must be between 0 and 100"),
    "cases": ("/nonexistent-chrf-audit", '"/nonexistent-chrf-audit"', "/nonexistent-chrf-audit: no such directory"),
    "seed": ("abc", '"abc"', "must be an integer"),
}


def test_every_plugin_option_is_a_cli_option_and_a_config_key():
    plugin = {o.name for o in options.on(options.PLUGIN)}
    assert plugin == {"seed", "max_examples", "hypothesis_profile", "tolerance", "timeout", "cases"}
    assert plugin <= {o.name for o in options.on(options.CLI)} & {o.name for o in options.on(options.CONFIG)}
    assert set(BAD) | {"hypothesis_profile"} == plugin


@pytest.mark.parametrize("name", sorted(BAD))
def test_the_cli_refuses(name, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    text, _, words = BAD[name]
    try:
        code = main(["run", "--impl", NEVER, "--quiet", options.OPTIONS[name].flag, text])
    except SystemExit as exc:  # refused while parsing: argparse's usage line, then the error
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and words in err.splitlines()[-1] and "Traceback" not in err, err


@pytest.mark.parametrize("name", sorted(BAD))
def test_the_configuration_refuses(name, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _, toml, words = BAD[name]
    (tmp_path / "pyproject.toml").write_text(f"[tool.chrf-audit]\n{options.OPTIONS[name].key} = {toml}\n"
                                             f'[[tool.chrf-audit.implementations]]\nimpl = "{NEVER}"\n')
    assert main(["check", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"[tool.chrf-audit]: {options.OPTIONS[name].key}" in err and words in err and err.count("\n") == 1, err


@pytest.mark.parametrize("name", sorted(BAD))
def test_the_pytest_plugin_refuses_before_any_test(name, pytester):
    """--chrf-audit-timeout=inf was an OverflowError, -max-examples=-5 Hypothesis's
    InvalidArgument, -tolerance=nan a false finding on a correct implementation, -cases=/x
    silently nothing: now a usage error of the session, in the CLI's words, no test run."""
    text, _, words = BAD[name]
    pytester.makepyfile(test_lib="def test_never(chrf_audit):\n    raise AssertionError('ran')\n")
    result = pytester.runpytest("-p", "no:cacheprovider", f"{options.OPTIONS[name].plugin_flag}={text}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert f"chrf-audit: {options.OPTIONS[name].plugin_flag}" in err and words in err, err
    assert "Traceback" not in err and "ran" not in result.stdout.str()


def test_the_fixture_keywords_are_checked_too(pytester):
    pytester.makepyfile(test_lib="""
        def test_timeout(chrf_audit):
            chrf_audit.check("no_such_module_for_chrf_audit:f", timeout=float("inf"))

        def test_tolerance(chrf_audit):
            chrf_audit.check("no_such_module_for_chrf_audit:f", tolerance=float("nan"))
    """)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "chrf-audit: chrf_audit keyword timeout must be > 0 and <= 3600" in out
    assert "chrf-audit: chrf_audit keyword tolerance must be between 0 and 100" in out


def _defaults_of(argv_command: str) -> argparse.Namespace:
    from audit.cli import build_parser

    return build_parser().parse_args([argv_command, "--impl", NEVER] + (["--patch", "x"] if argv_command == "validate-patch" else []))


def test_every_default_is_the_tables():
    """run and validate-patch read the table's defaults; check fills what neither its command
    line nor the configuration sets from the table; so does the plugin; the profile's budget
    is the table's."""
    from audit.gate import config
    from audit.commands.check import _merge
    from audit.settings.hypothesis_profiles import SearchProfile, resolve
    from audit.patches import Target
    from audit.gate.pytest_plugin import ChrfAudit

    for command in ("run", "validate-patch"):
        ns = _defaults_of(command)
        for name in ("seed", "max_examples", "hypothesis_profile", "tolerance", "timeout", "cases"):
            assert getattr(ns, name) == options.default(name), (command, name)
    ns = _defaults_of("check")
    ns.timeout_given = False
    _merge(ns, config.Config())
    for name in ("seed", "max_examples", "hypothesis_profile", "tolerance", "timeout", "strict"):
        assert getattr(ns, name) == options.default(name), name

    class Config:
        def getoption(self, name):
            return None

    assert ChrfAudit(Config()).settings() == {o.name: o.default for o in options.on(options.PLUGIN)}
    target = Target(impl="nltk")
    assert (target.seed, target.tolerance, target.timeout, target.max_examples) == (
        options.default("seed"), options.default("tolerance"), options.default("timeout"), options.BUDGET)
    assert resolve().max_examples == SearchProfile().max_examples == options.BUDGET == 100

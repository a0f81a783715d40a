"""Every surface of a setting is the option table's (issue 34, item 3), as Hypothesis holds its
settings list to its constructor's keywords: each subcommand's flags, defaults and help,
``[tool.chrf-audit]``'s keys and dataclasses, the pytest plugin's options and fixture keywords,
``run_audit``'s keywords, ``resolve``'s, the versions command's request, validate-patch's
target and the impact study's defaults.  A flag added by hand, a default written twice and
drifting, a keyword the table does not know: each fails here (it used to be a grep for three
numbers, which a default of 10 s in ``resolve`` passed)."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from audit.settings import options

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    from audit.cli import build_parser

    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """dest -> action of every optional flag but --help."""
    return {a.dest: a for a in parser._actions if a.option_strings and a.dest != "help"}


@pytest.mark.parametrize("command", options.COMMANDS)
def test_each_subcommand_offers_exactly_the_tables_options(command):
    parser = _subparsers()[command]
    flags = _flags(parser)
    rows = options.on(command)
    assert sorted(flags) == sorted(o.attr for o in rows)
    for o in rows:
        action = flags[o.attr]
        assert action.option_strings == [o.flag_text], o.name
        assert action.help == o.help, o.name
        if command != "check" or options.CONFIG not in o.surfaces:  # check: None, filled from the configuration
            assert action.default == ([] if o.kind is list else o.default), (command, o.name)
        assert action.required == o.required, o.name
        assert list(action.choices or []) == list(o.choices or []), o.name


def test_check_fills_what_is_not_given_from_the_configuration_then_the_table():
    from audit.commands.check import _merge
    from audit.gate import config

    ns = _subparsers()["check"].parse_args([])
    for o in options.on(options.CONFIG):
        assert getattr(ns, o.attr) is None, o.name  # not given: the configuration decides first
    cfg = config.Config(tolerance=0.5)
    _merge(ns, cfg)
    assert ns.tolerance == 0.5
    for o in options.on(options.CONFIG):
        if o.name not in ("tolerance", "baseline"):
            assert getattr(ns, o.attr) == o.default, o.name


def test_what_differs_between_subcommands_is_named_in_the_help():
    """--timeout, --jobs and --quiet: one meaning, or the difference written in the row and said."""
    parsers = _subparsers()
    timeouts = {c: _flags(parsers[c])["timeout"] for c in options.OPTIONS["timeout"].commands}
    assert {c: options.default("timeout", c) for c in timeouts} == {
        "run": 5.0, "check": 5.0, "validate-patch": 5.0, "impact": 600.0, "stats": 120.0, "versions": 5.0,
        "survey": 5.0}
    for c in ("impact", "stats"):
        assert "here" in timeouts[c].help and str(int(timeouts[c].default)) in timeouts[c].help
    for c in options.OPTIONS["jobs"].commands:
        action = _flags(parsers[c])["jobs"]
        assert action.default is None and "the number of cores" in action.help and "the same for any N" in action.help
    for c in options.OPTIONS["quiet"].commands:
        text = _flags(parsers[c])["quiet"].help
        assert ("no progress on stderr" in text) != (c == "report"), (c, text)
        assert "table" in text, (c, text)  # what happens to the table is said everywhere


def test_validate_patch_offers_only_what_it_accepts():
    """It offered --external, --http (refused), --save-cases (refused), --max-refs, --name,
    --accepts and --jobs (ignored)."""
    flags = {a.option_strings[0] for a in _subparsers()["validate-patch"]._actions if a.option_strings}
    for refused in ("--external", "--http", "--contract", "--max-requests", "--save-cases", "--max-refs", "--name",
                    "--accepts", "--jobs", "--http-concurrency"):
        assert refused not in flags


def test_every_option_of_stats_and_impact_has_help():
    for command in options.COMMANDS:
        for action in _subparsers()[command]._actions:
            assert action.help, (command, action.dest)


@pytest.mark.parametrize("argv", [
    ["run", "--impl", "nltk"], ["impact", "s.txt", "--ref", "r.txt"], ["validate-patch", "--impl", "nltk"],
    ["check"], ["versions", "nltk", "all"]])
def test_a_bad_claim_is_the_same_error_on_every_command(argv, capsys):
    """``impact --definition nope`` got another error than ``run``'s: its flags were written by hand."""
    from audit.cli import build_parser

    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(argv + ["--definition", "nope"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "chrf-audit: error: argument --definition: invalid choice: 'nope' (choose from 'sacrebleu', "
        "'sacrebleu-eps', 'chrfpp')")


def test_the_configuration_dataclasses_are_the_tables():
    from audit.gate import config

    fields = {f.name: f.default for f in dataclasses.fields(config.Config)}
    assert set(fields) == {"path", "implementations"} | {o.name for o in options.on(options.CONFIG)}
    entry = {f.name for f in dataclasses.fields(config.ImplConfig)}
    assert entry == {"claims"} | {o.name for o in options.on(options.ENTRY) if o.name not in options.CLAIMS}
    assert set(config.TOP_KEYS) == {"implementations"} | set(options.keys(options.CONFIG))
    assert set(config.IMPL_KEYS) == set(options.keys(options.ENTRY))
    assert all(fields[o.name] is None for o in options.on(options.CONFIG))  # not set: the table's default applies


def test_the_pytest_plugin_is_the_tables(pytester):
    from audit.gate import pytest_plugin
    from audit.gate.pytest_plugin import ChrfAudit

    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--help")
    text = result.stdout.str()
    for o in options.on(options.PLUGIN):
        assert o.plugin_flag in text
    plugin_flags = {line.split()[0].split("=")[0] for line in text.splitlines() if line.strip().startswith("--chrf-audit-")}
    assert plugin_flags == {o.plugin_flag for o in options.on(options.PLUGIN)}
    params = inspect.signature(pytest_plugin.ChrfAudit.run).parameters
    keywords = {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY}
    assert keywords == {"corpus_impl", "external"} | {o.name for o in options.on(options.PLUGIN)}

    class Config:
        def getoption(self, name):
            return None

    assert ChrfAudit(Config()).settings() == {o.name: o.default for o in options.on(options.PLUGIN)}


def test_run_audit_keywords_are_the_tables():
    from audit.collect.runner import run_audit

    params = inspect.signature(run_audit).parameters
    api = {o.attr: o for o in options.on(options.API)}
    not_options = {"adapters", "derandomize", "progress", "on_summary"}  # what a search is handed, not a setting
    assert set(params) == set(api) | not_options
    for name, o in api.items():
        assert params[name].default == o.default, name
    assert params["cases_dir"].default is options.DEFAULT_CASES


def test_resolve_keywords_are_the_tables():
    from audit.adapters import AdapterError, resolve
    from audit.adapters.resolver import KEYWORDS

    from audit.adapters.kinds import KINDS

    run_flags = {o.name for o in options.for_command("run") if o.group in (options.IMPL, options.HTTP)}
    assert set(KEYWORDS) == run_flags  # run's implementation flags, --mcp and --tool among them
    entry = {o.name for o in options.on(options.ENTRY) if o.name not in options.CLAIMS}
    assert entry <= set(KEYWORDS)  # a configured entry is resolved with the same keywords
    taken = {name for kind in KINDS for name in kind.takes + kind.selectors + kind.requires}
    assert taken | {"timeout"} == set(KEYWORDS)  # every keyword is read by a kind, and only keywords are
    assert {k.name for k in KINDS} == {"builtin", "callable", "external", "http", "mcp"}
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        resolve("nltk", colour=1)
    with pytest.raises(AdapterError, match="--timeout must be > 0"):  # the table's check, not a copy
        resolve("nltk", timeout=-1)


def test_the_versions_command_and_validate_patch_take_the_tables_defaults():
    from audit.patches import Target
    from audit.versions.runner import Request

    request = Request(package="nltk", spec="all")
    target = Target(impl="nltk")
    for obj in (request, target):
        for name in ("seed", "tolerance", "timeout"):
            assert getattr(obj, name) == options.default(name), (type(obj).__name__, name)
        assert obj.max_examples == options.BUDGET
    assert request.jobs == options.default("jobs")


def test_the_impact_defaults_are_written_once():
    """1000 resamples and alpha 0.05 were written in 7-8 places."""
    from audit.enrich.impact import ImpactRequest
    import importlib

    compare, significance, study = (importlib.import_module(f"audit.impact.{m}") for m in ("compare", "significance", "study"))

    assert (options.default("resamples"), options.default("alpha")) == (options.RESAMPLES, options.ALPHA)
    assert (options.default("impact_resamples"), options.default("impact_alpha")) == (options.RESAMPLES, options.ALPHA)
    assert options.default("impact_timeout") == options.default("timeout", "impact") == options.CORPUS_TIMEOUT
    functions = [compare.run_impact, study.study_record, significance.bootstrap_scores, significance.bootstrap_ci,
                 significance.paired_bootstrap, significance.paired_permutation, significance.paired_permutation_scores,
                 significance.PairedResult.significant]
    seen = 0
    for fn in functions:
        for name, p in inspect.signature(fn).parameters.items():
            if name in ("resamples", "trials"):
                assert p.default == options.RESAMPLES, (fn.__qualname__, name)
                seen += 1
            if name == "alpha":
                assert p.default == options.ALPHA, (fn.__qualname__, name)
                seen += 1
    assert seen >= 8
    request = ImpactRequest(data=Path("."))
    assert (request.resamples, request.alpha, request.timeout, request.seed) == (
        options.RESAMPLES, options.ALPHA, options.CORPUS_TIMEOUT, options.default("seed"))


def test_the_api_and_the_cli_replay_the_same_default_cases(tmp_path, monkeypatch):
    """One definition of the default cases directory: ./cases when it exists, else chrf-audit's
    (the CLI, run_audit, the plugin, validate-patch and versions all work it out there)."""
    monkeypatch.chdir(tmp_path)
    assert options.replayed(options.DEFAULT_CASES) == options.packaged_cases() == ROOT / "cases"
    (tmp_path / "cases").mkdir()
    assert options.replayed(options.DEFAULT_CASES) == Path("cases")
    assert options.default_cases(tmp_path / "elsewhere") == ROOT / "cases"
    assert options.replayed(None) is None


def test_one_definition_each_of_the_definitions_and_the_levels():
    import reference_impl
    from audit import findings
    from audit.render import _doc

    assert options.DEFINITIONS is reference_impl.DEFINITIONS is _doc.DEFINITIONS
    assert _doc.LEVELS is findings.LEVELS
    offenders = subprocess.run(
        ["grep", "-rnE", r"^[A-Z_]*(DEFINITIONS|LEVELS) = ", "audit", "reference_impl"], cwd=ROOT,
        capture_output=True, text=True).stdout.splitlines()
    assert sorted(line.split(":")[0] for line in offenders) == ["audit/findings.py", "reference_impl/params.py"]


def test_every_option_is_documented_with_its_group():
    for o in options.OPTIONS.values():
        assert o.help and o.group in options.GROUPS, o.name
        for command, changes in o.variants:
            assert command in options.COMMANDS + (options.API,) and command in o.surfaces, (o.name, command)
            assert set(changes) <= {f.name for f in dataclasses.fields(o)}, (o.name, changes)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q", "-n", "0"]))

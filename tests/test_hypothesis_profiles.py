"""Hypothesis hygiene (audit.settings.hypothesis_profiles): the three profiles, what a user's profile
changes and what it cannot, seeds that change the inputs drawn, health checks on (too_slow
excepted, none firing on the real strategies), and no ./.hypothesis left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, Verbosity, settings
from hypothesis import strategies as st

from audit.settings import hypothesis_profiles as HP
from audit.errors import UsageError
from audit.collect.search import Pass, derived_seed, generate

ROOT = Path(__file__).resolve().parents[1]
PLANTED = "tests.planted:requested_order_divisor"


@pytest.fixture
def restore_profiles():
    """Tests that register or load profiles put Hypothesis's state back."""
    saved = dict(settings._profiles)
    current = settings.get_current_profile_name()
    yield
    settings._profiles.clear()
    settings._profiles.update(saved)
    settings.load_profile(current)


def _drawn(seed: int, strategy=None, profile=None, budget: int = 15) -> list:
    """The inputs one generate pass draws (the examiner records them, finds nothing)."""
    seen = []

    def examine(inputs, changes):
        seen.append(inputs)
        return SimpleNamespace(key=None)

    strategy = strategy if strategy is not None else st.lists(st.text(max_size=8), max_size=3)
    p = Pass("claimed", examine, strategy, st.just({}), budget, explain_away=False)
    generate(p, {}, seed=derived_seed(seed, "sentence", "claimed"), tick=lambda: None, confirmed={}, profile=profile)
    return seen


# ------------------------------------------------------------------------------ profiles


def test_the_three_profiles_and_their_documented_values():
    assert {n: (HP.resolve(n).max_examples, HP.resolve(n).verbosity) for n in HP.PROFILES} == {
        "chrf-audit": (100, "quiet"), "chrf-audit-ci": (300, "quiet"), "chrf-audit-dev": (25, "verbose")}
    assert HP.resolve() == HP.resolve("chrf-audit")
    doc = (ROOT / "docs" / "hypothesis.md").read_text(encoding="utf-8")
    from audit.settings import options

    help_text = options.OPTIONS["hypothesis_profile"].help  # --hypothesis-profile, the config key, the plugin
    for name, values in HP.PROFILES.items():
        assert f"| `{name}` | {values['max_examples']} | {values['verbosity'].name} |" in doc
        assert f"{name} ({'default; ' if name == HP.DEFAULT_PROFILE else ''}{values['max_examples']} examples" \
            in help_text


def test_an_unknown_profile_is_a_one_line_usage_error():
    with pytest.raises(UsageError, match="unknown Hypothesis profile 'nope'"):
        HP.resolve("nope")


def test_forced_settings_win_over_the_profile(restore_profiles):
    """A profile asking for derandomize, a deadline, a database, other phases and no health
    check suppressed gets its tunable values and chrf-audit's forced ones."""
    from hypothesis import Phase
    from hypothesis.database import InMemoryExampleDatabase

    settings.register_profile("mine", max_examples=7, verbosity=Verbosity.debug, derandomize=False,
                              deadline=200, database=InMemoryExampleDatabase(), phases=[Phase.explicit],
                              suppress_health_check=[HealthCheck.filter_too_much], report_multiple_bugs=True)
    prof = HP.resolve("mine")
    assert (prof.max_examples, prof.verbosity, prof.suppress_health_check) == (7, "debug", ("filter_too_much",))
    s = HP.forced_settings(prof, max_examples=3, phases=[Phase.generate], database=None, report_multiple_bugs=False)
    assert (s.max_examples, s.verbosity, s.derandomize, s.deadline, s.database, s.phases, s.report_multiple_bugs) == \
        (3, Verbosity.debug, False, None, None, (Phase.generate,), False)
    assert set(s.suppress_health_check) == {HealthCheck.too_slow, HealthCheck.filter_too_much}


def test_only_too_slow_is_always_suppressed_with_a_reason():
    assert set(HP.ALWAYS_SUPPRESSED) == {HealthCheck.too_slow}
    assert all(len(why) > 40 for why in HP.ALWAYS_SUPPRESSED.values())
    s = HP.forced_settings(HP.resolve(), max_examples=1, phases=[], database=None)
    assert list(s.suppress_health_check) == [HealthCheck.too_slow]  # every other one is on


def _python(code: str, cwd: Path, **env) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    environment.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=600)


def test_a_profile_registered_before_chrf_audit_keeps_its_values(tmp_path):
    """conftest.py registering "chrf-audit" before the plugin imports chrf-audit's profiles."""
    out = _python("""
        from hypothesis import Verbosity, settings
        settings.register_profile("chrf-audit", max_examples=11, verbosity=Verbosity.verbose)
        from audit.settings import hypothesis_profiles as HP
        p = HP.resolve()
        print(p.max_examples, p.verbosity, HP.resolve("chrf-audit-ci").max_examples)
    """, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["11", "verbose", "300"]


def test_a_profile_registered_after_replaces_chrf_audits(restore_profiles):
    settings.register_profile("chrf-audit-dev", settings.get_profile("chrf-audit-dev"), max_examples=4)
    assert (HP.resolve("chrf-audit-dev").max_examples, HP.resolve("chrf-audit-dev").verbosity) == (4, "verbose")


# ------------------------------------------------------------------------------- seeds


def test_the_seed_changes_the_inputs_and_the_same_seed_repeats_them():
    a, b, c = _drawn(0), _drawn(0), _drawn(1)
    assert a == b
    assert a != c


def test_the_seed_holds_under_a_loaded_derandomizing_profile(restore_profiles):
    """Hypothesis loads its "ci" profile (derandomize=True) when CI is set: it used to make
    every seed draw the same inputs."""
    settings.load_profile("ci")
    assert settings.default.derandomize
    assert _drawn(0) != _drawn(1)
    assert _drawn(2) == _drawn(2)


def test_verbosity_is_the_profiles(capsys):
    _drawn(0, profile=HP.resolve("chrf-audit"), budget=5)
    assert capsys.readouterr().out == ""
    _drawn(0, profile=HP.resolve("chrf-audit-dev"), budget=5)
    assert capsys.readouterr().out.count("Test case: probe(") == 5  # Hypothesis 6.1xx: "Test case"


# ------------------------------------------------------------------------ health checks


def test_a_health_check_failure_is_one_line_and_the_profile_can_suppress_it(restore_profiles):
    """A strategy that rejects most inputs (not chrf-audit's) fails filter_too_much; a profile
    that suppresses it gets its inputs."""
    sparse = st.integers(0, 10**9).filter(lambda n: n % 1000 == 7)
    with pytest.raises(UsageError, match=r"health check filter_too_much failed in the 'claimed' search") as exc:
        _drawn(0, strategy=sparse, budget=20)
    assert "\n" not in str(exc.value)
    settings.register_profile("lenient", suppress_health_check=[HealthCheck.filter_too_much])
    assert all(n % 1000 == 7 for n in _drawn(0, strategy=sparse, profile=HP.resolve("lenient"), budget=3))


@pytest.mark.parametrize("spec", ["nltk", "sacrebleu-chrf++"])
def test_no_health_check_fires_on_the_real_strategies(spec):
    """Every pass chrf-audit runs (claimed, swarm, metamorphic) at several seeds and budgets,
    with every health check but too_slow on: the strategies need no suppression."""
    from audit.adapters import resolve
    from audit.collect.metamorphic import RELATIONS
    from audit.collect.search import strategies

    (adapter,) = resolve(spec)
    try:
        sentence, corpus, swarm = strategies(adapter)
        runs = 0
        for level, strategy in (("sentence", sentence), ("corpus", corpus)):
            passes = [strategy, st.tuples(swarm, strategy)]
            passes += [r.strategy(adapter) for r in RELATIONS if r.level == level and r.applies(adapter)]
            for s in passes:
                for seed in range(3):
                    for budget in (5, 100):
                        assert len(_drawn(seed, strategy=s, budget=budget)) == budget
                        runs += 1
        assert runs >= 24
    finally:
        adapter.close()


# ------------------------------------------------------------------------- ./.hypothesis


def test_the_api_leaves_no_hypothesis_directory_in_the_current_directory(tmp_path):
    code = f"""
        from audit.adapters import resolve
        from audit.collect.runner import run_audit
        from hypothesis import configuration as conf
        ads = resolve("{PLANTED}.sentence", corpus_impl="{PLANTED}.corpus", overrides={{"beta": 2, "scale": 100}})
        result = run_audit(ads, seed=0, max_examples=10, cases_dir=None, jobs=2)
        for a in ads:
            a.close()
        print(sorted({{f.family for f in result.findings}}), getattr(conf, "__hypothesis_home_directory"))
    """
    out = _python(code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "['requested-order-divisor']"
    assert out.stdout.split()[-1] == "None"  # Hypothesis's own home is back for the user's tests
    assert not (tmp_path / ".hypothesis").exists()
    # a home the user chose is theirs: Hypothesis writes its cache there
    chosen = tmp_path / "chosen"
    out = _python(code, tmp_path, HYPOTHESIS_STORAGE_DIRECTORY=str(chosen))
    assert out.returncode == 0, out.stderr
    assert (chosen / "unicode_data").is_dir() and not (tmp_path / ".hypothesis").exists()


def test_without_the_private_home_hypothesis_would_write_there(tmp_path):
    """The control: the same audit with private_storage turned off leaves ./.hypothesis."""
    out = _python(f"""
        import contextlib
        from audit.collect import runner
        runner.private_storage = contextlib.nullcontext
        from audit.adapters import resolve
        ads = resolve("{PLANTED}.sentence", overrides={{"beta": 2, "scale": 100}})
        runner.run_audit(ads, seed=0, max_examples=10, cases_dir=None, jobs=1)
        ads[0].close()
    """, tmp_path)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / ".hypothesis").is_dir()


def test_one_owner_of_hypothesis_home():
    """Two mechanisms owned Hypothesis's home (the CLI's own temporary home for the whole process,
    and ``private_storage`` around every audit): one is left, and every entry point goes through it."""
    import ast

    root = Path(__file__).resolve().parents[1] / "audit"
    owners = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = getattr(node, "attr", None) or getattr(node, "id", None) or getattr(node, "name", None)
            if name in ("set_hypothesis_home_dir", "__hypothesis_home_directory"):
                owners.append(path.relative_to(root).as_posix())
            elif isinstance(node, ast.Constant) and node.value in ("__hypothesis_home_directory",
                                                                   "HYPOTHESIS_STORAGE_DIRECTORY"):
                owners.append(path.relative_to(root).as_posix())
    assert set(owners) == {"settings/hypothesis_profiles.py", "settings/hypothesis_hooks.py"}  # the hooks: its reads
    users = {p.relative_to(root).as_posix() for p in root.rglob("*.py") if "private_storage()" in p.read_text()}
    assert users >= {"cli.py", "collect/runner.py", "collect/parallel.py"}


# ------------------------------------------------------------------------------- the CLI


def _cli(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "audit.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT)))


@pytest.mark.parametrize("argv, expected", [
    ([], 100),
    (["--hypothesis-profile", "chrf-audit-dev"], 25),
    (["--hypothesis-profile", "chrf-audit-ci"], 300),
    (["--hypothesis-profile", "chrf-audit-dev", "--max-examples", "7"], 7),
])
def test_the_profile_gives_the_default_budget_of_run_and_check(argv, expected, tmp_path):
    from audit.cli import build_parser
    from audit.commands.check import _merge
    from audit.commands.run import validate_search_args
    from audit.gate.config import Config

    args = build_parser().parse_args(["run", "--impl", "nltk", *argv])
    validate_search_args(args)
    assert args.max_examples == expected
    args = build_parser().parse_args(["check", "--impl", "nltk", *argv])
    args.cases_explicit = False  # as check() sets it
    _merge(args, Config())
    validate_search_args(args)
    assert args.max_examples == expected
    args = build_parser().parse_args(["validate-patch", "--impl", "nltk", "--patch", "x.diff", *argv])
    validate_search_args(args)
    assert args.max_examples == expected


def test_validate_patch_hands_the_profile_to_both_audits(monkeypatch, tmp_path):
    """The before and after audits of validate-patch run under the profile named on its
    command line (they are child processes: the request carries the name)."""
    from audit.commands import validate_patch as command
    from audit import patches as patch_validation

    seen = {}

    def fake_validate(target, **kw):
        seen["target"] = target
        raise SystemExit(0)

    monkeypatch.setattr(patch_validation, "validate", fake_validate)
    from audit.cli import build_parser

    diff = tmp_path / "x.diff"
    diff.write_text("--- a/nltk/x.py\n+++ b/nltk/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    args = build_parser().parse_args(["validate-patch", "--impl", "nltk", "--patch", str(diff),
                                      "--hypothesis-profile", "chrf-audit-dev"])
    with pytest.raises(SystemExit):
        command.validate_patch(args)
    target = seen["target"]
    assert (target.hypothesis_profile, target.max_examples) == ("chrf-audit-dev", 25)
    from dataclasses import asdict

    assert asdict(target)["hypothesis_profile"] == "chrf-audit-dev"  # what the worker request holds


def test_the_configuration_selects_the_profile_and_the_flag_wins(tmp_path):
    from audit.gate import config
    from audit.cli import build_parser
    from audit.commands.check import _merge
    from audit.commands.run import validate_search_args

    (tmp_path / "pyproject.toml").write_text('[tool.chrf-audit]\nhypothesis-profile = "chrf-audit-dev"\n')
    cfg = config.load(tmp_path / "pyproject.toml")
    for argv, expected in (([], ("chrf-audit-dev", 25)), (["--hypothesis-profile", "chrf-audit-ci"], ("chrf-audit-ci", 300))):
        args = build_parser().parse_args(["check", *argv])
        args.cases_explicit = False  # as check() sets it
        _merge(args, cfg)
        validate_search_args(args)
        assert (args.hypothesis_profile, args.max_examples) == expected
    with pytest.raises(UsageError, match="hypothesis-profile must be a non-empty string"):
        config.parse({"hypothesis-profile": 3})


@pytest.mark.parametrize("command", ["run", "check", "validate-patch"])
def test_an_unknown_profile_on_the_command_line_is_exit_2(command, tmp_path):
    extra = ["--patch", "x.diff"] if command == "validate-patch" else []
    out = _cli(command, "--impl", "nltk", *extra, "--hypothesis-profile", "nope", cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1].startswith("chrf-audit: error: unknown Hypothesis profile 'nope'")
    assert "Traceback" not in out.stderr


def test_the_cli_seed_changes_the_inputs_and_repeats_them(tmp_path):
    """``--seed`` of run and check: the largest divergence met depends on the inputs drawn;
    the same seed gives the same report, run and check agree.  No curated cases: they are
    replayed before the search whatever the seed, and the built-in ones hold hyp "c" ref "c",
    whose difference (-83.33) no drawn input can exceed for this family, so with them the
    largest would be the same at every seed."""
    (tmp_path / "no-cases").mkdir()
    impl = ["--impl", f"{PLANTED}.sentence", "--beta", "2", "--scale", "100", "--max-examples", "30",
            "--jobs", "1", "--quiet", "--cases", "no-cases"]

    def largest(command, seed, name):
        path = tmp_path / f"{name}.json"
        out = _cli(command, *impl, "--seed", str(seed), "--json", str(path), cwd=tmp_path)
        assert out.returncode == 1, out.stderr
        data = json.loads(path.read_text())
        return [f["largest"] for f in data["findings"]], data["run"]["seed"]

    run0, run0_again, run1, check1 = (largest("run", 0, "a"), largest("run", 0, "b"), largest("run", 1, "c"),
                                      largest("check", 1, "d"))
    assert run0 == run0_again and run0[1] == 0
    assert run1[1] == check1[1] == 1
    assert run0[0] != run1[0]
    assert run1[0] == check1[0]


def test_first_use_inside_a_users_settings_test_does_not_warn(tmp_path):
    """The plugin imports the profiles on first use, which may be inside a user's @settings
    test, where Hypothesis warns about registering a profile (an error under -W error)."""
    out = _python("""
        import warnings
        warnings.simplefilter("error")
        from hypothesis import given, settings, strategies as st

        @settings(max_examples=1, database=None, deadline=None)  # the first import, on a loaded machine
        @given(st.none())
        def test(x):
            from audit.settings import hypothesis_profiles as HP
            print(HP.resolve().max_examples)

        test()
    """, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["100"]


def test_a_profile_budget_beyond_the_limit_is_a_usage_error(restore_profiles):
    """A profile may ask for any max_examples Hypothesis accepts; chrf-audit's limit still holds,
    and the error names the profile, not a flag the user did not give."""
    from audit.collect.runner import run_audit

    settings.register_profile("huge", max_examples=10**7)
    with pytest.raises(UsageError, match=r"max_examples of the Hypothesis profile 'huge' must be >= 1 and <= "):
        run_audit([], max_examples=None, hypothesis_profile="huge")
    assert run_audit([], max_examples=None, hypothesis_profile="chrf-audit-dev").max_examples == 25

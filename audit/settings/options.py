"""The one table of chrf-audit's settings: name, type, default, validation and help of every
option of every subcommand, of ``[tool.chrf-audit]``, of the pytest plugin and of
``run_audit``'s keywords.

Why one table: surfaces that declared their own options drifted.  Here every option is one
row (``Option``, ``audit.settings.option``): the subcommands build their flags from it
(``add_arguments``), ``audit.gate.config`` its keys and dataclasses, ``audit.gate.pytest_plugin``
its options, and all validate a value with the row's ``check``: a bad value is the same one-line
error (exit 2) everywhere.  tests/test_option_surfaces.py holds every surface to the table.

Adding an option is one row: its surfaces say where it is offered, its group where the help
lists it.  A default of None means "not set" (the help says what applies); ``DEFAULT_CASES`` is
worked out where it is used (``default_cases``).  Resource bounds (how large a timeout or an
order may be) are in ``audit.settings.limits``; the checks call them.
"""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path
from typing import Callable, Optional

from reference_impl.params import DEFINITIONS

from . import option as O
from .option import (API, CHECK, CLI, COMMANDS, CONFIG, ENTRY, IMPACT, PATCH, PLUGIN, REPORT, RUN, STATS,
                     SURVEY, VERSIONS, Computed, Option)

__all__ = ["OPTIONS", "CLAIMS", "IMPLEMENTATION", "ACCEPTABLE", "BUDGET", "PROFILE_BUDGETS", "DEFINITIONS",
           "RESAMPLES", "ALPHA", "CORPUS_TIMEOUT", "DEFAULT_CASES", "Option", "CLI", "CONFIG", "ENTRY", "PLUGIN", "API",
           "COMMANDS", "default", "on", "keys", "for_command", "add_arguments", "add_argument", "validate",
           "validate_args", "default_cases", "packaged_cases", "replayed"]

#: The search budget (inputs per implementation and level) of chrf-audit's Hypothesis profiles
#: (audit.settings.hypothesis_profiles; the default profile is the first): the one place they are written.
PROFILE_BUDGETS = {"chrf-audit": 100, "chrf-audit-ci": 300, "chrf-audit-dev": 25}
BUDGET = PROFILE_BUDGETS["chrf-audit"]
#: The impact study's statistics (``impact``, ``run --impact-data``, ``audit.impact``) and the
#: timeout of one call that scores a whole system's corpus.
RESAMPLES, ALPHA, CORPUS_TIMEOUT = 1000, 0.05, 600.0
#: Claims a Python callable may take as keyword arguments (``definition``, ``scale``: not parameters of a call).
ACCEPTABLE = ("char_order", "word_order", "beta", "lowercase", "whitespace")
#: ``cases`` not given: ``<base>/cases`` when it is a directory (the project's own curated
#: cases; base: the current directory, or ``check``'s configuration's), else chrf-audit's.
DEFAULT_CASES = Computed("cases/ when it exists, else chrf-audit's curated cases")

# -- the groups of --help, in their usual order --------------------------------------------------
GATE, IMPL, HTTP, CLAIM, SEARCH, OUTPUT, CORPUS_IMPACT = (
    "gate", "implementation", "http", "claims", "search", "output", "impact")
PATCHING, STATISTICS, PROCEDURES, RELEASES, ENGINE, SOURCE = (
    "patch", "statistics", "procedures", "releases", "engine", "source")
GROUPS = {
    GATE: "gate", PATCHING: "patch", SOURCE: "input", PROCEDURES: "procedures",
    IMPL: "implementation under audit", HTTP: "a scoring service (--http)",
    CLAIM: "claims (override the implementation's own)", SEARCH: "search",
    RELEASES: "releases and their environments", ENGINE: "engine (Dask distributed)",
    STATISTICS: "statistics", OUTPUT: "output",
    CORPUS_IMPACT: "impact on a real corpus (implementations with findings only)",
}

_AUDIT = (RUN, CHECK)
_SEARCHING = (RUN, CHECK, PATCH, VERSIONS, SURVEY, API)  # the commands (and run_audit) that run the search
_IMPLS = (RUN, CHECK, PATCH, IMPACT, VERSIONS)  # the commands that call an implementation
_CALLABLES = (RUN, CHECK, IMPACT, VERSIONS, ENTRY)  # --max-refs, --name, --accepts
_SERVICE = (RUN, CHECK, ENTRY)  # a scoring service: run and check, and a configured entry


def _rows(group: str, *rows: Option) -> tuple:
    return tuple(row if row.group else _with_group(row, group) for row in rows)


def _with_group(row: Option, group: str) -> Option:
    from dataclasses import replace

    return replace(row, group=group)


def _opt(name, kind, default, help, surfaces, check=O.any_value, metavar=None, *, choices=None, dest=None,
         flag=None, required=False, group="", **variants) -> Option:
    """One row; ``variants``: {subcommand with ``_`` for ``-``: {field: value}}."""
    return Option(name, kind, default, help, frozenset(surfaces), check, metavar, choices, group, dest, flag,
                  required, tuple((cmd.replace("_", "-"), dict(v)) for cmd, v in variants.items()))


_TABLE = (
    *_rows(
        GATE,
        _opt("config", Path, None, "TOML file with a [tool.chrf-audit] table (default ./pyproject.toml)", (CHECK,),
             metavar="FILE"),
        _opt("baseline", Path, None, "accepted findings (default chrf-audit-baseline.json beside the configuration)",
             (CHECK, CONFIG), metavar="FILE"),
        _opt("strict", bool, False, "stale entries (accepted findings that no longer reproduce) and expired ones "
             "fail too", (CHECK, CONFIG)),
        _opt("update_baseline", bool, False, "write the current findings into the baseline (keeps reasons and "
             "expiry dates), exit 0", (CHECK,)),
        _opt("today", str, None, "date against which expiry is judged (default: today)", (CHECK,), O.iso_date,
             "YYYY-MM-DD"),
    ),
    *_rows(
        PATCHING,
        _opt("patch", Path, None, "unified diff against the implementation's package", (PATCH,), metavar="FILE"),
        _opt("source", Path, None, "source checkout holding the patched package (DIR/<pkg>, DIR/src/<pkg> or DIR "
             "itself)", (PATCH,), metavar="DIR"),
        _opt("call_option", list, None, "a keyword the patched built-in library is called with (an opt-in patch's "
             "new parameter, e.g. effective_order=true); the value is JSON (true, 3, \"x\") or else a string; "
             "repeatable", (PATCH,), metavar="NAME=VALUE"),
    ),
    *_rows(
        SOURCE,
        _opt("report_from", Path, None, "an audit.json written by chrf-audit run or check", (REPORT,),
             metavar="FILE", dest="source", flag="from", required=True),
        _opt("ref", list, None, "reference file (repeat for several references per segment)", (IMPACT,),
             metavar="REF", required=True),
    ),
    *_rows(
        PROCEDURES,
        _opt("sacrebleu", bool, False, "sacreBLEU's corpus_score(n_bootstrap=) interval, paired AR and paired "
             "bootstrap", (STATS,)),
        _opt("evaluatio", bool, False, "evaluatio's chrf_ci and chrf_permutation_test, in a private virtual "
             "environment (created once under ~/.cache/chrf-audit)", (STATS,)),
        _opt("reference", bool, False, "chrf-audit's own procedures (audit.impact.significance): the correct "
             "baseline", (STATS,)),
        _opt("ci", list, None, "a Python callable fn(hypotheses, references, resamples=, alpha=, seed=) returning "
             "(score, low, high); run in its own worker process; repeatable", (STATS,), metavar="SPEC"),
        _opt("paired", list, None, "a Python callable fn(hyps_a, hyps_b, references, resamples=, seed=) returning "
             "a p-value; run in its own worker process; repeatable", (STATS,), metavar="SPEC"),
        _opt("stats_external", list, None, "a program speaking the protocol's stats operations "
             "(docs/external-protocol.md); repeatable", (STATS,), metavar="CMD", dest="external"),
        _opt("stats_accepts", str, "resamples,alpha,seed", "keywords the --ci/--paired callables accept (default "
             "resamples,alpha,seed; not run's --accepts, which names claims)", (STATS,),
             O.names_in(("resamples", "alpha", "seed"), "keyword"), "NAMES", dest="accepts"),
        _opt("statistic", str, "permutation", "the test statistic a --paired callable claims: permutation "
             "(default), bootstrap (sacreBLEU's Moses statistic) or bootstrap-t (studentized, "
             "audit.impact.significance)", (STATS,), choices=("permutation", "bootstrap", "bootstrap-t")),
        _opt("draw", str, None, "the random draw --ci/--paired callables claim (numpy.random.default_rng(seed)"
             ".choice(n, (R, n)), or one integers(0, n, R) per position): every answer is then replayed in "
             "float64 on its own resamples (default: identified when possible)", (STATS,),
             choices=("numpy-choice", "numpy-integers-per-position")),
        _opt("documented_layout", str, "segments", "reference layout the callables' documentation states "
             "(default segments)", (STATS,), choices=("segments", "streams")),
        _opt("evaluatio_python", str, None, "an interpreter that has evaluatio (skips creating the private venv)",
             (STATS,), O.non_empty("path"), "PATH"),
        _opt("trials", int, None, "calibration datasets and coverage corpora per check (default 200)", (STATS,),
             O.at_least(20), "N"),
    ),
    *_rows(
        IMPL,
        _opt("impl", str, None, "nltk | sacrebleu | sacrebleu-chrf[++][-eps] | torchmetrics | torchmetrics-chrf[++] "
             "| package.module:function (sentence level: function(hypothesis, references) -> float)",
             _IMPLS + (ENTRY,), metavar="SPEC"),
        _opt("corpus_impl", str, None, "package.module:function (corpus level: function(hypotheses, "
             "references_per_segment) -> float)", _IMPLS + (ENTRY,), metavar="SPEC"),
        _opt("external", str, None, "an external program speaking the JSON-lines protocol "
             "(docs/external-protocol.md)", (RUN, CHECK, IMPACT, ENTRY), metavar="COMMAND"),
        _opt("max_refs", int, None, "the most references per segment the callable or program takes (1: a "
             "single-reference library); the search never sends more", _CALLABLES, O.at_least(1), "N"),
        _opt("name", str, None, "name of the callable or program in reports and report file names", _CALLABLES,
             O.one_line("name"), "NAME"),
        _opt("accepts", str, None, "claims the callable takes as keyword arguments, comma-separated (char_order, "
             "word_order, beta, lowercase, whitespace): it is called with them, and the audit varies them to find "
             "parameters it ignores", _CALLABLES, O.names_in(ACCEPTABLE, "parameter"), "NAMES"),
        _opt("timeout", float, 5.0, "per-call timeout in seconds (default 5)", _IMPLS + (STATS, SURVEY, CONFIG,
             ENTRY, PLUGIN), O.timeout, "SECONDS",
             impact=dict(default=CORPUS_TIMEOUT, help=f"per-call timeout in seconds (default {CORPUS_TIMEOUT:g} "
                         "here: one call scores a whole system's corpus)"),
             stats=dict(default=120.0, help="per-call timeout for sacreBLEU, --ci/--paired callables and external "
                        "programs, seconds (default 120 here: one call runs a whole bootstrap or test)")),
    ),
    *_rows(
        HTTP,
        _opt("http", str, None, "a scoring service: the URL its contract's requests are sent to (with --contract; "
             "docs/http.md)", _SERVICE, O.non_empty("URL"), "URL"),
        _opt("contract", str, None, "the service's contract: built in chrf-plus-plus-compute@1.0.0, a contract "
             "file, a URL of a contract document, or auto (the service's versioned contract path)", _SERVICE,
             O.non_empty("contract"), "NAME@VERSION|FILE|URL|auto"),
        _opt("mcp", str, None, "an MCP server (streamable HTTP) whose tool is audited by its contract (with --tool; "
             "docs/http.md)", _AUDIT, O.non_empty("URL"), "URL"),
        _opt("tool", str, None, "--mcp: the tool's contract, NAME@VERSION (built in: chrf-plus-plus-compute@1.0.0)",
             _AUDIT, O.non_empty("tool"), "NAME@VERSION"),
        _opt("max_requests", int, None, "send at most N requests to the service (retries not counted); more is a "
             "one-line error", _SERVICE, O.at_least(1), "N"),
        _opt("http_concurrency", int, 4, "requests in flight at once (default 4)", _AUDIT, O.between(1, 64), "N"),
        _opt("http_retries", int, 3, "retries of a request answered 429/5xx or dropped, with backoff and "
             "Retry-After (default 3)", _AUDIT, O.between(0, 64), "N"),
    ),
    *_rows(
        CLAIM,
        _opt("char_order", int, None, "character n-gram order claimed (default the implementation's, 6)",
             _IMPLS + (ENTRY,), O.order("char_order", 1), "N"),
        _opt("word_order", int, None, "word n-gram order claimed (0 chrF, 2 chrF++)", _IMPLS + (ENTRY,),
             O.order("word_order"), "N"),
        _opt("beta", float, None, "beta claimed (recall weight)", _IMPLS + (ENTRY,), O.positive_number, "B"),
        _opt("lowercase", bool, None, "the implementation lowercases", _IMPLS + (ENTRY,)),
        _opt("whitespace", bool, None, "whitespace is kept in character n-grams", _IMPLS + (ENTRY,)),
        _opt("definition", str, None, "the chrF definition claimed (docs/definitions.md)", _IMPLS + (ENTRY,),
             O.one_of(DEFINITIONS), choices=DEFINITIONS),
        _opt("scale", int, None, "output scale of the implementation", _IMPLS + (ENTRY,), O.one_of((1, 100)),
             choices=(1, 100)),
    ),
    *_rows(
        SEARCH,
        _opt("seed", int, 0, "search seed (default 0): the same seed gives the same inputs and findings, another "
             "seed other inputs", _SEARCHING + (IMPACT, STATS, CONFIG, PLUGIN), O.integer, "N",
             impact=dict(group=STATISTICS, help="seed of the bootstrap resamples and permutation trials "
                         "(default 0)"),
             stats=dict(group=PROCEDURES, help="seed of the calibration data and of the seeds the procedures are "
                        "given (default 0)")),
        _opt("max_examples", int, None, "Hypothesis examples per level and implementation (default: the Hypothesis "
             f"profile's max_examples, {BUDGET} for chrf-audit)", _SEARCHING + (CONFIG, PLUGIN), O.examples, "N"),
        _opt("hypothesis_profile", str, None, "Hypothesis settings profile: chrf-audit (default; "
             f"{PROFILE_BUDGETS['chrf-audit']} examples), chrf-audit-ci ({PROFILE_BUDGETS['chrf-audit-ci']} examples), "
             f"chrf-audit-dev ({PROFILE_BUDGETS['chrf-audit-dev']} examples, prints every input tried), or one "
             "registered with hypothesis.settings.register_profile; see docs/hypothesis.md",
             _SEARCHING + (CONFIG, PLUGIN), O.profile_name, "NAME"),
        _opt("tolerance", float, 1e-9, "absolute tolerance on the 0..100 scale (default 1e-9)",
             _SEARCHING + (CONFIG, PLUGIN), O.tolerance, "X"),
        _opt("cases", Path, DEFAULT_CASES, "regression cases replayed first (default: cases/ when it exists, else "
             "chrf-audit's curated cases; check: cases/ beside the configuration; a named DIR must exist)",
             _SEARCHING + (CONFIG, PLUGIN), O.directory, "DIR", api=dict(dest="cases_dir")),
        _opt("save_cases", bool, False, "save each finding's minimal repro into the cases directory (./cases unless "
             "--cases names one)", _AUDIT + (API,),
             api=dict(default=False, help="True: save into cases_dir; a directory: save there")),
        _opt("jobs", int, None, "processes working side by side (default: the number of cores); the findings are "
             "the same for any N", _AUDIT + (STATS, VERSIONS, SURVEY, API), O.at_least(1), "N",
             api=dict(default=1, help="processes (default 1: a script that asks for more needs the "
                      "if __name__ == '__main__' guard of multiprocessing's spawn)"),
             stats=dict(group=PROCEDURES, help="procedures with processes of their own audited side by side "
                        "(default: the number of cores); the results are the same for any N"),
             versions=dict(group=ENGINE, help="worker processes of the embedded Dask cluster (default: the number "
                           "of cores); the results are the same for any N"),
             survey=dict(group=ENGINE, help="worker processes of the embedded Dask cluster (default: the number of "
                         "cores); the results are the same for any N")),
    ),
    *_rows(
        RELEASES,
        _opt("python", list, None, "an interpreter to install releases with (tried first; repeatable); Python "
             ">= 3.10", (VERSIONS, SURVEY), metavar="PATH"),
        _opt("index_url", str, None, "the package index (pip / uv)", (VERSIONS, SURVEY), O.non_empty("URL"), "URL"),
        _opt("find_links", list, None, "a directory or page of distributions (passed to pip / uv; repeatable)",
             (VERSIONS, SURVEY), metavar="DIR|URL"),
        _opt("bisect", bool, False, "audit only the releases that place each transition (O(log n) per "
             "transition), assuming a family is the same throughout an interval whose two ends agree", (VERSIONS,)),
        _opt("scheduler", str, None, "run on an existing Dask cluster instead (its workers need chrf-audit and the "
             "index)", (VERSIONS, SURVEY), O.non_empty("address"), "tcp://HOST:PORT", group=ENGINE),
        _opt("worker_wait", float, 120.0, "seconds to wait while the cluster has no worker (none joined yet, or the "
             "last one died) before the run stops with an error (default 120)", (VERSIONS, SURVEY), O.timeout,
             "SECONDS", group=ENGINE),
        _opt("differential", int, 60, "inputs of the second route per implementation and configuration (default "
             "60): sacreBLEU's own CHRF against the implementation", (SURVEY,), O.at_least(1), "N", group=ENGINE),
        _opt("registry", Path, None, "the implementations to survey (default: chrf-audit's own registry, "
             "docs/survey.md)", (SURVEY,), O.any_value, "FILE", group=RELEASES),
    ),
    *_rows(
        STATISTICS,
        _opt("resamples", int, RESAMPLES, f"bootstrap resamples and permutation trials (default {RESAMPLES})",
             (IMPACT,), O.resamples, "N"),
        _opt("alpha", float, ALPHA, f"significance level; CIs are 1-alpha (default {ALPHA})", (IMPACT,),
             O.probability, "A"),
        _opt("impl_tests", bool, True, "skip the implementation's significance calls (ranking only)", (IMPACT,),
             flag="no-impl-tests"),
    ),
    *_rows(
        OUTPUT,
        _opt("json", Path, None, "write the JSON report here", _AUDIT + (CONFIG, PATCH, IMPACT, STATS, VERSIONS, SURVEY),
             metavar="PATH", validate_patch=dict(help="write the result as JSON here"),
             impact=dict(help="write the full result as JSON here"),
             stats=dict(help="write the findings and every check as JSON here"),
             versions=dict(help="write the matrix as JSON here (docs/versions.md)"),
             survey=dict(help="write the survey's table as JSON here (docs/survey.md)")),
        _opt("markdown", Path, None, "write markdown bug reports (and charts) into DIR", _AUDIT + (CONFIG, VERSIONS),
             metavar="DIR", versions=dict(help="write PACKAGE.md and charts/PACKAGE-versions.svg into DIR")),
        _opt("junit", Path, None, "write a JUnit XML file here", _AUDIT + (CONFIG,), metavar="PATH"),
        _opt("reports_dir", Path, None, "write every report into DIR (run: default reports/ when no implementation "
             "is given)", _AUDIT + (CONFIG, STATS, REPORT, SURVEY), metavar="DIR",
             survey=dict(help="write survey.md, survey.json and issues/<library>/ into DIR"),
             stats=dict(help="write <library>.md, stats.json and charts/ into DIR"),
             report=dict(group=SOURCE, help="where to write the reports (default: the directory of FILE); only "
                         "inside it")),
        _opt("quiet", bool, False, "no progress on stderr (the findings table is still printed)",
             _AUDIT + (PATCH, STATS, VERSIONS, REPORT, SURVEY),
             stats=dict(help="no progress on stderr and no table on stdout (the files asked for are still "
                        "written)"),
             report=dict(help="no findings table on stdout (report draws no progress: the files are still "
                         "written)")),
        _opt("timestamp", bool, False, "record the time of the run (in one separate 'volatile' field of the JSON "
             "report)", _AUDIT),
        _opt("versions_from", Path, None, "a result of chrf-audit versions --json: the issues say which release "
             "introduced each family (default: the project's reports/versions/PACKAGE.json of the audited library, when "
             "there is one)",
             _AUDIT, metavar="FILE"),
        _opt("related", Path, None, "a JSON list of related upstream issues and pull requests (repository, number, "
             "kind, title, state, families) that the issue files cite", _AUDIT, metavar="FILE"),
        _opt("no_verify", bool, False, "do not verify suggested patches (each is applied to a temporary copy of the "
             "upstream package, which is audited and the finding's repro replayed on it)", _AUDIT),
    ),
    *_rows(
        CORPUS_IMPACT,
        _opt("impact_data", Path, None, "DIR/reference.txt and system outputs DIR/*.txt (one segment per line): add "
             "to each report what the findings do to those systems' corpus scores, ranks and significance calls",
             (RUN,), metavar="DIR"),
        _opt("impact_systems", int, None, "study only the N systems whose reference scores lie closest together "
             "(default all)", (RUN,), O.at_least(2), "N"),
        _opt("impact_resamples", int, RESAMPLES, f"bootstrap resamples and permutation trials (default {RESAMPLES}; "
             "seed: --seed)", (RUN,), O.resamples, "N"),
        _opt("impact_alpha", float, ALPHA, f"significance level (default {ALPHA})", (RUN,), O.probability, "A"),
        _opt("impact_timeout", float, CORPUS_TIMEOUT, "per-call timeout of the implementation's corpus calls "
             f"(default {CORPUS_TIMEOUT:g})", (RUN,), O.timeout, "SECONDS"),
    ),
)
OPTIONS: dict[str, Option] = {o.name: o for o in _TABLE}
CLAIMS = tuple(o.name for o in _TABLE if o.group == CLAIM)
#: what says which implementation is audited and how it is called: ``resolve``'s keywords
IMPLEMENTATION = tuple(o.name for o in _TABLE if o.group in (IMPL, HTTP))


def default(name: str, command: Optional[str] = None):
    """The default of option ``name`` (None: not set), as ``command`` offers it."""
    o = OPTIONS[name]
    return (o.on(command) if command else o).default


def on(surface: str) -> list[Option]:
    """The options of one surface (a subcommand, CONFIG, ENTRY, PLUGIN, or CLI: any
    subcommand), in table order."""
    if surface == CLI:
        return [o for o in _TABLE if o.commands]
    return [o.on(surface) if surface in COMMANDS + (API,) else o for o in _TABLE if surface in o.surfaces]


def keys(surface: str) -> list[str]:
    return [o.key for o in on(surface)]


def for_command(command: str) -> list[Option]:
    return on(command)


def add_argument(group, name: str, command: Optional[str] = None, **override) -> None:
    """The argparse flag of option ``name`` as ``command`` offers it (``override``: e.g.
    ``default=None`` where a configuration fills what the command line leaves out)."""
    o = OPTIONS[name].on(command) if command else OPTIONS[name]
    kw = o.argparse_keywords()
    kw.update(override)
    group.add_argument(o.flag_text, **kw)


def add_arguments(parser, command: str, *, order: tuple = (), titles: Optional[dict] = None) -> None:
    """Every flag of ``command``, grouped as the table groups them (``order``: the groups to
    list first; ``titles``: another title for a group in this command's help)."""
    rows = on(command)
    groups = list(dict.fromkeys(list(order) + [o.group for o in rows]))
    for g in groups:
        members = [o for o in rows if o.group == g]
        if not members:
            continue
        section = parser.add_argument_group((titles or {}).get(g, GROUPS[g]))
        for o in members:
            add_argument(section, o.name, command)


def validate(values: dict, *, label: Callable[[Option], str] = lambda o: o.flag) -> dict:
    """Check every option value in ``values`` (name -> value; None: not set) with the table;
    ``label`` names an option in the messages (its flag by default)."""
    return {name: OPTIONS[name].validate(v, label(OPTIONS[name])) if name in OPTIONS else v
            for name, v in values.items()}


def validate_args(args, command: str, *, skip: tuple = ("cases",)) -> None:
    """Every option of ``command`` in the parsed ``args``, checked as the table says (the
    values set in place: ``--accepts char-order`` becomes ``char_order``).  ``cases`` is
    checked by ``audit.commands.cases_arg`` (a directory ``--save-cases`` creates may be new)."""
    for o in on(command):
        if o.name not in skip and hasattr(args, o.attr):
            setattr(args, o.attr, o.validate(getattr(args, o.attr), o.flag_text))


# -- the replayed cases ------------------------------------------------------------------------

def packaged_cases() -> Optional[Path]:
    """chrf-audit's own curated cases: the source checkout's ``cases/`` (an editable install),
    else the copy a wheel installs under ``<prefix>/share/chrf-audit/cases``."""
    here = Path(__file__).resolve().parents[2] / "cases"
    candidates = [here, Path(sysconfig.get_path("data")) / "share" / "chrf-audit" / "cases",
                  Path(sys.prefix) / "share" / "chrf-audit" / "cases"]
    return next((p for p in candidates if p.is_dir() and any(p.glob("*.json"))), None)


def default_cases(base: Path = Path(".")) -> Optional[Path]:
    """The cases replayed when none are named (``DEFAULT_CASES``): ``<base>/cases`` when it is
    a directory, else chrf-audit's curated cases, so that a run gives the same fit counts from
    any directory (issue 29 item 14: ``./cases`` or nothing gave the clone root other counts)."""
    own = Path(base) / "cases"
    return own if own.is_dir() else packaged_cases()


def replayed(cases, base: Path = Path(".")) -> Optional[Path]:
    """A ``cases`` value as the directory replayed: ``DEFAULT_CASES`` worked out, a named
    directory as it is, None for none."""
    return default_cases(base) if cases is DEFAULT_CASES else cases

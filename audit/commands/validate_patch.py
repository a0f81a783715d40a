"""``chrf-audit validate-patch``: does a patch fix an implementation's chrF bugs?

Applies a unified diff (--patch FILE; any path prefix: a/, none, src/) to a temporary copy of
the package it touches, or takes a source checkout as it is (--source DIR; with --patch too,
the diff is applied to a copy of the checkout), then audits the implementation before and
after in two separate processes (same seed, budget and Hypothesis profile) and reports each family
as fixed, still present or introduced, with its minimal repro.  The installed package and the
checkout are never written to.

Exit 0: at least one family fixed and none introduced.  Exit 1: otherwise (or the patched
implementation cannot be loaded).  Exit 2: a malformed or non-applying diff, an unknown
implementation, or another usage error.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..files import jsontext
from ..errors import UsageError
from ..files.outputs import atomic_write, check_file, to_stdout
from ..settings import options
from .run import claim_overrides, validate_search_args


def register(sub) -> None:
    p = sub.add_parser("validate-patch", help="audit an implementation before and after a patch: fixed, still present, introduced",
                       description=__doc__)
    options.add_arguments(p, "validate-patch", order=("patch",))
    p.set_defaults(func=validate_patch)


def validate_patch(args) -> int:
    from ..patches import Target, read_diff, render, validate

    validate_search_args(args, "validate-patch")
    check_file(args.json, "--json")
    if args.patch is None and args.source is None:
        raise UsageError("validate-patch needs --patch FILE (a unified diff) or --source DIR (a source checkout)")
    overrides = claim_overrides(args)
    if overrides:
        from ..adapters import Claims

        try:
            Claims().replace(**overrides)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"invalid claims: {exc}") from None
    cases = Path(args.cases).resolve() if args.cases is not None and Path(args.cases).is_dir() else None
    target = Target(impl=args.impl, corpus_impl=args.corpus_impl, overrides=overrides, seed=args.seed,
                    max_examples=args.max_examples, tolerance=args.tolerance, timeout=args.timeout,
                    cases=str(cases) if cases else None, hypothesis_profile=args.hypothesis_profile,
                    backend_options=call_options(args.call_option, args.impl))
    target.packages()  # unknown implementation: fail before any work
    diff = read_diff(args.patch) if args.patch is not None else None
    from .progress import Phases

    with Phases(not args.quiet) as phases:  # drawn on stderr for a terminal, as run's
        result = validate(target, diff=diff, diff_name=str(args.patch) if args.patch else "patch",
                          source=args.source, progress=phases)
    if args.json:
        write_json(result, args.json)
    to_stdout((render(result) + "\n").encode("utf-8", "backslashreplace"))  # last: a full stdout loses no file
    return 0 if result.ok else 1


def call_options(items: list, impl) -> dict:
    """``--call-option NAME=VALUE`` as keywords of a built-in library's patched copy."""
    import json
    import keyword

    if items and (not impl or ":" in impl):
        raise UsageError("--call-option passes keywords to a built-in library (--impl nltk, torchmetrics, ...)")
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier() or keyword.iskeyword(name):
            raise UsageError(f"--call-option expects NAME=VALUE with NAME a Python identifier, got {item!r}")
        try:
            out[name] = json.loads(value)
        except ValueError:
            out[name] = value
        if not isinstance(out[name], (bool, int, float, str)) or out[name] is None:
            raise UsageError(f"--call-option {name}: a boolean, a number or a string, got {value!r}")
    return out


def write_json(result, path) -> None:
    """The ``--json`` file of a ``Validation`` (every string as the search made it: jsontext)."""
    try:
        atomic_write(path, jsontext.dumps(result.to_dict()))
    except OSError as exc:
        raise UsageError(f"--json {path}: cannot write: {exc.strerror or exc}") from None

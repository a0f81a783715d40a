"""``chrf-audit impact``: would an implementation's deviations change system-level conclusions?"""

from __future__ import annotations

import argparse

from ..files import jsontext
from ..errors import UsageError
from ..files.outputs import atomic_write, check_file, stdout_last
from ..adapters.kinds import named
from ..settings import options
from .progress import impact_progress
from .run import claim_overrides, implementation_options

HELP = "compare system scores, rankings and significance calls: reference vs an implementation"

DESCRIPTION = """\
Score each SYSTEM file against the --ref file(s) with the exact reference and with an
implementation (default: nltk), and show what changes: corpus scores (reference with a
percentile bootstrap CI over segment statistics), differences, rankings, and the pairwise
significance calls (paired permutation / approximate randomization, p < alpha).

Reference parameters are those the implementation claims (nltk: chrF, beta 3, definition
"sacrebleu"), overridden by --char-order/--word-order/--beta/--lowercase/--whitespace/
--definition.

Significance under the reference: paired permutation over summed segment statistics
(never over sentence scores). Significance under the implementation: each segment is also
scored alone (one-segment corpus); if the implementation's corpus score is the mean of those
scores (nltk's corpus_chrf is), a paired permutation over them is exactly the approximate
randomization test of its corpus score, at the cost of one more pass over the data.
Otherwise no implementation significance call is made (an arbitrary corpus score would need
two full implementation runs per trial); its ranking is compared instead, and a pair whose
order it reverses against a significant reference call is reported as changed.
--no-impl-tests skips the per-segment pass.

Files: UTF-8, one segment per line; all files must have the same number of lines.
Exit 0 on success, 2 on a usage or input error.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "impact", help=HELP, description=DESCRIPTION
    )
    p.add_argument("systems", nargs="+", metavar="SYSTEM", help="system output file(s)")
    options.add_arguments(p, "impact", titles={
        "implementation": "implementation to compare (default nltk; the same options as run)",
        "claims": "reference parameters (default: what the implementation claims)"})
    p.set_defaults(func=run)


def _resolve_adapter(args):
    from ..adapters import resolve

    given = implementation_options(args)
    given.setdefault("impl", None if named(given) else "nltk")
    adapters = resolve(overrides=claim_overrides(args) or None, **given)
    if not adapters:
        raise UsageError(f"--impl {args.impl!r} resolves to no implementation")
    if len(adapters) > 1:
        for extra in adapters[1:]:
            extra.close()
        names = ", ".join(a.name for a in adapters)
        raise UsageError(f"--impl {args.impl!r} resolves to several implementations ({names}); pick one")
    return adapters[0]


def run(args, *, adapter=None, console=None) -> int:
    """Run the command; ``adapter`` may be injected (tests)."""
    from reference_impl import ChrfParams

    from ..impact import load_system_files, run_impact

    options.validate_args(args, "impact")
    check_file(args.json, "--json")
    systems, references = load_system_files(args.ref, args.systems)

    own = adapter is None
    if own:
        adapter = _resolve_adapter(args)
        if not adapter.supports.corpus:
            adapter.close()
            raise UsageError(f"{adapter.name} has no corpus-level function: impact compares corpus scores "
                             "(give --corpus-impl package.module:function)")
    try:
        params = adapter.claims.params()
        over = claim_overrides(args)
        if over and own is False:
            params = _with_overrides(params, over, ChrfParams)
        steps = impact_progress()
        with steps:
            result = run_impact(
                systems, references, adapter, params=params, resamples=args.resamples,
                alpha=args.alpha, seed=args.seed, implementation_tests=args.impl_tests, steps=steps,
            )
    finally:
        if own:
            adapter.close()
    if args.json:
        try:
            atomic_write(args.json, jsontext.dumps(result.to_dict()))
        except OSError as exc:
            raise UsageError(f"{args.json}: cannot write: {exc.strerror or exc}") from None
    with stdout_last():  # last: a full or closed stdout loses no file
        render(result, console=console)
    return 0


def _with_overrides(params, over, ChrfParams):
    fields = {**params.kwargs(), **over}
    try:
        return ChrfParams.make(**fields)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def _fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def render(result, console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    if console is None:  # the width of run's and check's table: the terminal's, else 100 columns
        from ..files.outputs import terminal_facts

        console = Console(width=terminal_facts()[0])
    from .progress import shown  # names (of the implementation, of the data's systems) are untrusted text

    conf = round(100 * (1 - result.alpha))
    impl_name = shown(result.implementation)
    t = Table(title=f"chrF impact: reference vs {impl_name}", title_justify="left")
    t.add_column("system")
    t.add_column(f"reference [{conf}% CI]", justify="right")
    t.add_column(impl_name, justify="right")
    t.add_column("diff", justify="right")
    t.add_column("rank ref", justify="right")
    t.add_column(f"rank {impl_name}", justify="right")
    for s in sorted(result.systems, key=lambda s: s.rank_reference):
        impl = _fmt(s.implementation_score) if s.implementation_score is not None else shown(s.implementation_outcome)
        moved = s.rank_implementation is not None and s.rank_implementation != s.rank_reference
        t.add_row(
            shown(s.name), f"{s.reference_score:.2f} [{s.ci_low:.2f}, {s.ci_high:.2f}]", impl,
            "-" if s.difference is None else f"{s.difference:+.2f}", str(s.rank_reference),
            ("[bold]" if moved else "") + ("-" if s.rank_implementation is None else str(s.rank_implementation)),
        )
    console.print(t)
    console.print(f"reference: {shown(result.reference_signature)}", highlight=False)
    console.print(
        f"{result.segments} segments; {result.resamples} resamples/trials, seed {result.seed}, "
        f"alpha {result.alpha}; implementation significance: {shown(result.implementation_significance)}",
        highlight=False,
    )
    for note in result.notes:
        console.print(f"note: {shown(note)}", highlight=False)
    changed = result.changed_pairs
    sig_ref = sum(p.reference_call != "n.s." for p in result.pairs)
    console.print(
        f"pairs: {len(result.pairs)}; significant under the reference: {sig_ref}; "
        f"calls that change: {len(changed)}", highlight=False,
    )
    if changed:
        pt = Table(title="pairwise calls that change", title_justify="left")
        for col in ("A", "B", "ref A-B", "ref p", "ref call", "impl A-B", "impl p", "impl call", "change"):
            pt.add_column(col, justify="right" if col not in ("A", "B", "change") else "left")
        for p in changed:
            pt.add_row(shown(p.a), shown(p.b), f"{p.reference_difference:+.2f}", f"{p.reference_p:.4f}",
                       p.reference_call, "-" if p.implementation_difference is None
                       else f"{p.implementation_difference:+.2f}",
                       _fmt(p.implementation_p, 4), p.implementation_call or "-", p.change)
        console.print(pt)

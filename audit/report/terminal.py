"""The rich table shown after a run: implementation x family, minimal repro, expected,
actual, difference.  Plain (no colour, ASCII box) when NO_COLOR is set or the output is not
a terminal; readable at 100 columns."""

from __future__ import annotations

import os
from typing import Optional

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ._text import num, repro_text, signed

#: SIMPLE_HEAD drawn with ASCII only (for logs, pipes and NO_COLOR).
ASCII_SIMPLE_HEAD = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)


def _console() -> Console:
    plain = "NO_COLOR" in os.environ
    probe = Console()
    if plain or not probe.is_terminal:
        return Console(no_color=True, highlight=False, emoji=False, width=probe.width if "COLUMNS" in os.environ else 100,
                       color_system=None)
    return Console(highlight=False)


def render_terminal(result, console: Optional[Console] = None) -> None:
    console = console or _console()
    plain = console.no_color or not console.is_terminal or console.color_system is None
    width = console.width
    fam_w = max((len(f.family) for f in result.findings), default=6)
    impl_w = max((len(f.implementation) for f in result.findings), default=4)
    fam_w = min(fam_w, 26 if width < 120 else 44)
    impl_w = min(max(impl_w, 4), 12)
    # the 'implementation' column is headed 'impl' to leave room for the repro
    # columns: impl, family, repro, 3 numbers of <= 10 characters, 2 spaces of padding each
    repro_w = max(16, width - impl_w - fam_w - 3 * 10 - 19)
    findings = result.findings
    if findings:
        table = Table(
            title=f"chrF audit: {len(findings)} finding{'s' if len(findings) != 1 else ''}",
            box=ASCII_SIMPLE_HEAD if plain else box.SIMPLE_HEAD, show_lines=False, pad_edge=False, show_edge=False,
            header_style="" if plain else "bold", title_style="" if plain else "bold", expand=False,
        )
        table.add_column("impl", overflow="fold", min_width=4, max_width=impl_w)
        table.add_column("family", overflow="fold", max_width=fam_w)
        table.add_column("minimal repro", overflow="ellipsis", no_wrap=True, max_width=repro_w)
        table.add_column("expected", justify="right", no_wrap=True)
        table.add_column("actual", justify="right", no_wrap=True)
        table.add_column("difference", justify="right", no_wrap=True)
        for f in findings:
            m = f.minimal
            actual = num(m.actual, 7) if m.outcome == "value" and m.actual is not None else m.outcome
            diff = Text(signed(m.difference, 4), style="" if plain else "red")
            table.add_row(Text(f.implementation), Text(_wrap_family(f.family, fam_w)),
                          Text(repro_text(m.inputs, repro_w)), Text(num(m.expected, 7)), Text(actual), diff)
        console.print(table)
    clean = [a for a in result.adapters if not a.findings]
    for a in clean:
        console.print(Text(f"{a.implementation}{' ' + a.version if a.version else ''}: no finding "
                           f"({a.examples} inputs)", style="" if plain else "green"))
    if not result.adapters:
        console.print(Text("no implementation audited"))


def _wrap_family(family: str, width: int) -> str:
    """Break a long kebab-case id after hyphens (rich only wraps at spaces)."""
    if len(family) <= width:
        return family
    lines, cur = [], ""
    for part in family.split("-"):
        piece = part if not cur else "-" + part
        if cur and len(cur) + len(piece) + 1 > width:
            lines.append(cur + "-")
            cur = part
        else:
            cur += piece
    lines.append(cur)
    return "\n".join(lines)

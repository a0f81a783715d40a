"""``--help`` of every command is wrapped by argparse to the terminal (issue 23, item 7): no
pre-wrapped description breaks mid-word at 80 columns, and no RST double backticks of the
docstrings that serve as descriptions reach the terminal."""

from __future__ import annotations

import contextlib
import io

import pytest

from audit.cli import HelpFormatter, build_parser

COMMANDS = [[], ["run"], ["impact"], ["check"], ["validate-patch"], ["stats"]]


def _help(argv: list[str], columns: int, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))  # what argparse's formatter reads
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([*argv, "--help"])
    assert exit_.value.code == 0
    return out.getvalue()


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a) or "chrf-audit")
def test_help_fits_the_terminal_without_backticks(argv, columns, monkeypatch):
    text = _help(argv, columns, monkeypatch)
    assert "``" not in text
    too_long = [line for line in text.splitlines() if len(line) > columns]
    assert not too_long, too_long
    # the description is refilled to the width, not kept at its source line breaks: at 120
    # columns some line is longer than the 80 or so the source was wrapped at
    if argv and columns == 120:
        assert max(len(line) for line in text.split("options:")[0].splitlines()) > 100


def test_paragraphs_refilled_and_flag_lists_keep_their_hanging_indent():
    text = ("``chrf-audit x``: a title.\n\nA paragraph wrapped in the source at a width that is not the "
            "terminal's,\nwith a line break here.\n\nProcedures:\n  --one        the first, whose text is long "
            "enough to wrap at forty columns\n  --two SPEC   the second\n               continued")
    got = HelpFormatter("prog", width=42)._fill_text(text, 40, "")
    assert got.split("\n\n")[0] == "chrf-audit x: a title."
    assert " ".join(got.split("\n\n")[1].split()) == ("A paragraph wrapped in the source at a width that is not the "
                                                       "terminal's, with a line break here.")
    assert got.split("\n\n")[2].splitlines() == [
        "Procedures:",
        "  --one        the first, whose text is",
        "               long enough to wrap at",
        "               forty columns",
        "  --two SPEC   the second continued",
    ]
    assert all(len(line) <= 40 for line in got.splitlines())

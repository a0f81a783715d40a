"""Text from outside is escaped for each place it lands (issue 39, item 8).

A hostile callable (tests/planted_markup.py: its version, its functions' names and module,
its exception's name and message and the repr of the number it returns carry OSC 8
hyperlinks, a screen clear, a C1 CSI, BEL, a right-to-left override, headings, code fences
and HTML) is audited by ``chrf-audit run`` with every output.  Standard output and standard
error hold no control character but the newline; every markdown file has exactly the
structure the renderers give the same document with every text made plain
(``tests.fixtures.markup``); junit.xml is XML without a control character.  The other places
outside text lands: the job summary, the versions report, progress displays (rich markup),
the pytest plugin's failure, one-line errors, the repro snippet's import."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET

import pytest

from tests.fixtures.markup import CONTROL, html, injected, plain, run_markup, structure

HOSTILE = ("\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07 \x1b[2J\x9b31m\x07\u202e\n# Heading\n```\n"
           "<script>alert(1)</script>\n## Second\r\n~~~\n`` <b>x</b> [link](https://evil.example/)")


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("markup")
    proc = run_markup(tmp, "--reports-dir", "r", "--json", "a.json", "--junit", "j.xml")
    return tmp, proc


def test_the_hostile_run_has_findings_of_its_texts(hostile_run):
    """The run is worth checking: its findings carry the planted text."""
    tmp, proc = hostile_run
    assert proc.returncode == 1, proc.stderr.decode()
    doc = json.loads((tmp / "r" / "audit.json").read_text())
    assert {"exception", "unexplained"} <= {f["family"] for f in doc["findings"]}
    details = " ".join(f["minimal"].get("detail") or "" for f in doc["findings"])
    raws = " ".join(f["minimal"].get("actual_raw") or "" for f in doc["findings"])
    assert "\x1b]8;;" in details and "<script>" in details and "\x1b]8;;" in raws
    assert "\x1b" in doc["implementations"][0]["version"]
    assert any("\n# Heading" in (f.get("source") or {}).get("qualname", "") for f in doc["findings"])


def test_standard_output_and_error_hold_no_control_character(hostile_run):
    _, proc = hostile_run
    for name, data in (("stdout", proc.stdout), ("stderr", proc.stderr)):
        text = data.decode("utf-8")
        assert not CONTROL.findall(text), (name, sorted(set(CONTROL.findall(text))), text[:2000])
    assert b"chrF audit:" in proc.stdout


def test_every_markdown_file_has_the_structure_the_renderers_write(hostile_run):
    tmp, _ = hostile_run
    doc = json.loads((tmp / "r" / "audit.json").read_text())
    written = {str(p.relative_to(tmp / "r")): p.read_text() for p in (tmp / "r").rglob("*.md")}
    assert len(written) >= 3 and any(p.startswith("issues/") for p in written)
    assert injected(written, doc) == []


def test_the_repro_imports_only_names_an_import_can_spell(hostile_run):
    """The function's own module and name are not Python names: the snippet imports the
    module:function it was given by, or says it cannot (never a name with a newline)."""
    tmp, _ = hostile_run
    doc = json.loads((tmp / "r" / "audit.json").read_text())
    for f in doc["findings"]:
        imports = [line for line in f["snippet"].splitlines() if line.startswith(("from ", "import "))]
        assert all(line.replace("from ", "", 1).replace(" import ", ".").replace(".", "_").isidentifier()
                   for line in imports), imports
        assert "\x1b" not in f["snippet"].split("\n", 3)[-1] or imports == [], f["snippet"]


def test_junit_is_xml_without_control_characters(hostile_run):
    tmp, _ = hostile_run
    for path in (tmp / "j.xml", tmp / "r" / "junit.xml"):
        text = path.read_text()
        ET.fromstring(text)
        assert not CONTROL.findall(text), path


def test_the_job_summary_keeps_its_structure(hostile_run):
    from audit.render import github

    tmp, _ = hostile_run
    doc = json.loads((tmp / "r" / "audit.json").read_text())
    check = [f"accepted: {HOSTILE}", "exit 1"]
    text = github.render(doc, check)["step-summary.md"].decode()
    twin = github.render(plain(doc), [plain(line) for line in check])["step-summary.md"].decode()
    assert structure(text) == structure(twin) and html(text) == [] and not CONTROL.findall(text)


def test_the_versions_report_keeps_its_structure():
    """A release's reason (pip's or an import's message) and a diff between two releases are
    outside text too."""
    from pathlib import Path

    from audit.render import versions

    doc = json.loads((Path(__file__).parents[1] / "reports" / "versions" / "nltk.json").read_text())
    skipped = next(r for r in doc["releases"] if r["status"] == "skipped")
    skipped["reason"] = HOSTILE
    diff = next(iter(doc["diffs"].values()))["introduced"]
    diff["diff"] += f"+{HOSTILE}\n"
    diff["function"] = HOSTILE
    doc["implementations"] = [*doc["implementations"], HOSTILE]
    text = versions.markdown(doc, {"command": f"chrf-audit versions {HOSTILE}"})
    twin = versions.markdown(plain(doc), {"command": plain(f"chrf-audit versions {HOSTILE}")})
    assert structure(text) == structure(twin) and html(text) == [] and not CONTROL.findall(text)


def _rich_console():
    from rich.console import Console

    return Console(file=io.StringIO(), force_terminal=True, width=200)


#: what a rich display would act on: its markup (a hyperlink, a style) and the terminal's
RICH = "[link=https://evil.example/]x[/link] [bold]y[/bold] \x1b]8;;https://e.example/\x07z\x1b]8;;\x07 \x1b[2J\x9b31m\x07"


def _no_injection(drawn: str) -> None:
    """A rich display drew ``RICH``: its own colours and cursor moves, nothing of the text's
    (no OSC hyperlink, no screen clear, no C1, no BEL, no markup taken as markup)."""
    assert "\x1b]" not in drawn and "\x1b[2J" not in drawn and "\x07" not in drawn
    assert not any("\x80" <= ch <= "\x9f" for ch in drawn)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)  # the display's own styles and cursor moves
    assert "[link=https://evil.example/]x[/link]" in text and "[bold]y[/bold]" in text  # shown, not applied


def test_the_progress_line_draws_names_as_text():
    from audit.collect.search import Progress
    from audit.commands.run import ProgressLine

    console = _rich_console()
    with ProgressLine(True, console=console) as line:
        line(Progress(RICH, f"sentence {RICH}", 10, 2, 1.0))
    _no_injection(console.file.getvalue())


def test_progress_bars_draw_descriptions_as_text():
    from audit.commands.progress import Phases

    console = _rich_console()
    with Phases(True, console=console) as phases, phases.phase(f"verifying {RICH}", total=2) as task:
        task.advance()
        phases.progress.refresh()
    _no_injection(console.file.getvalue())


def test_one_line_errors_hold_no_control_character(capsys, monkeypatch, tmp_path):
    """The error path of every command (``UsageError``, argparse's) is one line on stderr."""
    from audit.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["run", "--impl", "a:f", "--cases", f"no{HOSTILE}"]) == 2
    with pytest.raises(SystemExit):
        main(["run", f"--{HOSTILE}"])
    err = capsys.readouterr().err
    assert not CONTROL.findall(err), err
    assert err.count("chrf-audit: error:") == 2 and len(err.strip().splitlines()) == 3  # argparse's usage too


def test_a_name_that_is_not_one_printable_line_is_a_usage_error(capsys, monkeypatch, tmp_path):
    from audit.cli import main

    monkeypatch.chdir(tmp_path)
    for name in ("a\nb", "a\x1b[2Jb", "a\tb", "a\u202eb", ""):
        assert main(["run", "--impl", "a:f", "--name", name]) == 2
        err = capsys.readouterr().err
        assert err.startswith("chrf-audit: error: --name ") and err.count("\n") == 1, err


def test_the_plugin_failure_counts_families_and_holds_no_control_character():
    """pytest prints the plugin's failure on the terminal: one family at two levels is one."""
    from audit.findings import Finding, Repro
    from audit.gate.pytest_plugin import failure_message

    def finding(level):
        inputs = {"hypothesis": "a", "references": ["a"]} if level == "sentence" else \
            {"hypotheses": ["a"], "references": [["a"]]}
        m = Repro(inputs=inputs, level=level, expected=100.0, expected_fraction="1", actual=None,
                  actual_raw=None, outcome="exception", detail=f"Owned: {HOSTILE}")
        return Finding(f"mod:f{HOSTILE}", "exception", level, f"raised ({HOSTILE})", {"char_order": 6}, "", "",
                       m, group="exception~x", source={"call": "python", "qualname": f"f{HOSTILE}"})

    text = failure_message(None, [finding("sentence"), finding("corpus")])
    assert text.startswith("chrF audit: 1 family diverges") and not CONTROL.findall(text)
    assert "\n# Heading" not in text and text.count("\n[exception] ") == 2


def test_a_note_keeps_its_code_spans_and_nothing_else_of_its_markup():
    """``md_prose`` (a record's note, a quoted line of an upstream thread): a code span stays
    one code span, whatever it holds; the hostile text around it adds no structure, no HTML."""
    from audit.render._text import md_prose

    note = "the patch below's `else` branch, whose `<b>\\s</b>` lacks " + HOSTILE
    text = f"- a record: {md_prose(note)}\n"
    assert not html(text) and CONTROL.search(text) is None
    kinds = [k for k in structure(text) if k[0] == "code_inline"]
    assert kinds == [("code_inline", "`")] * 2  # the two spans of the note, none of HOSTILE's
    assert md_prose("a `b` c") == "a `b` c" and md_prose("`x`") == "`x`"
    assert md_prose("# x `y`").startswith("\\# x")

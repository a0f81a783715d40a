"""A reports directory and its audit.json are untrusted (issue 29, items 1, 2 and 13): whatever
an audit.json says, whatever is planted in the directory, ``run`` and ``report --from`` write
only inside it, and a document they cannot write is one line and exit 2 with nothing written.

* the paths an audit.json names (``implementations[].report``, ``findings[].chart``) are
  report names (``audit.files.names``): ``../``, absolute paths, a directory part, NUL,
  ``null``, the manifest's name are refused before anything is written;
* an entry planted in an earlier audit.json is not carried into the next run's with such a
  path (so the next ``report --from`` is not made to write there);
* a symbolic link inside the directory (a subdirectory, a report file) is never followed nor
  replaced: the run stops before the audit, ``report --from`` before the first write;
* two entries (or an entry and a shared file) naming one file are refused, not written over
  each other; names that differ only in case get distinct files;
* hostile numbers (a sweep value of 1e308) are drawn, and what the schema lets through but
  no renderer can read is one line, never a traceback.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import math
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.cli import main
from audit.commands.writing import write_reports
from audit.enrich import enrich
from audit.errors import UsageError
from audit.files.report_set import MANIFEST
from audit.render import document
from audit.render._text import unique_slugs
from tests.fixtures.report_examples import example_result

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def doc():
    return document(enrich(example_result()))


def tree(root: Path) -> dict:
    """Every entry under ``root``: files by content, links by target, directories."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out[rel] = ("link", os.readlink(p)) if p.is_symlink() else ("dir",) if p.is_dir() else p.read_bytes()
    return out


def one_line_error(capsys, argv) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (code, err)
    return err


def saved(tmp_path: Path, d: dict) -> Path:
    r = tmp_path / "a" / "r"
    r.mkdir(parents=True)
    (r / "audit.json").write_text(json.dumps(d))
    return r / "audit.json"


def _set(d: dict, where: str, value) -> dict:
    d = copy.deepcopy(d)
    kind, i, key = where.split("/")
    d[kind][int(i)][key] = value
    return d


def _chart_index(d: dict) -> int:
    return next(i for i, f in enumerate(d["findings"]) if f.get("chart"))


# -- item 1: what audit.json says is a path ------------------------------------------------
@pytest.mark.parametrize("where, value, message", [
    ("implementations/0/report", "../../escaped.md", "'../../escaped.md' is not a report file name"),
    ("implementations/0/report", "{victim}", "is not a report file name"),
    ("implementations/0/report", "sub/x.md", "'sub/x.md' is not a report file name"),
    ("implementations/0/report", None, "implementations/0/report None is not a report file name"),
    ("implementations/0/report", "a\x00b.md", r"'a\x00b.md' is not a report file name"),
    ("implementations/0/report", ".chrf-audit-manifest.json", "is not a report file name"),
    ("implementations/0/report", "audit.json", "'audit.json' is not a report file name"),
    ("implementations/0/report", "..md", "is not a report file name"),
    ("implementations/0/report", "x" * 300 + ".md", "a file name longer than 255 bytes"),
    ("findings/{chart}/chart", "../escaped.svg", "'../escaped.svg' is not a chart file name"),
    ("findings/{chart}/chart", "{victim}", "is not a chart file name"),
    ("findings/{chart}/chart", "charts/../../x.svg", "is not a chart file name"),
])
def test_report_from_writes_nothing_for_a_path_leaving_the_directory(doc, tmp_path, capsys, where, value, message):
    victim = tmp_path / "victim.md"
    victim.write_text("mine\n")
    value = str(victim) if value == "{victim}" else value
    path = saved(tmp_path, _set(doc, where.format(chart=_chart_index(doc)), value))
    before = tree(tmp_path)
    err = one_line_error(capsys, ["report", "--from", str(path)])
    assert message in err
    assert tree(tmp_path) == before  # nothing written, inside or out


def test_report_from_draws_sweep_values_near_the_largest_float(doc, tmp_path, capsys):
    """A sweep value of 1e308 beside one of -1e308 (the schema allows any number: it is what
    the implementation returned) is drawn on a finite axis, not an OverflowError."""
    d = copy.deepcopy(doc)
    f = d["findings"][_chart_index(d)]
    f["scope"]["rows"][0]["actual"], f["scope"]["rows"][1]["actual"] = 1e308, -1e308
    path = saved(tmp_path, d)
    assert main(["report", "--from", str(path), "--quiet"]) == 0, capsys.readouterr().err
    svg = (path.parent / f["chart"]).read_text()
    numbers = [float(x) for x in re.findall(r' (?:x|y|x1|y1|x2|y2|cx|cy|height|width)="([^"]+)"', svg)]
    assert numbers and all(math.isfinite(x) for x in numbers) and "1e+308" in svg and "-1e+308" in svg


@pytest.mark.parametrize("where, value, message", [
    ("environment", {}, "missing field 'chrf_audit'"),
    ("run", {}, "missing field 'seed'"),
    ("implementations/0/combined_patch", {"verified": True}, "missing field 'diff'"),
])
def test_report_from_refuses_what_no_renderer_can_read(doc, tmp_path, capsys, where, value, message):
    """Fields the schema does not require but every run writes: one line, nothing written."""
    d = copy.deepcopy(doc)
    if where.count("/") == 2:
        d = _set(d, where, value)
    else:
        d[where] = value
    path = saved(tmp_path, d)
    before = tree(tmp_path)
    assert message in one_line_error(capsys, ["report", "--from", str(path)])
    assert tree(tmp_path) == before


def _paths(o, at=()):
    yield at
    if isinstance(o, dict):
        for k, v in o.items():
            yield from _paths(v, at + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o[:2]):
            yield from _paths(v, at + (i,))


HOSTILE = {
    float: [1e308, -1e308, 5e-324, -1.0, 1e16],
    int: [10 ** 400, -1, 2 ** 63],
    str: ["", "\x00", "../x", "/tmp/x", "a\nb", "\x1b[31m", "\ud800", "x" * 3000, "nan"],
    list: [[], [None], [{}]],
    dict: [{}, {"a": None}],
    bool: [True, False],
}


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def test_report_from_any_hostile_document(doc, tmp_path_factory, data):
    """Any value of the kind a field holds (or null) anywhere in the document: exit 0 or one
    line and exit 2, never an exception, and nothing written outside the reports directory."""
    import contextlib
    import io

    d = copy.deepcopy(doc)
    where = list(_paths(d))[1:]
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.sampled_from(where))
        parent = d
        try:
            for k in at[:-1]:
                parent = parent[k]
            old = parent[at[-1]]
        except (KeyError, IndexError, TypeError):
            continue
        parent[at[-1]] = data.draw(st.sampled_from([None, *HOSTILE.get(type(old), [])]))
    top = tmp_path_factory.mktemp("hostile")
    path = saved(top, d)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["report", "--from", str(path), "--quiet"])
    assert code in (0, 2) and (code == 0 or err.getvalue().count("\n") == 1), err.getvalue()
    assert sorted(p.name for p in top.iterdir()) == ["a"] and [p.name for p in (top / "a").iterdir()] == ["r"]


# -- item 1: an entry planted in an earlier audit.json ---------------------------------------
def _plant(r: Path, edit) -> None:
    """Edit the audit.json of reports directory ``r`` and give the manifest its new hash (as
    anyone who can write the directory can)."""
    d = json.loads((r / "audit.json").read_text())
    edit(d)
    (r / "audit.json").write_text(json.dumps(d))
    m = json.loads((r / MANIFEST).read_text())
    m["sha256"]["audit.json"] = hashlib.sha256((r / "audit.json").read_bytes()).hexdigest()
    (r / MANIFEST).write_text(json.dumps(m))


@pytest.mark.parametrize("edit", [
    lambda d: d["implementations"][0].update(report="../../escaped.md"),
    lambda d: d["implementations"][0].update(report=None),
    lambda d: d["findings"][0].update(chart="../escaped.svg"),
    lambda d: d["implementations"][0].update(fit="not a fit"),  # breaks the schema: the next report --from would refuse it
    lambda d: d["implementations"][0].update(impact=json.loads("[" * 600 + "]" * 600)),  # too deep to write again
], ids=["dotdot-report", "null-report", "dotdot-chart", "off-schema", "nested"])
def test_a_planted_entry_is_not_carried_into_the_next_audit_json(doc, tmp_path, capsys, edit):
    """nltk's entry of the earlier audit.json names a path outside; a run of sacreBLEU only
    into that directory does not carry it, and ``report --from`` the new audit.json writes
    only inside (on b964185 the entry was carried and the re-render wrote ../../escaped.md)."""
    top = tmp_path / "top"
    r = top / "a" / "r"
    write_reports(doc, r)
    _plant(r, edit)
    only_sb = dataclasses.replace(example_result(), adapters=[a for a in example_result().adapters
                                                              if a.implementation == "sacrebleu"])
    write_reports(enrich(only_sb), r)
    new = json.loads((r / "audit.json").read_text())
    assert [e["implementation"] for e in new["implementations"]] == ["sacrebleu"]
    assert main(["report", "--from", str(r / "audit.json"), "--quiet"]) == 0, capsys.readouterr().err
    assert sorted(p.name for p in top.iterdir()) == ["a"] and sorted(p.name for p in (top / "a").iterdir()) == ["r"]


def test_a_sound_entry_is_still_carried(doc, tmp_path):
    """The other side: an unedited earlier entry stays (issue 19's shared directory)."""
    write_reports(doc, tmp_path)
    only_sb = dataclasses.replace(example_result(), adapters=[a for a in example_result().adapters
                                                              if a.implementation == "sacrebleu"])
    write_reports(enrich(only_sb), tmp_path)
    new = json.loads((tmp_path / "audit.json").read_text())
    assert [e["implementation"] for e in new["implementations"]] == ["sacrebleu", "nltk"]


# -- item 2: symbolic links planted in the reports directory --------------------------------
LINKS = ["issues", "issues/nltk", "charts", "nltk.md", "audit.json", MANIFEST, "charts/nltk-f-score-averaged.svg",
         "issues/nltk/whitespace-set-white-space.md"]


@pytest.mark.parametrize("link", LINKS)
def test_write_reports_follows_and_replaces_no_link(doc, tmp_path, link):
    """A directory or a file of the set that is a symbolic link (to a directory outside, to a
    file outside): refused before the first write, naming the link; the target is untouched
    and the link stays.  On b964185 a directory link was written through and a file link was
    replaced."""
    r = tmp_path / "r"
    write_reports(doc, r)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "victim").write_text("mine\n")
    target = r / link
    import shutil

    shutil.rmtree(target) if target.is_dir() else target.unlink()
    target.symlink_to(elsewhere if "." not in link.rsplit("/", 1)[-1] else elsewhere / "victim")
    before = tree(tmp_path)
    with pytest.raises(UsageError, match=re.escape(f"{link} is a symbolic link")):
        write_reports(doc, r)
    assert tree(tmp_path) == before


def _impl(tmp_path: Path) -> Path:
    """A module whose function scores 0 (findings: issue files to write) and notes each call."""
    calls = tmp_path / "calls"
    (tmp_path / "zero.py").write_text(f"def f(h, r):\n    open({str(calls)!r}, 'a').write('x')\n    return 0.0\n")
    return calls


@pytest.mark.parametrize("link", ["issues", "issues/zero-f", "charts", "zero-f.md", "audit.json"])
def test_run_stops_on_a_planted_link_before_the_audit(tmp_path, monkeypatch, capsys, link):
    """``reports/issues -> ../elsewhere`` (the issue's case) and its kin: one line before the
    audit (the implementation is never called), nothing written outside.  On b964185 the run
    wrote its issue files into ../elsewhere."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    calls = _impl(tmp_path)
    (tmp_path / "cases").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / link).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "reports" / link).symlink_to(tmp_path / "elsewhere")
    err = one_line_error(capsys, ["run", "--impl", "zero:f", "--quiet", "--max-examples", "3", "--cases", "cases",
                                  "--reports-dir", "reports", "--no-verify"])
    assert f"reports directory reports: {link} is a symbolic link" in err
    assert not calls.exists() and list((tmp_path / "elsewhere").iterdir()) == []


def test_report_from_stops_on_a_planted_link(doc, tmp_path, capsys):
    r = tmp_path / "r"
    write_reports(doc, r)
    import shutil

    shutil.rmtree(r / "charts")
    (tmp_path / "elsewhere").mkdir()
    (r / "charts").symlink_to(tmp_path / "elsewhere")
    before = tree(tmp_path)
    err = one_line_error(capsys, ["report", "--from", str(r / "audit.json")])
    assert "charts is a symbolic link" in err and tree(tmp_path) == before


def test_a_link_swapped_in_after_the_check_is_not_followed(tmp_path):
    """The writer walks the path without following links (O_NOFOLLOW), so a link that
    appears between the check and the write fails the write instead of redirecting it."""
    from audit.files import inside

    r = tmp_path / "r"
    r.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (r / "charts").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        inside.write(r, "charts/x.svg", b"<svg/>")
    inside.unlink(r, "charts/x.svg")  # nothing to remove through the link either
    assert list((tmp_path / "elsewhere").iterdir()) == []
    (r / "x.md").symlink_to(tmp_path / "victim.md")
    (tmp_path / "victim.md").write_text("mine\n")
    inside.write(r, "x.md", b"# new\n")  # the file's place: the link is replaced, never written through
    assert (tmp_path / "victim.md").read_text() == "mine\n" and (r / "x.md").read_text() == "# new\n"


# -- item 13: files that would be written over each other ----------------------------------
@pytest.mark.parametrize("second", ["nltk.md", "NLTK.md"])
def test_report_from_refuses_two_entries_naming_one_file(doc, tmp_path, capsys, second):
    """Two implementations with one report file (or two that differ only in case: one file on
    a case-insensitive file system): refused, not one written over the other."""
    path = saved(tmp_path, _set(doc, "implementations/1/report", second))
    before = tree(tmp_path)
    err = one_line_error(capsys, ["report", "--from", str(path)])
    assert "implementations/0 has that report file too" in err and tree(tmp_path) == before


def test_report_from_refuses_one_chart_for_two_families(doc, tmp_path, capsys):
    d = copy.deepcopy(doc)
    charted = [f for f in d["findings"] if f.get("chart")]
    other = next(f for f in charted if f["family"] != charted[0]["family"])
    other["chart"] = charted[0]["chart"]
    path = saved(tmp_path, d)
    assert "has that chart file too" in one_line_error(capsys, ["report", "--from", str(path)])


def test_slugs_differ_ignoring_case():
    """``a``, ``A``, ``a-2`` gave ``a``, ``A-2``, ``a-2``: two names of one file where case does
    not count."""
    for names in (["a", "A", "a-2"], ["x", "X", "x-2", "X-2"], ["a b", "a-b", "A B", "a-b-2"]):
        slugs = list(unique_slugs(names).values())
        assert len({s.casefold() for s in slugs}) == len(names), slugs


def test_chart_names_of_distinct_implementations_never_meet():
    """``charts/<slug>-<family>.svg`` of two distinct slugs are one name only when one family
    id ends with ``-`` + another (or starts with what ``-2`` suffixes make): none does."""
    from audit.diagnose.families import FAMILIES

    for a in FAMILIES:
        assert not a[0].isdigit(), a
        for b in FAMILIES:
            assert a == b or not a.endswith("-" + b), (a, b)


def test_three_names_differing_in_case_keep_three_reports(tmp_path):
    """A run of ``a``, ``A`` and ``a-2`` writes three reports, no two one file ignoring case."""
    result = example_result(sacrebleu=False)
    nltk = result.adapters[0]
    adapters = [dataclasses.replace(nltk, implementation=n, findings=[dataclasses.replace(f, implementation=n)
                                                                       for f in nltk.findings])
                for n in ("a", "A", "a-2")]
    write_reports(enrich(dataclasses.replace(result, adapters=adapters), with_upstream=False), tmp_path)
    reports = sorted(p.name for p in tmp_path.glob("*.md"))
    assert len(reports) == 3 and len({r.casefold() for r in reports}) == 3, reports

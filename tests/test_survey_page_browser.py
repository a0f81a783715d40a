"""The survey page in a real browser: Debian's chromium, headless, opens the rendered page from a
file:// URL, sorts the table by clicking a column header (twice: ascending, then descending) and
by another, and the rows come in the order the numbers give, with their cells; the hostile row's
markup ran nothing, the page fetched nothing but itself, its inline style applied under its
policy, the heat map's links point at the issue files beside it, and no chromium process is left.

Chromium is installed through apt when absent and this runs as root (tests/fixtures/browser.py);
otherwise the test fails saying what to install.  Waits are conditions with generous limits."""

from __future__ import annotations

import json
import os

import pytest

from audit.render.survey_page import render_survey_page
from tests.fixtures.browser import Page, chromium, ensure_chromium
from tests.fixtures.procs import until
from tests.fixtures.survey_docs import hostile_survey

HEADERS = "#survey thead tr:last-child th"
ROWS = "Array.from(document.querySelectorAll('#survey tbody tr'))"


def _column(page: Page, header: str) -> int:
    index = page.evaluate(f"Array.from(document.querySelectorAll({json.dumps(HEADERS)}))"
                          f".findIndex(th => th.textContent.trim().startsWith({json.dumps(header)}))")
    assert index >= 0, header
    return index


def _sort(page: Page, header: str, direction: str) -> list[list[str]]:
    """Click the header's button, wait until it says ``direction``, return the rows' cell texts."""
    col = _column(page, header)
    selector = f"{HEADERS}:nth-child({col + 1})"
    page.click(f"{selector} button")
    page.wait_for(f"document.querySelector({json.dumps(selector)}).getAttribute('aria-sort') === {json.dumps(direction)}")
    sorted_by = page.evaluate(f"Array.from(document.querySelectorAll({json.dumps(HEADERS)}))"
                              ".filter(th => th.hasAttribute('aria-sort')).length")
    assert sorted_by == 1  # aria-sort on the sorted column's header only
    return page.evaluate(f"{ROWS}.map(r => Array.from(r.cells).map(c => c.textContent.trim()))")


def _session_alive(sid: int) -> list[int]:
    """Live (not zombie) processes of the session ``sid`` (chromium's, which spawn started)."""
    out = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != b"Z" and int(fields[3]) == sid:
            out.append(int(name))
    return out


def _describe(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0].decode()
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            command = fh.read().replace(b"\0", b" ").decode(errors="replace")[:200]
        return f"{pid} {state} {command}"
    except (OSError, IndexError):
        return f"{pid} gone"


def test_the_page_sorts_in_headless_chromium(tmp_path):
    site = tmp_path / "survey"
    (site / "issues" / "nltk").mkdir(parents=True)
    (site / "issues" / "nltk" / "requested-order-divisor.md").write_text("# issue\n", encoding="utf-8")
    (site / "index.html").write_bytes(render_survey_page(hostile_survey()))
    url = (site / "index.html").as_uri()
    work = tmp_path / "browser"
    work.mkdir()
    with chromium(work) as browser:
        sid = browser.proc.pid
        page = Page(browser)
        page.open(url)
        page.wait_for("document.readyState === 'complete'")

        names = [r[0] for r in page.evaluate(f"{ROWS}.map(r => [r.cells[0].textContent])")]
        assert names[1:] == ["nltk", "sacrebleu", "fastchrf", "sacrebleu", "torchmetrics"]

        # numbers as numbers: 0 0 1 3 12 (as text "12" < "3"); "many" is no number: last either way;
        # ties (the two sacrebleu rows) in the page's order either way
        rows = _sort(page, "unexplained rows", "ascending")
        assert [(r[0], r[1], r[7]) for r in rows[:5]] == [
            ("sacrebleu", "chrF", "0"), ("sacrebleu", "chrF++", "0"), ("torchmetrics", "chrF++", "1"),
            ("nltk", "chrF", "3"), ("fastchrf", "chrF", "12")]
        assert rows[5][7] == "many"
        rows = _sort(page, "unexplained rows", "descending")
        assert [(r[0], r[7]) for r in rows] == [("fastchrf", "12"), ("nltk", "3"), ("torchmetrics", "1"),
                                                ("sacrebleu", "0"), ("sacrebleu", "0"), (rows[5][0], "many")]
        assert [r[1] for r in rows[3:5]] == ["chrF", "chrF++"]
        assert rows[0] == ["fastchrf", "chrF", "0.1.1", "CPython 3.12", "sacrebleu", "none of the three",
                           "f-score-averaged", "12", "—", "does not conform", "120.25", "sacrebleu 2.6.0 CHRF",
                           "200", "181", "169"]

        rows = _sort(page, "audit time (s)", "ascending")  # 9 < 10.5 < 41.5 < 77 < 120.25; NaN last
        assert [r[10] for r in rows] == ["9", "10.5", "41.5", "77", "120.25", "nan"]
        rows = _sort(page, "implementation", "ascending")  # text: "<script>..." sorts before letters
        assert [r[0] for r in rows[1:]] == ["fastchrf", "nltk", "sacrebleu", "sacrebleu", "torchmetrics"]
        assert rows[0][0].startswith("<script>window.pwned=1</script>")  # shown, not run

        assert page.evaluate("typeof window.pwned") == "undefined"
        assert page.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0
        assert page.evaluate("document.scripts.length") == 1
        # the inline style applied (its hash is in the policy): a named cell is red
        assert page.evaluate("getComputedStyle(document.querySelector('#heatmap td.named')).backgroundColor") \
            == "rgb(214, 39, 40)"
        link = page.evaluate("Array.from(document.querySelectorAll('#heatmap a'))"
                             ".map(a => a.href).find(h => h.endsWith('requested-order-divisor.md'))")
        assert link == (site / "issues" / "nltk" / "requested-order-divisor.md").as_uri()
        requests = [e["request"]["url"] for e in browser.events("Network.requestWillBeSent")]
        assert requests == [url]
    # killed is not yet gone: a dying process of many threads takes a moment on a loaded machine
    assert until(lambda: not _session_alive(sid)), [_describe(p) for p in _session_alive(sid)]


def test_a_missing_chromium_is_a_clear_failure_when_it_cannot_be_installed(tmp_path, monkeypatch):
    """Not root (or no apt-get): no skip, a failure that says what to install."""
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(AssertionError, match=r"is missing and this test cannot install it .*apt-get install -y chromium"):
        ensure_chromium(str(tmp_path / "no-chromium"))

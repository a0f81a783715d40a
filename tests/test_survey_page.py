"""The survey's static page (``audit.render.survey_page``), read back with the standard library's
HTML parser: every implementation appears, numbers carry number sort keys, the heat map links
each named family to its issue file and nothing else, hostile texts stay text, the page loads
nothing and is the same bytes for the same document.  (tests/test_survey_page_browser.py opens
it in chromium.)"""

from __future__ import annotations

import base64
import hashlib
import hypothesis.strategies as st
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

from hypothesis import example, given, settings

from audit.render._survey_assets import CSS, JS
from audit.render._text import escape
from audit.render.survey_page import render_survey_page
from tests.fixtures.survey_docs import HOSTILE, hostile_survey, plain_survey

ROOT = Path(__file__).resolve().parents[1]


class Page(HTMLParser):
    """What a browser would build from the page, as far as these tests look: every element
    with its attributes, the text of every table cell and list item by table, the scripts'
    and styles' contents."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.tables: dict[str, list[list[str]]] = {}
        self.items: dict[str, list[str]] = {}
        self.raw: dict[str, list[str]] = {"script": [], "style": []}
        self.links: list[tuple[str, str, str]] = []  # (table id, href, the row's header text)
        self._table = self._list = self._raw = None
        self._cell: list[str] | None = None
        self._row_head = ""
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a))
        if tag == "table":
            self._table = a.get("id")
            self.tables[self._table] = []
        elif tag == "ul" and a.get("id"):
            self._list = a["id"]
            self.items[self._list] = []
        elif tag == "tr" and self._table:
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table:
            self._cell = []
        elif tag == "li" and self._list:
            self._cell = []
        elif tag in self.raw:
            self._raw = tag
            self.raw[tag].append("")
        elif tag == "a":
            self.links.append((self._table, a.get("href"), self._row_head))

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._table and self._cell is not None:
            text = "".join(self._cell)
            self.tables[self._table][-1].append(text)
            if tag == "th" and len(self.tables[self._table][-1]) == 1:
                self._row_head = text
            self._cell = None
        elif tag == "li" and self._list and self._cell is not None:
            self.items[self._list].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "ul" and self._list:
            self._list = None
        elif tag == self._raw:
            self._raw = None

    def handle_data(self, data):
        if self._raw:
            self.raw[self._raw][-1] += data
        elif self._cell is not None:
            self._cell.append(data)


def parse(doc) -> Page:
    return Page(render_survey_page(doc).decode("utf-8"))


def _body_rows(page: Page, table: str) -> list[list[str]]:
    return page.tables[table][2:] if table == "survey" else page.tables[table][1:]


def test_every_implementation_appears_with_its_cells():
    page = parse(plain_survey())
    rows = _body_rows(page, "survey")
    header = page.tables["survey"][1]
    assert header[:8] == ["implementation", "configuration", "version", "runtime", "definition claimed",
                          "definition followed", "families named", "unexplained rows"]
    assert header[8:] == ["fit scope", "verdict", "audit time (s)", "against", "inputs", "disagreements",
                          "reproduced by families"]
    assert [(r[0], r[1]) for r in rows] == [("nltk", "chrF"), ("sacrebleu", "chrF"), ("fastchrf", "chrF"),
                                            ("sacrebleu", "chrF++"), ("torchmetrics", "chrF++")]
    assert rows[0] == ["nltk", "chrF", "3.10.4", "CPython 3.11", "sacrebleu-eps", "none of the three",
                       "requested-order-divisorwhitespace-set-white-space", "3", "16 input classes; never tried: none",
                       "does not conform", "41.5", "sacrebleu 2.6.0 CHRF", "200", "57", "54"]
    assert rows[1][5:8] == ["sacrebleu", "none", "0"]
    assert page.items["skipped"] == [
        'evaluate (evaluate, 0.4.3, chrF): evaluate.load("chrf") fetches its script from a hub at run time',
        "sacrebleu-mojo (sacrebleu-mojo, 0.2.0, chrF): requires Python >=3.14; no such interpreter here"]
    # the heat map: one column per audited implementation x configuration, one row per family
    heat = page.tables["heatmap"]
    assert heat[0] == ["family", "nltkchrF", "sacrebleuchrF", "fastchrfchrF", "sacrebleuchrF++", "torchmetricschrF++"]
    assert [r[0] for r in heat[1:]] == ["f-score-averaged", "requested-order-divisor", "whitespace-set-white-space",
                                        "unexplained rows"]
    assert heat[1][1:] == ["", "", "●", "", "●"]
    assert heat[4][1:] == ["3", "", "12", "", "1"]


def test_optional_columns_only_when_present():
    doc = plain_survey()
    for e in doc["implementations"]:
        for k in ("fit_scope", "verdict", "audit_seconds"):
            e.pop(k, None)
    header = parse(doc).tables["survey"][1]
    assert "fit scope" not in header and "verdict" not in header and "audit time (s)" not in header
    assert len(header) == 12


def _sort_keys(doc, column: str) -> list[str | None]:
    page = render_survey_page(doc).decode("utf-8")
    tbody = page.split('<table id="survey">', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    header = parse(doc).tables["survey"][1]
    col = header.index(column)
    return [re.findall(r'<td[^>]*?data-sort="([^"]*)"', row)[col] for row in tbody.split("</tr>")[:-1]]


def test_numbers_sort_as_numbers():
    """A number column's sort key is the number itself (the script compares them as numbers);
    what is no finite number sorts as missing."""
    assert _sort_keys(plain_survey(), "unexplained rows") == ["3", "0", "12", "0", "1"]
    assert _sort_keys(plain_survey(), "audit time (s)") == ["41.5", "9", "120.25", "10.5", "77"]
    assert _sort_keys(plain_survey(), "families named") == ["2", "0", "1", "0", "1"]
    hostile = _sort_keys(hostile_survey(), "unexplained rows")
    assert hostile[0] == "" and _sort_keys(hostile_survey(), "audit time (s)")[0] == ""  # "many", NaN
    header = parse(plain_survey()).elements
    types = [a.get("data-type") for tag, a in header if tag == "th" and a.get("data-type")]
    assert types == ["text"] * 6 + ["number", "number", "text", "text", "number", "text", "number", "number", "number"]


def test_links_go_to_the_issue_files_and_nowhere_else():
    page = parse(plain_survey())
    heat = {(row, href) for table, href, row in page.links if table == "heatmap"}
    assert heat == {("requested-order-divisor", "issues/nltk/requested-order-divisor.md"),
                    ("whitespace-set-white-space", "issues/nltk/whitespace-set-white-space.md"),
                    # a path from the repository's root is cut to the page's issues/; a family's
                    # second group (-1) when the family has no file of its own
                    ("f-score-averaged", "issues/fastchrf/f-score-averaged-1.md")}
    # torchmetrics names f-score-averaged but has no issue file for it: a mark, no link
    cells = page.tables["heatmap"][1]
    assert cells[5] == "●"
    assert len([h for t, h, r in page.links if t == "heatmap" and r == "f-score-averaged"]) == 1
    # the table's family lists link the same files
    table = sorted(h for t, h, _ in page.links if t == "survey")
    assert table == sorted(h for _, h in heat)


def _text_nodes(page: str) -> str:
    return re.sub(r"<[^>]*>", "", page)


def test_hostile_texts_stay_text():
    """Names, versions, reasons, families and issue paths built to inject a script, an event
    handler, a style, a link or control characters: the page has its own one script and one
    style and nothing else, every link is a plain issues/ path, and each text shows as text."""
    raw = render_survey_page(hostile_survey())
    text = raw.decode("utf-8")  # strict: a lone surrogate would not encode
    page = Page(text)
    assert page.raw == {"script": [JS], "style": [CSS]}
    tags = {tag for tag, _ in page.elements}
    assert tags <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "div", "table", "thead",
                    "tbody", "tr", "th", "td", "button", "ul", "li", "a", "span", "strong", "script"}
    assert not [(t, k) for t, a in page.elements for k in a if k.startswith("on") or k in ("src", "style")]
    hrefs = [h for _, h, _ in page.links]
    assert hrefs and all(re.fullmatch(r"issues/[A-Za-z0-9._+-]+/[A-Za-z0-9._+-]+\.md", h) for h in hrefs), hrefs
    assert "issues/lib/ok.md" in hrefs
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", text)
    # each hostile text is there, as a reader sees it (invisible characters as \uXXXX)
    cells = [c for row in page.tables["survey"] for c in row] + page.items["skipped"]
    for key in ("name", "version", "runtime", "configuration", "family"):
        assert any(escape(HOSTILE[key]) in c for c in cells), key
    assert any(escape(HOSTILE["reason"]) in c for c in page.items["skipped"])
    assert "\\u0000" in text and "\\ud800" in text and "\\u001b" in text


def test_the_page_loads_nothing():
    """No network at view time: no src, no url(), no @import, no absolute link; the policy
    allows nothing but the inline style and script, by their hashes."""
    text = render_survey_page(plain_survey()).decode("utf-8")
    page = Page(text)
    assert not re.search(r"\bsrc=|url\(|@import|https?:|//[a-z]", text, re.I)
    policy = next(a["content"] for t, a in page.elements if t == "meta" and a.get("http-equiv"))

    def digest(s: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
    assert policy == (f"default-src 'none'; style-src {digest(page.raw['style'][0])}; "
                      f"script-src {digest(page.raw['script'][0])}; base-uri 'none'; form-action 'none'")


def test_same_document_same_bytes_in_any_process():
    """Deterministic: twice here, and in fresh interpreters with other hash seeds (set orders)."""
    first = render_survey_page(hostile_survey())
    assert render_survey_page(hostile_survey()) == first
    code = ("import hashlib, sys; from audit.render.survey_page import render_survey_page; "
            "from tests.fixtures.survey_docs import hostile_survey; "
            "print(hashlib.sha256(render_survey_page(hostile_survey())).hexdigest())")
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                             env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"})
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == hashlib.sha256(first).hexdigest()


#: every code point, lone surrogates and controls included (what implementations answer with)
TEXT = st.text(st.characters(exclude_categories=()), max_size=8)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                    max_leaves=8)
FIELDS = ("name", "package", "version", "runtime", "status", "reason", "configuration", "definition_claimed",
          "definition_followed", "families", "unexplained", "differential", "issues", "fit_scope", "verdict",
          "audit_seconds")


@settings(max_examples=60, derandomize=True, database=None, deadline=None)
@example({"implementations": [{"name": "big", "unexplained": 10 ** 400, "audit_seconds": -10 ** 400,
                               "differential": {"inputs": 1e308 * 10}}]})  # math.isfinite(10**400) raises
@given(st.one_of(JSON, st.fixed_dictionaries({"schema_version": JSON, "implementations": st.lists(
    st.one_of(JSON, st.dictionaries(st.sampled_from(FIELDS), JSON | st.sampled_from(["skipped", "audited"]))),
    max_size=4)})))
def test_any_json_document_renders(doc):
    """A field of any type (a hand-edited survey.json) renders, as text or as missing: no
    exception, valid UTF-8 with no character a reader cannot see but the line breaks, the
    page's one script and style only."""
    text = render_survey_page(doc).decode("utf-8")
    assert all(ch.isprintable() or ch == "\n" for ch in text)
    assert Page(text).raw == {"script": [JS], "style": [CSS]}


def test_a_status_other_than_audited_is_listed_as_not_audited():
    doc = plain_survey()
    doc["implementations"][1]["status"] = "failed"
    doc["implementations"][1]["reason"] = "the unit's worker died 3 times"
    page = parse(doc)
    assert [r[0] for r in _body_rows(page, "survey")] == ["nltk", "fastchrf", "sacrebleu", "torchmetrics"]
    assert page.items["skipped"][0] == "sacrebleu (sacrebleu, 2.6.0, chrF): status failed: the unit's worker died 3 times"
    assert "sacrebleuchrF" not in page.tables["heatmap"][0]


def test_a_survey_issue_file_named_after_its_configuration_is_linked():
    """chrf-audit survey names a row's issue files <configuration>-<family>.md (chrf, chrfpp):
    the cell links that file, the chrF++ row its own, never the other configuration's."""
    doc = plain_survey()
    base = doc["implementations"][0]
    rows = [dict(base, configuration=c, families=["exception", "first-reference-only"],
                 issues=[f"issues/jury/{s}-exception-1.md", f"issues/jury/{s}-exception.md",
                         f"issues/jury/{s}-first-reference-only.md"])
            for c, s in (("chrF", "chrf"), ("chrF++", "chrfpp"))]
    from audit.render.survey_page import issue_links

    assert issue_links(rows[0]) == {"exception": "issues/jury/chrf-exception.md",
                                    "first-reference-only": "issues/jury/chrf-first-reference-only.md"}
    assert issue_links(rows[1])["exception"] == "issues/jury/chrfpp-exception.md"
    only_groups = dict(rows[1], families=["unexplained"], issues=["issues/x/chrfpp-unexplained-2.md",
                                                                   "issues/x/chrfpp-unexplained-10.md"])
    assert issue_links(only_groups) == {"unexplained": "issues/x/chrfpp-unexplained-2.md"}

"""A scope sweep input that gave no number (the implementation raised, returned NaN or died
on it: ``actual`` None, audit/upstream/sweeps.py) is a diverging input everywhere the report
shows the sweep: counted in ``scope.diverging``, flagged in the markdown table, left out of the
chart's points (issue 34 probe f: the report fixture had no such row)."""

from __future__ import annotations

import copy
import re

import pytest

from audit.enrich import enrich
from audit.render import chart, document, markdown
from tests.fixtures.report_examples import example_impact, example_result

FAMILY = "requested-order-divisor"


@pytest.fixture(scope="module")
def enriched():
    return enrich(example_result(), impact=example_impact())


def _sweep_doc(enriched, blank: bool):
    e = copy.deepcopy(enriched)
    entry = next(d for k, d in e.details.items() if FAMILY in k and d.scope)
    row = entry.scope["rows"][5]  # an input nltk scores as the reference does
    assert row["difference"] == 0
    if blank:
        row["actual"], row["difference"] = None, None
    return document(e)


def _finding(doc):
    return next(f for f in doc["findings"] if f["family"] == FAMILY)


def test_an_input_with_no_number_diverges(enriched):
    before, after = _finding(_sweep_doc(enriched, False)), _finding(_sweep_doc(enriched, True))
    assert before["scope"]["diverging"] == 5
    assert after["scope"]["diverging"] == 6
    assert after["scope"]["rows"][5]["actual"] is None and after["scope"]["rows"][5]["difference"] is None


def test_markdown_flags_the_input_with_no_number(enriched):
    doc = _sweep_doc(enriched, True)
    text = "\n".join(body.decode("utf-8") if isinstance(body, bytes) else body
                     for body in markdown.render(doc).values())
    assert "6 of 10 inputs diverge" in text
    row = next(line for line in text.splitlines() if line.startswith("| 6 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3:] == ["—", "— ⚠"], row


def test_the_chart_draws_no_point_for_the_input_with_no_number(enriched):
    full, blank = _finding(_sweep_doc(enriched, False)), _finding(_sweep_doc(enriched, True))
    points = lambda f: len(re.findall(r"<circle", chart.scope_chart("nltk", FAMILY, f["scope"])))  # noqa: E731
    assert points(blank) == points(full) - 1

"""A baseline entry's ``expires`` is the last day it is accepted (docs/ci.md: "the day after
which the acceptance ..."): accepted the day before and ON the date, expired the day after.
Issue 34 probe (e): the tests held expiry a day after and months before, never on the date, so
``expires < today`` -> ``expires <= today`` survived."""

import datetime as dt
import json
from types import SimpleNamespace as F

import pytest

from audit.gate import baseline as B

DATE = dt.date(2030, 6, 30)


def _baseline(tmp_path) -> B.Baseline:
    path = tmp_path / "chrf-audit-baseline.json"
    path.write_text(json.dumps({"schema_version": 1, "accepted": [
        {"implementation": "nltk", "family": "crash", "reason": "upstream #1", "expires": DATE.isoformat()},
        {"implementation": "nltk", "family": "f-score-averaged", "reason": "no expiry"},
    ]}), encoding="utf-8")
    return B.load(path)


@pytest.mark.parametrize("today, expired", [
    (DATE - dt.timedelta(days=1), False),
    (DATE, False),
    (DATE + dt.timedelta(days=1), True),
])
def test_entry_expires_the_day_after_its_date(tmp_path, today, expired):
    entry = _baseline(tmp_path).get("nltk", "crash")
    assert entry.expires == DATE
    assert entry.expired(today) is expired
    assert _baseline(tmp_path).get("nltk", "f-score-averaged").expired(today) is False


@pytest.mark.parametrize("today, expired", [
    (DATE - dt.timedelta(days=1), False),
    (DATE, False),
    (DATE + dt.timedelta(days=1), True),
])
def test_compare_reports_expiry_from_the_day_after(tmp_path, today, expired):
    findings = [F(implementation="nltk", family="crash", level="corpus"),
                F(implementation="nltk", family="crash", level="sentence"),  # one entry, reported once
                F(implementation="nltk", family="f-score-averaged", level="corpus")]
    out = B.compare(findings, _baseline(tmp_path), today=today, audited=["nltk"])
    assert out.new == [] and out.stale == []
    assert len(out.accepted) == 3
    assert [(e.family, f.level) for e, f in out.expired] == ([("crash", "corpus")] if expired else [])
    assert out.failed(strict=False) is False
    assert out.failed(strict=True) is expired

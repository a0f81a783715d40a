"""A survey unit kept in the cache is an accelerator, never an authority: it is read with the
bounds of a file from outside (issue 39 item 4's rule, for the survey's own cache), and anything
that is not a bounded, well-formed unit of that name is a miss, so the unit runs again."""

import json
import os

import pytest

from audit.survey import plan, runner


@pytest.fixture
def unit(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRF_AUDIT_CACHE", str(tmp_path / "cache"))
    u = {"name": "buggy", "token": "0123abcd"}
    plan.kept(u).parent.mkdir(parents=True)
    return u


GOOD = {"name": "buggy", "status": "audited", "rows": []}


def test_a_well_formed_unit_is_reused(unit):
    plan.kept(unit).write_text(json.dumps(GOOD))
    assert runner._cached(unit) == GOOD


@pytest.mark.parametrize("plant", ["link", "fifo", "huge", "deep", "nan", "other-name", "no-status", "list"])
def test_a_planted_unit_is_a_miss(unit, tmp_path, monkeypatch, plant):
    path = plan.kept(unit)
    if plant == "link":
        elsewhere = tmp_path / "elsewhere.json"
        elsewhere.write_text(json.dumps(GOOD))
        path.symlink_to(elsewhere)
    elif plant == "fifo":
        os.mkfifo(path)  # read without blocking: a miss at once
    elif plant == "huge":
        monkeypatch.setattr(runner, "UNIT_BYTES", 1000)
        path.write_text(json.dumps(dict(GOOD, pad="x" * 2000)))
    elif plant == "deep":
        path.write_text('{"name": "buggy", "status": "audited", "rows": ' + "[" * 100 + "]" * 100 + "}")
    elif plant == "nan":
        path.write_text('{"name": "buggy", "status": "audited", "rows": [NaN]}')
    elif plant == "other-name":
        path.write_text(json.dumps(dict(GOOD, name="correct")))
    elif plant == "no-status":
        path.write_text(json.dumps({"name": "buggy"}))
    else:
        path.write_text("[]")
    assert runner._cached(unit) is None

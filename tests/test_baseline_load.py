"""A baseline file that is not an object with an "accepted" list is a user mistake named in
one line (UsageError), never a traceback: each half of the check on its own (issue 34
mutation triage: ``or`` -> ``and`` in ``baseline.load`` survived)."""

import json

import pytest

from audit.errors import UsageError
from audit.gate import baseline as B


@pytest.mark.parametrize("doc", [[], ["accepted"], "accepted", 3, None,  # not an object
                                 {}, {"accepted": 5}, {"accepted": {"a": 1}}, {"accepted": None}])  # no list
def test_not_a_baseline_is_a_usage_error(tmp_path, doc):
    path = tmp_path / "chrf-audit-baseline.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(UsageError, match='not a chrf-audit baseline \\(expected an object with an "accepted" list\\)'):
        B.load(path)


def test_an_empty_accepted_list_is_an_empty_baseline(tmp_path):
    path = tmp_path / "chrf-audit-baseline.json"
    path.write_text('{"schema_version": 1, "accepted": []}', encoding="utf-8")
    base = B.load(path)
    assert base.exists and base.entries == {}

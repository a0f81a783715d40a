"""A script audited as an external program (Popović's chrF++.py): one issue per root cause, with
a repro through the script's OWN command line (issue 31 item 6): the exception on a first
segment that matches no reference, the segment-order dependence and (issue 42 item 2) the
unexplained score of a later segment that matches none are one bug."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from audit.enrich.issue_facts import issue_facts
from audit.findings import Finding, Repro

CLAIMS = {"char_order": 6, "word_order": 2, "beta": 2, "lowercase": False, "whitespace": False,
          "definition": "chrfpp", "scale": 1}


def _findings():
    exc = Finding("chrF++.py", "exception", "sentence", "the implementation raised an exception", dict(CLAIMS), "", "",
                  Repro("sentence", {"hypothesis": "", "references": [""]}, 0.0, "0/1", None, None, "exception",
                        detail="UnboundLocalError: cannot access local variable 'bestMatchingCount' where it is "
                               "not associated with a value"))
    order = Finding("chrF++.py", "metamorphic-segment-order", "corpus", "the corpus score changes when segments are "
                    "reordered", dict(CLAIMS), "", "",
                    Repro("corpus", {"hypotheses": ["ba", "", "a"], "references": [["aa"], [""], ["a"]]},
                          17.708333333333343, "1/1", 11.666666666666675, "0.11666666666666675", "value"))
    return [exc, order]


def _unexplained(actual: float) -> Finding:
    return Finding("chrF++.py", "unexplained", "corpus", "the score differs from the definition", dict(CLAIMS), "", "",
                   Repro("corpus", {"hypotheses": ["a", ""], "references": [["a"], ["a"]]}, 13.888888888888896,
                         "50000000000000027/3600000000000000", actual, repr(actual / 100), "value"))


def test_a_number_the_script_prints_is_shown_as_printed_not_raised():
    """An unexplained corpus score is a number the script prints: its repro says what it prints
    and what the definition gives (it said "# raises value" before)."""
    exc, _ = _findings()
    f = _unexplained(25.0)
    [also] = issue_facts("chrF++.py", "exception", [exc], version="sha256:x", others=[exc, f])["also"]
    assert also["snippet"].splitlines()[-2:] == [
        "python3 chrF++.py -R reference.txt -H hypothesis.txt -nc 6 -nw 2 -b 2",
        "# prints c6+w2-F2 25.0000; the definition gives 13.8889"], also["snippet"]
    assert "raises" not in also["snippet"]


def test_an_unexplained_score_is_the_exceptions_root_cause_only_on_evidence():
    """chrF++.py's 25 on ["a", ""] against ["a", "a"] is exactly the definition's score with the
    empty segment taking the first one's counts (computeChrF's best* variables, unassigned
    when no reference scores above 0, the UnboundLocalError's root cause): described in the
    exception's issue, not filed on its own.  Another number is no such evidence: filed."""
    exc, _ = _findings()
    same = issue_facts("chrF++.py", "unexplained", [_unexplained(25.0)], version="sha256:x",
                       others=[exc, _unexplained(25.0)])
    assert same["filed"] is False and same["not_filed"].startswith("the same root cause as exception")
    assert "exactly the definition's score of the statistics where a segment no reference scores above 0" \
        in same["not_filed"]
    other = issue_facts("chrF++.py", "unexplained", [_unexplained(24.0)], version="sha256:x",
                        others=[exc, _unexplained(24.0)])
    assert other["filed"] is True and "also" in other
    assert issue_facts("chrF++.py", "exception", [exc], version="sha256:x", others=[exc, _unexplained(24.0)])[
        "also"] == []


def test_one_issue_per_root_cause_with_the_scripts_command_line():
    exc, order = _findings()
    facts = issue_facts("chrF++.py", "exception", [exc], version="sha256:x", others=[exc, order])
    assert facts["filed"] and facts["kind"] == "bug" and facts["function"] == "computeChrF"
    assert facts["related"][0]["repository"] == "m-popovic/chrF" and facts["related"][0]["number"] == 2
    assert "chrfpp_wrapper" not in facts["snippet"] and "printf" in facts["snippet"]
    assert "python3 chrF++.py -R reference.txt -H hypothesis.txt -nc 6 -nw 2 -b 2 -s" in facts["snippet"]
    [also] = facts["also"]
    assert also["family"] == "metamorphic-segment-order"
    assert "printf '%s\\n' a '' ba > hypothesis.txt" in also["snippet"]  # the reverse order, its own run
    assert "# prints 17.7083" in also["snippet"]
    other = issue_facts("chrF++.py", "metamorphic-segment-order", [order], version="sha256:x", others=[exc, order])
    assert other["filed"] is False and other["not_filed"].startswith("the same root cause as exception")


@pytest.mark.skipif(not os.path.isfile(os.environ.get("CHRFPP_SCRIPT", "")),
                    reason="the GPL chrF++.py script is never shipped: set CHRFPP_SCRIPT to the path of a copy")
def test_the_command_line_repros_do_what_they_say(tmp_path):
    exc, order = _findings()
    facts = issue_facts("chrF++.py", "exception", [exc], version="sha256:x", others=[exc, order])
    shutil.copy(os.environ["CHRFPP_SCRIPT"], tmp_path / "chrF++.py")
    run = subprocess.run(["sh", "-c", facts["snippet"]], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "UnboundLocalError" in run.stderr
    run = subprocess.run(["sh", "-c", facts["also"][0]["snippet"]], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60)
    totals = [line.split()[1] for line in run.stdout.splitlines() if line.startswith("c6+w2-F2\t")]
    assert totals == ["11.6667", "17.7083"], run.stdout

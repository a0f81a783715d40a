"""``check --update-baseline`` (issue 12, item 3): only the entries of the implementations
audited in that run change; everything else is kept byte for byte; concurrent updates are
serialized by a lock and lose nothing."""

import json
import multiprocessing
import shutil
from pathlib import Path
from types import SimpleNamespace as F


from audit.gate import baseline as B
from audit.cli import main

ROOT = Path(__file__).resolve().parents[1]
CORRECT = "plantedpkg:correct_float"
HAND = """{
  "schema_version": 1,
  "note": "hand-edited; keep",
  "accepted": [
    {
      "fingerprint": "%s",
      "implementation": "nltk",
      "family": "requested-order-divisor",
      "reason": "upstream nltk#3271 \\u2014 won't fix before 4.0",
      "expires": "2031-01-01",
      "owner": "metrics-team"
    },
    {
      "implementation": "nltk",
      "family": "f-score-averaged",
      "reason": "documented upstream"
    },
    {
      "implementation": "mod:other",
      "family": "crash",
      "reason": "flaky"
    }
  ]
}
""" % B.fingerprint("nltk", "requested-order-divisor")


def test_entries_of_implementations_not_audited_are_kept(tmp_path):
    path = tmp_path / "b.json"
    path.write_text(HAND)
    n, added, removed = B.update_file(path, [], audited=["sacrebleu"], today=B.parse_date("2030-01-01", "t"))
    assert (n, added, removed) == (3, [], [])
    assert path.read_text() == HAND  # not even rewritten


def test_only_the_audited_implementation_changes(tmp_path):
    path = tmp_path / "b.json"
    path.write_text(HAND)
    findings = [F(implementation="mod:other", family="nan-score"), F(implementation="nltk", family="x-not-audited")]
    n, added, removed = B.update_file(path, findings, audited=["mod:other"], today=B.parse_date("2030-01-01", "t"))
    assert [(e.implementation, e.family) for e in added] == [("mod:other", "nan-score")]
    assert [(e.implementation, e.family) for e in removed] == [("mod:other", "crash")]
    doc = json.loads(path.read_text())
    assert n == 3 and doc["note"] == "hand-edited; keep"
    before = json.loads(HAND)["accepted"][:2]
    assert doc["accepted"][:2] == before  # nltk's raw entries, same keys in the same order
    assert list(doc["accepted"][0]) == list(before[0])
    assert doc["accepted"][2]["reason"] == "accepted 2030-01-01"
    B.load(path)  # still a valid baseline


def test_untouched_entries_are_byte_identical_in_a_written_baseline(tmp_path):
    """A baseline chrf-audit wrote: after updating one implementation, the text of every other
    implementation's entry is unchanged."""
    path = tmp_path / "b.json"
    today = B.parse_date("2030-01-01", "t")
    B.update_file(path, [F(implementation="nltk", family="a"), F(implementation="nltk", family="b"),
                         F(implementation="sb", family="c")], audited=["nltk", "sb"], today=today)
    doc = json.loads(path.read_text())
    doc["accepted"][0]["reason"] = "hand-written ✓"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    nltk_text = path.read_text().split('"sb"')[0].rsplit("{", 1)[0]
    B.update_file(path, [F(implementation="sb", family="d")], audited=["sb"], today=today)
    text = path.read_text()
    assert text.startswith(nltk_text)
    assert [e["family"] for e in json.loads(text)["accepted"]] == ["a", "b", "d"]


def _update(path, impl, k):
    today = B.parse_date("2030-01-01", "t")
    for i in range(k):
        fams = [F(implementation=impl, family=f"fam-{j}") for j in range(i + 1)]
        B.update_file(path, fams, audited=[impl], today=today)


def test_concurrent_updates_lose_nothing(tmp_path):
    path = tmp_path / "b.json"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_update, args=(path, impl, 25)) for impl in ("left", "right", "third")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    got = {(e.implementation, e.family) for e in B.load(path).entries.values()}
    assert got == {(impl, f"fam-{j}") for impl in ("left", "right", "third") for j in range(25)}


def test_cli_update_for_another_implementation_removes_nothing(tmp_path, monkeypatch, capsys):
    """The issue's repro: `check --impl mod:other --update-baseline` printed "2 removed"."""
    shutil.copytree(ROOT / "tests" / "planted", tmp_path / "plantedpkg", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    (tmp_path / "b.json").write_text(HAND)
    code = main(["check", "--quiet", "--impl", f"{CORRECT}.sentence", "--baseline", "b.json", "--update-baseline",
                 "--max-examples", "5", "--cases", str(ROOT / "cases")])
    out = capsys.readouterr().out
    assert code == 0 and "(0 added, 0 removed)" in out, out
    assert (tmp_path / "b.json").read_text() == HAND

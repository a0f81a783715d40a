"""A suggested patch's verification kept between runs (issue 29 item 17: the default run's
CPU went to verifying the same five nltk patches on every run): computed once per key, the
same values read back, computed again when anything in the key changes.

The cache is an accelerator, never an authority (issue 39 item 4): an entry that is not a
regular file reached through no link, bounded, of exactly the shape a verification writes
(``audit.patches.summary_shape``), is a miss and the verification is computed again; a
verdict read from the cache says so (``from_cache``).  The summary used here is the one the
committed reports hold (nltk's requested-order-divisor patch): real writer output."""
import copy
import json

import pytest

from audit import __version__
from audit.enrich import verification, verify_cache
from audit.patches import summary_shape
from tests.fixtures.verify_entries import (
    DIFF, FAMILY, FINDINGS, HOSTILE_TEXT, NLTK, PLANTED, SHAPE, SUMMARY, bounded, cached as _cached, changed, entry,
    entry_path,
)


@pytest.fixture()
def made(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRF_AUDIT_CACHE", str(tmp_path / "cache"))
    return []


def test_the_committed_summary_is_a_valid_verification_of_its_patch():
    """The shape is the writer's: the summary the reports hold passes, and it is the shape
    that refuses (a field less fails)."""
    assert summary_shape.valid(SUMMARY, SHAPE)
    assert SUMMARY["verified"] is True and SUMMARY["library_tests"]["broken"] == 0
    assert not summary_shape.valid({k: v for k, v in SUMMARY.items() if k != "default_unchanged"}, SHAPE)


def test_a_verification_is_computed_once_and_read_back_saying_it_came_from_the_cache(made):
    first = _cached(made)
    again = _cached(made)
    assert len(made) == 1
    assert first == SUMMARY and "from_cache" not in first
    assert again == {**SUMMARY, "from_cache": {"chrf_audit": __version__}}
    kept = json.loads(entry_path().read_text(encoding="ascii"))
    assert set(kept) == {"key", "chrf_audit", "result"} and kept["chrf_audit"] == __version__


@pytest.mark.parametrize("change", ["diff", "family", "findings"])
def test_anything_in_the_key_changed_computes_again(made, change):
    def compute():
        made.append(1)
        return {"verified": True}

    args = {"implementation": "nltk", "family": FAMILY, "diff": "--- a\n+++ b\n", "before_findings": FINDINGS}
    verify_cache.cached(compute=compute, accept=lambda r: True, **args)
    other = {"diff": "--- a\n+++ c\n", "family": "f-score-averaged",
             "findings": FINDINGS + [{"implementation": "nltk", "family": "x"}]}[change]
    args["before_findings" if change == "findings" else change] = other
    verify_cache.cached(compute=compute, accept=lambda r: True, **args)
    assert len(made) == 2


@pytest.fixture()
def fresh_fingerprint():
    real = verify_cache._own_fingerprint
    real.cache_clear()
    yield
    real.cache_clear()


@pytest.mark.parametrize("part", ["nltk", "hypothesis", "pytest"])
def test_the_key_holds_the_installed_library_and_each_tool(monkeypatch, part):
    """Each distribution's RECORD is its own part of the key: one of them changed alone
    changes it (the function that reads them is the real one for every other name)."""
    k = verify_cache.key("nltk", "f", "d", FINDINGS)
    assert k is not None and len(k) == 64
    real = verify_cache._distribution_record
    assert real(part)  # installed, with a RECORD
    monkeypatch.setattr(verify_cache, "_distribution_record",
                        lambda name: real(name) + "\nchanged" if name == part else real(name))
    assert verify_cache.key("nltk", "f", "d", FINDINGS) != k


def test_the_key_holds_the_interpreter(monkeypatch):
    k = verify_cache.key("nltk", "f", "d", FINDINGS)
    monkeypatch.setattr(verify_cache.sys, "version", verify_cache.sys.version + " (another build)")
    assert verify_cache.key("nltk", "f", "d", FINDINGS) != k


def test_the_key_holds_the_curated_cases_and_chrf_audits_own_code(tmp_path, monkeypatch, fresh_fingerprint):
    """The real fingerprint function over a copy of the curated cases: a case edited, or a
    case added, changes the key; and the fingerprint is part of the key."""
    from audit.settings import options

    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "a.json").write_text('{"inputs": {"hypothesis": "a", "references": ["a"]}}\n')
    monkeypatch.setattr(options, "packaged_cases", lambda: cases)
    keys = [verify_cache.key("nltk", "f", "d", FINDINGS)]
    for edit in (lambda: (cases / "a.json").write_text('{"inputs": {"hypothesis": "b", "references": ["a"]}}\n'),
                 lambda: (cases / "b.json").write_text("{}\n")):
        edit()
        verify_cache._own_fingerprint.cache_clear()
        keys.append(verify_cache.key("nltk", "f", "d", FINDINGS))
    assert len(set(keys)) == 3, keys
    monkeypatch.setattr(verify_cache, "_own_fingerprint", lambda: "other code")
    assert verify_cache.key("nltk", "f", "d", FINDINGS) not in keys


def test_an_implementation_that_is_no_installed_library_is_never_cached(made):
    def compute():
        made.append(1)
        return {"verified": True}

    for _ in range(2):
        verify_cache.cached("mypkg.chrf:sentence", "f", "d", FINDINGS, compute, accept=lambda r: True)
    assert len(made) == 2


@pytest.mark.parametrize("planted", sorted(PLANTED))
def test_a_planted_entry_is_a_miss_and_the_verification_is_computed(made, planted):
    path = entry_path()
    path.parent.mkdir(parents=True)
    PLANTED[planted](path)
    finished, got = bounded(lambda: _cached(made))
    assert finished, "the read of the cache entry blocked"
    assert len(made) == 1 and got == SUMMARY and "from_cache" not in got


def test_what_a_planted_entry_of_the_right_shape_can_change_it_says(made):
    """The documented limit (docs/limits.md): a well-formed entry may turn the verdict, and
    the report then says the verdict is from the cache."""
    flipped = dict(SUMMARY, verified=False, status="not verified: planted")
    path = entry_path()
    path.parent.mkdir(parents=True)
    path.write_text(entry(flipped))
    got = _cached(made)
    assert not made and got == {**flipped, "from_cache": {"chrf_audit": __version__}}


def test_the_verification_path_recomputes_what_a_planted_entry_says(made, monkeypatch):
    """``verification._verify`` (the one place a patch is verified) goes through the shape of
    the real patch: a planted "verified" with markup in its status is recomputed there."""
    monkeypatch.setattr(verification, "_compute", lambda *a: made.append(1) or copy.deepcopy(SUMMARY))
    path = entry_path()
    path.parent.mkdir(parents=True)
    path.write_text(changed(lambda r: r.update(status="verified " + HOSTILE_TEXT)))
    assert verification._verify("nltk", FAMILY, DIFF, NLTK) == SUMMARY and len(made) == 1
    again = verification._verify("nltk", FAMILY, DIFF, NLTK)
    assert again["from_cache"] == {"chrf_audit": __version__} and len(made) == 1

"""A suggested patch's verification kept between runs (issue 29 item 17: the default run's
CPU went to verifying the same five nltk patches on every run): computed once per key, the
same values read back, computed again when anything in the key changes, a broken cache file
a miss."""
import json

import pytest

from audit.enrich import verify_cache

FINDINGS = [{"implementation": "nltk", "family": "requested-order-divisor", "level": "sentence"}]


@pytest.fixture()
def calls(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRF_AUDIT_CACHE", str(tmp_path))
    made = []

    def compute():
        made.append(1)
        return {"verified": True, "status": "verified", "checked": (1, 2)}

    return made, compute


def test_a_verification_is_computed_once_and_read_back_with_the_same_values(calls):
    made, compute = calls
    first = verify_cache.cached("nltk", "requested-order-divisor", "--- a\n+++ b\n", FINDINGS, compute)
    again = verify_cache.cached("nltk", "requested-order-divisor", "--- a\n+++ b\n", FINDINGS, compute)
    assert len(made) == 1
    assert first == again == {"verified": True, "status": "verified", "checked": [1, 2]}


@pytest.mark.parametrize("change", ["diff", "family", "findings"])
def test_anything_in_the_key_changed_computes_again(calls, change):
    made, compute = calls
    args = {"implementation": "nltk", "family": "requested-order-divisor", "diff": "--- a\n+++ b\n",
            "before_findings": FINDINGS}
    verify_cache.cached(compute=compute, **args)
    other = {"diff": "--- a\n+++ c\n", "family": "f-score-averaged",
             "findings": FINDINGS + [{"implementation": "nltk", "family": "x"}]}[change]
    args["before_findings" if change == "findings" else change] = other
    verify_cache.cached(compute=compute, **args)
    assert len(made) == 2


def test_the_key_holds_the_installed_library_and_chrf_audits_own_code(monkeypatch):
    k = verify_cache.key("nltk", "f", "d", FINDINGS)
    assert k is not None and len(k) == 64
    monkeypatch.setattr(verify_cache, "_distribution_record",
                        lambda name: "other files" if name == "nltk" else None)
    assert verify_cache.key("nltk", "f", "d", FINDINGS) != k
    monkeypatch.undo()
    verify_cache._own_fingerprint.cache_clear()
    monkeypatch.setattr(verify_cache, "_own_fingerprint", lambda: "other code")
    assert verify_cache.key("nltk", "f", "d", FINDINGS) != k


def test_an_implementation_that_is_no_installed_library_is_never_cached(calls):
    made, compute = calls
    for _ in range(2):
        verify_cache.cached("mypkg.chrf:sentence", "f", "d", FINDINGS, compute)
    assert len(made) == 2


@pytest.mark.parametrize("content", ["not json", json.dumps({"key": "other", "result": {"verified": True}}),
                                     json.dumps({"key": None, "result": "x"})])
def test_a_cache_file_that_cannot_be_read_or_is_anothers_is_a_miss(calls, content):
    made, compute = calls
    k = verify_cache.key("nltk", "f", "d", FINDINGS)
    path = verify_cache._path(k)
    path.parent.mkdir(parents=True)
    if "other" in content or "null" in content:
        content = content.replace('"other"', json.dumps("x" + k[1:])) if "other" in content else content
    path.write_text(content)
    assert verify_cache.cached("nltk", "f", "d", FINDINGS, compute)["verified"] is True
    assert len(made) == 1

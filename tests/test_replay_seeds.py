"""State and seeds (issue 41, item 6): every repro is scored again in fresh workers under two
``PYTHONHASHSEED`` values (``audit.collect.replay``).  A value that depends on the order of a
set of strings is ``nondeterminism`` with the values of both seeds; a value that a warmed
cache gave in the audit's process is ``stateful`` with both values.

The expected values are computed here, independently of the replay, by scoring the planted
implementation in plain child interpreters started with each seed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from audit.adapters import resolve
from audit.adapters.base import Outcome
from audit.collect import replay
from audit.collect.checker import Observation

ROOT = Path(__file__).resolve().parents[1]
_SCORE = ("import json, sys\nfrom tests.planted_search.hash_order import sentence\n"
          "print(json.dumps([sentence(h, rs) for h, rs in json.loads(sys.argv[1])]))")


def _under_seed(seed: str, pairs: list) -> list[float]:
    """hash_order's scores of ``pairs`` in a child interpreter under ``PYTHONHASHSEED=seed``."""
    env = dict(os.environ, PYTHONHASHSEED=seed)
    out = subprocess.run([sys.executable, "-c", _SCORE, json.dumps(pairs)], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120, check=True)
    return json.loads(out.stdout)


def _adapter(module: str):
    mod = __import__(f"tests.planted_search.{module}", fromlist=["CLAIMS"])
    [adapter] = resolve(f"tests.planted_search.{module}:sentence", corpus_impl=f"tests.planted_search.{module}:corpus",
                        overrides=mod.CLAIMS, isolate=False, name=module)
    return adapter


def _observation(adapter, hypothesis: str, references: list, value: float) -> Observation:
    return Observation(level="sentence", claims=adapter.claims, inputs=dict(hypothesis=hypothesis, references=references),
                       expected=None, outcome=Outcome("value", value, repr(value)), key=("unexplained",))


def test_a_value_that_depends_on_the_hash_seed_is_nondeterminism_with_both_values():
    hyp = "abcdef"
    candidates = [[hyp[:k] + "x" * (6 - k) for k in range(1, 6)][i:] for i in range(3)]
    pairs = [(hyp, refs) for refs in candidates]
    one, two = _under_seed("1", pairs), _under_seed("2", pairs)
    # the first reference list whose scored reference the two seeds choose differently
    [(refs, v1, v2)] = [(r, a, b) for (_, r), a, b in zip(pairs, one, two) if a != b][:1]
    adapter = _adapter("hash_order")
    try:
        recorded = v1 if abs(v1 - 50) < abs(v2 - 50) else v2  # whichever, the other seed differs
        [(obs, family, detail, _)] = replay.replay(adapter, [_observation(adapter, hyp, refs, recorded)], 1e-9)
    finally:
        adapter.close()
    assert family == "nondeterminism", detail
    assert f"then {v1!r} and {v2!r} in two fresh ones" in detail, (detail, v1, v2)
    assert "PYTHONHASHSEED 1 and 2" in detail


def test_a_value_a_warmed_cache_gave_is_stateful_with_both_values():
    from tests.planted_search import warm_cache
    from tests.planted.base import Chrf

    adapter = _adapter("warm_cache")
    try:
        for _ in range(warm_cache.WARM + 1):  # warm the audit's process; "xyz" is now cached under length 3
            warm_cache.sentence("abc", ["xyz"])
        warm = warm_cache.sentence("abd", ["abd"])  # scored against the cached "xyz"
        right = Chrf().sentence("abd", ["abd"])
        assert warm != right
        [(obs, family, detail, _)] = replay.replay(adapter, [_observation(adapter, "abd", ["abd"], warm)], 1e-9)
    finally:
        adapter.close()
    assert family == "stateful", detail
    assert f"scored {warm!r} in the audit's process and {right!r} in a fresh one" in detail, detail

"""Differential checks per second on short inputs, isolated (warm worker) vs in-process.

A *check* is: the adapter scores one (hypothesis, [reference]) pair, the exact reference
scores it with the adapter's claimed parameters, and the two are compared.  Inputs are random
1..12-character strings.  Two call patterns: one item per call (how a Hypothesis search
calls) and batches of 200 (case replay, sweeps).  Median of --runs runs.

    python benchmarks/bench_isolation.py [--n 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import reference_impl as R
from audit.adapters import resolve

ALPHABET = "abcde fgh.,\u00e9\U0001F600"


def inputs(n: int, seed: int = 0) -> list[tuple[str, list[str]]]:
    rnd = random.Random(seed)
    word = lambda: "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(1, 12)))
    return [(word(), [word()]) for _ in range(n)]


def checks_per_second(adapter, items, batch: int) -> float:
    params = adapter.claims.params()
    kw = dict(char_order=params.char_order, word_order=params.word_order, beta=params.beta,
              lowercase=params.lowercase, whitespace=params.whitespace, definition=params.definition)
    t0 = time.perf_counter()
    bad = 0
    for start in range(0, len(items), batch):
        chunk = items[start : start + batch]
        outcomes = adapter.sentence_scores(chunk)
        for (h, refs), o in zip(chunk, outcomes):
            expected = R.sentence_score(h, refs, **kw).score_float
            bad += o.kind != "value" or abs(o.value - expected) > 1e-9
    return len(items) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    items = inputs(args.n)
    print(f"{args.n} checks per run, median of {args.runs} runs, inputs of 1..12 characters")
    print(f"{'adapter':<16} {'batch':>5} {'isolated/s':>11} {'in-process/s':>13} {'ratio':>6}")
    for impl in ("nltk", "sacrebleu-chrf"):
        [iso] = resolve(impl, isolate=True)
        [inp] = resolve(impl, isolate=False)
        try:
            for batch in (1, 200):
                rates = {}
                for label, adapter in (("iso", iso), ("inp", inp)):
                    checks_per_second(adapter, items[:100], batch)  # warm up
                    rates[label] = statistics.median(
                        checks_per_second(adapter, items, batch) for _ in range(args.runs)
                    )
                print(f"{impl:<16} {batch:>5} {rates['iso']:>11.0f} {rates['inp']:>13.0f} "
                      f"{rates['iso'] / rates['inp']:>6.2f}")
        finally:
            iso.close()
            inp.close()


if __name__ == "__main__":
    main()

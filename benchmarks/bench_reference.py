"""Time the exact reference (reference_impl) against sacreBLEU, side by side.

    python benchmarks/bench_reference.py [--runs 5] [--systems 1] [--data DIR]

Workloads: WMT17 en-de (the first system(s) of ../shared/data/wmt17-en-de, all 3004
segments; skipped if the folder is missing) and synthetic data (seeded, mixed lengths,
two references per segment).  For each workload, level (corpus / sentence) and metric
(chrF / chrF++), the two implementations run alternately, ``--runs`` times each; the
median wall time of each and the ratio reference / sacreBLEU are printed.

The reference's timing includes making the exact Fraction available: ``.score`` of the
corpus result, and of every sentence result.  sacreBLEU's timing includes building its
metric object and returning its float scores.  Targets: corpus <= 0.7x, sentence <= 1.0x.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

from sacrebleu.metrics import CHRF

import reference_impl

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wmt17-en-de"
TARGETS = {"corpus": 0.7, "sentence": 1.0}


def load_wmt17(folder: Path, n_systems: int):
    ref_file = folder / "reference.txt"
    if not ref_file.is_file():
        return []
    refs = ref_file.read_text(encoding="utf-8").split("\n")
    if refs and refs[-1] == "":
        refs.pop()
    systems = sorted(p for p in folder.glob("*.txt") if p.name != "reference.txt")
    out = []
    for p in systems[:n_systems]:
        hyps = p.read_text(encoding="utf-8").split("\n")
        if hyps and hyps[-1] == "":
            hyps.pop()
        assert len(hyps) == len(refs), p
        out.append((f"wmt17:{p.stem}", hyps, [[r] for r in refs]))
    return out


def synthetic(n: int = 2000, seed: int = 0):
    rng = random.Random(seed)
    vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyzäöü") for _ in range(rng.randint(1, 10)))
             for _ in range(3000)]
    punct = ["", "", "", ",", ".", "?", "(", ")"]

    def sent(k):
        return " ".join(rng.choice(vocab) + rng.choice(punct) for _ in range(k))

    hyps, refs = [], []
    for _ in range(n):
        k = rng.choice([1, 3, 10, 25, 40, 60])
        base = sent(k).split()
        hyp = list(base)
        for _ in range(max(1, k // 4)):
            hyp[rng.randrange(len(hyp))] = rng.choice(vocab)
        hyps.append(" ".join(hyp))
        refs.append([" ".join(base), sent(k)])
    return [("synthetic-2ref", hyps, refs)]


def run_ref(level, hyps, refs, word_order):
    if level == "corpus":
        r = reference_impl.corpus_score(hyps, refs, word_order=word_order)
        return float(r.score)
    total = 0.0
    for h, rs in zip(hyps, refs):
        total += float(reference_impl.sentence_score(h, rs, word_order=word_order).score)
    return total


def run_sb(level, hyps, refs, word_order):
    metric = CHRF(word_order=word_order)
    if level == "corpus":
        return metric.corpus_score(hyps, [list(x) for x in zip(*refs)]).score
    total = 0.0
    for h, rs in zip(hyps, refs):
        total += metric.sentence_score(h, rs).score
    return total


def timed(fn, *args):
    gc.collect()
    t0 = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - t0, value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="runs per implementation (>= 3)")
    ap.add_argument("--systems", type=int, default=1, help="WMT17 systems to use")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--synthetic", type=int, default=2000, help="synthetic segments")
    args = ap.parse_args(argv)
    runs = max(3, args.runs)

    workloads = load_wmt17(args.data, args.systems)
    if not workloads:
        print(f"note: no WMT17 data in {args.data}; synthetic only", file=sys.stderr)
    workloads += synthetic(args.synthetic)

    print(f"{'workload':28} {'level':8} {'metric':7} {'reference s':>11} {'sacreBLEU s':>11} {'ratio':>6} target")
    missed = 0
    for name, hyps, refs in workloads:
        for level in ("corpus", "sentence"):
            for word_order, metric in ((0, "chrF"), (2, "chrF++")):
                t_ref, t_sb = [], []
                for _ in range(runs):  # alternate, so load changes hit both alike
                    dt, v_ref = timed(run_ref, level, hyps, refs, word_order)
                    t_ref.append(dt)
                    dt, v_sb = timed(run_sb, level, hyps, refs, word_order)
                    t_sb.append(dt)
                tol = 1e-9 * (1 if level == "corpus" else len(hyps))
                if abs(v_ref - v_sb) > tol and level == "corpus":
                    print(f"  WARNING: scores differ: {v_ref!r} vs {v_sb!r}")
                m_ref, m_sb = statistics.median(t_ref), statistics.median(t_sb)
                ratio = m_ref / m_sb
                ok = ratio <= TARGETS[level]
                missed += not ok
                print(f"{name:28} {level:8} {metric:7} {m_ref:11.3f} {m_sb:11.3f} {ratio:6.2f} "
                      f"<= {TARGETS[level]} {'ok' if ok else 'MISSED'}", flush=True)
    print(f"({runs} runs each, medians; {missed} target(s) missed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Seeded synthetic corpora built to make each statistical bug visible.

Texts are random words from a seeded vocabulary; a hypothesis is its reference with words
replaced at a rate.  Every corpus carries the exact reference's segment statistics (int64,
``audit.impact.significance.stats_array``) and float64 sentence scores, so the checks' float64
models never call an audited library.  Generation is vectorised (one numpy call per
sentence, not per word): building the corpora is a good part of an audit's run time.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from reference_impl import ChrfParams, segment_statistics
from ..impact import significance as sig

LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))

_CACHE: dict = {}
_BUILDING = threading.RLock()


def cached(key, make):
    """Corpora are pure functions of (seed, salt, sizes, params): build each once per process
    (several procedures, possibly audited at the same time, use the same inputs)."""
    with _BUILDING:
        if key not in _CACHE:
            if len(_CACHE) > 64:
                _CACHE.clear()
            _CACHE[key] = make()
        return _CACHE[key]


@dataclass
class Corpus:
    hyps: list[str]
    refs: list[list[str]]          # segment-major
    stats: np.ndarray              # (n, orders, 3) int64
    sentence: np.ndarray           # per-segment chrF (float64, 0..100)

    @property
    def n(self) -> int:
        return len(self.hyps)

    def score(self, params: ChrfParams) -> float:
        return sig.corpus_score(self.stats, params)

    def take(self, idx) -> "Corpus":
        """The corpus of segments ``idx`` (a prefix, a sample with replacement...)."""
        idx = np.asarray(idx, dtype=np.int64)
        return Corpus([self.hyps[i] for i in idx], [self.refs[i] for i in idx],
                      self.stats[idx], self.sentence[idx])


def make_corpus(hyps, refs, params: ChrfParams) -> Corpus:
    stats = sig.stats_array([segment_statistics(h, r, params)[0] for h, r in zip(hyps, refs)])
    return Corpus(list(hyps), [list(r) for r in refs], stats, sig.corpus_scores(stats, params))


class Texts:
    """A seeded text generator."""

    def __init__(self, rng: np.random.Generator, vocabulary: int = 400):
        self.rng = rng
        lengths = rng.integers(2, 9, size=vocabulary)
        letters = "".join(LETTERS[rng.integers(0, 26, size=int(lengths.sum()))])
        ends = np.cumsum(lengths)
        self.words = [letters[e - k:e] for e, k in zip(ends.tolist(), lengths.tolist())]

    def sentence(self, lo: int, hi: int) -> list[str]:
        k = int(self.rng.integers(lo, hi + 1))
        return [self.words[i] for i in self.rng.integers(0, len(self.words), size=k).tolist()]

    def corrupt(self, words: list[str], rate: float) -> list[str]:
        out = list(words)
        hit = np.flatnonzero(self.rng.random(len(out)) < rate).tolist()
        for i, j in zip(hit, self.rng.integers(0, len(self.words), size=len(hit)).tolist()):
            out[i] = self.words[j]
        return out

    def touch(self, words: list[str]) -> list[str]:
        """A small degradation: one character of one word replaced."""
        out = list(words)
        i = int(self.rng.integers(len(out)))
        w = out[i]
        j = int(self.rng.integers(len(w)))
        c = str(self.rng.choice([x for x in LETTERS if x != w[j]]))
        out[i] = w[:j] + c + w[j + 1:]
        return out


def skewed(rng: np.random.Generator, n: int, params: ChrfParams, long_share: float = 0.25,
           long=(25, 40), short=(1, 3)) -> Corpus:
    """Many short near-perfect segments, a few long poor ones: the mean of sentence scores
    (~75) is far above the corpus score from summed statistics (~35)."""
    t = Texts(rng)
    hyps, refs = [], []
    for is_long in (rng.random(n) < long_share).tolist():
        ref = t.sentence(*(long if is_long else short))
        hyp = t.corrupt(ref, 0.75 if is_long else 0.1)
        hyps.append(" ".join(hyp))
        refs.append([" ".join(ref)])
    return make_corpus(hyps, refs, params)


def null_pairs(rng: np.random.Generator, count: int, n: int, params: ChrfParams,
               words=(3, 15)) -> tuple[Corpus, Corpus]:
    """``count`` datasets of ``n`` segments each, concatenated (dataset t is segments
    t*n..(t+1)*n): two systems exchangeable by construction, both hypotheses of a segment
    independent corruptions of its reference at the same (per-segment random) rate."""
    t = Texts(rng)
    refs, a, b = [], [], []
    for rate in rng.uniform(0.1, 0.8, size=count * n).tolist():
        ref = t.sentence(*words)
        refs.append([" ".join(ref)])
        a.append(" ".join(t.corrupt(ref, rate)))
        b.append(" ".join(t.corrupt(ref, rate)))
    return make_corpus(a, refs, params), make_corpus(b, refs, params)


def null_pair(rng: np.random.Generator, n: int, params: ChrfParams):
    """One dataset of ``null_pairs``."""
    return null_pairs(rng, 1, n, params)


def touched(rng: np.random.Generator, c: Corpus, params: ChrfParams) -> Corpus:
    """``c`` with one character changed in every non-empty hypothesis: worse on (almost)
    every segment, so a paired test finds it significant at any size >= ~10."""
    t = Texts(rng, vocabulary=1)
    hyps = [" ".join(t.touch(h.split())) if h.strip() else h for h in c.hyps]
    return make_corpus(hyps, c.refs, params)


def size_corpora(s, params: ChrfParams) -> tuple[Corpus, Corpus, Corpus]:
    """The corpora of the size checks (settings ``s``), of ``s.largest`` short segments (1-3
    words: cheap for any procedure at 3000 segments): A and B exchangeable, and A touched."""
    def make():
        a, b = null_pairs(s.rng(23), 1, s.largest, params, words=(1, 3))
        return a, b, touched(s.rng(24), a, params)
    return cached(("sizes", s.seed, s.largest, params), make)


def pairing_corpus(rng: np.random.Generator, params: ChrfParams, groups: int = 12, size: int = 4):
    """References repeat in groups of ``size``; inside a group system A's quality spans from
    perfect to poor and B is A with one character changed per segment.  Paired, B is worse
    on almost every segment (p ~ 1/(N+1)).  Returns (A, B, B shuffled inside the groups):
    the shuffle keeps B's scores and corpus statistics but breaks the pairing."""
    t = Texts(rng)
    refs, a, b, shuffled = [], [], [], []
    rates = np.linspace(0.0, 0.9, size)
    for _ in range(groups):
        ref = t.sentence(6, 12)
        ga = [t.corrupt(ref, r) for r in rates]
        gb = [t.touch(h) for h in ga]
        perm = rng.permutation(size)
        while size > 1 and np.any(perm == np.arange(size)):
            perm = rng.permutation(size)
        refs += [[" ".join(ref)]] * size
        a += [" ".join(h) for h in ga]
        b += [" ".join(h) for h in gb]
        shuffled += [" ".join(gb[p]) for p in perm]
    return (make_corpus(a, refs, params), make_corpus(b, refs, params),
            make_corpus(shuffled, refs, params))


def edge_cases(params: ChrfParams) -> dict[str, Corpus]:
    """Edge inputs of the resampling (name -> corpus)."""
    cases = {
        "one segment": (["the cat sat"], [["the cat sat on the mat"]]),
        "resamples scoring exactly 0 and 100": (["the cat", "zzz"], [["the cat"], ["abc"]]),
        "every segment scores 0": (["zzz", "qqq"], [["abc"], ["def"]]),
        "empty segments": (["", "the cat sat", ""], [["a dog"], ["the cat sat"], [""]]),
    }
    return {k: make_corpus(h, r, params) for k, (h, r) in cases.items()}


def probe_corpus(rng: np.random.Generator, params: ChrfParams, n: int = 12) -> tuple[Corpus, Corpus]:
    """Inputs for the side-effect probe: capitalised, punctuated, in no sorted order, with
    several references per segment (A, and B = A touched), so that sorting, lowercasing,
    stripping or reordering the caller's lists changes them."""
    t = Texts(rng)
    hyps, refs = [], []
    for _ in range(n):
        ref = t.sentence(3, 8)
        hyps.append(" ".join(t.corrupt(ref, 0.3)).capitalize() + ".")
        refs.append([" ".join(ref).capitalize() + ".", " ".join(reversed(ref)).upper() + " !"])
    if hyps == sorted(hyps):
        hyps.reverse()
        refs.reverse()
    a = make_corpus(hyps, refs, params)
    return a, touched(rng, a, params)


def opposed_pair(rng: np.random.Generator, params: ChrfParams, long_segments: int = 12):
    """Two systems whose corpus chrF differs widely while their mean sentence chrF is equal:
    A is much better on a few long segments, B better on many short ones, with as many short
    segments as it takes for the sentence-score differences to sum to ~0."""
    t = Texts(rng)
    refs, a, b = [], [], []
    for _ in range(long_segments):
        ref = t.sentence(25, 40)
        refs.append([" ".join(ref)])
        a.append(" ".join(t.corrupt(ref, 0.2)))
        b.append(" ".join(t.corrupt(ref, 0.7)))
    ca, cb = make_corpus(a, refs, params), make_corpus(b, refs, params)
    total = float((ca.sentence - cb.sentence).sum())
    while total > 0 and len(refs) < 400:
        ref = t.sentence(1, 2)
        ha, hb = " ".join(t.corrupt(ref, 0.9)), " ".join(ref)
        sa = make_corpus([ha], [[" ".join(ref)]], params)
        sb = make_corpus([hb], [[" ".join(ref)]], params)
        d = float(sa.sentence[0] - sb.sentence[0])
        if d >= 0:
            continue
        refs.append([" ".join(ref)])
        a.append(ha)
        b.append(hb)
        total += d
    order = rng.permutation(len(refs))
    a, b, refs = [a[i] for i in order], [b[i] for i in order], [refs[i] for i in order]
    return make_corpus(a, refs, params), make_corpus(b, refs, params)

"""A straightforward float chrF / chrF++ (the ``sacrebleu`` definition), with one switch per
known deviation, so that every planted bug is this code with exactly one switch flipped.

Written from the definition in DESIGN.md, independently of ``reference_impl`` and of
sacreBLEU (it imports neither), so that agreement with the reference means something.

``Chrf(**switches)`` builds an implementation; ``.sentence(hyp, refs)`` and
``.corpus(hyps, refs_per_segment)`` are the generic callables (0..100 scale).  With no
switch flipped it is a correct implementation: float arithmetic, so it agrees with the exact
reference to ~1e-13, far inside the audit's default tolerance (1e-9).
"""

from __future__ import annotations

import struct
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace

#: The 32 ASCII punctuation marks (string.punctuation).
PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

#: ASCII whitespace as C's isspace() / most tokenizers know it.
ASCII_WS = frozenset(" \t\n\r\x0b\x0c")
#: Unicode White_Space (25 code points): str.isspace() minus U+001C..U+001F.
WHITE_SPACE = frozenset(
    " \t\n\x0b\x0c\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


@dataclass(frozen=True)
class Chrf:
    # -- the claimed parameters
    char_order: int = 6
    word_order: int = 0
    beta: float = 2.0
    lowercase: bool = False
    whitespace: bool = False  # keep whitespace as characters
    # -- deviations (defaults: correct)
    units: str = "codepoints"  # "utf8" | "utf16"
    ws_removed: str = "isspace"  # "ascii-space" | "ascii" | "white-space" | "none"
    case: str = "claimed"  # "lower-always" | "casefold"
    normalize: str | None = None  # "NFC", "NFKC", ...
    word_split: str = "one-end"  # "none" | "both"
    char_orders: tuple[int, ...] | None = None  # None: 1..char_order
    clip: bool = True
    zero_hyp_where_ref_none: bool = True
    divisor: str = "effective"  # "requested"
    combine: str = "pr-mean"  # "f-mean"
    beta_squared: bool = True
    swap_pr: bool = False
    empty_score: float = 0.0  # score when there are no n-grams on either side
    refs: str = "best"  # "first" | "mean"
    corpus_mode: str = "sum"  # "macro"
    unmatched_refs_dropped: bool = False  # corpus sums: a segment matching no reference adds no reference n-grams
    round_digits: int | None = None
    deleted: frozenset = frozenset()  # characters deleted before counting (format characters)
    float32: bool = False  # every arithmetic result rounded to float32

    def _r(self, x: float) -> float:
        return struct.unpack("f", struct.pack("f", x))[0] if self.float32 else x

    def variant(self, **changes) -> "Chrf":
        return replace(self, **changes)

    # ------------------------------------------------------------------ text -> n-grams
    def _prepare(self, text: str) -> str:
        if self.normalize:
            text = unicodedata.normalize(self.normalize, text)
        if self.deleted:
            text = "".join(c for c in text if c not in self.deleted)
        if self.case == "casefold":
            text = text.casefold()
        elif self.case == "lower-always" or self.lowercase:
            text = text.lower()
        return text

    def _chars(self, text: str):
        if not self.whitespace:
            mode = self.ws_removed
            if mode == "isspace":
                text = "".join(text.split())
            elif mode == "ascii-space":
                text = text.replace(" ", "")
            elif mode == "ascii":
                text = "".join(c for c in text if c not in ASCII_WS)
            elif mode == "strip":
                text = text.strip()
            elif mode == "white-space":
                text = "".join(c for c in text if c not in WHITE_SPACE)
            elif mode != "none":
                raise ValueError(mode)
        if self.units == "utf8":
            return text.encode("utf-8")
        if self.units == "utf16":
            b = text.encode("utf-16-le")
            return tuple(int.from_bytes(b[i : i + 2], "little") for i in range(0, len(b), 2))
        return text

    def _words(self, text: str) -> list[str]:
        out: list[str] = []
        for w in text.split():
            if len(w) == 1 or self.word_split == "none":
                out.append(w)
            elif self.word_split == "both":
                head, tail = [], []
                if w[-1] in PUNCT:
                    tail, w = [w[-1]], w[:-1]
                if len(w) > 1 and w[0] in PUNCT:
                    head, w = [w[0]], w[1:]
                out += head + [w] + tail
            elif w[-1] in PUNCT:
                out += [w[:-1], w[-1]]
            elif w[0] in PUNCT:
                out += [w[0], w[1:]]
            else:
                out.append(w)
        return out

    def _orders(self) -> tuple[int, ...]:
        return self.char_orders if self.char_orders is not None else tuple(range(1, self.char_order + 1))

    def _profile(self, text: str) -> list[Counter]:
        text = self._prepare(text)
        seq = self._chars(text)
        counters = [Counter(seq[i : i + n] for i in range(len(seq) - n + 1)) for n in self._orders()]
        if self.word_order:
            toks = self._words(text)
            for n in range(1, self.word_order + 1):
                counters.append(Counter(tuple(toks[i : i + n]) for i in range(len(toks) - n + 1)))
        return counters

    # ------------------------------------------------------------------ statistics
    def _stats(self, hyp: list[Counter], ref: list[Counter]) -> list[tuple[int, int, int]]:
        """Per order (H, R, M)."""
        out = []
        for hc, rc in zip(hyp, ref):
            h, r = sum(hc.values()), sum(rc.values())
            if self.clip:
                m = sum(min(c, rc[g]) for g, c in hc.items() if g in rc)
            else:
                m = sum(c for g, c in hc.items() if g in rc)
            if self.zero_hyp_where_ref_none and r == 0:
                h, m = 0, 0
            out.append((h, r, m))
        return out

    def _f(self, p: float, r: float) -> float:
        _r = self._r
        b2 = _r(self.beta * self.beta) if self.beta_squared else self.beta
        if self.swap_pr:
            p, r = r, p
        denom = _r(_r(b2 * p) + r)
        return _r(_r(_r(_r(1 + b2) * p) * r) / denom) if denom else 0.0

    def _score(self, stats: list[tuple[int, int, int]], empty: bool = False) -> float:
        if empty and self.empty_score:
            return self.empty_score
        eff = [(h, r, m) for h, r, m in stats if h > 0 and r > 0]
        if not eff:
            return 0.0
        k = len(stats) if self.divisor == "requested" else len(eff)
        if self.combine == "f-mean":
            return 100 * sum(self._f(m / h, m / r) for h, r, m in eff) / k
        if self.combine == "pooled":  # one P and one R over the n-grams of every order
            hs, rs, ms = (sum(x[i] for x in stats) for i in range(3))
            return 100 * self._f(ms / hs, ms / rs) if ms else 0.0
        _r = self._r
        p = r = 0.0
        for h, rr, m in eff:
            p, r = _r(p + _r(m / h)), _r(r + _r(m / rr))
        p, r = _r(p / k), _r(r / k)
        if p + r == 0:
            return 0.0
        return _r(100 * self._f(p, r))

    def _segment(self, hypothesis: str, references: list[str]) -> tuple[list, float, bool]:
        """(statistics of the chosen reference, sentence score, no n-gram on either side)."""
        hp = self._profile(hypothesis)
        rps = [self._profile(r) for r in references]
        cands = [self._stats(hp, rp) for rp in rps]
        h_empty = not any(hp)
        empties = [h_empty and not any(rp) for rp in rps]
        scores = [self._score(s, e) for s, e in zip(cands, empties)]
        if self.refs == "first":
            return cands[0], scores[0], empties[0]
        if self.refs == "mean":
            return cands[0], sum(scores) / len(scores), empties[0]
        if self.refs == "sentinel":  # the search starts from 0: no reference may win
            best, best_score = None, 0.0
            for i in range(len(cands)):
                if scores[i] > best_score + 1e-9:
                    best, best_score = i, scores[i]
            if best is None:
                return [(0, 0, 0)] * len(cands[0]), 0.0, False
            return cands[best], scores[best], empties[best]
        best = 0
        for i in range(1, len(cands)):
            # float scores of exactly tied references can differ in the last bit
            if scores[i] > scores[best] + 1e-9:
                best = i
        return cands[best], scores[best], empties[best]

    def _out(self, score: float) -> float:
        return round(score, self.round_digits) if self.round_digits is not None else score

    # ------------------------------------------------------------------ public callables
    def sentence(self, hypothesis: str, references: list[str]) -> float:
        return self._out(self._segment(hypothesis, list(references))[1])

    def corpus(self, hypotheses: list[str], references: list[list[str]]) -> float:
        if self.corpus_mode == "macro":
            s = [self._segment(h, list(r))[1] for h, r in zip(hypotheses, references)]
            return self._out(sum(s) / len(s))
        total, all_empty = None, True
        for h, r in zip(hypotheses, references):
            st, _, empty = self._segment(h, list(r))
            # the chosen reference has no match exactly when none has (a match scores > 0)
            if self.unmatched_refs_dropped and not any(m for _, _, m in st):
                st = [(hh, 0, 0) for hh, _, _ in st]
            all_empty = all_empty and empty
            total = st if total is None else [tuple(map(sum, zip(a, b))) for a, b in zip(total, st)]
        return self._out(self._score(total, all_empty))


#: The correct chrF and chrF++ of the ``sacrebleu`` definition.
CHRF = Chrf()
CHRF_PP = Chrf(word_order=2)

#: Claimed parameters of a planted chrF / chrF++ module (keys as in audit Finding.claims).
CLAIMS_CHRF = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
                   definition="sacrebleu", scale=100)
CLAIMS_CHRF_PP = dict(CLAIMS_CHRF, word_order=2)


def claims(**changes) -> dict:
    return dict(CLAIMS_CHRF, **changes)

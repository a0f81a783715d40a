"""The requests a contract is checked with, derived from the contract's data (pure).

A ``Probe`` is one request body and what the contract says of it: ``score`` (a valid input:
the answer is judged against the contract's metric) or ``refuse`` (a documented refusal:
an error response is the only right answer).  Its ``family`` is the promise it tests
first: a valid input that gets no score breaks that family; a refusal probe's family is its
refusal.  Inputs are small and chosen to expose one thing each:

* ties at the contract's last decimal, in both directions (half to even is not half up,
  half down or truncation): 64 characters against 64, two words each, one or three shared
  characters and no shared bigram give P = R = 1/512 or 3/512, a score of 25/128 = 0.1953125
  or 75/128 = 0.5859375;
* every whitespace code point of the contract (and look-alikes that are not whitespace)
  inside and around words; every ASCII punctuation mark at either end of a word, marks
  that are not ASCII, "(hi)" and "...";
* case pairs whose lowercase changes length or context (İ, final sigma, ẞ, ǅ);
* betas other than the default, at and beyond the declared range;
* a corpus whose one-word reference has no word bigram (the contract counts the
  hypothesis's bigram there; sacreBLEU's zeroing would not);
* each documented refusal and each accepted limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .spec import Contract

LOOKALIKES = "\u200b\ufeff\u180e"  # zero-width space, BOM, Mongolian vowel separator: not whitespace
NON_ASCII_PUNCT = ["\u00bfqu\u00e9?", "\u3002x\u3002", "\u00abhi\u00bb", "x\u2026"]
CASES = ["\u0130stanbul", "\u039f\u0394\u039f\u03a3 \u03a3\u0391", "STRA\u1e9eE", "\u01c5ungla", "ABC Def."]


@dataclass(frozen=True)
class Probe:
    name: str
    body: Any  # the request body, as sent
    expect: str  # "score" | "refuse"
    family: str
    #: what the body asks for, when it is a valid input: hypotheses, references, beta, lowercase
    fields: Optional[dict] = None
    note: str = ""
    tags: tuple = field(default=())

    @property
    def size(self) -> int:
        import json

        return len(json.dumps(self.body, ensure_ascii=True))


def _score(c: Contract, name: str, hyps, refs, family: str = "contract-corpus-score", beta=None, lowercase=None,
           note: str = "", tags: tuple = ()) -> Probe:
    lo, hi, default = c.beta_range
    fields = {"hypotheses": list(hyps), "references": list(refs),
              "beta": default if beta is None else beta,
              "lowercase": c.lowercase_default if lowercase is None else lowercase}
    return Probe(name, c.body(hyps, refs, beta=beta, lowercase=lowercase), "score", family, fields, note, tags)


def groups(c: Contract, pairs) -> list[list[int]]:
    """Indices of the (hypothesis, reference) ``pairs`` grouped into requests within the
    contract's limits (``max_segments`` segments, ``max_bytes`` bytes of text at most), in
    order.  No pairs: no group."""
    out, current, size = [], [], 0
    for i, (h, r) in enumerate(pairs):
        n = len(h.encode("utf-8", "surrogatepass")) + len(r.encode("utf-8", "surrogatepass"))
        if current and (len(current) == c.max_segments or size + n > c.max_bytes):
            out.append(current)
            current, size = [], 0
        current.append(i)
        size += n
    if current:
        out.append(current)
    return out


def _scores(c: Contract, name: str, hyps, refs, family: str, **kw) -> list[Probe]:
    """``_score`` of these segments, in as many requests as the contract's limits need (a
    contract may take fewer segments or bytes at once than it has whitespace code points or
    punctuation marks).  No segments: no probe."""
    parts = groups(c, list(zip(hyps, refs)))
    if len(parts) == 1:
        return [_score(c, name, hyps, refs, family, **kw)]
    return [_score(c, f"{name} (part {k + 1} of {len(parts)})", [hyps[i] for i in g], [refs[i] for i in g], family,
                   **kw) for k, g in enumerate(parts)]


def _refuse(c: Contract, name: str, inner: Any, family: str, note: str = "", whole: bool = False) -> Probe:
    return Probe(name, inner if whole else c.wrap(inner), "refuse", family, None, note)


def tie_texts(shared: int) -> tuple[str, str]:
    """64 characters each side, two words each, ``shared`` single characters in common and
    no bigram or word in common: P = R = shared / 512 over the eight orders."""
    letters = "abcdefghijklmnopqrstuvw"[:shared]
    hyp = "x".join(letters) + "x"
    ref = "y".join(letters) + "y"
    hyp, ref = hyp + " " + "x" * (64 - len(hyp)), ref + " " + "y" * (64 - len(ref))
    return hyp, ref


def score_probes(c: Contract) -> list[Probe]:
    """Valid inputs, each judged on everything its answer states."""
    ex = c.doc.get("example", {}).get("request")
    lo, hi, default = c.beta_range
    out = []
    if ex:
        out.append(_score(c, "the contract's example", ex["hypotheses"], ex["references"], tags=("example",)))
    for shared in (1, 3):
        h, r = tie_texts(shared)
        out.append(_score(c, f"a tie at the last decimal ({shared} shared character{'s' * (shared > 1)})",
                          [h], [r], "contract-score-rounding"))
    h2, r2 = tie_texts(1)
    out.append(_score(c, "a tie in a segment score beside another segment", ["a b c", h2], ["a b d", r2],
                      "contract-score-rounding"))
    ws = sorted(c.metric.whitespace)
    out += _scores(c, "every whitespace code point between words",
                   [f"ab{w}cd." for w in ws], ["ab cd." for _ in ws], "contract-word-tokens")
    out += _scores(c, "whitespace at the ends and in runs",
                   [f"{w}x{w}{w}y{w}" for w in ws[:8]], ["x y"] * len(ws[:8]), "contract-word-tokens")
    out += _scores(c, "characters that look like whitespace but are not",
                   [f"ab{w}cd" for w in LOOKALIKES], ["ab cd"] * len(LOOKALIKES), "contract-word-tokens")
    punct = sorted(c.metric.punctuation)
    out += _scores(c, "each ASCII punctuation mark at the end and at the start of a word",
                   [f"w{p} {p}w" for p in punct], ["w w"] * len(punct), "contract-word-tokens")
    out += _scores(c, "one mark per word, marks alone, marks that are not ASCII",
                   ["(hi) ...", "a. .b , !", "hi!! --x", *NON_ASCII_PUNCT],
                   ["hi ...", "a b , !", "hi! x", *NON_ASCII_PUNCT], "contract-word-tokens")
    for lowercase in (True, False):
        out += _scores(c, f"case pairs with lowercase {str(lowercase).lower()}",
                       CASES, [s.lower() if not lowercase else s.upper() for s in CASES],
                       "contract-lowercase", lowercase=lowercase)
    for beta in sorted({1, 3, min(hi, 16)} - {default}):
        if lo <= beta <= hi:
            out.append(_score(c, f"beta {beta}", ["the cat sat", "a b c d e f"], ["the cat sat on the mat", "a b"],
                              "contract-beta", beta=beta))
    out.append(_score(c, "beta given as the default", ["the cat sat"], ["the cat sat on the mat"],
                      "contract-beta", beta=default))
    out.append(_score(c, "a reference without the bigrams its hypothesis has (counted in the corpus)",
                      ["a b", "c d e", "abcdefg"], ["a", "c d e", "ab"], "contract-corpus-score"))
    out.append(_score(c, "empty texts and texts of whitespace only",
                      ["", " ", "a", ""], ["", "a", " ", "b"], "contract-corpus-score"))
    return out


def limit_probes(c: Contract) -> list[Probe]:
    """Valid inputs at the limits: they must be scored."""
    n, cap = c.max_segments, c.max_bytes
    lo, hi, default = c.beta_range
    out = [_score(c, f"{n} segments (the most)", ["a b"] * n, ["a c"] * n, "contract-limits-accepted")]
    half = cap // 2
    out.append(_score(c, f"{cap} bytes of text (the most)", ["ab " * (half // 3) + "a" * (half % 3)],
                      ["ab " * ((cap - half) // 3) + "b" * ((cap - half) % 3)], "contract-limits-accepted"))
    out.append(_score(c, f"{cap} bytes in two-byte characters", ["\u00e9" * (half // 2)],
                      ["\u00e9" * ((cap - half) // 2)], "contract-limits-accepted"))
    for beta in sorted({lo, hi}):
        out.append(_score(c, f"beta {beta} (the {'least' if beta == lo else 'greatest'})", ["the cat sat"],
                          ["the cat sat on the mat"], "contract-limits-accepted", beta=beta))
    out.append(_score(c, "one segment", ["a"], ["a"], "contract-limits-accepted"))
    return out


def refusal_probes(c: Contract) -> list[Probe]:
    """Each documented refusal, one request each."""
    n, cap = c.max_segments, c.max_bytes
    lo, hi, default = c.beta_range
    ok = {"hypotheses": ["a"], "references": ["a"]}
    out = [
        _refuse(c, "a JSON array instead of an object", [ok], "contract-refuses-non-object"),
        _refuse(c, "a JSON string instead of an object", "a", "contract-refuses-non-object"),
        _refuse(c, "an unknown key", {**ok, "references_2": ["a"]}, "contract-refuses-unknown-keys"),
        _refuse(c, "hypotheses missing", {"references": ["a"]}, "contract-refuses-missing-keys"),
        _refuse(c, "references missing", {"hypotheses": ["a"]}, "contract-refuses-missing-keys"),
        _refuse(c, "a number among the hypotheses", {"hypotheses": [1], "references": ["a"]},
                "contract-refuses-wrong-types"),
        _refuse(c, "null among the references", {"hypotheses": ["a"], "references": [None]},
                "contract-refuses-wrong-types"),
        _refuse(c, "hypotheses as a string", {"hypotheses": "a", "references": ["a"]}, "contract-refuses-wrong-types"),
        _refuse(c, "several references per segment (an array of arrays)",
                {"hypotheses": ["a"], "references": [["a", "b"]]}, "contract-refuses-wrong-types"),
        _refuse(c, "0 segments", {"hypotheses": [], "references": []}, "contract-refuses-segment-count"),
        _refuse(c, f"{n + 1} segments", {"hypotheses": ["a"] * (n + 1), "references": ["a"] * (n + 1)},
                "contract-refuses-segment-count"),
        _refuse(c, "2 hypotheses, 1 reference", {"hypotheses": ["a", "b"], "references": ["a"]},
                "contract-refuses-unequal-counts"),
        _refuse(c, f"{cap + 1} bytes of text", {"hypotheses": ["a" * (cap // 2 + 1)], "references": ["a" * (cap // 2)]},
                "contract-refuses-text-bytes"),
    ]
    if c.limits.get("lone_surrogates", "refused") == "refused":
        out += [_refuse(c, "a lone high surrogate in a hypothesis", {"hypotheses": ["a\ud800b"], "references": ["ab"]},
                        "contract-refuses-lone-surrogates"),
                _refuse(c, "a lone low surrogate in a reference", {"hypotheses": ["ab"], "references": ["\udc80"]},
                        "contract-refuses-lone-surrogates")]
    if c.takes("beta"):
        out += [_refuse(c, f"beta {lo - 1}", {**ok, "beta": lo - 1}, "contract-refuses-beta-range"),
                _refuse(c, f"beta {hi + 1}", {**ok, "beta": hi + 1}, "contract-refuses-beta-range"),
                _refuse(c, "beta 2.5", {**ok, "beta": 2.5}, "contract-refuses-wrong-types"),
                _refuse(c, "beta as a string", {**ok, "beta": "2"}, "contract-refuses-wrong-types")]
    if c.takes("lowercase"):
        out.append(_refuse(c, "lowercase as a string", {**ok, "lowercase": "yes"}, "contract-refuses-wrong-types"))
    return out


def drawn_probes(c: Contract, corpora: list, sentences: list) -> tuple[list[Probe], list[Probe]]:
    """Probes of inputs drawn elsewhere (the search's strategies): one per corpus of
    (hypotheses, references), and the (hypothesis, reference) ``sentences`` batched into as
    few requests as the contract's limits allow, their segment scores judged."""
    drawn = [_score(c, f"a drawn corpus #{i + 1}", hyps, refs) for i, (hyps, refs) in enumerate(corpora)]
    batches = [_score(c, f"drawn sentences, batch #{k + 1}", [sentences[i][0] for i in g],
                      [sentences[i][1] for i in g], "contract-segment-scores", tags=("batch",))
               for k, g in enumerate(groups(c, sentences))]
    return drawn, batches


def alone(c: Contract, probe: Probe, k: int, family: str) -> Probe:
    """Segment ``k`` of a scored ``probe`` as a request of its own (same beta and case)."""
    f = probe.fields
    return _score(c, f"{probe.name}, segment {k + 1} alone", [f["hypotheses"][k]], [f["references"][k]], family,
                  beta=f["beta"], lowercase=f["lowercase"])


def state_probes(c: Contract) -> dict:
    """The request sequences of the state promises (sent in this order)."""
    lo, hi, default = c.beta_range
    hyps = ["the cat sat on the mat", "Dogs Bark."]
    other_beta = 3 if lo <= 3 <= hi and default != 3 else hi
    return {
        # same hypotheses, then other references, then another beta: each its own answer
        "independence": [
            _score(c, "first request", hyps, ["the cat is on the mat", "dogs bark."], "contract-request-independence"),
            _score(c, "same hypotheses, other references", hyps, ["a cat sat there", "Cats meow."],
                   "contract-request-independence"),
            _score(c, "same texts, another beta", hyps, ["a cat sat there", "Cats meow."],
                   "contract-request-independence", beta=other_beta if c.takes("beta") else None),
            _score(c, "references and hypotheses swapped", ["a cat sat there", "Cats meow."], hyps,
                   "contract-request-independence"),
        ],
        # the same texts, case-sensitive, before and after a lowercased request on them
        "mutation": [
            _score(c, "case-sensitive", ["Ab Cd EF", "XY z"], ["ab cd ef", "xy Z"], "contract-inputs-not-mutated",
                   lowercase=False if c.takes("lowercase") else None),
            _score(c, "the same texts lowercased", ["Ab Cd EF", "XY z"], ["ab cd ef", "xy Z"],
                   "contract-inputs-not-mutated", lowercase=True if c.takes("lowercase") else None),
            _score(c, "case-sensitive again", ["Ab Cd EF", "XY z"], ["ab cd ef", "xy Z"],
                   "contract-inputs-not-mutated", lowercase=False if c.takes("lowercase") else None),
        ],
    }

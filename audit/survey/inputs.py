"""The inputs of the survey's second route (``differential.py``): N seeded inputs drawn in turn
from every input class real callers send, written here from scratch (no code of chrf-audit's
search, reference or diagnosis): plain sentences and their edits, short texts, empty sides,
whitespace of every kind, attached and non-ASCII punctuation, case, accents, CJK and astral
characters, lone surrogates, repeated n-grams, several references (ragged lists, an empty
reference beside others), texts over 1,000 characters, several lines, markup and special tokens.

``draw(seed, n, max_refs, level)`` is a pure function of its arguments (``random.Random``
seeded with a string): the same inputs on any machine, in any process.
"""

from __future__ import annotations

import random
from typing import Optional

WORDS = ("the cat sat on the mat while a dog slept near the warm stove and rain fell outside "
         "every morning she reads two chapters before work because quiet hours help her think "
         "der Hund läuft schnell über die Straße naïve café déjà vu résumé").split()
WHITESPACE = [" ", "\t", "\u00a0", "\u2003", "\u3000", "\u001c", "\u001f", "\u0085", "\u200b", "\n", "\r\n", "\x0b"]
PUNCTUATION = [".", ",", "!", "?", ";", ":", "\"", "'", "(", ")", "«", "»", "¿", "—", "…", "„", "“"]
EXOTIC = ["e\u0301", "é", "ﬁ", "İ", "ß", "Σ", "猫", "東京", "😀", "𝔘", "\u0000", "\u202e", "ǅ"]
MARKUP = ["<b>", "</b>", "<br/>", "&amp;", "[CLS]", "[SEP]", "<unk>", "</s>", "<|endoftext|>", "@@", "▁"]

CLASSES = ("plain", "short", "empty", "whitespace", "punctuation", "case", "unicode", "lone-surrogate",
           "repeats", "several-references", "ragged-references", "empty-reference-beside-others", "long",
           "several-lines", "markup")


def _sentence(rng: random.Random, lo: int = 3, hi: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def _edit(rng: random.Random, text: str) -> str:
    words = text.split(" ")
    for _ in range(rng.randint(0, 3)):
        i = rng.randrange(len(words))
        words[i] = rng.choice(WORDS) if rng.random() < 0.7 else words[i][::-1]
    return " ".join(words)


def _pair(rng: random.Random, cls: str) -> tuple[str, list[str]]:
    """(hypothesis, references) of one input class."""
    ref = _sentence(rng)
    hyp = _edit(rng, ref)
    if cls == "short":
        ref, hyp = ref[: rng.randint(1, 5)], hyp[: rng.randint(0, 5)]
    elif cls == "empty":
        hyp, ref = rng.choice([("", ref), (hyp, ""), ("", ""), (" ", ref), (hyp, "\t ")])
    elif cls == "whitespace":
        hyp = "".join(rng.choice(WHITESPACE) if c == " " else c for c in hyp) + rng.choice(WHITESPACE)
    elif cls == "punctuation":
        hyp = " ".join(w + rng.choice(PUNCTUATION) if rng.random() < 0.4 else
                       (rng.choice(PUNCTUATION) + w if rng.random() < 0.2 else w) for w in hyp.split(" "))
    elif cls == "case":
        hyp = "".join(c.upper() if rng.random() < 0.3 else c for c in hyp)
    elif cls == "unicode":
        hyp = " ".join(w + rng.choice(EXOTIC) if rng.random() < 0.4 else w for w in hyp.split(" "))
        ref = ref + " " + rng.choice(EXOTIC)
    elif cls == "lone-surrogate":
        hyp = hyp + rng.choice(["\ud800", "\udfff", "\udc80x"])
    elif cls == "repeats":
        word = rng.choice(WORDS)
        hyp = " ".join([word] * rng.randint(3, 9))
    elif cls == "long":
        while len(ref) <= 1000:
            ref += " " + _sentence(rng)
        hyp = _edit(rng, ref)
    elif cls == "several-lines":
        hyp = hyp.replace(" ", "\n", 2)
        ref = ref + "\n" + _sentence(rng)
    elif cls == "markup":
        hyp = " ".join(rng.choice(MARKUP) + w if rng.random() < 0.3 else w for w in hyp.split(" ")) + rng.choice(MARKUP)
        ref = rng.choice(MARKUP) + ref
    refs = [ref]
    if cls in ("several-references", "ragged-references"):
        refs += [_edit(rng, ref) for _ in range(rng.randint(1, 3))]
    elif cls == "empty-reference-beside-others":
        refs = rng.choice([["", ref], [ref, ""], [ref, " ", _edit(rng, ref)]])
    return hyp, refs


def _segments(rng: random.Random, cls: str, max_refs: Optional[int]) -> tuple[list[str], list[list[str]]]:
    """A corpus of 1-4 segments, the class in each; ragged: segments with different numbers
    of references."""
    hyps, refs = [], []
    for i in range(rng.randint(1, 4)):
        h, r = _pair(rng, cls if rng.random() < 0.75 or cls == "ragged-references" else "plain")
        if cls == "ragged-references":
            r = r[: 1 + (i % len(r))]
        hyps.append(h)
        refs.append(r[:max_refs] if max_refs else r)
    return hyps, refs


def applies(cls: str, max_refs: Optional[int]) -> bool:
    """Whether a class can be sent to an implementation taking ``max_refs`` references."""
    several = cls in ("several-references", "ragged-references", "empty-reference-beside-others")
    return not (several and max_refs == 1)


def draw(seed: int, n: int, max_refs: Optional[int], level: str) -> list[tuple[str, tuple]]:
    """``n`` inputs, (class, input) with input ``(hypothesis, references)`` at sentence level and
    ``(hypotheses, references)`` at corpus level, the applicable classes in turn."""
    classes = [c for c in CLASSES if applies(c, max_refs)]
    rng = random.Random(f"chrf-audit-survey-{seed}-{level}-{max_refs}")
    out = []
    for i in range(n):
        cls = classes[i % len(classes)]
        if level == "sentence":
            h, r = _pair(rng, cls)
            out.append((cls, (h, r[:max_refs] if max_refs else r)))
        else:
            out.append((cls, _segments(rng, cls, max_refs)))
    return out

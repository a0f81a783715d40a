"""Small text builders the trigger generators share: neutral letter texts, their mutations,
characters inserted at chosen places, and a few hundred plain words for text that reads like
sentences.  Everything is drawn from a ``random.Random`` the caller seeds."""

from __future__ import annotations

LETTERS = "abcdefgh"
ISSPACE = [chr(c) for c in range(0x3001) if chr(c).isspace()]
#: Plain English words (written for this project, no licence needed): sentence-like text whose
#: words repeat across segments, as real text's do.
WORDS = (
    "the a an of to in on at for with from by and or but not is was are were be been has have had this that "
    "these those it its they them their we our you your he she his her one two three first last new old good "
    "small large long short high low early late house city road river water light night day year time way "
    "man woman child people world work school market price report court council police government system "
    "group number part place case point week month hand eye head door room table book paper letter word "
    "question answer result change reason idea story music film game team player match season goal club "
    "said says told asked made make takes took gave given found find went came come saw seen left right "
    "open closed free full clear ready public local national general political economic social final "
    "again still also only just even very more most less much many some any every each other such same"
).split()


def word_lengths(rng, params, total: int) -> list[int]:
    if not params.word_order:
        return [total]
    out = []
    while total > 0:
        n = min(total, rng.randint(2, 4))
        out.append(n)
        total -= n
    return out


def text(rng, lengths, alphabet=LETTERS) -> str:
    return " ".join("".join(rng.choice(alphabet) for _ in range(n)) for n in lengths)


def mutate(rng, t: str, alphabet=LETTERS, rate=0.35) -> str:
    return "".join(rng.choice(alphabet) if c != " " and rng.random() < rate else c for c in t)


def pair(rng, params, length=None, alphabet=LETTERS):
    n = length or rng.randint(params.char_order + 2, params.char_order + 8)
    hyp = text(rng, word_lengths(rng, params, n), alphabet)
    return hyp, mutate(rng, hyp, alphabet)


def insert(rng, t: str, chars, ends: bool = False) -> str:
    for ch in chars:
        pos = rng.choice([0, len(t)]) if ends and rng.random() < 0.5 else rng.randint(1, max(1, len(t) - 1))
        t = t[:pos] + ch + t[pos:]
    return t


def one(hyp, ref):
    return [(hyp, [ref])]


def sentence(rng, words: int) -> str:
    """``words`` plain words separated by single spaces."""
    return " ".join(rng.choice(WORDS) for _ in range(words))


def edit_words(rng, t: str, rate: float = 0.25) -> str:
    """Some words of ``t`` replaced by other plain words, some dropped."""
    out = []
    for w in t.split(" "):
        r = rng.random()
        if r < rate / 3:
            continue
        out.append(rng.choice(WORDS) if r < rate else w)
    return " ".join(out) or t

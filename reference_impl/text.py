"""From text to n-gram counts: the only place where the definitions differ in tokenization.

Character n-grams are over code points.  ``sacrebleu`` and ``sacrebleu-eps`` remove every
code point for which ``str.isspace()`` is true (``"".join(s.split())``: ``str.split`` uses
exactly that set, 29 code points including U+001C..U+001F).  ``chrfpp`` strips the line's
ends and then removes only U+0020, as chrF++.py does, so tabs and NBSP inside a line stay
characters.  With ``whitespace=True`` the text is taken as it is.
"""

from __future__ import annotations

from collections import Counter
from operator import add as _add

#: The 32 ASCII punctuation marks of ``string.punctuation``: the chrF++ word tokenizer
#: splits at most one of them off a word's end (or else its start).
ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def char_sequence(text: str, whitespace: bool, definition: str) -> str:
    if whitespace:
        return text
    if definition == "chrfpp":
        return text.strip().replace(" ", "")
    return "".join(text.split())


def word_tokens(text: str) -> list[str]:
    """chrF++ word tokens: split on whitespace, then one ASCII punctuation mark off each word.

    A word of one code point stays whole; else a trailing mark is split off ("(hi)" gives
    "(hi" and ")"), else a leading one ("(hi" gives "(" and "hi").
    """
    tokens: list[str] = []
    punct = ASCII_PUNCTUATION
    for w in text.split():
        if len(w) == 1:
            tokens.append(w)
        elif w[-1] in punct:
            tokens.append(w[:-1])
            tokens.append(w[-1])
        elif w[0] in punct:
            tokens.append(w[0])
            tokens.append(w[1:])
        else:
            tokens.append(w)
    return tokens


def _counter(items) -> Counter:
    return Counter(items)


def char_ngrams(chars: str, max_order: int) -> tuple[list[Counter], list[int]]:
    """Counters of character n-grams for orders 1..max_order, and their totals.

    The n-grams of order n are built from those of order n-1 by appending the next
    character (``map(str.__add__, ...)`` runs in C): the same strings as ``chars[i:i+n]``.
    """
    length = len(chars)
    counters = [_counter(chars)]
    grams = chars
    for n in range(2, max_order + 1):
        if n > length:
            counters.append(Counter())
            continue
        grams = list(map(_add, grams, chars[n - 1 :]))
        counters.append(_counter(grams))
    totals = [length - n + 1 if length >= n else 0 for n in range(1, max_order + 1)]
    return counters, totals


def word_ngrams(tokens: list[str], max_order: int) -> tuple[list[Counter], list[int]]:
    """Counters of word n-grams (joined by U+0020, which no token contains) and totals."""
    length = len(tokens)
    counters = [_counter(tokens)] if max_order >= 1 else []
    for n in range(2, max_order + 1):
        counters.append(_counter(map(" ".join, zip(*[tokens[i:] for i in range(n)]))))
    totals = [length - n + 1 if length >= n else 0 for n in range(1, max_order + 1)]
    return counters, totals

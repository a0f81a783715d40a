"""A hostile implementation whose every text carries terminal escapes and markup (issue 39,
item 8): its version, its functions' names, the name and message of the exception it raises
and the repr of the number it returns hold OSC 8 hyperlinks, a screen clear, a C1 CSI, BEL,
a heading, code fences and HTML.

It raises on inputs whose hypothesis holds a space, answers one point too high (a float
whose repr is the hostile text) on hypotheses longer than 3 characters, and scores as the
reference otherwise.  ``CHRF_MARKUP_IMPORT=1``: its import prints the text on stderr and
raises it."""

import os
import sys

from reference_impl import corpus_score as _corpus, sentence_score as _sentence

HOSTILE = ("\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07 \x1b[2J\x9b31m\x07\u202e\n# Heading\n```\n"
           "<script>alert(1)</script>\n## Second\r\n~~~\n`` <b>x</b>")
__version__ = "1.0 " + HOSTILE

if os.environ.get("CHRF_MARKUP_IMPORT"):
    print(HOSTILE, file=sys.stderr)
    raise ImportError(HOSTILE)


class Owned(Exception):
    pass


class Shown(float):
    def __repr__(self):
        return HOSTILE


Owned.__name__ = Owned.__qualname__ = "Owned" + HOSTILE


def _answer(score: float, hypotheses: list):
    if any(" " in h for h in hypotheses):
        raise Owned(HOSTILE)
    return Shown(score + 1.0) if any(len(h) > 3 for h in hypotheses) else score


def sentence(hypothesis, references):
    return _answer(float(_sentence(hypothesis, list(references)).score), [hypothesis])


def corpus(hypotheses, references):
    return _answer(float(_corpus(list(hypotheses), [list(r) for r in references]).score), list(hypotheses))


for _f in (sentence, corpus):
    _f.__qualname__ = _f.__name__ = _f.__name__ + HOSTILE
    _f.__module__ = "planted_markup" + HOSTILE

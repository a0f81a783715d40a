"""Judging one answer against the contract (pure: a reply in, violations out).

A violation names the promise it breaks.  When an answer is wrong, the judge says *how*
before naming it: a score that is right but for its last decimal is a rounding fault, a
score that is the value *without* lowercasing (or at the default beta) is the lowercase
(or beta) promise, a token list that is the unlowercased tokens likewise; anything else
wrong is the value promise itself (corpus score, segment scores, tokens).

Every pattern is matched against the whole string (``fullmatch``; a trailing newline is not
the end of a score), and a list of the wrong length breaks its promise (``segment_scores``
one item short is not "nothing to compare").  What an answer's *form* breaks (a repeated
member name, a number that is not written the contract's way, the output schema) is
``contract-response-schema``, once per answer.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Optional

from reference_impl.conventions import HYPOTHESIS_NGRAMS_WHERE_REFERENCE_HAS_NONE as HYP_CONVENTION

from .definition import Evaluation, decimal_text, fraction_text

_FRACTION = re.compile(r"(0|[1-9][0-9]*)/([1-9][0-9]*)")
#: digits of a numerator or denominator read (the exact score's have a few dozen; Python's
#: int() refuses more than 4300 by default): a longer one is not the contract's fraction
MAX_DIGITS = 1000
SCHEMA = "contract-response-schema"


@dataclass(frozen=True)
class Violation:
    family: str
    detail: str  # one line: what was expected, what came
    outcome: str = "value"  # audit.findings.OUTCOMES
    expected: Optional[Fraction] = None  # the contract's exact value at stake (None: no number)
    actual: Optional[str] = None  # the service's own text of the number at stake
    segment: Optional[int] = None  # the segment at stake


def error_answer(contract, body: Any) -> bool:
    """Whether a 2xx JSON answer is an error answer: an object with the contract's error
    member and no answer (its envelope, or its score where it has none)."""
    if not isinstance(body, dict):
        return False
    member = (contract.doc.get("errors") or {}).get("member", "error") if contract is not None else "error"
    if member not in body:
        return False
    where = contract.doc["response"].get("envelope") or contract.doc["response"]["score"] if contract is not None \
        else "/score"
    return where.lstrip("/").split("/")[0] not in body


def _score_text(contract, body: Any) -> Optional[str]:
    try:
        value = contract.field(body, "score") if contract is not None else body.get("score")
    except (KeyError, TypeError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def refusal_failure(reply, contract=None) -> Optional[Violation]:
    """What is wrong with the answer to a request the contract refuses (None: refused)."""
    if reply.kind == "refused":
        return None
    if reply.kind == "json":
        body = reply.body
        if error_answer(contract, body):
            return None
        score = _score_text(contract, body)
        return Violation("", f"scored it ({reply.detail}" + (f", score {score!r})" if score is not None else ")"),
                         "value", actual=score)
    outcome = {"server-error": "crash", "dropped": "crash", "timeout": "timeout", "garbage": "invalid"}[reply.kind]
    return Violation("", f"no error response: {reply.detail}", outcome)


def unscored(reply, contract=None) -> Optional[Violation]:
    """Why a valid request got no answer to judge (None: it did)."""
    if reply.kind == "json":
        body = reply.body
        if error_answer(contract, body):
            member = (contract.doc.get("errors") or {}).get("member", "error") if contract is not None else "error"
            return Violation("", f"refused a valid input: {str(body[member])[:160]}", "exception")
        return None
    outcome = {"refused": "exception", "server-error": "crash", "dropped": "crash", "timeout": "timeout",
               "garbage": "invalid"}[reply.kind]
    return Violation("", ("refused a valid input: " if reply.kind == "refused" else "") + reply.detail, outcome)


def _fraction(text: Any) -> Optional[Fraction]:
    """The value of a fraction text "n/d" (None: not one, or too long to read)."""
    m = _FRACTION.fullmatch(text) if isinstance(text, str) else None
    if not m or max(len(m.group(1)), len(m.group(2))) > MAX_DIGITS:
        return None
    return Fraction(int(m.group(1)), int(m.group(2)))


def _shown(value: Any, limit: int = 80) -> str:
    """A value of the answer, for a detail: its repr, at most ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _approx(x: Fraction) -> str:
    try:
        return repr(float(x))
    except OverflowError:
        return "(too large for a float)"


class Judge:
    """Judges answers to valid requests of one contract.  Where the contract's text leaves
    the corpus score open (``Contract.readings``: the hypothesis-n-grams convention), an
    answer that is right under any declared reading keeps the promise, and ``verdict`` says
    which reading it follows."""

    def __init__(self, contract):
        self.contract = contract
        self.readings = contract.readings(HYP_CONVENTION.id)
        self.metric = contract.metric
        self.places = contract.decimals
        #: how the contract writes a score: up to three integer digits, exactly ``places`` decimals
        self._decimal_form = re.compile(r"[0-9]{1,3}" + (rf"\.[0-9]{{{self.places}}}" if self.places else ""))
        self._cache: dict = {}

    def expected(self, fields: dict, **changes) -> Evaluation:
        f = {**fields, **changes}
        key = (tuple(f["hypotheses"]), tuple(f["references"]), f["beta"], f["lowercase"])
        if key not in self._cache:
            self._cache[key] = self.metric.evaluate(f["hypotheses"], f["references"], f["beta"], f["lowercase"],
                                                    self.readings)
        return self._cache[key]

    def _attribute(self, fields: dict, pick, got, corpus: bool = False) -> Optional[str]:
        """The promise a wrong value breaks when it is the value of a neighbouring request:
        without lowercasing, or at the default beta (``corpus``: under any reading)."""
        lo, hi, default = self.contract.beta_range

        def same(ev) -> bool:
            if corpus:
                return any(pick(dataclasses.replace(ev, score=x)) == got for x in ev.readings.values())
            return pick(ev) == got
        if fields["lowercase"] and same(self.expected(fields, lowercase=False)):
            return "contract-lowercase"
        if not fields["lowercase"] and self.contract.takes("lowercase") and same(self.expected(fields, lowercase=True)):
            return "contract-lowercase"
        if fields["beta"] != default and same(self.expected(fields, beta=default)):
            return "contract-beta"
        return None

    def judge(self, fields: dict, reply) -> list[Violation]:
        """Every promise the answer to the valid request ``fields`` breaks."""
        return self.verdict(fields, reply)[0]

    def verdict(self, fields: dict, reply) -> tuple[list, Optional[str]]:
        """(every promise the answer to the valid request ``fields`` breaks, the reading of
        the hypothesis-n-grams convention it follows -- None when the readings give this
        request the same corpus score, or the answer follows none of them)."""
        bad = unscored(reply, self.contract)
        if bad is not None:
            return [bad], None
        c, body, out = self.contract, reply.body, []
        n = len(fields["hypotheses"])
        ev = self.expected(fields)
        if getattr(reply, "duplicates", ()):
            out.append(Violation(SCHEMA, f"the answer repeats the member {reply.duplicates[0]!r} in one object (a "
                                 "JSON answer has one value per name; which one counts depends on the reader)",
                                 "invalid"))
        for err in c.output_errors(body)[:1]:
            out.append(Violation(SCHEMA, f"output schema: {err}", "invalid"))
        for name, want in (("segment_count", n), ("beta", fields["beta"]), ("lowercase", fields["lowercase"])):
            try:
                got = c.echo(body, name)
            except (KeyError, TypeError):
                continue
            if got != want or type(got) is not type(want):
                out.append(Violation(SCHEMA, f"{name} is {_shown(got)}, the request's is {want!r}", "invalid"))
        reading = self._reading(body, ev)
        out += self._corpus(fields, body, ev, reading)
        out += self._segments(fields, body, ev, n)
        out += self._tokens(fields, body, ev, n)
        form = [v for v in out if v.family == SCHEMA]
        return [v for v in out if v.family != SCHEMA] + form[:1], reading  # the answer's form: once

    def _reading(self, body, ev) -> Optional[str]:
        """The declared reading whose corpus score the answer states (its fraction, else its
        decimal), when the readings differ on this request."""
        if not ev.distinguishes:
            return None
        value = _fraction(self.field(body, "score_fraction"))
        text = self.field(body, "score")
        for r, x in ev.readings.items():
            if value == x or (value is None and text == decimal_text(x, self.places)):
                return r
        return None

    def field(self, body, name):
        """A field of an answer by its name in the contract (None: absent)."""
        try:
            return self.contract.field(body, name)
        except (KeyError, TypeError):
            return None

    def _corpus(self, fields, body, ev, reading: Optional[str] = None) -> list[Violation]:
        out = []
        text = self.field(body, "score_fraction")
        value = _fraction(text)
        exact = ev.readings.get(reading, ev.score)
        if isinstance(text, str) and value is None:
            m = _FRACTION.fullmatch(text)
            if m:  # digits beyond MAX_DIGITS: not the reduced exact score, whatever its value
                out.append(Violation("contract-corpus-score", f"score_fraction has {len(m.group(1))}/"
                                     f"{len(m.group(2))} digits, the contract's is {fraction_text(exact)}",
                                     "invalid", expected=exact))
            else:
                out.append(Violation(SCHEMA, f"score_fraction {_shown(text)} is not a fraction n/d", "invalid"))
        if value is not None and value != exact:
            fam = self._attribute(fields, lambda e: e.score, value, corpus=True) or "contract-corpus-score"
            out.append(Violation(fam, f"score_fraction {text} = {_approx(value)}, the contract's is "
                                 f"{self._exact_words(ev)}", expected=exact, actual=text))
        elif value is not None:
            if text != fraction_text(value):  # equal, but not in lowest terms
                out.append(Violation("contract-fraction-reduced", f"score_fraction {text} is not reduced: "
                                     f"{fraction_text(exact)}", expected=exact, actual=text))
        score = self.field(body, "score")
        out += self._decimal(fields, score, exact, lambda e: e.score, "score", "contract-corpus-score",
                             value_wrong=value is not None and value != exact)
        return out

    def _exact_words(self, ev) -> str:
        """The exact corpus score, or each declared reading's where they differ."""
        if not ev.distinguishes:
            return f"{fraction_text(ev.score)} = {float(ev.score)!r}"
        return " or ".join(f"{fraction_text(x)} = {float(x)!r} ({HYP_CONVENTION.words(r)})"
                           for r, x in ev.readings.items())

    def _decimal(self, fields, text, exact, pick, what, family, segment=None, value_wrong=False) -> list[Violation]:
        """A decimal text against the exact value rounded half to even."""
        want = decimal_text(exact, self.places)
        if not isinstance(text, str) or text == want:
            return []  # absent or not a string: the schema's business
        if not self._decimal_form.fullmatch(text):
            return [Violation(SCHEMA, f"{what} {_shown(text)} is not a decimal with {self.places} places", "invalid",
                              segment=segment)]
        got = Fraction(Decimal(text))
        for rounding in ("half-up", "half-down", "down"):
            if text == decimal_text(exact, self.places, rounding):
                return [Violation("contract-score-rounding", f"{what} {text}, the exact {fraction_text(exact)} "
                                  f"rounded half to even is {want} ({rounding} rounding?)", expected=exact,
                                  actual=text, segment=segment)]
        if abs(got - exact) < Fraction(1, 10 ** self.places):
            return [Violation("contract-score-rounding", f"{what} {text}, the exact {fraction_text(exact)} rounded "
                              f"half to even is {want}", expected=exact, actual=text, segment=segment)]
        if value_wrong:
            return []  # the value itself is reported
        fam = self._attribute(fields, lambda e: decimal_text(pick(e), self.places), text,
                              corpus=segment is None and what == "score") or family
        return [Violation(fam, f"{what} {text}, the contract's is {want} ({fraction_text(exact)})",
                          expected=exact, actual=text, segment=segment)]

    def _segments(self, fields, body, ev, n) -> list[Violation]:
        scores = self.field(body, "segment_scores")
        if not isinstance(scores, list):
            return []  # absent or not a list: the schema's business
        if len(scores) != n:
            return [Violation("contract-segment-scores", f"segment_scores has {len(scores)} item"
                              f"{'s' * (len(scores) != 1)} for {n} segment{'s' * (n != 1)}", "invalid",
                              expected=ev.score)]
        if scores == [decimal_text(x, self.places) for x in ev.segment_scores]:
            return []  # every text is the exact value rounded half to even: nothing to say
        seen, out = set(), []
        for i, (text, exact) in enumerate(zip(scores, ev.segment_scores)):
            for v in self._decimal(fields, text, exact, lambda e, i=i: e.segment_scores[i], f"segment_scores[{i}]",
                                   "contract-segment-scores", segment=i):
                if v.family not in seen:
                    seen.add(v.family)
                    out.append(v)
        return out

    def _tokens(self, fields, body, ev, n) -> list[Violation]:
        items = self.field(body, "word_tokens")
        if not isinstance(items, list):
            return []  # absent or not a list: the schema's business
        if len(items) != n:
            return [Violation("contract-word-tokens", f"word_tokens has {len(items)} item{'s' * (len(items) != 1)} "
                              f"for {n} segment{'s' * (n != 1)}", "invalid", expected=ev.score)]
        for i, (item, want) in enumerate(zip(items, ev.word_tokens)):
            try:
                got = self.contract.tokens_of(item)
            except (KeyError, TypeError, IndexError):
                continue  # the schema's business
            expected = (want["hypothesis"], want["reference"])
            if tuple(got) == expected:
                continue
            fam = self._attribute(fields, lambda e, i=i: (e.word_tokens[i]["hypothesis"], e.word_tokens[i]["reference"]),
                                  tuple(got)) or "contract-word-tokens"
            side = 0 if got[0] != expected[0] else 1
            return [Violation(fam, f"word_tokens[{i}].{('hypothesis', 'reference')[side]} is "
                                   f"{_short(got[side])}, the contract's is {_short(expected[side])}",
                              segment=i, expected=ev.segment_scores[i])]
        return []


def _short(tokens) -> str:
    import json

    text = json.dumps(tokens, ensure_ascii=True)
    return text if len(text) <= 160 else text[:159] + "…"

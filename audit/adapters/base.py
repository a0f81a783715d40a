"""The adapter interface: what the differential runner knows about an implementation.

An adapter states what it is (``name``, ``version``), what it *claims* to compute
(``claims``: the reference parameters and definition it should match, and its own output
scale), what it supports, where its source lives, and scores batches of inputs.  Every call
gives an :class:`Outcome` per input, never an exception: an implementation that raises,
crashes its process, hangs or returns a non-number is a finding, not a failure of the audit.

Everything the audit may ask of an adapter is declared on :class:`Adapter`, an optional
capability with its default (``spec``, ``contract``, ``resolution``, ``request_body``,
``service``, ...): the audit reads it, it never probes for it.  It is given at construction;
other claims are a new view (``with_claims``), never an assignment from outside.
"""

from __future__ import annotations

import abc
import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, Optional, Sequence, Union

from reference_impl import ChrfParams

from ..errors import UsageError
from .faults import presumed

#: Outcome kinds (the same tuple as ``audit.findings.OUTCOMES``).
OUTCOME_KINDS = ("value", "exception", "crash", "timeout", "invalid")

#: Claim fields that describe the computation (and may be re-configured), in order.
PARAM_FIELDS = ("char_order", "word_order", "beta", "lowercase", "whitespace")
CLAIM_FIELDS = PARAM_FIELDS + ("definition", "scale")


class AdapterError(UsageError):
    """A bad implementation spec (no such module/function, not callable, unknown name,
    wrong signature, program that cannot start).  The message is one line."""


def _beta_plain(beta) -> Union[int, float]:
    """beta as a JSON-friendly number: int when integral, else float."""
    exact = Fraction(beta)
    return int(exact) if exact.denominator == 1 else float(beta)


@dataclass(frozen=True)
class Claims:
    """What an implementation claims to compute; the reference is configured from it."""

    char_order: int = 6
    word_order: int = 0
    beta: Union[int, float, Fraction] = 2
    lowercase: bool = False
    whitespace: bool = False
    definition: str = "sacrebleu"
    scale: int = 100  # 1 or 100: the implementation's own output scale

    def __post_init__(self):
        if isinstance(self.scale, bool) or self.scale not in (1, 100):
            raise ValueError(f"scale must be 1 or 100, got {self.scale!r}")
        self.params()  # validates the rest (TypeError / ValueError naming the field)

    def params(self) -> ChrfParams:
        return ChrfParams.make(
            char_order=self.char_order,
            word_order=self.word_order,
            beta=self.beta,
            lowercase=self.lowercase,
            whitespace=self.whitespace,
            definition=self.definition,
        )

    def to_dict(self) -> dict:
        return {
            "char_order": self.char_order,
            "word_order": self.word_order,
            "beta": _beta_plain(self.beta),
            "lowercase": self.lowercase,
            "whitespace": self.whitespace,
            "definition": self.definition,
            "scale": self.scale,
        }

    def replace(self, **changes) -> "Claims":
        unknown = sorted(set(changes) - set(CLAIM_FIELDS))
        if unknown:
            raise ValueError(
                f"unknown claim field(s) {', '.join(unknown)}; known: {', '.join(CLAIM_FIELDS)}"
            )
        return dataclasses.replace(self, **changes)

    def text(self) -> str:
        """Compact one-line form, used in generic signatures."""
        d = self.to_dict()
        return (
            f"nc:{d['char_order']}|nw:{d['word_order']}|beta:{d['beta']}"
            f"|case:{'lc' if d['lowercase'] else 'mixed'}|space:{'yes' if d['whitespace'] else 'no'}"
            f"|def:{d['definition']}|scale:{d['scale']}"
        )


@dataclass(frozen=True)
class Outcome:
    """One call of an implementation on one input."""

    kind: str  # "value" | "exception" | "crash" | "timeout" | "invalid"
    value: Optional[float]  # common 0..100 scale when kind == "value", else None
    raw: Optional[str]  # repr of what the implementation returned (its own scale)
    detail: str = ""
    #: "" when the implementation gave it; else the fault budget presumed it without a call
    #: ("skipped") or from a hang of a derived limit ("unconfirmed"): never evidence
    #: (``audit.adapters.faults``)
    presumed: str = ""
    #: what the call changed in the lists it was given (``arguments.changes``; "" nothing)
    mutated: str = ""

    @property
    def ok(self) -> bool:
        return self.kind == "value"


@dataclass(frozen=True)
class Support:
    sentence: bool
    corpus: bool
    multi_reference: bool
    #: the most references per segment the implementation takes (None: no limit); a
    #: single-reference library is ``multi_reference=False`` (``--max-refs 1``)
    max_refs: Optional[int] = None

    def refs_limit(self, cap: int) -> int:
        """How many references per segment the search may generate, at most ``cap``."""
        if not self.multi_reference:
            return 1
        return cap if self.max_refs is None else max(1, min(cap, self.max_refs))

    def takes(self, n: int) -> bool:
        """Whether a segment with ``n`` references may be sent to the implementation."""
        return n == 1 or (self.multi_reference and (self.max_refs is None or n <= self.max_refs))


@dataclass(frozen=True)
class SourceLocation:
    module: str
    qualname: str
    file: Optional[str]
    line: Optional[int]

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @property
    def portable_file(self) -> Optional[str]:
        """An installed package's file as its path inside site-packages ("nltk/translate/...")
        and a file under the working directory as a relative path, so that reports do not
        depend on where the environment lives; anything else (a patched temporary copy, say)
        stays absolute."""
        if not self.file:
            return self.file
        parts = Path(self.file).parts
        for marker in ("site-packages", "dist-packages"):
            if marker in parts:
                return Path(*parts[len(parts) - parts[::-1].index(marker):]).as_posix()
        try:
            return Path(self.file).resolve().relative_to(Path.cwd().resolve()).as_posix()
        except ValueError:
            return self.file


def with_overrides(claims: Claims, overrides: dict, who: str) -> Claims:
    """``claims`` with the claim fields the user gave (``overrides``) on top."""
    if not overrides:
        return claims
    try:
        return claims.replace(**overrides)
    except (TypeError, ValueError) as e:
        raise AdapterError(f"invalid claim for {who}: {e}") from None


def outcome_from_result(result: tuple, scale: int) -> Outcome:
    """Turn a worker's result tuple into an Outcome on the common 0..100 scale.

    ("value", float, repr[, what the call changed in its arguments]) | ("exception", detail)
    | ("invalid", repr_or_None, detail) | ("crash", detail) | ("timeout", detail)
    """
    kind = result[0]
    if kind == "value":
        raw_value, raw = result[1], result[2]
        value = raw_value if scale == 100 else raw_value * 100.0 / scale
        if not math.isfinite(value):  # a finite raw value that overflows on rescaling
            return Outcome("invalid", None, raw, f"returned {raw}, not finite on the 0..100 scale")
        return Outcome("value", value, raw, "", mutated=result[3] if len(result) > 3 else "")
    if kind == "invalid":
        return Outcome("invalid", None, result[1], result[2], presumed(result))
    if kind in ("exception", "crash", "timeout"):
        return Outcome(kind, None, None, result[1], presumed(result))
    raise ValueError(f"unknown result kind {kind!r}")  # pragma: no cover - internal


class Adapter(abc.ABC):
    """One implementation under audit.  Subclasses give the attributes at construction and
    implement ``with_claims`` and ``_score``; batching, support checks and closing are shared
    here.  An optional capability keeps its default here."""

    name: str
    claims: Claims
    supports: Support
    version: Optional[str] = None
    #: Claim names it takes as keyword arguments: it is called with them, the audit varies them.
    accepts: frozenset = frozenset()
    #: level -> where its score at that level is computed (``SourceLocation``).
    sources: Mapping[str, SourceLocation] = MappingProxyType({})
    #: Whether texts may hold lone surrogates (U+D800..U+DFFF); the search draws them only then.
    accepts_surrogates: bool = False
    #: The smallest score difference its answers show (a service's last decimal place): the
    #: checker's tolerance is at least this.
    resolution: float = 0.0
    #: How ``audit.adapters.resolve`` makes it again in another process (``--jobs``, a fresh
    #: worker's replay): that call's keywords, its ``name`` and the ``given_name`` (None: never).
    spec: Optional[dict] = None
    #: The service contract it is held to (``audit.contract.Contract``; None: not a service):
    #: its checks run after its search (``service``).
    contract: Any = None

    @property
    def signature(self) -> str:
        return f"{self.name}|{self.version or 'unknown'}|{self.claims.text()}"

    # -- claims ---------------------------------------------------------------------------
    @abc.abstractmethod
    def with_claims(self, claims: Claims) -> "Adapter":
        """The same implementation claiming ``claims``: a new view sharing its process (or
        client), this one unchanged.  Close it like any adapter."""

    def configure(self, **claim_changes) -> "Adapter":
        """A view of this adapter with other values of the claims it accepts (``accepts``)."""
        refused = sorted(set(claim_changes) - set(self.accepts))
        if refused:
            raise AdapterError(
                f"{self.name} cannot be configured with {', '.join(refused)}"
                f" (it accepts: {', '.join(sorted(self.accepts)) or 'nothing'})"
            )
        try:
            claims = self.claims.replace(**claim_changes)
        except (TypeError, ValueError) as e:
            raise AdapterError(f"invalid claims for {self.name}: {e}") from None
        return self.with_claims(claims)

    # -- what reports and other stages ask ----------------------------------------------------
    def source_record(self, level: str) -> Optional[dict]:
        """Where its score at ``level`` is computed and how to call it again, for the reports
        and repro snippets (None: not known)."""
        loc = self.sources.get(level)
        if loc is None:
            return None
        return {"file": loc.portable_file, "line": loc.line, "function": f"{loc.module}.{loc.qualname}",
                # how to call it again (repro snippets)
                "module": loc.module, "qualname": loc.qualname, "call": "python"}

    def request_body(self, level: str, inputs: dict, claims: Optional[dict] = None) -> Any:
        """The request that scores one input, a service's repro (None: it takes no requests)."""
        return None

    def service(self) -> Any:
        """The service behind ``contract`` as its checks see it (``audit.contract.checks.Service``;
        None: no contract)."""
        return None

    def raise_timeout(self, seconds: float) -> None:
        """Its per-call timeout raised to at least ``seconds`` (the impact study's long corpora);
        an adapter without a timeout of its own keeps none."""

    # -- scoring ------------------------------------------------------------------------
    def sentence_scores(self, items: Sequence[tuple]) -> list[Outcome]:
        """Score ``(hypothesis, references)`` pairs; one Outcome per item, in order."""
        if not self.supports.sentence:
            raise NotImplementedError(f"{self.name} has no sentence-level score")
        items = [(h, list(refs)) for h, refs in items]
        for _, refs in items:
            if not self.supports.takes(len(refs)):
                raise ValueError(f"{self.name} takes at most {self.supports.refs_limit(len(refs))} "
                                 f"reference(s) per segment, got {len(refs)}")
        if not items:
            return []
        return [outcome_from_result(r, self.claims.scale) for r in self._score("sentence", items)]

    def corpus_scores(self, items: Sequence[tuple]) -> list[Outcome]:
        """Score ``(hypotheses, references)`` corpora, ``references[i]`` being the
        references of segment i; one Outcome per corpus, in order."""
        if not self.supports.corpus:
            raise NotImplementedError(f"{self.name} has no corpus-level score")
        items = [(list(hyps), [list(r) for r in refs]) for hyps, refs in items]
        for _, refs in items:
            bad = next((len(r) for r in refs if not self.supports.takes(len(r))), None)
            if bad is not None:
                raise ValueError(f"{self.name} takes at most {self.supports.refs_limit(bad)} "
                                 f"reference(s) per segment, got {bad}")
        if not items:
            return []
        return [outcome_from_result(r, self.claims.scale) for r in self._score("corpus", items)]

    @abc.abstractmethod
    def _score(self, op: str, items: list) -> list[tuple]: ...

    # -- lifetime -----------------------------------------------------------------------
    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {self.version or ''} {self.claims.text()}>"


__all__ = [
    "Adapter", "AdapterError", "Claims", "Outcome", "Support", "SourceLocation",
    "OUTCOME_KINDS", "CLAIM_FIELDS", "PARAM_FIELDS", "outcome_from_result", "with_overrides",
]

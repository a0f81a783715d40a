"""The differential runner: replay ``cases/``, then search with Hypothesis, one finding per family.

Every input is scored by the implementation (through its adapter, isolated) and by the
reference configured with the implementation's *claimed* parameters.  A divergence is
classified into a family key (the smallest set of deviations that explains it, see
``audit.models``, or an outcome such as a crash) and raised as an exception whose *type*
is unique to that key.  Hypothesis tells failures apart by exception type, so it shrinks
each family separately and never lets a shrink slip into another family; we do not write
a shrinker of our own.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable, Optional

from hypothesis import HealthCheck, Phase, Verbosity, given, seed as hseed, settings, target
from hypothesis import strategies as st

from reference_impl import corpus_score, sentence_score

from .families import FAMILIES, title
from .findings import AdapterSummary, AuditResult, Finding, OrderRow, Repro
from .models import explain, extends, reproduces

try:  # Python 3.11+
    _BaseExceptionGroup = BaseExceptionGroup  # type: ignore[name-defined]
except NameError:  # pragma: no cover - Python 3.10
    from exceptiongroup import BaseExceptionGroup as _BaseExceptionGroup

_OUTCOME_FAMILY = {"exception": "exception", "crash": "crash", "timeout": "timeout", "invalid": "invalid-output"}


@dataclass
class Observation:
    """One input, both answers, and the family key it falls into (None: they agree)."""

    level: str
    claims: object  # audit.adapters.Claims
    inputs: dict
    expected: Fraction
    outcome: object  # audit.adapters.Outcome
    key: Optional[tuple[str, ...]]
    detail: str = ""
    reference: object = None  # reference_impl.ChrfResult
    changes: dict = field(default_factory=dict)  # claims changed by the swarm (empty: as claimed)
    replay_case: object = None  # what the search drew (for metamorphic relations, not the inputs)

    @property
    def difference(self) -> float:
        v = self.outcome.value
        if v is None or not math.isfinite(v):
            return math.inf
        return abs(v - float(self.expected))

    @property
    def size(self) -> int:
        """Input size for choosing the smallest repro: characters, then segments."""
        if self.level == "sentence":
            texts = [self.inputs["hypothesis"], *self.inputs["references"]]
        else:
            texts = list(self.inputs["hypotheses"]) + [r for rs in self.inputs["references"] for r in rs]
        return sum(len(t) for t in texts) * 16 + len(texts)


class Divergence(Exception):
    """Base of the per-family exception types raised inside the Hypothesis search."""

    observation: Observation


_FAMILY_TYPES: dict[tuple[str, ...], type] = {}


def _divergence_type(key: tuple[str, ...]) -> type:
    if key not in _FAMILY_TYPES:
        name = "Divergence_" + "__".join(k.replace("-", "_") for k in key)
        _FAMILY_TYPES[key] = type(name, (Divergence,), {"__module__": __name__})
    return _FAMILY_TYPES[key]


def _raise(obs: Observation):
    exc = _divergence_type(obs.key)(" + ".join(obs.key))
    exc.observation = obs
    raise exc


# --------------------------------------------------------------------------- comparison


class Checker:
    """Scores one input on both sides and classifies the difference."""

    #: Inputs (under the claimed parameters) kept per level to judge the other definitions.
    SAMPLES = 300

    def __init__(self, adapter, tolerance: float):
        self.adapter = adapter
        self.tolerance = tolerance
        self._variants: dict = {}
        self._resolved: dict = {}
        self._confirmations: dict = {}
        self._hints: dict = {}
        self.samples: dict[str, list] = {"sentence": [], "corpus": []}

    def _configured(self, changes: dict):
        if not changes:
            return self.adapter
        key = tuple(sorted(changes.items()))
        if key not in self._variants:
            self._variants[key] = self.adapter.configure(**changes)
        return self._variants[key]

    def check(self, level: str, inputs: dict, changes: Optional[dict] = None, repeat: bool = True) -> Observation:
        adapter = self._configured(changes or {})
        claims = adapter.claims
        params = claims.params()
        kw = dict(
            char_order=params.char_order, word_order=params.word_order, beta=params.beta,
            lowercase=params.lowercase, whitespace=params.whitespace, definition=params.definition,
        )
        if level == "sentence":
            segments = [(inputs["hypothesis"], list(inputs["references"]))]
            ref = sentence_score(inputs["hypothesis"], list(inputs["references"]), **kw)
            item = (inputs["hypothesis"], list(inputs["references"]))
            score = adapter.sentence_scores
        else:
            segments = list(zip(inputs["hypotheses"], [list(r) for r in inputs["references"]]))
            ref = corpus_score(list(inputs["hypotheses"]), [list(r) for r in inputs["references"]], **kw)
            item = (list(inputs["hypotheses"]), [list(r) for r in inputs["references"]])
            score = adapter.corpus_scores
        expected = ref.score
        outcomes = score([item])
        if repeat and outcomes[0].kind == "value":
            # A second call on the same input catches nondeterminism (not batched with the
            # first, so that an input that hangs costs one timeout, not two).
            outcomes += score([item])
        first = outcomes[0]
        if not changes and first.kind == "value" and len(self.samples[level]) < self.SAMPLES:
            self.samples[level].append((segments, first.value))
        obs = Observation(level, claims, inputs, expected, first, None, reference=ref, changes=dict(changes or {}))
        tol = self.tolerance
        if first.kind != "value":
            obs.key = (_OUTCOME_FAMILY.get(first.kind, "invalid-output"),)
            obs.detail = first.detail
            return obs
        if repeat and (outcomes[1].kind != "value" or abs(outcomes[1].value - first.value) > tol):
            obs.key = ("nondeterminism",)
            second = outcomes[1].value if outcomes[1].kind == "value" else outcomes[1].kind
            obs.detail = f"first call {first.value!r}, second call {second!r}"
            return obs
        if abs(first.value - float(expected)) <= tol:
            return obs
        ex = self._classify(adapter, level, segments, params, first.value)
        if ex is not None:
            obs.key = tuple(ex.families)
            obs.detail = ex.detail
        elif not (-tol <= first.value <= 100 + tol):
            obs.key = ("out-of-range",)
        else:
            obs.key = ("unexplained",)
        return obs

    def _score_segments(self, adapter, level: str, segments) -> Optional[float]:
        if level == "sentence":
            out = adapter.sentence_scores([segments[0]])[0]
        else:
            out = adapter.corpus_scores([([h for h, _ in segments], [list(rs) for _, rs in segments])])[0]
        return out.value if out.kind == "value" else None

    def _classify(self, adapter, level, segments, params, actual):
        """The smallest explanation that also holds on perturbed copies of the input."""
        scale, tol = adapter.claims.scale, self.tolerance
        perturbed = [
            [(h + "xy", refs) for h, refs in segments],
            [(h, [r + "qz" for r in refs]) for h, refs in segments],
            [("a" + h, ["a" + r for r in refs]) for h, refs in segments],
        ]
        answers: dict[int, Optional[float]] = {}

        def confirmed(c) -> bool:
            # A coincidence on one input does not survive a perturbed copy.  A true but
            # partial explanation (the input did not need the implementation's other
            # deviations) does, with at most two more deviations.  A family set confirmed
            # on three inputs is a property of the implementation: trust it from then on.
            key = (repr(adapter.claims), level, tuple(c.families))
            if self._confirmations.get(key, 0) >= 3:
                return True
            for i, p in enumerate(perturbed):
                if i not in answers:
                    answers[i] = self._score_segments(adapter, level, p)
                if answers[i] is not None and not extends(c, p, params, level, answers[i], scale, tol, extra=1):
                    return False
            self._confirmations[key] = self._confirmations.get(key, 0) + 1
            return True

        hints = self._hints.setdefault((repr(adapter.claims), params.definition, level), {})
        for candidates in explain(segments, params, level, actual, tol, scale, hints=list(hints.values())):
            survivors = [c for c in candidates if confirmed(c)]
            if len(survivors) > 1:
                survivors = self._disambiguate(adapter, level, params, survivors)
            if survivors:
                hints.setdefault(tuple(survivors[0].families), survivors[0].variant)
                return survivors[0]
        return None

    #: Fixed probes that tell apart explanations agreeing on the input at hand: whitespace
    #: sets, case mappings, normalization, code units, punctuation, case.  Every text is
    #: longer than the default order, so that a probe does not also trip the divisor.
    PROBES = [
        ("abc\tdefgh", "abcdefgh"), ("abc\xa0defgh", "abcdefgh"), ("abc\x1cdefgh", "abcdefgh"),
        ("abc\x85defgh", "abcdefgh"), ("abc\u3000defgh", "abcdefgh"), ("abc\u200bdefgh", "abcdefgh"),
        ("abc defgh", "abcdefgh"), ("stra\xdfe", "strasse"), ("\ufb01nding", "finding"),
        ("caf\xe9snob", "cafe\u0301snob"), ("a\U0001F600b\U0001F600cdef", "a\U0001F600b\U0001F600cdefg"),
        ("\u0130stanbul", "i\u0307stanbul"), ("the end.", "the end ."), ("(hi) there", "( hi ) there"),
        ("ABCDEFG", "abcdefg"),
    ]

    def _disambiguate(self, adapter, level, params, candidates):
        """Keep the explanations the implementation itself confirms on the fixed probes.

        The verdict is about the implementation, not the input, so it is cached by the
        competing explanations: an audit probes each ambiguity once.
        """
        key = (repr(adapter.claims), tuple(tuple(c.families) for c in candidates))
        if key not in self._resolved:
            scale, tol = adapter.claims.scale, self.tolerance
            alive = list(candidates)
            for h, r in self.PROBES:
                if len(alive) == 1:
                    break
                segments = [(h, [r])]  # one segment: corpus aggregation plays no part
                actual = self._score_segments(adapter, level, segments)
                if actual is None:
                    continue
                consistent = [c for c in alive if reproduces(c, segments, params, level, actual, scale, tol)]
                if not consistent:  # the probe shows a further deviation: allow for it
                    consistent = [c for c in alive if extends(c, segments, params, level, actual, scale, tol)]
                if consistent:
                    alive = consistent
            self._resolved[key] = [tuple(c.families) for c in alive]
        winners = self._resolved[key]
        return [c for c in candidates if tuple(c.families) in winners]


# ------------------------------------------------------------------------------ search


@dataclass
class _Collected:
    """What the search saw of one family key."""

    minimal: Optional[Observation] = None
    largest: Optional[Observation] = None
    count: int = 0
    origin: str = "search"
    flaky: bool = False


@dataclass
class Progress:
    implementation: str
    phase: str
    examples: int
    families: int
    elapsed: float


def _rank(obs: Observation) -> tuple:
    """Which of two repros is the better one to report: under the claimed parameters, then
    the smaller input."""
    return (bool(obs.changes), obs.size)


def _collect(found: dict, obs: Observation, origin: str = "search"):
    c = found.setdefault(obs.key, _Collected(origin=origin))
    c.count += 1
    if c.largest is None or obs.difference > c.largest.difference:
        c.largest = obs


def load_cases(cases_dir: Optional[Path]) -> list[tuple[str, dict]]:
    """Curated regression cases: JSON files holding one case or a list of cases."""
    if cases_dir is None or not Path(cases_dir).is_dir():
        return []
    out = []
    for path in sorted(Path(cases_dir).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            from .errors import UsageError

            raise UsageError(f"{path}: not a valid JSON case file ({exc})") from None
        for i, case in enumerate(data if isinstance(data, list) else [data]):
            problem = _case_problem(case)
            if problem:
                from .errors import UsageError

                raise UsageError(f"{path}: case {i + 1}: {problem}")
            out.append((f"cases/{path.name}", case))
    return out


def _texts(value) -> bool:
    return isinstance(value, list) and all(isinstance(t, str) for t in value)


def _case_problem(case) -> Optional[str]:
    """Why a case is malformed (None when it is fine): the same shapes as the JSON report."""
    if not isinstance(case, dict):
        return "a case must be a JSON object"
    level, inputs = case.get("level", "sentence"), case.get("inputs")
    if not isinstance(inputs, dict):
        return "'inputs' must be an object"
    if level == "sentence":
        if not isinstance(inputs.get("hypothesis"), str) or not _texts(inputs.get("references")) \
                or not inputs["references"]:
            return "sentence inputs need 'hypothesis' (string) and 'references' (non-empty list of strings)"
    elif level == "corpus":
        hyps, refs = inputs.get("hypotheses"), inputs.get("references")
        if not _texts(hyps) or not hyps or not isinstance(refs, list) or len(refs) != len(hyps) \
                or not all(_texts(r) and r for r in refs):
            return ("corpus inputs need 'hypotheses' (non-empty list of strings) and 'references' "
                    "(one non-empty list of strings per hypothesis)")
    else:
        return f"'level' must be 'sentence' or 'corpus', not {level!r}"
    return None


def _applicable(adapter, level: str, inputs: dict) -> bool:
    sup = adapter.supports
    if level == "sentence":
        return sup.sentence and (sup.multi_reference or len(inputs["references"]) == 1)
    if not sup.corpus:
        return False
    refs = inputs["references"]
    return sup.multi_reference or all(len(r) == 1 for r in refs)


def _strategies(adapter):
    from . import strategies as S

    max_refs = 3 if adapter.supports.multi_reference else 1
    sentence = S.sentence_inputs(max_refs=max_refs).map(
        lambda hr: {"hypothesis": hr[0], "references": list(hr[1])}
    )
    corpus = S.corpus_inputs(max_refs=max_refs).map(
        lambda hr: {"hypotheses": list(hr[0]), "references": [list(r) for r in hr[1]]}
    )
    accepts = frozenset(getattr(adapter, "accepts", frozenset()))
    if accepts:
        base = adapter.claims.to_dict()
        swarm = S.claim_swarm(accepts, {k: base[k] for k in accepts if k in base}).map(
            lambda d: {k: v for k, v in d.items() if base.get(k) != v}
        )
    else:
        swarm = None
    return sentence, corpus, swarm


def _search(examine: Callable, strategy, swarm, found: dict, *, seed: int, max_examples: int,
            derandomize: bool, tick: Callable[[], None]):
    """One Hypothesis search; ``examine(inputs, changes)`` gives an Observation whose key is
    None when the input passes.  Returns the minimal failure of each family key."""

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=derandomize,
        report_multiple_bugs=True,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=[Phase.explicit, Phase.generate, Phase.target, Phase.shrink],
    )
    @given(changes=swarm, inputs=strategy)
    def probe(changes, inputs):
        tick()
        obs = examine(inputs, changes)
        target(min(obs.difference, 1e6) if obs.key else 0.0, label="difference")
        if obs.key:
            obs.changes = changes
            obs.replay_case = inputs
            _collect(found, obs)
            _raise(obs)

    if not derandomize:
        probe = hseed(seed)(probe)
    try:
        probe()
    except Divergence as exc:
        return [(exc, False)]
    except _BaseExceptionGroup as group:
        return list(_flatten(group, False))
    return []


def _metamorphic_examiner(checker: Checker, relation):
    """Observations for a metamorphic relation; a violation whose inputs a bug model
    explains is left to the differential search."""
    from . import metamorphic

    adapter = checker.adapter

    def examine(case, changes):
        v = metamorphic.check(relation, adapter, case, checker.tolerance)
        _, transformed = relation.transform(case)
        obs = checker.check(relation.level, transformed, repeat=False)  # the record's reference view
        if v is not None:
            # A violation on inputs that a bug model explains belongs to that family (the
            # differential search reports it); the relation reports only the rest.
            base_obs = obs if v.base == v.transformed else checker.check(relation.level, v.base, repeat=False)
            if any(o.key and o.key != ("unexplained",) for o in (obs, base_obs)):
                v = None
        if v is None:
            obs.key = None
            return obs
        obs.key = (relation.family,)
        obs.expected = Fraction(v.base_value)
        obs.detail = v.detail
        return obs

    return examine


def _flatten(exc, flaky: bool):
    from hypothesis.errors import FlakyFailure

    if isinstance(exc, _BaseExceptionGroup):
        inner_flaky = flaky or isinstance(exc, FlakyFailure)
        for e in exc.exceptions:
            yield from _flatten(e, inner_flaky)
    elif isinstance(exc, Divergence):
        yield exc, flaky


# ----------------------------------------------------------------------------- records


def _fraction_text(f: Optional[Fraction]) -> Optional[str]:
    return None if f is None else f"{f.numerator}/{f.denominator}"


def _order_rows(result) -> list[OrderRow]:
    beta = result.params.beta
    return [
        OrderRow(o.kind, o.n, o.hyp, o.ref, o.match, _fraction_text(o.precision), _fraction_text(o.recall),
                 _fraction_text(o.f(beta)), o.effective)
        for o in result.orders
    ]


def _repro(obs: Observation, explanation: list[str]) -> Repro:
    out = obs.outcome
    return Repro(
        level=obs.level,
        inputs=obs.inputs,
        expected=float(obs.expected),
        expected_fraction=_fraction_text(obs.expected),
        actual=out.value if out.kind == "value" and out.value is not None and math.isfinite(out.value) else None,
        actual_raw=out.raw,
        outcome=out.kind,
        detail=obs.detail or out.detail,
        orders=_order_rows(obs.reference),
        explanation=explanation,
    )


def _findings(adapter, found: dict[tuple, _Collected]) -> list[Finding]:
    """One finding per atomic family: the purest key (fewest deviations) that contains it,
    then the smallest repro.  The key's other deviations are kept as the explanation."""
    per_family: dict[str, tuple] = {}
    for key, c in found.items():
        if c.minimal is None:
            continue
        for fam in key:
            rank = (bool(c.minimal.changes), len(key), c.minimal.size, key)
            if fam not in per_family or rank < per_family[fam][0]:
                per_family[fam] = (rank, key, c)
    findings = []
    for fam in sorted(per_family, key=lambda f: (list(FAMILIES).index(f) if f in FAMILIES else 999, f)):
        _, key, c = per_family[fam]
        largest = max(
            (cc.largest for k, cc in found.items() if fam in k and cc.largest is not None),
            key=lambda o: o.difference,
            default=None,
        )
        obs = c.minimal
        claims = obs.claims
        findings.append(
            Finding(
                implementation=adapter.name,
                family=fam,
                level=obs.level,
                title=title(fam),
                claims=claims.to_dict(),
                reference_signature=obs.reference.signature,
                implementation_signature=getattr(adapter, "signature", adapter.name),
                minimal=_repro(obs, list(key)),
                largest=_repro(largest, list(largest.key)) if largest is not None else None,
                explanation=list(key),
                flaky=c.flaky,
                source=_source(adapter, obs.level),
                origin=c.origin,
                examples=sum(cc.count for k, cc in found.items() if fam in k),
            )
        )
    return findings


def _source(adapter, level: str) -> Optional[dict]:
    loc = getattr(adapter, "sources", {}).get(level)
    if loc is None:
        return None
    return {"file": _portable_path(loc.file), "line": loc.line, "function": f"{loc.module}.{loc.qualname}"}


def _portable_path(file: Optional[str]) -> Optional[str]:
    """An installed package's file as its path inside site-packages ("nltk/translate/...")
    and a file under the working directory as a relative path, so that reports do not
    depend on where the environment lives; anything else (a patched temporary copy, say)
    stays absolute."""
    if not file:
        return file
    path = Path(file)
    parts = path.parts
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            return Path(*parts[len(parts) - parts[::-1].index(marker):]).as_posix()
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return file


# ------------------------------------------------------------------------- conformance


def conformance(checker: Checker, adapter, found: dict, levels: list[str], max_classified: int = 8) -> dict:
    """definition -> level -> families that break it (empty: the implementation meets it).

    The claimed definition is judged by the search itself; every other definition by
    re-scoring the inputs the search ran (under the claimed parameters) with the reference
    following that definition and classifying the divergences the same way.  Outcomes that
    are not numbers (crash, timeout, ...) and nondeterminism break every definition.
    """
    from dataclasses import replace as dc_replace

    from reference_impl import DEFINITIONS, corpus_fscore, segment_statistics, sentence_fscore, sum_stats

    claimed = adapter.claims.definition
    universal = {k[0] for k in found if k[0] in ("exception", "crash", "timeout", "invalid-output", "nondeterminism",
                                                 "metamorphic-segment-order", "metamorphic-added-reference")}
    base = adapter.claims.params()
    out: dict[str, dict[str, list[str]]] = {}
    for definition in DEFINITIONS:
        out[definition] = {}
        params = dc_replace(base, definition=definition)
        divergent_sentences: list = []
        for level in levels:
            families = set(universal)
            if definition == claimed:
                families |= {f for key, c in found.items() for f in key
                             if c.minimal is not None and c.minimal.level == level and not c.minimal.changes}
            samples = []
            if level == "corpus" and definition != claimed:
                # What diverges in a sentence diverges in the corpus of that one sentence
                # (judged first: the classification budget is small).
                for segments in divergent_sentences[:max_classified // 2]:
                    value = checker._score_segments(adapter, "corpus", segments)
                    if value is not None:
                        samples.append((segments, value))
            samples += checker.samples[level]
            classified = 0
            for segments, value in samples:
                per_seg = [segment_statistics(h, refs, params) for h, refs in segments]
                stats = [s for s, _ in per_seg]
                expected = (sentence_fscore(stats[0], params) if level == "sentence"
                            else corpus_fscore(sum_stats(stats, params.order), params))
                if abs(float(expected) - value) <= checker.tolerance:
                    continue
                if level == "sentence":
                    divergent_sentences.append(segments)
                if definition == claimed or classified >= max_classified:
                    continue  # the search judged the claimed definition; the rest: enough seen
                classified += 1
                ex = checker._classify(adapter, level, segments, params, value)
                families.update(ex.families if ex else ["unexplained"])
                if ex is None:
                    break  # nothing explains it: one unexplained input says enough, and costs most
            out[definition][level] = sorted(families, key=lambda f: list(FAMILIES).index(f) if f in FAMILIES else 999)
    return out


# --------------------------------------------------------------------------------- API


def audit_adapter(adapter, *, seed: int = 0, max_examples: int = 200, tolerance: float = 1e-9,
                  cases_dir: Optional[Path] = Path("cases"), derandomize: bool = False,
                  progress: Optional[Callable[[Progress], None]] = None) -> AdapterSummary:
    """Audit one implementation: cases first, then sentence- and corpus-level search."""
    checker = Checker(adapter, tolerance)
    found: dict[tuple, _Collected] = {}
    start = time.monotonic()
    count = [0]
    phase = ["cases"]

    def tick():
        count[0] += 1
        if progress and count[0] % 10 == 0:
            progress(Progress(adapter.name, phase[0], count[0], len({f for k in found for f in k}), time.monotonic() - start))

    # 1. Replay the curated regression cases.
    for origin, case in load_cases(cases_dir):
        level, inputs = case.get("level", "sentence"), case.get("inputs", {})
        if not _applicable(adapter, level, inputs):
            continue
        tick()
        obs = checker.check(level, inputs)
        if obs.key:
            c = found.setdefault(obs.key, _Collected(origin=origin))
            c.count += 1
            if c.minimal is None or _rank(obs) < _rank(c.minimal):
                c.minimal, c.origin = obs, origin
            if c.largest is None or obs.difference > c.largest.difference:
                c.largest = obs

    # 2. Search, sentence level then corpus level, each family shrunk on its own; first
    #    under the claimed parameters, then (for implementations that take parameters) with
    #    a swarm over them, which finds what only other parameters show.
    sentence, corpus, swarm = _strategies(adapter)
    levels = [lvl for lvl, ok in (("sentence", adapter.supports.sentence), ("corpus", adapter.supports.corpus)) if ok]
    passes = [("claimed", st.just({}), max_examples)]
    if swarm is not None:
        passes.append(("swarm", swarm, max(1, max_examples // 2)))
    searches = []
    for level in levels:
        strategy = sentence if level == "sentence" else corpus
        examine = (lambda lvl: lambda inputs, changes: checker.check(lvl, inputs, changes))(level)
        for name, changes, budget in passes:
            searches.append((f"{level} ({name})", examine, strategy, changes, budget))
    # 3. Metamorphic relations, which need no reference.
    from .metamorphic import RELATIONS

    for relation in RELATIONS:
        if relation.applies(adapter):
            searches.append((relation.family, _metamorphic_examiner(checker, relation),
                             relation.strategy(adapter), st.just({}), max(10, max_examples // 4)))
    for name, examine, strategy, changes, budget in searches:
        if name.startswith("metamorphic-") and any(k in (("nondeterminism",), ("timeout",), ("crash",)) for k in found):
            # Two calls on one input already disagree (no relation can be judged), or calls
            # hang or kill the process (each would cost a timeout or a restart).
            continue
        phase[0] = name
        failures = _search(examine, strategy, changes, found, seed=seed, max_examples=budget,
                           derandomize=derandomize, tick=tick)
        # 4. Replay every minimal example before trusting it.
        for exc, flaky in failures:
            obs = exc.observation
            replay = examine(obs.replay_case, obs.changes)
            c = found.setdefault(obs.key, _Collected())
            c.flaky = c.flaky or flaky or replay.key != obs.key
            if c.minimal is None or _rank(obs) < _rank(c.minimal):
                c.minimal, c.origin = obs, "search"
    # Keys that the search saw but whose shrink Hypothesis folded into another report.
    for key, c in found.items():
        if c.minimal is None and c.largest is not None:
            c.minimal = c.largest
    findings = _findings(adapter, found)
    phase[0] = "conformance"
    matrix = conformance(checker, adapter, found, levels)
    summary = AdapterSummary(
        implementation=adapter.name,
        version=getattr(adapter, "version", None),
        claims=adapter.claims.to_dict(),
        signature=getattr(adapter, "signature", adapter.name),
        examples=count[0],
        elapsed=time.monotonic() - start,
        findings=findings,
        conformance=matrix,
        sources={level: _source(adapter, level) for level in levels},
        reference_signature=adapter.claims.params().signature(None if adapter.supports.multi_reference else 1),
    )
    if progress:
        progress(Progress(adapter.name, "done", count[0], len(summary.findings), summary.elapsed))
    return summary


def run_audit(adapters, *, seed: int = 0, max_examples: int = 200, tolerance: float = 1e-9,
              cases_dir: Optional[Path] = Path("cases"), save_cases: bool = False, derandomize: bool = False,
              progress: Optional[Callable[[Progress], None]] = None,
              on_summary: Optional[Callable[[AdapterSummary], None]] = None) -> AuditResult:
    """Audit each adapter in turn (stable entry point of the Python API).  ``on_summary`` is
    called as soon as each implementation is done (the CLI starts patch verification then)."""
    result = AuditResult(seed=seed, max_examples=max_examples, tolerance=tolerance)
    for adapter in adapters:
        summary = audit_adapter(adapter, seed=seed, max_examples=max_examples, tolerance=tolerance,
                                cases_dir=cases_dir, derandomize=derandomize, progress=progress)
        result.adapters.append(summary)
        if on_summary is not None:
            on_summary(summary)
    if save_cases and cases_dir is not None:
        save_findings_as_cases(result, Path(cases_dir))
    return result


def save_findings_as_cases(result: AuditResult, cases_dir: Path) -> list[Path]:
    """Write each finding's minimal repro as a regression case (existing files are kept)."""
    cases_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for f in result.findings:
        slug = "".join(ch if ch.isalnum() or ch in "-+" else "-" for ch in f.implementation)
        path = cases_dir / f"{slug}--{f.family}.json"
        if path.exists():
            continue
        case = {
            "id": f"{slug}--{f.family}",
            "level": f.level,
            "inputs": f.minimal.inputs,
            "claims": f.claims,
            "origin": f"chrf-audit run: minimal repro of {f.family} in {f.implementation}",
            "expected_fraction": f.minimal.expected_fraction,
        }
        path.write_text(json.dumps(case, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written

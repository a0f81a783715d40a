"""Before/after judgement of a patch: which families it fixes, leaves, or introduces.

Two entry points share one path (``_judge``):

- ``validate(target, diff=..., source=...)`` (``chrf-audit validate-patch``): audits the
  implementation before and after, side by side in two processes;
- ``verify_suggested(implementation, diff, before_findings)`` (the report's suggested
  patches): the before side is the audit that suggested the patch, so only ONE process
  runs per patch, auditing the patched copy and replaying the before repros in one go.

Either way the families differing between the two sides are cross-replayed, each minimal
repro on the other side, so that a family the budget-limited search happened to miss on one
side is not called fixed or introduced: a family is *fixed* when its before-repro agrees
with the reference after the patch (or diverges only as other families the implementation
had before, and no farther from the reference), *introduced* when its after-repro diverges
after but not before, and *still present* otherwise.  A patch that merely hides a family
from a 20-example search, or moves its repro to another wrong value, is therefore not
"fixed".
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

from ..settings import options
from ..errors import UsageError
from .diffs import prepare_after
from .jobs import Job, run_all, run_pair

#: statuses of a family
FIXED, STILL, INTRODUCED = "fixed", "still present", "introduced"


@dataclass
class Target:
    """What is audited: the --impl/--corpus-impl specs and claimed-parameter overrides."""

    impl: Optional[str] = None
    corpus_impl: Optional[str] = None
    overrides: dict = field(default_factory=dict)
    seed: int = options.default("seed")
    max_examples: int = options.BUDGET
    tolerance: float = options.default("tolerance")
    timeout: float = options.default("timeout")
    cases: Optional[str] = None  # absolute path or None
    hypothesis_profile: Optional[str] = None  # audit.settings.hypothesis_profiles; None: chrf-audit
    #: keywords of the built-in backends: a patched copy's opt-in behaviour (after side only)
    backend_options: dict = field(default_factory=dict)

    def packages(self) -> list[str]:
        """Top-level packages holding the implementation (nltk, sacrebleu, mypkg, ...)."""
        from ..upstream import registry

        tops: list[str] = []
        for spec in (self.impl, self.corpus_impl):
            if not spec:
                continue
            for part in (p.strip() for p in spec.split(",")):
                if ":" in part:
                    tops.append(part.partition(":")[0].split(".")[0].strip())
                    continue
                library = registry.libraries().get(part) or (registry.builtin(part) or (None,))[0]
                if library is None:
                    names = ", ".join(list(registry.libraries()) + [
                        n for n in registry.adapter_names() if n not in registry.libraries()])
                    raise UsageError(f"unknown implementation {part!r}: expected one of {names} "
                                     "or package.module:function")
                tops.append(library.package)
        if not tops:
            raise UsageError("validate-patch needs --impl (nltk, sacrebleu or package.module:function) "
                             "or --corpus-impl")
        return list(dict.fromkeys(tops))


@dataclass
class FamilyStatus:
    implementation: str
    family: str
    status: str  # FIXED | STILL | INTRODUCED
    level: str
    repro: dict
    expected: Optional[float]
    before: Optional[float]  # the implementation's value on the repro before the patch
    after: Optional[float]  # ... and after
    before_outcome: Optional[str] = None
    after_outcome: Optional[str] = None
    note: str = ""


@dataclass
class Validation:
    implementation: str
    patch: Optional[str]
    source: Optional[str]
    files: list[str]
    before_versions: dict
    after_versions: dict
    families: list[FamilyStatus] = field(default_factory=list)
    error: Optional[str] = None  # the after side could not be audited (e.g. the patched code does not import)
    notes: list[str] = field(default_factory=list)
    #: the library's own tests before and after (``library_tests.library_tests``), None: not run
    library_tests: Optional[dict] = None
    #: family -> the issue's repro replayed after the patch (``suggested``): {"level", "inputs",
    #: "expected", "before", "after", "holds", ...}
    repro_checks: dict = field(default_factory=dict)
    #: an opt-in patch: the before repros replayed on the patched copy called WITHOUT its
    #: keywords: {"unchanged": bool, "changed": [families]}
    default_check: Optional[dict] = None
    options: dict = field(default_factory=dict)  # the opt-in keywords the after side was called with
    #: the library's gates on the patched files (``gates.run_gates``), None: not run; ``gates_wanted``:
    #: a verification that must run them (a suggested patch of a library with a gates record)
    gates: Optional[dict] = None
    gates_wanted: bool = False
    #: the record's check of what an opt-in patch's keywords give together (``equivalence``)
    check: Optional[dict] = None

    def of(self, status: str) -> list[FamilyStatus]:
        return [f for f in self.families if f.status == status]

    @property
    def broken_tests(self) -> Optional[int]:
        """How many of the library's own tests pass before and fail after (None: not run)."""
        return None if self.library_tests is None else self.library_tests.get("broken")

    @property
    def ok(self) -> bool:
        """validate-patch's verdict: a family fixed, none introduced, and none of the
        library's own tests broken (when they ran)."""
        broken = self.broken_tests
        return (self.error is None and bool(self.of(FIXED)) and not self.of(INTRODUCED)
                and (self.library_tests is None or broken == 0))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["schema_version"] = "1.0"
        d["verdict"] = "validated" if self.ok else "not validated"
        return d


def _by_key(findings: list[dict]) -> dict:
    """One finding per (implementation, family): a family found at both levels is judged on
    its first finding (sentence level; findings come sorted by family, then level)."""
    out: dict = {}
    for f in findings:
        out.setdefault((f["implementation"], f["family"]), f)
    return out


def _repros(findings) -> list[dict]:
    return [{"implementation": f["implementation"], "family": f["family"], "level": f["level"],
             "inputs": f["repro"], "claims": f["claims"]} for f in findings]


class _NoProgress:
    """``progress`` when none is drawn: the interface of ``audit.commands.progress.Phases``."""

    @contextmanager
    def phase(self, description: str, total: Optional[int] = None):
        yield self

    def advance(self, n: int = 1) -> None:
        pass


def _judge(b: dict, a: dict, replays: dict, *, before_side: tuple, work: Path, job_kw: dict,
           progress=_NoProgress()) -> list[FamilyStatus]:
    """Classify every family of ``b`` (before) and ``a`` (after), {(impl, family): finding}.
    ``replays["after"]`` holds the after-replays of the vanished before-families when they
    were already made; the missing cross-replays run here (``before_side``: the before job's
    (request, first-on-PYTHONPATH); the after job's as ``replays["after_side"]``)."""
    from ..collect.assemble import SIGNED

    gone = [b[k] for k in b if k not in a]
    # A signed family (unexplained, an exception, a non-number) names no one bug: found on
    # both sides with another repro, the after one may be a divergence the patch made, so it
    # is replayed before as a new family's is.
    other = {k for k in a if k in b and k[1] in SIGNED and a[k]["repro"] != b[k]["repro"]}
    new = [a[k] for k in a if k not in b or k in other]
    jobs, sides = [], []
    if gone and "after" not in replays:
        req, first = replays["after_side"]
        jobs.append((dict(req, mode="replay", repros=_repros(gone)), work, "replay-after", first))
        sides.append("after")
    if new:
        req, first = before_side
        jobs.append((dict(req, mode="replay", repros=_repros(new)), work, "replay-before", first))
        sides.append("before")
    if jobs:
        with progress.phase(f"replaying {len(gone) + len(new)} repro(s) on the other side", total=len(jobs)) as task:
            ran = run_all(jobs, done=task.advance, **job_kw)
    for side, (rc, data, msg) in zip(sides, ran if jobs else []):
        if rc != 0:
            raise UsageError(msg or f"the replay {side} the patch failed (exit {rc})")
        replays[side] = {(r["implementation"], r["family"]): r for r in data["replays"]}
    out = []
    for k in sorted(set(b) | set(a)):
        if k in other and not replays["before"][k]["reproduces"]:
            out.append(_status(a[k], INTRODUCED, after=a[k], before_replay=replays["before"][k],
                               note=f"another {k[1]} divergence than before: its repro did not diverge before"))
        elif k in b and k in a:
            out.append(_status(a[k], STILL, before=b[k], after=a[k]))
        elif k in b:
            r, f = replays["after"][k], b[k]
            outcome = str(r.get("outcome") or "")
            if r["reproduces"]:
                out.append(_status(f, STILL, before=f, after_replay=r,
                                   note="the after search missed it; its repro still diverges"))
            elif outcome.startswith("not replayed"):
                out.append(_status(f, STILL, before=f, after_replay=r,
                                   note=f"the after search missed it; its repro could not be checked ({outcome})"))
            else:
                known = {fam for (impl, fam) in b if impl == f["implementation"] and fam != f["family"]}
                status, note = _vanished(f, r, known)
                out.append(_status(f, status, before=f, after_replay=r, note=note))
        else:
            r, f = replays["before"][k], a[k]
            if r["reproduces"]:
                out.append(_status(f, STILL, after=f, before_replay=r,
                                   note="the before search missed it; its repro diverged before too"))
            else:
                out.append(_status(f, INTRODUCED, after=f, before_replay=r))
    return out


def _vanished(f: dict, r: dict, known: set) -> tuple[str, str]:
    """The status of a family the after search did not find, from its repro's replay ``r``
    (not diverging as the family any more).  Fixed means the repro now scores what the
    reference says, or diverges only as families the implementation had before the patch
    (``known``; still present, reported on their own) and no farther from the reference than
    before.  A repro that moved to another wrong value (a new divergence, or farther away) is
    still present: the patch changed the bug, it did not fix it."""
    key = list(r.get("key") or [])
    outcome = str(r.get("outcome") or "")
    if not key:
        if outcome == "value":
            return FIXED, ""
        return STILL, f"its repro now gives no number ({outcome})"
    now = " + ".join(key)
    expected, before, after = f.get("expected"), f.get("actual"), r.get("actual")
    farther = (None not in (expected, before, after) and outcome == "value"
               and abs(after - expected) > abs(before - expected))
    if set(key) <= known and not farther:
        return FIXED, f"its repro now diverges only as {now}, which the implementation had before"
    why = "farther from the reference than before" if farther else "a divergence it did not have before"
    return STILL, f"its repro still diverges, now as {now}: {why}"


def validate(target: Target, *, diff: Optional[str] = None, diff_name: str = "patch",
             source: Optional[Path] = None, progress=None) -> Validation:
    """Audit ``target`` before and after the patch (or source checkout); see the module doc.
    ``progress``: an ``audit.commands.progress.Phases`` (the phases drawn on stderr)."""
    progress = progress or _NoProgress()
    if diff is None and source is None:
        raise UsageError("validate-patch needs --patch FILE or --source DIR")
    request = {"mode": "audit", **asdict(target), "backend_options": {}}  # the released library: no new keyword
    with tempfile.TemporaryDirectory(prefix="chrf-audit-validate-") as tmp:
        work = Path(tmp)
        after_root, tops, files = prepare_after(target, diff=diff, diff_name=diff_name, source=source,
                                                dest=work / "site")
        after_req = dict(request, expect_root=str(after_root), tops=tops, backend_options=dict(target.backend_options))
        with progress.phase("auditing before and after the patch (two processes)", total=2) as task:
            rb, ra = run_pair((request, work, "before", None), (after_req, work, "after", after_root),
                              done=task.advance)
        if rb[0] != 0:
            raise UsageError(rb[2] or f"the audit before the patch failed (exit {rb[0]})")
        result = Validation(
            implementation=", ".join(a["implementation"] for a in rb[1]["adapters"]),
            patch=diff_name if diff is not None else None, source=str(source) if source is not None else None,
            files=files, before_versions={a["implementation"]: a["version"] for a in rb[1]["adapters"]},
            after_versions={}, options=dict(target.backend_options),
        )
        if ra[0] != 0:
            if ra[0] == 2 and "patched copy" in ra[2]:
                raise UsageError(ra[2])
            result.error = ra[2] or f"the audit after the patch failed (exit {ra[0]})"
            return result
        result.after_versions = {a["implementation"]: a["version"] for a in ra[1]["adapters"]}
        result.families = _judge(_by_key(rb[1]["findings"]), _by_key(ra[1]["findings"]),
                                 {"after_side": (after_req, after_root)}, before_side=(request, None),
                                 work=work, job_kw={}, progress=progress)
        if files and tops:  # the library's own tests on the installed package and on the after tree
            from .diffs import package_root
            from .library_tests import library_tests, module_of

            site = package_root(tops[0])
            if site is not None and site != after_root:
                with progress.phase("running the library's own tests before and after", total=1) as task:
                    result.library_tests = library_tests(site, after_root, files, module_of(files[0]))
                    task.advance()
        return result


def _status(f: dict, status: str, *, before: Optional[dict] = None, after: Optional[dict] = None,
            before_replay: Optional[dict] = None, after_replay: Optional[dict] = None, note: str = "") -> FamilyStatus:
    """``f`` is the finding whose repro is shown; the values are the implementation's on that
    repro, before and after the patch (None when that side was not run on it)."""
    def val(x):
        return (x["actual"], x["outcome"]) if x is not None else (None, None)

    if before is f:  # the before repro: its value before, and the replay after
        (bv, bo), (av, ao) = val(before), val(after_replay)
    elif before_replay is not None:  # the after repro replayed before
        (bv, bo), (av, ao) = val(before_replay), val(after)
    else:  # present on both sides, shown with the after repro
        (bv, bo), (av, ao) = (None, None), val(after)
    return FamilyStatus(f["implementation"], f["family"], status, f["level"], f["repro"], f.get("expected"),
                        bv, av, bo, ao, note)

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

    def of(self, status: str) -> list[FamilyStatus]:
        return [f for f in self.families if f.status == status]

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.of(FIXED)) and not self.of(INTRODUCED)

    def fixes(self, family: str) -> bool:
        """The report's "verified" for a patch suggested for ``family``: no error, that family
        fixed (its before-repro now agrees with the reference), nothing introduced."""
        return (self.error is None and any(f.family == family for f in self.of(FIXED))
                and not self.of(INTRODUCED))

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
    gone = [b[k] for k in b if k not in a]
    new = [a[k] for k in a if k not in b]
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
        if k in b and k in a:
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
    request = {"mode": "audit", **asdict(target)}
    with tempfile.TemporaryDirectory(prefix="chrf-audit-validate-") as tmp:
        work = Path(tmp)
        after_root, tops, files = prepare_after(target, diff=diff, diff_name=diff_name, source=source,
                                                dest=work / "site")
        after_req = dict(request, expect_root=str(after_root), tops=tops)
        with progress.phase("auditing before and after the patch (two processes)", total=2) as task:
            rb, ra = run_pair((request, work, "before", None), (after_req, work, "after", after_root),
                              done=task.advance)
        if rb[0] != 0:
            raise UsageError(rb[2] or f"the audit before the patch failed (exit {rb[0]})")
        result = Validation(
            implementation=", ".join(a["implementation"] for a in rb[1]["adapters"]),
            patch=diff_name if diff is not None else None, source=str(source) if source is not None else None,
            files=files, before_versions={a["implementation"]: a["version"] for a in rb[1]["adapters"]},
            after_versions={},
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
        return result


#: the report's verification budget: the regression cases, then this many examples per level
VERIFY_EXAMPLES = 20


def verify_suggested(implementation: str, diff: str, before_findings: list[dict], *, seed: int = 0,
                     max_examples: int = VERIFY_EXAMPLES, timeout: float = 600.0) -> Validation:
    """Judge a patch the report suggests for ``implementation`` (a built-in adapter name or
    ``pkg.mod:fn``) on the same path as ``validate``: ``before_findings`` are the
    ``Finding.to_dict()`` records of the audit that suggested it (that audit is the before
    side); the patched copy is audited (chrf-audit's packaged cases, then ``max_examples``
    derandomized examples per level) and the before repros the audit misses are replayed on
    it, in ONE process; a family new after the patch is replayed before it.  Independent of
    the current directory (every process runs in a temporary one; neither its ``cases/`` nor
    its modules are used).  Never raises for a bad patch: the reason is ``error``.
    ``timeout``: seconds after which a process is considered hung."""
    from ..collect.cases import default_cases_dir

    cases = default_cases_dir()
    target = Target(impl=implementation, seed=seed, max_examples=max_examples,
                    cases=str(cases.resolve()) if cases is not None else None)
    before = _by_key([f for f in before_findings if f.get("implementation") == implementation])
    result = Validation(implementation=implementation, patch="suggested patch", source=None, files=[],
                        before_versions={}, after_versions={})
    request = {"mode": "audit", **asdict(target)}
    job_kw = {"with_cwd": False, "timeout": timeout}
    try:
        with tempfile.TemporaryDirectory(prefix="chrf-audit-verify-") as tmp:
            work = Path(tmp)
            after_root, tops, result.files = prepare_after(target, diff=diff, diff_name="the suggested patch",
                                                           source=None, dest=work / "site", with_cwd=False)
            after_req = dict(request, expect_root=str(after_root), tops=tops)
            job = Job(dict(after_req, mode="audit+replay", repros=_repros(before.values())), work, "after",
                      after_root, **job_kw)
            try:
                rc, data, msg = job.wait()
            finally:
                job.kill()
            if rc != 0:
                result.error = msg or f"the audit after the patch failed (exit {rc})"
                return result
            result.after_versions = {a["implementation"]: a["version"] for a in data["adapters"]}
            replays = {"after": {(r["implementation"], r["family"]): r for r in data["replays"]},
                       "after_side": (after_req, after_root)}
            result.families = _judge(before, _by_key(data["findings"]), replays, before_side=(request, None),
                                     work=work, job_kw=job_kw)
    except UsageError as exc:  # a diff that does not apply, a replay that failed ...
        result.error = str(exc)
    except OSError as exc:  # the copy could not be made (disk full, unreadable file ...)
        result.error = f"the patched copy could not be made: {exc}"
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

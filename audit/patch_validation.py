"""Validate a patch of an upstream chrF implementation: audit it before and after.

``validate(target, diff=..., source=...)``:

1. the *after* tree: the diff is applied to a temporary copy of the package(s) it touches
   (``audit.upstream.patching.apply_to_copy``: the installed package, or the source checkout
   when one is given, is never written to), or the source checkout is used as it is;
2. the implementation is audited twice, in two SEPARATE Python processes run side by side
   (``python -m audit.patch_validation REQUEST.json``): *before* with the environment as it
   is, *after* with PYTHONPATH starting at the after tree (the adapters' worker processes
   inherit it; the after process checks that the patched copy is what it imports);
3. the families differing between the two runs are cross-replayed, each minimal repro on
   the other side (two more short processes), so that a family the budget-limited search
   happened to miss on one side is not called fixed or introduced: a family is *fixed* when
   its before-repro agrees with the reference after the patch, *introduced* when its
   after-repro diverges after but not before, and *still present* otherwise.

Errors a user can act on (malformed or non-applying diff, unknown implementation, module
not found, ...) are ``UsageError``: one line, exit 2.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

from . import procs
from .errors import UsageError
from .textfiles import read_bytes

#: statuses of a family
FIXED, STILL, INTRODUCED = "fixed", "still present", "introduced"


# ------------------------------------------------------------------------------ the target


@dataclass
class Target:
    """What is audited: the --impl/--corpus-impl specs and claimed-parameter overrides."""

    impl: Optional[str] = None
    corpus_impl: Optional[str] = None
    overrides: dict = field(default_factory=dict)
    seed: int = 0
    max_examples: int = 100
    tolerance: float = 1e-9
    timeout: float = 5.0
    cases: Optional[str] = None  # absolute path or None

    def packages(self) -> list[str]:
        """Top-level packages holding the implementation (nltk, sacrebleu, mypkg, ...)."""
        from .adapters import BUILTINS

        tops: list[str] = []
        for spec in (self.impl, self.corpus_impl):
            if not spec:
                continue
            for part in (p.strip() for p in spec.split(",")):
                if ":" in part:
                    tops.append(part.partition(":")[0].split(".")[0].strip())
                elif part == "nltk":
                    tops.append("nltk")
                elif part == "sacrebleu" or part in BUILTINS:
                    tops.append("sacrebleu")
                else:
                    names = ", ".join(["nltk", "sacrebleu"] + [b for b in BUILTINS if b != "nltk"])
                    raise UsageError(f"unknown implementation {part!r}: expected one of {names} "
                                     "or package.module:function")
        if not tops:
            raise UsageError("validate-patch needs --impl (nltk, sacrebleu or package.module:function) "
                             "or --corpus-impl")
        return list(dict.fromkeys(tops))


# ---------------------------------------------------------------------- locating the source


def _ensure_cwd_importable() -> None:
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())


def package_root(top: str) -> Optional[Path]:
    """The directory a top-level package or module is imported from (its parent), without
    importing it; None when it is not importable."""
    _ensure_cwd_importable()
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        locations = list(spec.submodule_search_locations)
        if not locations:
            return None
        return Path(locations[0]).resolve().parent
    if spec.origin and spec.origin not in ("built-in", "frozen"):
        return Path(spec.origin).resolve().parent
    return None


def source_root(source: Path, tops: list[str]) -> Path:
    """The directory to put on PYTHONPATH for a source checkout: ``source`` itself, its
    ``src/``, or its parent when ``source`` is the package directory."""
    source = Path(source)
    if not source.is_dir():
        raise UsageError(f"--source {source}: no such directory")
    top = tops[0]
    for root in (source, source / "src"):
        if (root / top).is_dir() or (root / f"{top}.py").is_file():
            return root.resolve()
    if source.resolve().name == top and (source / "__init__.py").is_file():
        return source.resolve().parent
    raise UsageError(f"--source {source} does not contain the package {top!r} "
                     f"(looked for {top}/ in it and in its src/)")


# ------------------------------------------------------------------------------- the diff


def read_diff(path: Path) -> str:
    data = read_bytes(path, "a diff")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UsageError(f"{path} line {line}: invalid UTF-8 (byte 0x{data[exc.start]:02x})") from None


def _header_path(line: str) -> str:
    return line[4:].rstrip("\r\n").split("\t")[0].strip()


def normalize_diff(diff: str, name: str, locate) -> tuple[str, dict[str, Path]]:
    """Rewrite the file headers of ``diff`` to ``a/<package path>`` / ``b/<package path>``
    (what ``apply_to_copy`` expects, ``-p1``), whatever prefix the diff was made with
    (``a/``, none, ``src/``, an absolute site-packages path ...).  ``locate(top)`` gives the
    directory the top-level package ``top`` lives in, or None.  Returns the diff and
    {top-level package: its directory}."""
    from .upstream.patching import PatchError, parse_unified_diff

    try:
        parse_unified_diff(diff)  # shape check: hunks, headers
    except PatchError as exc:
        raise UsageError(f"{name}: malformed diff: {exc}") from None
    lines = diff.splitlines(keepends=True)
    tops: dict[str, Path] = {}
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            new_path = _header_path(lines[i + 1])
            old_path = _header_path(line)
            raw = new_path if new_path != "/dev/null" else old_path
            parts = [p for p in raw.split("/") if p not in ("", ".")]
            chosen = None
            for k in range(len(parts)):
                rest = parts[k:]
                root = locate(rest[0])
                if root is not None and (root / Path(*rest)).is_file():
                    chosen = (rest, root)
                    break
            if chosen is None:
                raise UsageError(f"{name}: the diff patches {raw!r}, which is not a file of any importable "
                                 "package here (is the implementation installed?)")
            rest, root = chosen
            tops[rest[0]] = root
            rel = "/".join(rest)
            nl = "\n" if line.endswith("\n") else ""
            out += [f"--- a/{rel}{nl}", f"+++ b/{rel}{nl}"]
            i += 2
            continue
        out.append(line)
        i += 1
    return "".join(out), tops


def prepare_after(target: Target, *, diff: Optional[str], diff_name: str, source: Optional[Path],
                  dest: Path) -> tuple[Path, list[str], list[str]]:
    """Build the after tree; returns (directory to put first on PYTHONPATH, the top-level
    packages that must be imported from it, the files the diff changes)."""
    from .upstream.patching import PatchError, apply_to_copy

    tops = target.packages()
    src_root = source_root(source, tops) if source is not None else None
    if diff is None:
        return src_root, [tops[0]], []

    def locate(top: str) -> Optional[Path]:
        if src_root is not None:
            return src_root if ((src_root / top).exists() or (src_root / f"{top}.py").exists()) else None
        return package_root(top)

    diff, touched = normalize_diff(diff, diff_name, locate)
    refuse_foreign(touched, tops, diff_name)
    roots = set(touched.values())
    if len(roots) > 1:
        raise UsageError(f"{diff_name}: the diff touches packages in different directories "
                         f"({', '.join(sorted(str(r) for r in roots))}); split it")
    site_dir = roots.pop()
    try:
        apply_to_copy(diff, site_dir, dest)
    except PatchError as exc:
        raise UsageError(f"{diff_name} does not apply to {', '.join(sorted(touched))} in {site_dir}: "
                         f"{_one_line(str(exc))}") from None
    return dest, sorted(touched), _changed_files(diff)


#: chrf-audit's own packages: a diff of the oracle would make the after-audit compare the
#: implementation with a patched reference.
OWN_PACKAGES = ("audit", "reference_impl")
_OWN_DIRS = {Path(__file__).resolve().parents[1] / p for p in OWN_PACKAGES}


def refuse_foreign(touched: dict, tops: list, diff_name: str) -> None:
    """A diff may patch only the implementation's own top-level package(s), never chrf-audit
    itself: anything else (another installed package, a directory named by an absolute path
    that happens to be importable as a namespace) is refused before any copy is made."""
    for top, root in touched.items():
        if top in OWN_PACKAGES or (Path(root) / top).resolve() in _OWN_DIRS:
            raise UsageError(f"{diff_name}: the diff patches chrf-audit itself ({top}); "
                             "validate-patch only patches the implementation under audit")
        if top not in tops:
            raise UsageError(f"{diff_name}: the diff patches {top!r}, not the implementation's package "
                             f"({', '.join(tops)})")


def _one_line(text: str, limit: int = 300) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    failing = [ln for ln in lines if "FAILED" in ln or "malformed" in ln.lower() or "can't find" in ln.lower()
               or "reversed" in ln.lower() or "does not apply" in ln]
    text = "; ".join(failing or lines[-2:]) or "patch failed"
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------- the separate processes


def _env(first: Optional[Path]) -> dict:
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # never write __pycache__ into a checkout or site-packages
    env.pop("GITHUB_STEP_SUMMARY", None)
    parts = ([str(first)] if first is not None else []) + [os.getcwd()]
    parts += [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    return env


class _Job:
    """One worker process: ``python -m audit.patch_validation REQUEST`` -> RESULT json."""

    def __init__(self, request: dict, workdir: Path, name: str, first: Optional[Path]):
        self.name = name
        self.dir = workdir / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.out = self.dir / "result.json"
        req = dict(request, out=str(self.out))
        (self.dir / "request.json").write_text(json.dumps(req), encoding="utf-8")
        # owned by audit.procs: on SIGTERM/Ctrl-C it gets SIGTERM (it then closes its own
        # workers) and a short grace period, then its process group is killed
        self.proc = procs.spawn(
            [sys.executable, "-m", "audit.patch_validation", str(self.dir / "request.json")],
            grace=3.0, cwd=self.dir, env=_env(first), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )

    def wait(self) -> tuple[int, Optional[dict], str]:
        _, err = self.proc.communicate()
        rc = self.proc.returncode
        data = json.loads(self.out.read_text(encoding="utf-8")) if rc == 0 and self.out.is_file() else None
        msg = ""
        for ln in reversed(err.splitlines()):
            if ln.strip():
                msg = ln.strip()
                break
        if msg.startswith("chrf-audit: error: "):
            msg = msg[len("chrf-audit: error: "):]
        return rc, data, msg

    def kill(self) -> None:
        procs.stop(self.proc, term=not procs.exited(self.proc))


def _run_pair(before: tuple, after: tuple) -> tuple[tuple, tuple]:
    """Start both jobs, wait for both; a usage error of the before side stops the after one."""
    jb, ja = _Job(*before), _Job(*after)
    try:
        rb = jb.wait()
        if rb[0] == 2:
            ja.kill()
        ra = ja.wait()
    finally:
        jb.kill()
        ja.kill()
    return rb, ra


# ------------------------------------------------------------------------------ the result


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

    def to_dict(self) -> dict:
        d = asdict(self)
        d["schema_version"] = "1.0"
        d["verdict"] = "validated" if self.ok else "not validated"
        return d


def _by_key(payload: dict) -> dict:
    """One finding per (implementation, family): a family found at both levels is judged on
    its first finding (sentence level; findings come sorted by family, then level)."""
    out: dict = {}
    for f in payload["findings"]:
        out.setdefault((f["implementation"], f["family"]), f)
    return out


def _replay_request(target_req: dict, findings: list[dict]) -> dict:
    return dict(target_req, mode="replay", repros=[
        {"implementation": f["implementation"], "family": f["family"], "level": f["level"],
         "inputs": f["repro"], "claims": f["claims"]} for f in findings])


def validate(target: Target, *, diff: Optional[str] = None, diff_name: str = "patch",
             source: Optional[Path] = None) -> Validation:
    """Audit ``target`` before and after the patch (or source checkout); see the module doc."""
    if diff is None and source is None:
        raise UsageError("validate-patch needs --patch FILE or --source DIR")
    request = {"mode": "audit", **asdict(target)}
    with tempfile.TemporaryDirectory(prefix="chrf-audit-validate-") as tmp:
        work = Path(tmp)
        after_root, tops, files = prepare_after(target, diff=diff, diff_name=diff_name, source=source,
                                         dest=work / "site")
        rb, ra = _run_pair(
            (request, work, "before", None),
            (dict(request, expect_root=str(after_root), tops=tops), work, "after", after_root),
        )
        if rb[0] != 0:
            raise UsageError(rb[2] or f"the audit before the patch failed (exit {rb[0]})")
        result = Validation(
            implementation=", ".join(a["implementation"] for a in rb[1]["adapters"]),
            patch=diff_name if diff is not None else None, source=str(source) if source is not None else None,
            files=files, before_versions={
                a["implementation"]: a["version"] for a in rb[1]["adapters"]}, after_versions={},
        )
        if ra[0] != 0:
            if ra[0] == 2 and "patched copy" in ra[2]:
                raise UsageError(ra[2])
            result.error = ra[2] or f"the audit after the patch failed (exit {ra[0]})"
            return result
        result.after_versions = {a["implementation"]: a["version"] for a in ra[1]["adapters"]}
        b, a = _by_key(rb[1]), _by_key(ra[1])
        gone = [b[k] for k in b if k not in a]
        new = [a[k] for k in a if k not in b]
        # cross-replay: before's repros of vanished families after, after's new ones before
        jobs = []
        if gone:
            jobs.append(("after", _replay_request(dict(request, expect_root=str(after_root), tops=tops), gone),
                         after_root))
        if new:
            jobs.append(("before", _replay_request(request, new), None))
        replays = {}
        running = [(side, _Job(req, work, f"replay-{side}", first)) for side, req, first in jobs]
        try:
            for side, job in running:
                rc, data, msg = job.wait()
                if rc != 0:
                    raise UsageError(msg or f"the replay {side} the patch failed (exit {rc})")
                replays[side] = {(r["implementation"], r["family"]): r for r in data["replays"]}
        finally:
            for _, job in running:
                job.kill()
        for k in sorted(set(b) | set(a)):
            if k in b and k in a:
                f = a[k]
                result.families.append(_status(f, STILL, before=b[k], after=f))
            elif k in b:
                r = replays["after"][k]
                f = b[k]
                if r["reproduces"]:
                    result.families.append(_status(f, STILL, before=f, after_replay=r,
                                                   note="the after search missed it; its repro still diverges"))
                else:
                    note = f"its repro now diverges as {' + '.join(r['key'])}" if r.get("key") else ""
                    if r.get("outcome", "value") not in (None, "value") and not r.get("key"):
                        note = str(r["outcome"])
                    result.families.append(_status(f, FIXED, before=f, after_replay=r, note=note))
            else:
                r = replays["before"][k]
                f = a[k]
                if r["reproduces"]:
                    result.families.append(_status(f, STILL, after=f, before_replay=r,
                                                   note="the before search missed it; its repro diverged before too"))
                else:
                    result.families.append(_status(f, INTRODUCED, after=f, before_replay=r))
        return result


def _changed_files(diff: str) -> list[str]:
    from .upstream.patching import diff_files

    return diff_files(diff)


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


# ---------------------------------------------------------------------- rendering


def render(v: Validation) -> str:
    from .report._text import num, repro_text

    def value(x, outcome):
        if outcome is None:
            return "-"
        return num(x, 7) if outcome == "value" and x is not None else outcome

    what = f"patch {v.patch}" if v.patch else f"source {v.source}"
    if v.patch and v.source:
        what = f"patch {v.patch} on source {v.source}"
    versions = ", ".join(f"{k} {ver}" if ver else k for k, ver in v.before_versions.items())
    lines = [f"validate-patch: {versions or v.implementation}; {what}"]
    if v.files:
        lines.append(f"  files: {', '.join(v.files)}")
    lines += [f"  note: {n}" for n in v.notes]
    if v.error:
        lines += [f"the patched implementation could not be audited: {v.error}", "patch not validated"]
        return "\n".join(lines)
    order = {FIXED: 0, INTRODUCED: 1, STILL: 2}
    for s in sorted(v.families, key=lambda s: (order[s.status], s.implementation, s.family)):
        lines.append(f"{s.status.upper():<14} {s.implementation}  {s.family}")
        lines.append(f"    repro ({s.level}): {repro_text(s.repro, 90)}")
        nums = f"    expected {value(s.expected, 'value')}"
        if s.before_outcome is not None:
            nums += f", before {value(s.before, s.before_outcome)}"
        if s.after_outcome is not None:
            nums += f", after {value(s.after, s.after_outcome)}"
        lines.append(nums)
        if s.note:
            lines.append(f"    ({s.note})")
    if not v.families:
        lines.append("no family before or after the patch")
    n = {k: len(v.of(k)) for k in (FIXED, STILL, INTRODUCED)}
    verdict = "patch validated" if v.ok else "patch not validated"
    lines.append(f"{verdict}: {n[FIXED]} fixed, {n[STILL]} still present, {n[INTRODUCED]} introduced")
    return "\n".join(lines)


# ------------------------------------------------------------------ the worker process


def _worker(request: dict) -> dict:
    from pathlib import Path as _P

    from .adapters import resolve
    from .runner import Checker, run_audit

    if request.get("expect_root"):
        root = _P(request["expect_root"]).resolve()
        for top in request.get("tops") or []:
            where = package_root(top)
            if where is None or where != root:
                raise UsageError(f"the patched copy of {top!r} is not what Python imports "
                                 f"(it imports it from {where}); is {top!r} installed as a zip or a namespace?")
    adapters = resolve(request.get("impl"), corpus_impl=request.get("corpus_impl"),
                       overrides=request.get("overrides") or None, timeout=request["timeout"])
    try:
        info = [{"implementation": a.name, "version": getattr(a, "version", None),
                 "sources": {lvl: loc.file for lvl, loc in (getattr(a, "sources", {}) or {}).items()}}
                for a in adapters]
        if request["mode"] == "audit":
            result = run_audit(adapters, seed=request["seed"], max_examples=request["max_examples"],
                               tolerance=request["tolerance"], cases_dir=request.get("cases"),
                               derandomize=True)
            return {"adapters": info, "findings": [f.to_dict() for f in result.findings]}
        by_name = {a.name: a for a in adapters}
        out = []
        for r in request["repros"]:
            adapter = by_name.get(r["implementation"])
            rec = {"implementation": r["implementation"], "family": r["family"], "reproduces": False,
                   "key": None, "actual": None, "outcome": None}
            if adapter is not None:
                try:
                    base = adapter.claims.to_dict()
                    changes = {k: v for k, v in (r.get("claims") or {}).items() if base.get(k) != v}
                    obs = Checker(adapter, request["tolerance"]).check(r["level"], r["inputs"], changes or None)
                    rec.update(key=list(obs.key) if obs.key else None, actual=obs.outcome.value,
                               outcome=obs.outcome.kind, reproduces=bool(obs.key) and r["family"] in obs.key)
                except Exception as exc:  # a level it no longer supports, a refused claim ...
                    rec["outcome"] = f"not replayed: {type(exc).__name__}: {exc}"
            out.append(rec)
        return {"adapters": info, "replays": out}
    finally:
        for a in adapters:
            a.close()


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    procs.install()
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    try:
        payload = _worker(request)
    except UsageError as exc:
        print(f"chrf-audit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # SIGTERM from the parent: the adapters are closed by now
        procs.stop_all()
        return 143
    Path(request["out"]).write_text(json.dumps(payload), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

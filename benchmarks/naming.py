"""Are findings named truthfully, and completely when an implementation has several bugs?

Audits planted implementations with no curated cases and prints:

* out-of-catalogue bugs (tests/planted_unknown, one bug no family describes each):
  findings per bug (target <= 1.2) and wrong names (target 0; a name is wrong unless it is
  ``unexplained``, a family the module lists as truthful, or a metamorphic relation);
* catalogued bugs (tests/planted/catalogue.py, the rows that are switches of base.Chrf):
  how many come out named exactly (a finding of the planted family whose explanation is
  exactly that family, and no other);
* several bugs at once (tests/planted_multibug, 2-5 bugs each, written outside the models):
  per implementation, catalogued bugs named, wrong names, findings per bug (levels merged),
  the fraction of observed scores the fitted model explains, and the run time -- beside the
  same audit by another revision of the engine (``--old-ref``, run from a ``git archive`` of
  it, the planted modules of this tree on its path) when asked.

Usage: python benchmarks/naming.py [--max-examples N] [--multi-examples N] [--jobs 2]
                                   [--only multi] [--old-ref bbc3481]
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _audit(package: str, name: str, n: int):
    from audit.adapters import resolve
    from audit.collect.runner import run_audit

    sys.path.insert(0, str(ROOT))
    accepts = None
    if package == "tests.planted":
        import tests.planted as planted

        row = planted.get(name)
        s, c, claims = row.spec("sentence"), row.spec("corpus"), row.claims
    else:
        mod = importlib.import_module(f"{package}.{name}")
        s = f"{package}.{name}:sentence" if hasattr(mod, "sentence") else None
        c = f"{package}.{name}:corpus" if hasattr(mod, "corpus") else None
        claims, accepts = mod.CLAIMS, getattr(mod, "ACCEPTS", None)
    adapters = resolve(s, corpus_impl=c, overrides=claims, timeout=5, **({"accepts": accepts} if accepts else {}))
    start = time.perf_counter()
    try:
        result = run_audit(adapters, seed=0, max_examples=n, cases_dir=None)
    finally:
        for a in adapters:
            a.close()
    fit = {lv: (f["explained"], f["observed"]) for a in result.adapters for lv, f in getattr(a, "fit", {}).items()}
    return {"findings": [(f.family, f.level, list(f.explanation), f.evidence, f.title) for f in result.findings],
            "fit": fit, "seconds": time.perf_counter() - start}


#: Run by the old engine in a subprocess: the same audit, its time and family names.
_OLD = """
import json, sys, time, importlib
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from audit.adapters import resolve
from audit.collect.runner import run_audit
mod = importlib.import_module("tests.planted_multibug." + sys.argv[3])
ads = resolve("tests.planted_multibug.%s:sentence" % sys.argv[3], corpus_impl="tests.planted_multibug.%s:corpus" % sys.argv[3],
              overrides=mod.CLAIMS, timeout=5)
t = time.perf_counter()
res = run_audit(ads, seed=0, max_examples=int(sys.argv[4]), cases_dir=None)
dt = time.perf_counter() - t
for a in ads: a.close()
print(json.dumps({"seconds": dt, "families": sorted({f.family for f in res.findings})}))
"""


def _old_audit(old_root: Path, name: str, n: int) -> dict:
    import os

    # the old engine imports the implementation in its own worker process: both roots on its path
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(old_root), str(ROOT)]))
    out = subprocess.run([sys.executable, "-c", _OLD, str(old_root), str(ROOT), name, str(n)], cwd=old_root,
                         capture_output=True, text=True, timeout=1800, env=env)
    if out.returncode:  # said, not swallowed: a failed old audit is no measurement
        raise SystemExit(f"the old engine's audit of {name} failed: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _honest(mod, family: str) -> bool:
    return family in mod.BUGS or family in mod.ALLOWED or family == "unexplained" or family.startswith("metamorphic-")


def multi(results: dict, names: list[str], old: dict) -> None:
    print("several bugs at once (tests/planted_multibug):")
    bugs = named = wrong = findings = 0
    explained = observed = 0
    secs, old_secs = [], []
    for m in names:
        mod = importlib.import_module(f"tests.planted_multibug.{m}")
        r = results[("tests.planted_multibug", m)]
        fams = {f[0] for f in r["findings"]}
        k = set(mod.BUGS)
        bad = sorted(f for f in fams if not _honest(mod, f))
        groups = {(f[0], f[4]) for f in r["findings"]}  # one name at both levels is one finding
        bugs += len(k)
        named += len(k & fams)
        wrong += len(bad)
        findings += len(groups)
        e = sum(x for x, _ in r["fit"].values())
        o = sum(y for _, y in r["fit"].values())
        explained, observed = explained + e, observed + o
        secs.append(r["seconds"])
        line = (f"  {m:22} named {len(k & fams)}/{len(k)}  wrong {len(bad)}  findings {len(groups)}  "
                f"fit {e}/{o}  {r['seconds']:5.1f}s")
        if m in old:
            old_secs.append(old[m]["seconds"])
            line += f"  (old: named {len(k & set(old[m]['families']))}/{len(k)}, {old[m]['seconds']:5.1f}s)"
        print(line + (f"  missed {sorted(k - fams)}" if k - fams else "") + (f"  WRONG {bad}" if bad else ""))
    unknown = sum(len(importlib.import_module(f"tests.planted_multibug.{m}").UNCATALOGUED) for m in names)
    print(f"  catalogued bugs named {named} of {bugs}; wrong names {wrong}; findings per bug {findings / (bugs + unknown):.2f}"
          f" ({findings} findings for {bugs} catalogued + {unknown} unknown bugs); observed scores the fit explains "
          f"{explained}/{observed} = {explained / max(1, observed):.3f}")
    med = sorted(secs)[len(secs) // 2]
    print(f"  run time: median {med:.1f}s, total {sum(secs):.0f}s" + (
        f"; old engine: median {sorted(old_secs)[len(old_secs) // 2]:.1f}s, total {sum(old_secs):.0f}s, "
        f"ratio of totals {sum(secs) / sum(old_secs):.2f}" if old_secs else ""))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-examples", type=int, default=10, help="budget of the single-bug audits")
    ap.add_argument("--multi-examples", type=int, default=100, help="budget of the multi-bug audits (the default run's)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", choices=("single", "multi"))
    ap.add_argument("--old-ref", help="time the multi-bug audits by this revision of the engine too")
    args = ap.parse_args()
    import tests.planted as planted
    import tests.planted_multibug as multibug
    import tests.planted_unknown as unknown
    from tests.test_runner_planted import MAX_EXAMPLES

    budgets = dict(MAX_EXAMPLES)
    catalogued = [r.name for r in planted.ROWS if r.family and r.impl is None]
    jobs = []
    if args.only != "multi":
        jobs += [("tests.planted_unknown", m, args.max_examples) for m in unknown.modules()]
        jobs += [("tests.planted", m, max(args.max_examples, budgets.get(m, 0))) for m in catalogued]
    if args.only != "single":
        jobs += [("tests.planted_multibug", m, args.multi_examples) for m in multibug.modules()]
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn")) as pool:
        results = dict(zip([(p, m) for p, m, _ in jobs], pool.map(_audit, *zip(*jobs))))
    old: dict = {}
    if args.old_ref and args.only != "single":
        with tempfile.TemporaryDirectory() as tmp:
            archive = Path(tmp) / "old.tar"
            subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), args.old_ref, "audit",
                            "reference_impl"], check=True)
            with tarfile.open(archive) as t:
                t.extractall(Path(tmp) / "old")
            from concurrent.futures import ThreadPoolExecutor

            names = multibug.modules()
            with ThreadPoolExecutor(args.jobs) as threads:  # each audit is its own process
                old = dict(zip(names, threads.map(lambda m: _old_audit(Path(tmp) / "old", m, args.multi_examples),
                                                  names)))
    if args.only != "multi":
        single(results, unknown, planted, catalogued)
    if args.only != "single":
        multi(results, multibug.modules(), old)


def single(results, unknown, planted, catalogued) -> None:
    total_findings = total_rows = wrong = bugs = 0
    print("out of the catalogue:")
    for m in unknown.modules():
        mod = importlib.import_module(f"tests.planted_unknown.{m}")
        fs = results[("tests.planted_unknown", m)]["findings"]
        k = getattr(mod, "BUGS", 1)
        bad = [f for f in fs if not (f[0] == "unexplained" or f[0] in mod.TRUTHFUL or f[0].startswith("metamorphic-"))]
        names = {(f[0], f[4]) for f in fs}  # one name may be reported at both levels
        bugs += k
        total_findings += len(names)
        total_rows += len(fs)
        wrong += len(bad)
        print(f"  {m:32} bugs {k}  names {len(names)}  rows {len(fs)}  wrong {len(bad)}  {[(f[0], f[1]) for f in fs]}")
    print(f"  findings (distinct names) per bug {total_findings / bugs:.2f}; (family, level) rows per bug "
          f"{total_rows / bugs:.2f}; wrong names {wrong}")
    exact = 0
    print("catalogued:")
    for m in catalogued:
        fam = planted.get(m).family
        fs = results[("tests.planted", m)]["findings"]
        extra = {"exception"} if m in ("utf8_bytes", "utf16_code_units") else set()  # lone surrogates
        ok = any(f[0] == fam and f[2] == [fam] for f in fs) and all(f[0] in {fam} | extra for f in fs)
        exact += ok
        print(f"  {m:45} {'exact' if ok else 'NOT EXACT'}  {[(f[0], f[1], f[3]) for f in fs]}")
    print(f"  named exactly: {exact} of {len(catalogued)}")


if __name__ == "__main__":
    main()

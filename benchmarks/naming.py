"""Are findings named truthfully?  Audits every planted implementation and prints:

* out-of-catalogue bugs (tests/planted_unknown): findings per bug (target <= 1.2) and wrong
  names (target 0; a name is wrong unless it is ``unexplained``, a family the module lists as
  truthful, or a metamorphic relation);
* catalogued bugs (tests/planted/catalogue.py, the rows that are switches of base.Chrf: the
  value families): how many come out named exactly
  (a finding of the planted family whose explanation is exactly that family, and no other).

Usage: python benchmarks/naming.py [--max-examples N] [--jobs 2]
"""

from __future__ import annotations

import argparse
import importlib
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

def _audit(package: str, name: str, n: int):
    from audit.adapters import resolve
    from audit.runner import run_audit

    sys.path.insert(0, str(ROOT))
    if package == "tests.planted":
        import tests.planted as planted

        row = planted.get(name)
        s, c, claims = row.spec("sentence"), row.spec("corpus"), row.claims
    else:
        mod = importlib.import_module(f"{package}.{name}")
        s = f"{package}.{name}:sentence" if hasattr(mod, "sentence") else None
        c = f"{package}.{name}:corpus" if hasattr(mod, "corpus") else None
        claims = mod.CLAIMS
    adapters = resolve(s, corpus_impl=c, overrides=claims, timeout=5)
    try:
        result = run_audit(adapters, seed=0, max_examples=n, cases_dir=None, derandomize=True)
    finally:
        for a in adapters:
            a.close()
    return [(f.family, f.level, list(f.explanation), f.evidence, f.title) for f in result.findings]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-examples", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    import tests.planted as planted
    import tests.planted_unknown as unknown

    budgets = {}
    try:
        from tests.test_runner_planted import MAX_EXAMPLES
        budgets = dict(MAX_EXAMPLES)
    except Exception:
        pass
    catalogued = [r.name for r in planted.ROWS if r.family and r.impl is None]
    jobs = [("tests.planted_unknown", m, args.max_examples) for m in unknown.modules()]
    jobs += [("tests.planted", m, max(args.max_examples, budgets.get(m, 0))) for m in catalogued]
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn")) as pool:
        results = dict(zip([(p, m) for p, m, _ in jobs], pool.map(_audit, *zip(*jobs))))
    total_findings = total_rows = wrong = bugs = 0
    print("out of the catalogue:")
    for m in unknown.modules():
        mod = importlib.import_module(f"tests.planted_unknown.{m}")
        fs = results[("tests.planted_unknown", m)]
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
        fs = results[("tests.planted", m)]
        extra = {"exception"} if m in ("utf8_bytes", "utf16_code_units") else set()  # lone surrogates
        ok = any(f[0] == fam and f[2] == [fam] for f in fs) and all(f[0] in {fam} | extra for f in fs)
        exact += ok
        print(f"  {m:45} {'exact' if ok else 'NOT EXACT'}  {[(f[0], f[1], f[3]) for f in fs]}")
    print(f"  named exactly: {exact} of {len(catalogued)}")


if __name__ == "__main__":
    main()

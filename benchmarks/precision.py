"""Precision before recall (issue 30): is every name true, and what does each audit leave out?

Audits the project's planted sets from an empty directory with an empty ``--cases``
directory, at the CLI's default budget, each implementation in its own process (the engine
imported from ``--engine``, the planted modules from this tree, so two revisions of the
engine audit the same material), and prints per set:

* wrong names: (family, level) findings that are not a catalogued bug of the module, a
  family it allows, ``unexplained``, ``stateful``/``nondeterminism`` or a metamorphic relation;
* named: catalogued bugs with a finding of their family (any level);
* unexplained: uncatalogued bugs with an ``unexplained`` row whose repro activates the bug
  (the implementation with that bug switched off scores the repro differently);
* missed: catalogued bugs not named and uncatalogued bugs no unexplained row activates;
* findings per bug: distinct (family, title) rows (levels merged) over all bugs;
* fit lines without a scope; run time (wall) and CPU time (the audit's process and its
  workers).

``--engines old=DIR,new=DIR`` audits every module by both engines, alternated (each module by
one, then the other, so both see the same load), and prints them side by side (``DIR`` a tree
holding ``audit/`` and ``reference_impl/``, e.g. ``git archive b964185 audit reference_impl``
unpacked); ``--json FILE`` keeps the raw results; ``--compare FILE`` prints a run beside an
earlier one's.

Usage: python benchmarks/precision.py [--engine DIR | --engines old=DIR,new=DIR]
                                      [--sets unknown,catalogued,multi,multibug,adversarial]
                                      [--max-examples N] [--jobs 2] [--only NAME ...] [--json FILE]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Run in a fresh process per implementation: the audit, from an empty directory.
_CHILD = r"""
import json, os, resource, sys, time
engine, root, package, name, n, cases = sys.argv[1:7]
sys.path[:0] = [engine, root]
import importlib
from audit.adapters import resolve
from audit.collect.runner import run_audit
if package == "tests.planted":
    import tests.planted as planted
    row = planted.get(name)
    s, c, claims, accepts = row.spec("sentence"), row.spec("corpus"), row.claims, None
else:
    mod = importlib.import_module(package + "." + name)
    s = f"{package}.{name}:sentence" if hasattr(mod, "sentence") else None
    c = f"{package}.{name}:corpus" if hasattr(mod, "corpus") else None
    claims, accepts = mod.CLAIMS, getattr(mod, "ACCEPTS", None)
kw = {"accepts": accepts} if accepts else {}
ads = resolve(s, corpus_impl=c, overrides=claims, timeout=5, **kw)
t, c0 = time.perf_counter(), time.process_time()
try:
    res = run_audit(ads, seed=0, max_examples=int(n), cases_dir=cases)
finally:
    for a in ads:
        a.close()
wall = time.perf_counter() - t
ch = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = time.process_time() - c0 + ch.ru_utime + ch.ru_stime
[summary] = res.adapters
out = {"seconds": wall, "cpu": cpu, "fit": summary.fit,
       "findings": [{"family": f.family, "level": f.level, "title": f.title, "evidence": f.evidence,
                     "explanation": list(f.explanation), "inputs": f.minimal.inputs, "actual": f.minimal.actual,
                     "flaky": f.flaky} for f in summary.findings]}
print("@@RESULT@@" + json.dumps(out))
"""

SETS = ("unknown", "catalogued", "multi", "multibug", "adversarial")


def _jobs(sets: list[str]) -> list[tuple[str, str, str]]:
    """(set, package, module name) of every implementation audited."""
    out = []
    if "unknown" in sets:
        import tests.planted_unknown as unknown

        out += [("unknown", "tests.planted_unknown", m) for m in unknown.modules()]
    if "catalogued" in sets:
        import tests.planted as planted

        out += [("catalogued", "tests.planted", r.name) for r in planted.ROWS
                if r.family and r.impl is None or r.family is None]
    if "multi" in sets:
        out += [("multi", "tests", "planted_multi")]
    if "multibug" in sets:
        import tests.planted_multibug as multibug

        out += [("multibug", "tests.planted_multibug", m) for m in multibug.modules()]
    if "adversarial" in sets:
        try:
            import tests.planted_adversarial as adversarial
        except ImportError:
            adversarial = None
        if adversarial is not None:
            out += [("adversarial", "tests.planted_adversarial", m) for m in adversarial.modules()]
    return out


def _run(engine: Path, package: str, name: str, n: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        cases = Path(tmp) / "cases"
        cases.mkdir()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(engine), str(ROOT)]))
        proc = subprocess.run([sys.executable, "-c", _CHILD, str(engine), str(ROOT), package, name, str(n), str(cases)],
                              cwd=tmp, capture_output=True, text=True, timeout=3600, env=env)
    lines = [x for x in proc.stdout.splitlines() if x.startswith("@@RESULT@@")]
    if proc.returncode or not lines:
        return {"error": proc.stderr.strip()[-3000:], "findings": [], "fit": {}, "seconds": 0.0, "cpu": 0.0}
    return json.loads(lines[-1][len("@@RESULT@@"):])


# ------------------------------------------------------------------------------ judging

_NEVER_WRONG = ("unexplained", "stateful", "nondeterminism")


def _spec(package: str, name: str):
    """(catalogued bugs, uncatalogued bugs, allowed families, switch-off function or None)."""
    if package == "tests.planted":
        import tests.planted as planted

        row = planted.get(name)
        allowed = {"exception"} if name in ("utf8_bytes", "utf16_code_units") else set()
        return ({row.family} if row.family else set()), [], allowed, None
    mod = importlib.import_module(f"{package}.{name}" if package != "tests" else f"tests.{name}")
    if package == "tests":  # planted_multi
        return set(mod.THREE_FAMILIES), [], set(), None
    if package == "tests.planted_unknown":
        return set(), [mod.BUG] * getattr(mod, "BUGS", 1), set(mod.TRUTHFUL), None
    return set(mod.BUGS), list(mod.UNCATALOGUED), set(mod.ALLOWED), getattr(mod, "_make", None)


def _activates(package: str, name: str, bug: str, finding: dict) -> bool:
    """Does the repro of an unexplained ``finding`` activate the uncatalogued ``bug``: the
    implementation with it switched off scores the repro differently?  (A module without a
    switch: the correct base implementation of its claims stands for "switched off".)"""
    mod = importlib.import_module(f"{package}.{name}")
    make = getattr(mod, "_make", None)
    level, inputs = finding["level"], finding["inputs"]
    if make is not None:
        on = make(frozenset(mod.BUGS) | frozenset(mod.UNCATALOGUED))
        off = make((frozenset(mod.BUGS) | frozenset(mod.UNCATALOGUED)) - {bug})
    else:
        from tests.planted.base import Chrf

        fields = {k: v for k, v in mod.CLAIMS.items() if k in ("char_order", "word_order", "beta", "lowercase",
                                                                 "whitespace")}
        correct = Chrf(**fields)
        on, off = (mod.sentence, mod.corpus), (correct.sentence, correct.corpus)

    def call(pair):
        try:
            if level == "sentence":
                return pair[0](inputs["hypothesis"], list(inputs["references"]))
            return pair[1](list(inputs["hypotheses"]), [list(r) for r in inputs["references"]])
        except Exception as exc:  # noqa: BLE001 - an exception is an answer too
            return repr(type(exc))

    a, b = call(on), call(off)
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) > 1e-9
    return a != b


def judge(set_name: str, package: str, name: str, r: dict) -> dict:
    bugs, unknown, allowed, _ = _spec(package, name)
    findings = r["findings"]
    fams = {f["family"] for f in findings}
    wrong = sorted({(f["family"], f["level"]) for f in findings
                    if not (f["family"] in bugs or f["family"] in allowed or f["family"] in _NEVER_WRONG
                            or f["family"].startswith("metamorphic-"))})
    named = sorted(bugs & fams)
    # the honest row of an uncatalogued bug: unexplained, or the outcome it raises/returns
    unexplained_rows = [f for f in findings if f["family"] == "unexplained" or f["family"] in allowed
                        and f["family"] in ("exception", "invalid-output", "out-of-range", "nondeterminism")]
    found_unknown = []
    if package == "tests.planted_unknown":
        # BUGS bugs described by one sentence, none switchable alone: each needs a row of its own
        # (distinct (family, title) among the honest rows), so two bugs in one row count once
        honest = {(f["family"], f["title"]) for f in findings if f in unexplained_rows or f["family"] in allowed
                  or f["family"].startswith("metamorphic-")}
        found_unknown = [i < len(honest) for i in range(len(unknown))]
        described = unknown
    else:
        described = list(dict.fromkeys(unknown))
        found_unknown = [any(_activates(package, name, bug, f) for f in unexplained_rows) for bug in described]
    missed = sorted(bugs - fams) + [b[:50] for b, ok in zip(described, found_unknown) if not ok]
    rows = {(f["family"], f["title"]) for f in findings}
    unscoped = [lv for lv, fit in r.get("fit", {}).items() if "scope" not in fit]
    return {"set": set_name, "name": name, "bugs": len(bugs) + len(unknown), "catalogued": len(bugs),
            "named": named, "unknown_found": sum(found_unknown), "unknown": len(unknown), "wrong": wrong,
            "missed": missed, "rows": len(rows), "unscoped": unscoped, "seconds": r["seconds"], "cpu": r["cpu"],
            "error": r.get("error")}


def report(judged: list[dict], other: dict | None = None) -> None:
    for set_name in SETS:
        rows = [j for j in judged if j["set"] == set_name]
        if not rows:
            continue
        print(f"{set_name}:")
        for j in rows:
            line = (f"  {j['name'][:34]:34} named {len(j['named'])}/{j['catalogued']}  unexpl {j['unknown_found']}/"
                    f"{j['unknown']}  wrong {len(j['wrong'])}  rows {j['rows']}  {j['seconds']:6.1f}s "
                    f"cpu {j['cpu']:6.1f}s")
            o = (other or {}).get((set_name, j["name"]))
            if o is not None:
                line += (f"  | old: named {len(o['named'])} wrong {len(o['wrong'])} rows {o['rows']} {o['seconds']:6.1f}s "
                         f"cpu {o['cpu']:6.1f}s")
            extra = []
            if j["wrong"]:
                extra.append(f"WRONG {j['wrong']}")
            if j["missed"]:
                extra.append(f"missed {j['missed']}")
            if j["unscoped"]:
                extra.append(f"fit without scope {j['unscoped']}")
            if j["error"]:
                extra.append("ERROR " + j["error"].splitlines()[-1][:200])
            print(line + ("  " + "; ".join(extra) if extra else ""))
        _totals(rows, "  total")
        if other:
            old_rows = [o for (s, _), o in other.items() if s == set_name]
            if old_rows:
                _totals(old_rows, "  other")


def _totals(rows: list[dict], label: str) -> None:
    bugs = sum(j["bugs"] for j in rows)
    cat = sum(j["catalogued"] for j in rows)
    unk = sum(j["unknown"] for j in rows)
    print(f"{label}: wrong names {sum(len(j['wrong']) for j in rows)}; named {sum(len(j['named']) for j in rows)}/{cat}; "
          f"unexplained {sum(j['unknown_found'] for j in rows)}/{unk}; missed {sum(len(j['missed']) for j in rows)}; "
          f"findings per bug {sum(j['rows'] for j in rows) / max(1, bugs):.2f}; fit lines without scope "
          f"{sum(len(j['unscoped']) for j in rows)}; wall {sum(j['seconds'] for j in rows):.0f}s, "
          f"cpu {sum(j['cpu'] for j in rows):.0f}s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", type=Path, default=ROOT, help="a tree holding audit/ and reference_impl/")
    ap.add_argument("--engines", help="label=tree,label=tree: audit each module by each engine, alternated "
                                      "(the same load for both), and print them side by side")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--max-examples", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", help="module names")
    ap.add_argument("--json", type=Path, help="write the raw results here")
    ap.add_argument("--compare", type=Path, help="a --json file of another run, printed beside")
    args = ap.parse_args()
    engines = dict(e.split("=", 1) for e in args.engines.split(",")) if args.engines else {"this": str(args.engine)}
    jobs = [j for j in _jobs(args.sets.split(",")) if not args.only or j[2] in args.only]
    runs = [(label, j) for j in jobs for label in engines]  # alternated: each module by each engine in turn
    with ThreadPoolExecutor(args.jobs) as pool:  # each audit is its own process
        raw = list(pool.map(lambda r: _run(Path(engines[r[0]]).resolve(), r[1][1], r[1][2], args.max_examples), runs))
    by_engine: dict = {label: [] for label in engines}
    for (label, (s_, p_, m_)), r in zip(runs, raw):
        by_engine[label].append({"set": s_, "package": p_, "name": m_, **r})
    if args.json:
        args.json.write_text(json.dumps(by_engine if args.engines else by_engine["this"], indent=1))
    labels = list(engines)
    judged = [judge(r["set"], r["package"], r["name"], r) for r in by_engine[labels[-1]]]
    other = None
    if len(labels) > 1:
        other = {(r["set"], r["name"]): judge(r["set"], r["package"], r["name"], r) for r in by_engine[labels[0]]}
        print(f"{labels[-1]} (each line), beside {labels[0]} (| old: ..., and 'other' totals)")
    elif args.compare:
        prev = json.loads(args.compare.read_text())
        prev = prev[next(iter(prev))] if isinstance(prev, dict) else prev
        other = {(r["set"], r["name"]): judge(r["set"], r["package"], r["name"], r) for r in prev}
    report(judged, other)


if __name__ == "__main__":
    main()

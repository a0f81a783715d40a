"""Standalone repros of the calibration findings (many datasets, not one input).

The audit's inputs come from numpy generators; the snippet regenerates statistically
equivalent data with the standard library's ``random`` so that it imports only the audited
library, then calls the procedure the way its own repro snippet does (``Procedure.snippet``
with no data: imports, then statements ending in ``print(EXPR)``).
"""

from __future__ import annotations

_GENERATOR = '''import random
rng = random.Random(0)
words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 8)))
         for _ in range(400)]
def sentence(lo, hi):
    return [rng.choice(words) for _ in range(rng.randint(lo, hi))]
def corrupt(ws, rate):
    return [rng.choice(words) if rng.random() < rate else w for w in ws]
'''


def _split(proc, call: dict):
    code = proc.snippet({k: v for k, v in call.items() if k not in ("hyps", "hyps_b", "refs")})
    lines = [ln for ln in code.rstrip("\n").split("\n") if ln.strip()]
    head = [ln for ln in lines if ln.startswith(("import ", "from ", "os.environ"))]
    body = [ln for ln in lines if ln not in head]
    if not body or not body[-1].startswith("print(") or not body[-1].endswith(")"):
        return None
    return head, body[:-1], body[-1][len("print("):-1]


def null_calibration(proc, call: dict, trials: int, segments: int) -> str | None:
    parts = _split(proc, call)
    if parts is None:
        return None
    head, body, expr = parts
    inner = "\n".join("    " + ln for ln in body)
    return ("\n".join(head) + "\n" + _GENERATOR + f'''rejections, ps = 0, []
for t in range({trials}):
    # two systems exchangeable by construction: independent corruptions at the same rate
    hyps, hyps_b, refs = [], [], []
    for _ in range({segments}):
        ref = sentence(3, 15)
        rate = rng.uniform(0.1, 0.8)
        refs.append([" ".join(ref)])
        hyps.append(" ".join(corrupt(ref, rate)))
        hyps_b.append(" ".join(corrupt(ref, rate)))
{inner}
    p = {expr}
    ps.append(p)
    rejections += p <= 0.05
print("type-I error at alpha=0.05:", rejections / {trials}, "(a calibrated test: ~0.05)")
print("largest p-value:", max(ps), "(uniform p-values reach ~1)")
''')


def coverage(proc, call: dict, truth: float, trials: int, segments: int, pool: int) -> str | None:
    parts = _split(proc, call)
    if parts is None:
        return None
    head, body, expr = parts
    inner = "\n".join("    " + ln for ln in body)
    top = "\n".join(body)
    return ("\n".join(head) + "\n" + _GENERATOR + f'''# a pool of many short near-perfect and a few long poor segments
pool = []
for _ in range({pool}):
    if rng.random() < 0.25:
        ref = sentence(25, 40); hyp = corrupt(ref, 0.75)
    else:
        ref = sentence(1, 3); hyp = corrupt(ref, 0.1)
    pool.append((" ".join(hyp), " ".join(ref)))
hyps, refs = [h for h, _ in pool], [[r] for _, r in pool]
{top}
truth = ({expr})[0]  # corpus chrF of the pool (the library's own point estimate)
covered = 0
for t in range({trials}):
    sample = [rng.choice(pool) for _ in range({segments})]
    hyps, refs = [h for h, _ in sample], [[r] for _, r in sample]
{inner}
    result = ({expr})
    covered += result[1] <= truth <= result[2]
print("coverage:", covered / {trials}, "expected about", 1 - {call.get("alpha", 0.05)!r})
''')


def side_effects(proc, call: dict) -> str | None:
    """The call of a side-effect finding, with its inputs watched: prints whether the call
    changed them, and the caller's next draws from both global generators against what they
    would have been (``audit.stats.side_effects``: both seeded with STATE_SEED first)."""
    from .procedures import data_lines
    from .side_effects import STATE_SEED
    parts = _split(proc, call)
    if parts is None:
        return None
    head, body, expr = parts
    conv = []
    if call.get("form") == "numpy":
        conv = [f"{k} = np.array({k})" for k in ("hyps", "hyps_b", "refs") if k in call]
    # the watch starts just before the statement that calls the library
    at = next((i for i, ln in enumerate(body) if not ln.startswith(("refs", "hyps"))), len(body))
    watch = [f"np.random.seed({STATE_SEED}); random.seed({STATE_SEED})",
             "watched = {k: copy.deepcopy(v) for k, v in dict(globals()).items()",
             "           if k in ('hyps', 'hyps_b', 'refs', 'refs_streams')}"]
    tail = [f"print({expr})",
            "for k, v in watched.items():",
            "    same = np.array_equal(v, globals()[k]) if isinstance(v, np.ndarray) else v == globals()[k]",
            "    print(k, 'unchanged' if same else 'CHANGED by the call')",
            f"print('next np.random.random():', np.random.random(), 'expected',"
            f" np.random.RandomState({STATE_SEED}).random_sample())",
            f"print('next random.random():', random.random(), 'expected', random.Random({STATE_SEED}).random())"]
    lines = (["import copy", "import random", "import numpy as np", *head, *data_lines(call), *conv,
              *body[:at], *watch, *body[at:], *tail])
    return "\n".join(lines) + "\n"

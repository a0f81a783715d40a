"""What a call changes in its caller's process: the side-effect probe.

Users call an interval or a test inside their own evaluation scripts, with their own lists
(or numpy arrays) and their own random streams.  A procedure that sorts, lowercases or
pops the lists it is given, or reseeds / draws from ``numpy.random``'s global generator or
Python's ``random``, changes the caller's data or makes the caller's later draws depend on
the call.  Over JSON (the worker protocol) none of that is visible, so the probe runs where
the procedure runs: inside the callable worker (``audit.stats.callable_worker``), or in
chrf-audit's process for its own procedures.

Standard library and numpy only (it is imported by the worker next to code under audit).
"""

from __future__ import annotations

import copy
import random
from typing import Callable, Optional

import numpy as np

try:  # shared with the worker, which checks every call of an implementation (the caller's lists)
    from ..adapters.arguments import difference
except ImportError:  # loaded alone, by its file, in the evaluatio server's venv: the file, by its path
    import importlib.util
    from pathlib import Path

    _spec = importlib.util.spec_from_file_location(
        "chrf_audit_arguments", Path(__file__).resolve().parents[1] / "adapters" / "arguments.py")
    _arguments = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_arguments)
    difference = _arguments.difference

#: Both global generators are seeded with this before the call, so the report can say what
#: the caller's next draw would have been.
STATE_SEED = 12345
FORMS = ("lists", "numpy")


def arguments(kind: str, form: str, hyps, refs, hyps_b=None) -> list:
    """The positional arguments of a call, as Python lists or as numpy arrays (hypotheses a
    1-d array of str, references a 2-d array when every segment has as many references)."""
    hy, rf = [str(h) for h in hyps], [[str(x) for x in r] for r in refs]
    hb = None if hyps_b is None else [str(h) for h in hyps_b]
    if form == "numpy":
        hy = np.array(hy)
        hb = None if hb is None else np.array(hb)
        rf = np.array(rf) if len({len(r) for r in rf}) == 1 else np.array([list(r) for r in rf], dtype=object)
    return [hy, rf] if kind == "ci" else [hy, hb, rf]


def names(kind: str) -> list[str]:
    return ["hypotheses", "references"] if kind == "ci" else ["hypotheses_a", "hypotheses_b", "references"]


def _np_state_same(s1, s2) -> bool:
    return s1[0] == s2[0] and np.array_equal(s1[1], s2[1]) and tuple(s1[2:]) == tuple(s2[2:])


def probe(fn: Callable, kind: str, args: list, kwargs: dict):
    """Call ``fn(*args, **kwargs)`` with both global generators seeded and the arguments
    copied; return (result, exception or None, [change, ...])."""
    kept = copy.deepcopy(args)
    np.random.seed(STATE_SEED)
    random.seed(STATE_SEED)
    np_state, py_state = np.random.get_state(), random.getstate()
    result, error = None, None
    try:
        result = fn(*args, **kwargs)
    except BaseException as e:  # noqa: BLE001 - reported with the changes, never raised
        error = e
    changes = [d for d in (difference(n, b, a) for n, b, a in zip(names(kind), kept, args)) if d]
    if not _np_state_same(np_state, np.random.get_state()):
        nxt = float(np.random.random())
        changes.append(f"numpy.random's global state changed: the caller's next np.random.random() "
                       f"gives {nxt!r} instead of {float(np.random.RandomState(STATE_SEED).random_sample())!r}")
    if random.getstate() != py_state:
        changes.append(f"Python's random state changed: the caller's next random.random() gives "
                       f"{random.random()!r} instead of {random.Random(STATE_SEED).random()!r}")
    return result, error, changes

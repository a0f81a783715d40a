"""What a call changed in the lists it was given: the caller's data.

Users call a metric (or an interval, a test) inside their own scripts, with their own
lists.  One that clears, sorts or rewrites the lists it is given changes the caller's data:
a bug whatever score it returns (issue 29: an implementation that cleared its caller's
reference list was not flagged).  The worker checks every call of a Python implementation
(``backends.Backend.call``); the stats audit's side-effect probe says the same for its
procedures (``audit.stats.side_effects``, numpy arrays too).  Standard library only, and
duck-typed for arrays, so the worker imports nothing more for it.
"""

from __future__ import annotations

from typing import Optional


def _plain(x):
    if hasattr(x, "tolist") and hasattr(x, "dtype"):  # a numpy array
        return x.tolist()
    return [_plain(v) for v in x] if isinstance(x, list) else x


def difference(name: str, before, after) -> Optional[str]:
    """How ``after`` differs from ``before`` (a list or array of str, possibly nested)."""
    if type(before) is not type(after):
        return f"{name}: {type(before).__name__} replaced by {type(after).__name__}"
    if hasattr(before, "dtype") and hasattr(before, "shape") and (
            before.shape != after.shape or before.dtype != after.dtype):
        return f"{name}: array of shape {before.shape} {before.dtype} became {after.shape} {after.dtype}"
    b, a = _plain(before), _plain(after)
    if a == b:
        return None
    if len(a) != len(b):
        return f"{name}: length {len(b)} became {len(a)}"
    if sorted(map(repr, b)) == sorted(map(repr, a)):
        try:
            how = "sorted" if a == sorted(a) else "reordered"
        except TypeError:
            how = "reordered"
        return f"{name}: {how} in place (same elements, new order)"
    i = next(i for i, (x, y) in enumerate(zip(b, a)) if x != y)
    return f"{name}[{i}]: {str(b[i])[:80]!r} became {str(a[i])[:80]!r}"


def snapshot(args: tuple) -> tuple:
    """A copy of a call's ``(hypothesis or hypotheses, references)`` that the call cannot
    change (texts are immutable: the lists are copied, one level down for a corpus)."""
    hyps, refs = args
    return (hyps if isinstance(hyps, str) else list(hyps)), [r if isinstance(r, str) else list(r) for r in refs]


def changes(kept: tuple, args: tuple) -> str:
    """What the call changed in the lists it was given ("" when nothing)."""
    if _same(kept, args):
        return ""
    names = ("hypothesis", "references") if isinstance(kept[0], str) else ("hypotheses", "references")
    for name, before, after in zip(names, kept, args):
        try:
            why = difference(name, before, after)
        except Exception as e:  # noqa: BLE001 - whatever the call put in them
            why = f"{name}: changed ({type(e).__name__})"
        if why:
            return f"the call changed the {name} it was given ({why})"
    return ""


def _same(kept: tuple, args: tuple) -> bool:
    try:
        return type(kept[0]) is type(args[0]) and kept[0] == args[0] and type(args[1]) is list \
            and kept[1] == args[1] and all(type(r) is type(k) for r, k in zip(args[1], kept[1]))
    except Exception:  # noqa: BLE001 - an element whose __eq__ raises
        return False

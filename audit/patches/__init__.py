"""Validate a patch of a chrF implementation: audit it before and after, replay the repros.

The same path serves ``chrf-audit validate-patch`` (``validate``) and the report's suggested
patches (``verify_suggested``):

1. the *after* tree (``diffs``): the diff is applied to a temporary copy of the package(s)
   it touches (``audit.upstream.patching.apply_to_copy``: the installed package, or the
   source checkout when one is given, is never written to), or the source checkout is used
   as it is;
2. the implementation is audited in SEPARATE Python processes (``jobs``, ``worker``:
   ``python -m audit.patches REQUEST.json``): *before* with the environment as it
   is (or, for a suggested patch, the audit that suggested it), *after* with PYTHONPATH
   starting at the after tree (the after process checks that the patched copy is what it
   imports);
3. the families differing between the two sides are cross-replayed (``validate``), each
   minimal repro on the other side: *fixed* when its before-repro agrees with the reference
   after the patch, *introduced* when its after-repro diverges after but not before, *still
   present* otherwise.

The report's suggested patches, the combined patch among them, are judged by ONE judge
(``suggested.verdict``): verified only when every family the patch is meant to fix is fixed,
none is introduced, each family's issue repro scores the reference's value on the patched
copy, an opt-in patch leaves the default unchanged, and none of the library's own tests
breaks (``library_tests``: the module's doctests and chrF test files, before and after).

Errors a user can act on (malformed or non-applying diff, unknown implementation, module
not found, ...) are ``UsageError``: one line, exit 2.
"""

from .diffs import (
    OWN_PACKAGES, normalize_diff, package_root, prepare_after, read_diff, refuse_foreign, source_root,
)
from .render import render
from .suggested import VERIFY_EXAMPLES, summary, verdict, verify_suggested
from .validate import FIXED, INTRODUCED, STILL, FamilyStatus, Target, Validation, validate
from .worker import main

__all__ = [
    "FIXED", "STILL", "INTRODUCED", "VERIFY_EXAMPLES", "Target", "FamilyStatus", "Validation", "validate",
    "verify_suggested", "render", "read_diff", "normalize_diff", "prepare_after", "refuse_foreign",
    "source_root", "package_root", "OWN_PACKAGES", "main", "verdict", "summary",
]

"""chrF implementations with several planted bugs each, written from docs/definitions.md
(not from the audit's bug models), for checking that the audit names every bug of an
implementation that has several at once (issue 20).

Each module ``<name>.py`` is one implementation, in its own style (loops, Counter, numpy,
fractions, a library-like class), and exposes:

* ``sentence(hypothesis, references) -> float`` and ``corpus(hypotheses, references)``
  (``references[i]`` lists segment i's references), on the scale of ``CLAIMS``;
* ``CLAIMS``: char_order, word_order, beta, lowercase, whitespace, definition, scale;
* ``ACCEPTS`` (optional): claim names the callables take as keyword arguments, with the
  claimed values as defaults (the audit varies them to find ``parameter-ignored-*`` bugs);
* ``BUGS``: {family id: how this code has it}; every one not ``HIDDEN`` must be named by the audit.  The ids
  are catalogued families (``audit.diagnose.families.FAMILIES``) or the new ones in ``NEW_FAMILIES``;
* ``UNCATALOGUED``: bugs no family describes (one line each);
* ``ALLOWED``: further family ids that truly describe the code (``exception`` when it raises
  on some input class, ``out-of-range``, ``invalid-output``, ...); ``unexplained`` and
  ``metamorphic-*`` findings are never wrong either;
* ``EXCEPTIONS`` (optional): {uncatalogued description: (exception type name, message
  fragment)} for the bugs that raise; different entries are different findings;
* ``HIDDEN`` (optional): catalogued bugs behind a pervasive uncatalogued one that no evidence a
  name needs reaches (issue 30: the recall the rule costs; tests/test_multibug.py holds it exact);
* ``PERVASIVE``: True when one of its bugs alone changes almost every score (measured: at
  least 80% of the positive sentence scores of two seeded samples, short texts and sentences
  of words; the material test holds the flag to that);
* ``WITNESSES``: {bug id or uncatalogued description: (level, keyword arguments of the
  level's callable)}: an input on which that bug alone changes the score (compared with
  ``reference_impl``) and on which switching it off in the full implementation changes it too;
* ``_make(bugs)``: the same code with only the given bugs (keys of BUGS / entries of
  UNCATALOGUED) switched on, returning ``(sentence, corpus)``; ``_make(frozenset())`` is a
  correct implementation of the claims.

``tests/test_planted_multibug_material.py`` checks all of this without running the audit.
"""

import pkgutil

#: Family ids the audit adds for bugs from public issue trackers (issue 20, item 6).
NEW_FAMILIES = frozenset({
    "reference-string-as-list", "references-joined", "reference-streams-transposed",
    "empty-references-dropped", "corpus-single-segment",
    "parameter-ignored-char-order", "parameter-ignored-word-order", "parameter-ignored-beta",
    "parameter-ignored-lowercase", "parameter-ignored-whitespace",
})


def modules() -> list[str]:
    """The implementation modules' names (``tests.planted_multibug.<name>``)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))

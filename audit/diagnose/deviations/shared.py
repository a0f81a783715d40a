"""What the registry's entries share: the root-cause lines several families of one library
point at on purpose (``SHARED_ROOTS``), the whitespace families' rivals, and the mechanisms of
real code no family names (``RIVALS``), declared as rivals of the families they mimic."""

from __future__ import annotations

from .deviation import Rival

# -- root causes: upstream library -> (regex on one line of its installed source, what it shows).
# A family never borrows another family's line: two families of one library may share a
# pattern only when SHARED_ROOTS below says they share the cause, and why (checked when the
# registry is built, audit.diagnose.deviations).  sacreBLEU removes whitespace in
# sacrebleu.metrics.helpers (extract_all_char_ngrams), outside the module searched, so its
# whitespace families have no pointer.
_WS_NLTK = (r"redos\.sub\(\s*r?[\"']\\s",
            "`\\s` of nltk's regex wrapper matches Unicode White_Space, which lacks "
            "U+001C..U+001F that str.isspace() (and sacreBLEU) remove")

#: library -> {families: why they share one root-cause line}
SHARED_ROOTS = {
    "nltk": {
        frozenset({"whitespace-set-white-space", "metamorphic-whitespace"}):
            "the metamorphic relation inserts whitespace the definition removes; the characters nltk "
            "keeps (U+001C..U+001F) are the ones its whitespace set lacks, so the relation breaks on the "
            "very line that makes the whitespace set wrong",
    },
}

_WS_RIVALS = ("whitespace-set-ascii-space", "whitespace-set-ascii", "whitespace-set-white-space",
              "whitespace-set-java", "whitespace-set-javascript", "whitespace-stripped-ends-only", "whitespace-kept",
              "whitespace-collapsed")

#: Mechanisms of real code no family names, declared as rivals of the families they mimic.
RIVALS = [
    Rival(id="regex-word-runs", title="word tokens are the runs of a \\w+|[^\\w\\s] regular expression",
          stage="text", models=(("words", "regex-word-runs"),)),
    Rival(id="incomplete-batch-dropped",
          title="segments are scored in batches and an incomplete last batch is dropped", stage="text",
          models=tuple(("corpus_layout", f"batches-{k}") for k in (2, 3, 4, 8))),
    Rival(id="reference-ties-to-last", title="of references tied at the best score the last one is used",
          stage="score", models=(("references", "tie-last"),)),
]


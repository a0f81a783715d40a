"""The conformance matrix: which definitions an implementation meets, level by level."""

from __future__ import annotations

from .families import FAMILIES, key_families


def conformance(checker, adapter, found: dict, levels: list[str], max_classified: int = 8) -> dict:
    """definition -> level -> families that break it (empty: the implementation meets it).

    The claimed definition is judged by the search itself; every other definition by
    re-scoring the inputs the search ran (under the claimed parameters) with the reference
    following that definition and classifying the divergences the same way.  Outcomes that
    are not numbers (crash, timeout, ...) and nondeterminism break every definition.
    """
    from dataclasses import replace as dc_replace

    from reference_impl import DEFINITIONS, corpus_fscore, segment_statistics, sentence_fscore, sum_stats

    claimed = adapter.claims.definition
    universal = {k[0] for k in found if k[0] in ("exception", "crash", "timeout", "invalid-output", "nondeterminism",
                                                 "metamorphic-segment-order", "metamorphic-added-reference")}
    base = adapter.claims.params()
    out: dict[str, dict[str, list[str]]] = {}
    for definition in DEFINITIONS:
        out[definition] = {}
        params = dc_replace(base, definition=definition)
        divergent_sentences: list = []
        for level in levels:
            families = set(universal)
            if definition == claimed:
                families |= {f for key, c in found.items() for f in key_families(key)
                             if c.minimal is not None and c.minimal.level == level and not c.minimal.changes}
            samples = []
            if level == "corpus" and definition != claimed:
                # What diverges in a sentence diverges in the corpus of that one sentence
                # (judged first: the classification budget is small).
                for segments in divergent_sentences[:max_classified // 2]:
                    value = checker._score_segments(adapter, "corpus", segments)
                    if value is not None:
                        samples.append((segments, value))
            samples += checker.samples[level]
            classified = 0
            for segments, value in samples:
                per_seg = [segment_statistics(h, refs, params) for h, refs in segments]
                stats = [s for s, _ in per_seg]
                expected = (sentence_fscore(stats[0], params) if level == "sentence"
                            else corpus_fscore(sum_stats(stats, params.order), params))
                if abs(float(expected) - value) <= checker.tolerance:
                    continue
                if level == "sentence":
                    divergent_sentences.append(segments)
                if definition == claimed or classified >= max_classified:
                    continue  # the search judged the claimed definition; the rest: enough seen
                classified += 1
                ex = checker._classify(adapter, level, segments, params, value)
                families.update(ex.families if ex else ["unexplained"])
                if ex is None:
                    break  # nothing explains it: one unexplained input says enough, and costs most
            out[definition][level] = sorted(families, key=lambda f: list(FAMILIES).index(f) if f in FAMILIES else 999)
    return out


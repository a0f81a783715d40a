"""A planted implementation for the sweep isolation tests: the reference's own score
(sacreBLEU definition, defaults), except that it logs the id of the process that runs it to
$CHRF_AUDIT_PID_LOG, raises on U+3000 (IDEOGRAPHIC SPACE), returns NaN on U+0085 (NEXT LINE)
and kills its own process on U+2028 (LINE SEPARATOR): a whitespace sweep meets all three."""

import math
import os


def chrf(hypothesis, references):
    log = os.environ.get("CHRF_AUDIT_PID_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()}\n")
    if "\u3000" in hypothesis:
        raise ValueError("planted: ideographic space")
    if "\u0085" in hypothesis:
        return math.nan
    if "\u2028" in hypothesis:
        os._exit(7)
    from reference_impl import sentence_score

    return float(sentence_score(hypothesis, list(references)).score)

"""An implementation whose fresh processes die (issue 39, item 7): the first process to call
it answers (one point too high on hypotheses longer than two characters, so that the audit
has findings to replay); once it has answered 5 calls it leaves a mark
($CHRF_FRESH_MARK), and every process that imports it after that dies on each call
(``os._exit(3)``), as the fresh workers replaying the repros do."""

import os

from reference_impl import sentence_score

MARK = os.environ.get("CHRF_FRESH_MARK", "")
LATE = bool(MARK) and os.path.exists(MARK)
_calls = 0


def sentence(hypothesis, references):
    global _calls
    if LATE:
        os._exit(3)
    _calls += 1
    if _calls == 5 and MARK:
        open(MARK, "w").close()
    score = float(sentence_score(hypothesis, list(references)).score)
    return score + 1.0 if len(hypothesis) > 2 else score


def alternate(hypothesis, references):
    """Every second call of a process dies: the checker's repeated call of an input crashes
    where the first answered (a crash, never a second value)."""
    global _calls
    _calls += 1
    if _calls % 2 == 0:
        os._exit(3)
    return float(sentence_score(hypothesis, list(references)).score)

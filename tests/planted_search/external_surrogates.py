"""An external program (JSON lines) computing correct chrF that answers an error on any text
holding a lone surrogate.  ``--accept`` makes its hello say ``"lone_surrogates": true``."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.planted.base import CHRF  # noqa: E402

ACCEPT = "--accept" in sys.argv[1:]


def lone(texts) -> bool:
    return any("\ud800" <= c <= "\udfff" for t in texts for c in t)


for line in sys.stdin:
    req = json.loads(line)  # a "\udXXX" escape becomes an unpaired surrogate here
    rid = req["id"]
    if req["op"] == "hello":
        print(json.dumps({"id": rid, "version": "1", "lone_surrogates": ACCEPT}), flush=True)
        continue
    if req["op"] == "sentence":
        texts = [req["hypothesis"], *req["references"]]
        score = None if lone(texts) else CHRF.sentence(req["hypothesis"], req["references"])
    else:
        texts = [*req["hypotheses"], *(r for rs in req["references"] for r in rs)]
        score = None if lone(texts) else CHRF.corpus(req["hypotheses"], req["references"])
    answer = {"id": rid, "error": "lone surrogate"} if score is None else {"id": rid, "score": score}
    print(json.dumps(answer), flush=True)

"""A planted external program speaking the protocol's stats operations (for tests).

Its interval resamples sentence scores (a bug); its paired test exits on identical systems
(a crash).  Standard library only, as an external program in another language would be.
"""

import json
import random
import sys


def sentence_chrf(h, r):
    # a crude stand-in: share of reference characters present in the hypothesis
    h, r = h.replace(" ", ""), r.replace(" ", "")
    return 100.0 * sum(min(h.count(c), r.count(c)) for c in set(r)) / len(r) if r else 0.0


def main():
    for line in sys.stdin:
        req = json.loads(line)
        op = req["op"]
        if op == "hello":
            out = {"name": "planted-external", "version": "0", "stats": {
                "ci": {"accepts": ["resamples", "alpha", "seed"]},
                "paired-permutation": {"accepts": ["resamples", "seed"]}}}
        elif op == "ci":
            s = [sentence_chrf(h, rs[0]) for h, rs in zip(req["hypotheses"], req["references"])]
            rng = random.Random(req["seed"])
            n = len(s)
            means = sorted(sum(s[rng.randrange(n)] for _ in range(n)) / n for _ in range(req["resamples"]))
            k = int(req["alpha"] / 2 * len(means))
            out = {"score": sum(s) / n, "low": means[k], "high": means[-k - 1]}
        elif op == "paired":
            if req["hypotheses"] == req["hypotheses_b"]:
                sys.exit(3)
            out = {"p_value": 0.5}
        else:
            out = {"error": "unknown op"}
        out["id"] = req["id"]
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()

"""A planted external program that answers each pair of requests in reverse order."""

import json
import sys

pending = []
for line in sys.stdin:
    req = json.loads(line)
    if req.get("op") == "hello":
        print(json.dumps({"id": 0}), flush=True)
        continue
    pending.append(req)
    if len(pending) == 2:
        for r in reversed(pending):
            print(json.dumps({"id": r["id"], "score": 50.0}), flush=True)
        pending = []

"""A planted external program (JSON-lines protocol) that misbehaves on trigger hypotheses."""

import json
import os
import sys
import time

for line in sys.stdin:
    req = json.loads(line)
    rid = req.get("id")
    if req.get("op") == "hello":
        print(json.dumps({"id": rid, "error": "no handshake here"}), flush=True)
        continue
    hyp = req.get("hypothesis", "")
    if hyp == "exit":
        os._exit(4)
    if hyp == "hang":
        time.sleep(1000)
    if hyp == "half":  # half an answer line, then silence
        sys.stdout.write('{"id": %d, "sco' % rid)
        sys.stdout.flush()
        time.sleep(1000)
    if hyp == "close-stdout":  # no more answers, but still running
        os.close(1)
        time.sleep(1000)
    if hyp == "exit-fork":  # dies, while a child it forked keeps stdout open
        if os.fork() == 0:
            time.sleep(1000)
        os._exit(6)
    if hyp == "flood":  # 8 MiB without a newline, then silence
        chunk = b"x" * 65536
        for _ in range(128):
            os.write(1, chunk)
        time.sleep(1000)
    if hyp == "garbage":
        print("this is not json", flush=True)
        continue
    if hyp == "nested":  # one line of 200,000 nested arrays: RecursionError in a naive parser
        print("[" * 200_000, flush=True)
        continue
    if hyp == "error":
        print(json.dumps({"id": rid, "error": "boom"}), flush=True)
        continue
    if hyp == "null":
        print(json.dumps({"id": rid, "score": None}), flush=True)
        continue
    if hyp == "nan":
        print('{"id": %d, "score": NaN}' % rid, flush=True)
        continue
    print(json.dumps({"id": rid, "score": float(len(hyp))}), flush=True)

"""An external program (JSON-lines protocol) that daemonizes on every request: the daemon
sleeps, its pid appended to $CHRF_DAEMON_PIDS (issue 19, item 10)."""

import json
import sys

from planted_daemon import daemonize

for line in sys.stdin:
    req = json.loads(line)
    if req.get("op") == "hello":
        print(json.dumps({"id": req["id"], "error": "no handshake here"}), flush=True)
        continue
    daemonize(300)
    print(json.dumps({"id": req["id"], "score": float(len(req.get("hypothesis", "")))}), flush=True)

"""Batched vs one-request-per-input audit of a scoring service (--http, issue 22).

Starts the reference service (examples/chrf_service.py, uvicorn on 127.0.0.1, a free port)
and audits N sentence inputs drawn from the search's own strategy: each is scored by the
service and held to the exact reference, as the contract checks' segment sample does.

* batched: the contract lets one request score up to 256 segments, so N inputs are
  ceil(N / 256) requests (``HttpAdapter.batches``), each answer judged on every promise;
* per input: one request per input, each answer judged the same way, as a client that
  ignored the batch would send.

Each both ways: *overlapped*, as the audit judges (``judge_all``: the judge computes its
exact values once the request is written, while the service computes, ``HttpClient.send``'s
``on_written``), and *sequential* (send, wait for the answer, compute, judge).  The ratio is
taken against the faster per-input way: the best a client that ignores the batch can do.
All four in the same run, --runs times each (alternating); prints the medians and the ratios.

    python benchmarks/bench_http_batching.py [--n 1024] [--runs 5] [--rtt-ms 0]

On bare loopback the batched audit is compute-bound (the exact metric computed for every
segment, by the Python service and again by the judge, plus the output schema; with a free
core the overlap runs the two at once) and the per-input audit request-bound, so the ratio
is the per-request cost over the per-segment compute; ``--rtt-ms`` adds a network round
trip to every answer, as any service that is not on this machine has.  Results and numbers:
docs/http.md, "Batching, measured".
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def drawn_inputs(adapter, n: int) -> list[tuple[str, list[str]]]:
    """N sentence inputs from the search's strategy (seeded: the same on every run)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from audit.collect.search import no_wall_clock, strategies

    sentence, _, _ = strategies(adapter)
    out = []

    @hseed(0)
    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(sentence)
    def collect(x):
        if len(out) < n:
            out.append((x["hypothesis"], [x["references"][0]]))
    with no_wall_clock():
        collect()
    return out


class Sequential:
    """The client without the overlap: ``on_written`` is ignored, so the judge computes its
    exact values only once the answer has come."""

    def __init__(self, client):
        self.client = client

    def confirmed(self, body, on_written=None):
        return self.client.confirmed(body)


def check(adapter, items, batched: bool, overlapped: bool) -> tuple[float, int, int]:
    """Seconds to audit ``items`` as the contract checks' segment sample does (send, then judge
    every answer on every promise: schema, segment scores, rounding, tokens, corpus score);
    requests sent; promises broken (0 for the reference service)."""
    from audit.contract.checks import ContractRun, judge_all
    from audit.contract.judge import Judge
    from audit.contract.probes import _score

    contract = adapter.contract
    groups = adapter.batches(items) if batched else [[i] for i in range(len(items))]
    before = adapter.client.requests
    t0 = time.perf_counter()
    probes = [_score(contract, f"batch {k}", [items[i][0] for i in g], [items[i][1][0] for i in g])
              for k, g in enumerate(groups)]
    run = ContractRun()
    judge_all(run, Judge(contract), probes, adapter.client if overlapped else Sequential(adapter.client))
    return time.perf_counter() - t0, adapter.client.requests - before, len(run.broken)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--rtt-ms", type=float, default=0.0,
                   help="a network round trip the service adds to every answer (default 0: bare loopback)")
    args = p.parse_args()
    proc = subprocess.Popen([sys.executable, str(ROOT / "examples" / "chrf_service.py"), "--port", "0",
                             "--delay-ms", str(args.rtt_ms)],
                            stdout=subprocess.PIPE, start_new_session=True)
    try:
        url = proc.stdout.readline().decode().split()[-1]
        from audit.adapters import resolve

        [adapter] = resolve(http=url, contract="chrf-plus-plus-compute@1.0.0", timeout=30)
        items = drawn_inputs(adapter, args.n)
        modes = [(b, o) for b in (True, False) for o in (True, False)]
        times = {m: [] for m in modes}
        for _ in range(args.runs):
            for batched, overlapped in modes:
                seconds, requests, bad = check(adapter, items, batched, overlapped)
                assert bad == 0, f"{bad} promises broken by the reference service"
                times[batched, overlapped].append((seconds, requests))
        adapter.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    med = {m: statistics.median(s for s, _ in v) for m, v in times.items()}
    print(f"{len(items)} sentence inputs, {args.runs} runs each, round trip {args.rtt_ms:g} ms added, medians:")
    for (batched, overlapped), label in (((True, True), "batched, overlapped (the audit)"),
                                         ((True, False), "batched, sequential"),
                                         ((False, True), "one request per input, overlapped"),
                                         ((False, False), "one request per input, sequential")):
        print(f"  {label:36s} {med[batched, overlapped] * 1000:9.1f} ms   {times[batched, overlapped][0][1]} requests")
    per_input = min(med[False, True], med[False, False])
    print(f"  ratio: batched is {per_input / med[True, True]:.1f} times faster than the faster per-input way "
          f"({med[False, False] / med[True, False]:.1f} times, both sequential)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""seed-load wall time and peak memory per claim-status strategy (targets: ≤ 5 s, issue 16; ≤ 1 GB per strategy).

The run is the seed scenario's default: the 953032b3 build with the model fitted from PR #508's first table
(docs/reproducing-pr-508.md). ``cpu_seconds`` (process time) and ``us_per_request`` compare runs on a busy
machine better than the wall clock does; the load average is taken as each run ends.

``run()`` returns a dict the lead's ``python -m benchmarks`` prints as JSON. Peak memory is the process's
peak RSS growth while the run is under way (``resource.getrusage``), measured in a child process per
strategy so one run's heap does not hide the next one's.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import time
from typing import Any

STRATEGIES = ("update", "patch", "patch-lock")


def _one(mode: str, seed: int, queue: Any) -> None:
    from fakekube.agentsandbox.report import summarize
    from fakekube.agentsandbox.scenarios import run_scenario
    from fakekube.agentsandbox.strategies import WriteStrategies

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start, cpu = time.perf_counter(), time.process_time()
    run = run_scenario("seed-load", WriteStrategies(mode), seed=seed)  # type: ignore[arg-type]
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    summary = summarize(run)
    requests = summary["api_requests"]["total"]
    queue.put({
        "build": summary["build"],
        "wall_seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "us_per_request": round(cpu / requests * 1e6, 1),
        "peak_rss_mb": round(peak / 1024, 1),
        "rss_growth_mb": round((peak - before) / 1024, 1),
        "api_requests": requests,
        "claim_status_conflicts": summary["conflicts"]["claim_status"],
        "stale_overwrites": summary["stale_overwrites"]["total"],
        "simulated_seconds": summary["simulated_seconds"],
    })


def run(strategies: tuple[str, ...] = STRATEGIES, seed: int = 1) -> dict[str, Any]:
    ctx = multiprocessing.get_context("fork")
    results: dict[str, Any] = {}
    for mode in strategies:
        queue = ctx.Queue()
        proc = ctx.Process(target=_one, args=(mode, seed, queue))
        proc.start()
        results[mode] = queue.get()
        proc.join()
    return {"scenario": "seed-load", "seed": seed, "targets": {"wall_seconds": 5, "peak_rss_mb": 1024},
            "strategies": results}


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))

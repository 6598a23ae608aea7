"""Exploration throughput: seed-timeline runs per wall-clock second, per core.

``fakekube explore`` runs are independent simulations, so throughput is runs per second of one process
(one core) times the processes. Measured here: ``seeds`` seed-timeline runs with the #508 claim-status patch
and its three invariants, once in this process (``jobs=1``: runs per second per core) and once over every CPU
(``jobs=cpu_count``), whose per-core figure shows what forking and collecting outcomes cost. On a shared
machine the parallel figure is also bounded by whatever else runs there.
"""

from __future__ import annotations

import multiprocessing
import time
from typing import Any

SCENARIO = "seed-timeline"


def _measure(seeds: str, jobs: int) -> dict[str, Any]:
    from fakekube.explore import explore

    start = time.perf_counter()
    found = explore(SCENARIO, seeds, {"claim_status": "patch"}, jobs=jobs)
    wall = time.perf_counter() - start
    runs = len(found.outcomes)
    return {"jobs": jobs, "runs": runs, "wall_seconds": round(wall, 3), "runs_per_second": round(runs / wall, 2),
            "runs_per_second_per_core": round(runs / wall / jobs, 2),
            "failing_runs": len(found.failures())}


def run(seeds: int = 40) -> dict[str, Any]:
    from fakekube.explore import explore

    explore(SCENARIO, "1", {"claim_status": "patch"})  # imports and registry loaded before timing
    cores = multiprocessing.cpu_count()
    serial = _measure(f"1-{seeds}", 1)
    parallel = _measure(f"1-{seeds}", cores) if cores > 1 else serial
    return {"scenario": SCENARIO, "claim_status": "patch", "seeds": seeds, "cpu_count": cores,
            "runs_per_second_per_core": serial["runs_per_second"], "serial": serial, "parallel": parallel}


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))

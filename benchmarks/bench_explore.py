"""Exploration throughput: seed-timeline runs per wall-clock second, per core.

``fakekube explore`` runs are independent simulations, so throughput is runs per second of one process
(one core) times the processes. Measured here: ``seeds`` seed-timeline runs with the #508 claim-status patch
and its three invariants, once in this process (``jobs=1``: runs per second per core) and once over every CPU
(``jobs=cpu_count``). Wall-clock rates on a shared machine depend on whatever else runs there, so the per-core
figure is runs per CPU second (this process and its joined workers, ``getrusage``); the parallel run's
``runs_per_cpu_second`` next to the serial one shows what forking and collecting outcomes cost.
"""

from __future__ import annotations

import multiprocessing
import resource
import time
from typing import Any

SCENARIO = "seed-timeline"


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the pool's workers, once joined)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _measure(seeds: str, jobs: int) -> dict[str, Any]:
    from fakekube.explore import explore

    start, cpu = time.perf_counter(), _cpu_seconds()
    found = explore(SCENARIO, seeds, {"claim_status": "patch"}, jobs=jobs)
    wall, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    runs = len(found.outcomes)
    return {"jobs": jobs, "runs": runs, "wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
            "runs_per_second": round(runs / wall, 2), "runs_per_second_per_core": round(runs / wall / jobs, 2),
            "runs_per_cpu_second": round(runs / cpu, 2), "failing_runs": len(found.failures())}


def run(seeds: int = 40) -> dict[str, Any]:
    from fakekube.explore import explore

    explore(SCENARIO, "1", {"claim_status": "patch"})  # imports and registry loaded before timing
    cores = multiprocessing.cpu_count()
    serial = _measure(f"1-{seeds}", 1)
    parallel = _measure(f"1-{seeds}", cores) if cores > 1 else serial
    # Per core: runs per CPU second of the serial run, which other load on the machine does not deflate.
    return {"scenario": SCENARIO, "claim_status": "patch", "seeds": seeds, "cpu_count": cores,
            "runs_per_second_per_core": serial["runs_per_cpu_second"], "serial": serial, "parallel": parallel}


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))

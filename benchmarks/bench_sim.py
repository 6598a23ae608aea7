"""Simulation throughput: API requests per wall-clock second through the simulation client.

Issue 4's benchmark: 10k objects, one controller with 100 workers, each reconcile a cache GET plus a write
(alternating PUT and merge PATCH) until every object has been bumped ``rounds`` times; watch lag and API
latency on, as in a real run. "Requests" counts every client call (cache reads included, as each is an
await point of the reconciler); the store-only figures are reported next to it. Setup (creating the
objects) is not timed. ``cpu_seconds`` (process time) and the load average are reported next to the wall time:
the machine is shared, and its other work shows in the wall clock, much less in the process time.
"""

from __future__ import annotations

import os
import time
from typing import Any

from benchmarks.timing import quiet_gc
from fakekube.sim import Lag, MergeFrom, Request, Simulation


def _scenario(objects: int = 10_000, workers: int = 100, rounds: int = 3, seed: int = 1,
              pod_sized: bool = False) -> dict[str, Any]:
    sim = Simulation(seed=seed)
    mgr = sim.manager("bench", cache_lag=Lag.uniform(0.001, 0.010), api_latency=Lag.uniform(0.001, 0.003))
    client = mgr.client("bench-controller")
    counts = {"gets": 0, "writes": 0, "conflicts": 0}
    resource = "pods" if pod_sized else "configmaps"

    async def reconcile(req: Request) -> None:
        obj = await client.get(resource, req.name, req.namespace)
        counts["gets"] += 1
        annotations = obj["metadata"].setdefault("annotations", {})
        n = int(annotations.get("bench/n", "0"))
        if n >= rounds:
            return None
        base = {**obj, "metadata": {**obj["metadata"], "annotations": dict(annotations)}}
        annotations["bench/n"] = str(n + 1)
        counts["writes"] += 1
        if n % 2 == 0:
            await client.update(resource, obj)  # a stale cache read makes this 409 → backoff, as in life
        else:
            await client.patch(resource, obj, MergeFrom(base))
        return None

    mgr.controller("bench", reconcile, workers=workers).for_(resource)
    if pod_sized:
        from benchmarks.objects import pod

        for i in range(objects):
            sim.store.create("pods", pod(f"obj-{i:05d}"), "default", actor="setup")
    else:
        for i in range(objects):
            sim.store.create("configmaps", {"metadata": {"name": f"obj-{i:05d}", "namespace": "default",
                                                         "labels": {"app": "bench"}},
                                            "data": {"key": "value", "other": "x" * 64}}, "default", actor="setup")
    audit_before = len(sim.audit)
    with quiet_gc():
        start, cpu = time.perf_counter(), time.process_time()
        sim.run()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    requests = counts["gets"] + counts["writes"]
    store_requests = len(sim.audit) - audit_before
    return {
        "objects": objects,
        "workers": workers,
        "wall_seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
        "virtual_seconds": round(sim.now, 3),
        "client_requests": requests,
        "client_requests_per_second": round(requests / wall),
        "store_requests": store_requests,
        "store_requests_per_second": round(store_requests / wall),
        "conflicts": len(sim.audit.conflicts()),
        "scheduler_steps": sim.scheduler.steps,
        "us_per_client_request": round(wall / requests * 1e6, 1),
        "client_requests_per_cpu_second": round(requests / cpu),
    }


TARGET = 50_000  # client requests per wall second (issue 16)


def run() -> dict[str, Any]:
    result: dict[str, Any] = {
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "configmaps_10k_100_workers": _scenario(),
        "pods_2k_100_workers": _scenario(objects=2_000, pod_sized=True),
    }
    result["target_client_requests_per_second"] = TARGET
    result["meets_target"] = result["configmaps_10k_100_workers"]["client_requests_per_second"] >= TARGET
    return result


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))

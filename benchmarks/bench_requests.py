"""Where seed-load's store time goes, by request type: each top-level store request timed on the thread's CPU
clock and grouped by (verb, resource, subresource, code), next to the run's whole CPU time.

The grouping is what docs/benchmarks.md's tables by request type come from. The thread clock is used because
it counts only this process's work (the machine is shared) and the simulation does not replace it. A
request served inside another (a garbage collector's delete, say) counts in its caller's time, so the
groups add up to the store's share of the run.

``python -m benchmarks requests`` runs seed-load with the update strategy; ``run(scenario, strategy)`` any
other scenario.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from fakekube.audit.log import NO_BODY
from fakekube.requestcycle import RequestCycle

RequestType = tuple[str, str, str, int]


@contextlib.contextmanager
def timed_requests(totals: dict[RequestType, list[float]]) -> Iterator[None]:
    """While active, every top-level store request adds ``[1, thread seconds]`` to ``totals[its type]``."""
    original = RequestCycle._run

    def timed(self: Any, entry_factory: Any, body: Any, request: Any = NO_BODY) -> Any:
        if self._depth:
            return original(self, entry_factory, body, request)
        before = self.last_request()
        start = time.thread_time_ns()
        try:
            return original(self, entry_factory, body, request)
        finally:
            spent = (time.thread_time_ns() - start) * 1e-9
            entry = self.last_request()
            if entry is not None and entry is not before:  # None or unchanged: it failed before its entry
                key = (entry.verb, entry.resource, entry.subresource or "", entry.code)
                row = totals.setdefault(key, [0, 0.0])
                row[0] += 1
                row[1] += spent

    RequestCycle._run = timed  # type: ignore[method-assign]
    try:
        yield
    finally:
        RequestCycle._run = original  # type: ignore[method-assign]


def run(scenario: str = "seed-load", strategy: str = "update", seed: int = 1) -> dict[str, Any]:
    from fakekube.agentsandbox.scenarios import run_scenario
    from fakekube.agentsandbox.strategies import WriteStrategies

    totals: dict[RequestType, list[float]] = {}
    start = time.thread_time_ns()
    with timed_requests(totals):
        run_scenario(scenario, WriteStrategies(strategy), seed=seed)  # type: ignore[arg-type]
    whole = (time.thread_time_ns() - start) * 1e-9
    store = sum(seconds for _, seconds in totals.values())
    rows = sorted(totals.items(), key=lambda item: -item[1][1])
    return {
        "scenario": scenario, "strategy": strategy, "seed": seed,
        "cpu_seconds": round(whole, 3), "store_cpu_seconds": round(store, 3),
        "store_share": round(store / whole, 3) if whole else 0.0,
        "requests": sum(count for count, _ in totals.values()),
        "by_type": [{"verb": verb, "resource": resource, "subresource": sub, "code": code, "count": count,
                     "seconds": round(seconds, 3), "us_per_request": round(seconds / count * 1e6, 1)}
                    for (verb, resource, sub, code), (count, seconds) in rows],
    }


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))

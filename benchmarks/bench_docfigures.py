"""The small figures the docs quote in prose (docs/selectors.md, docs/dependencies.md, docs/cluster.md): each the
minimum of 5 runs, in ms, with the load average as the run ends. ``python -m benchmarks docfigures``."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any


def _best(setup: Callable[[], Any], work: Callable[[Any], Any], runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        state = setup()
        start = time.perf_counter()
        work(state)
        best = min(best, time.perf_counter() - start)
    return round(best * 1000, 2)


def run() -> dict[str, Any]:
    import fakekube.apimodel.definitions as definitions
    from fakekube.cluster.rbac import bootstrap_rbac
    from fakekube.selectors import LabelSelector
    from fakekube.store import Store

    selector = LabelSelector.parse("app=web, tier in (b,a), !canary, env!=prod")
    label_sets = [{"app": "web" if i % 2 else "db", "tier": "ab"[i % 2], "env": "dev"} for i in range(10_000)]
    version = definitions.kubernetes_version("1.37")
    bootstrap_rbac(Store())                       # imports and the policy file's first read out of the timing

    def fresh_definitions() -> None:
        definitions._load.cache_clear()

    return {
        "selector_10000_label_sets_ms": _best(lambda: None, lambda _: [selector.matches(s) for s in label_sets]),
        "kubernetes_validate_1_37_parse_ms": _best(fresh_definitions, lambda _: definitions._load(version)),
        "rbac_bootstrap_policy_ms": _best(Store, bootstrap_rbac),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }

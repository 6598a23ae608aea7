"""Store verbs on a Pod-sized object, each as a ratio to ``copy.deepcopy`` of that object in the same run;
label-selector lists over 1k and 10k objects; fixture setup (a fresh Store with built-ins and namespaces)."""

from __future__ import annotations

import copy
import statistics
import time
from typing import Any

from benchmarks.objects import pod
from benchmarks.timing import median_seconds, per_op, quiet_gc
from fakekube.store import Store


def _list_time(size: int) -> float:
    store = Store(managed_fields=False)
    for i in range(size):
        store.create("pods", pod(f"p{i:05d}", {"app": "bench", "shard": str(i % 10)}), "default")
    samples = []
    with quiet_gc():
        for _ in range(7):
            start = time.perf_counter()
            listing = store.list("pods", "default", label_selector="shard=3")
            samples.append(time.perf_counter() - start)
    assert len(listing["items"]) == size // 10
    return statistics.median(samples)


def _single_object_ops(managed_fields: bool) -> dict[str, float]:
    store = Store(managed_fields=managed_fields)
    store.create("pods", pod(), "default")
    flip = [0]

    def update() -> None:
        flip[0] ^= 1
        body = store.get("pods", "bench", "default")
        body["metadata"]["labels"]["flip"] = str(flip[0])
        store.update("pods", body, "default")

    def merge_patch() -> None:
        flip[0] ^= 1
        store.patch("pods", "bench", {"metadata": {"labels": {"flip": str(flip[0])}}}, "default")

    ops: dict[str, float] = {
        "get": median_seconds(lambda: store.get("pods", "bench", "default")),
        "create": per_op(lambda i: store.create("pods", pod(f"c{i}"), "default")),
        "merge_patch": median_seconds(merge_patch),
    }
    ops["update"] = median_seconds(update) - ops["get"]  # the read inside update() is not part of the PUT
    ops["delete"] = per_op(lambda i: store.delete("pods", f"c{i}", "default"))
    return ops


def run() -> dict[str, Any]:
    deepcopy = median_seconds(lambda: copy.deepcopy(pod()), number=500) - median_seconds(pod, number=500)

    def table(ops: dict[str, float]) -> dict[str, Any]:
        return {name: {"median_seconds": t, "ratio_to_deepcopy": round(t / deepcopy, 2)} for name, t in ops.items()}

    return {
        "deepcopy_seconds": deepcopy,
        # The real server records managedFields on every write (and they roughly double an object's size);
        # Store(managed_fields=False) skips that bookkeeping, as the simulation does by default.
        "ops": table(_single_object_ops(managed_fields=True)),
        "ops_without_managed_fields": table(_single_object_ops(managed_fields=False)),
        "list_label_selector_1k_seconds": _list_time(1_000),
        "list_label_selector_10k_seconds": _list_time(10_000),
        "fixture_setup_seconds": median_seconds(Store, number=50, repeat=5),
        "targets": {"single_object_ratio_max": 3.0, "list_10k_seconds_max": 0.05, "fixture_setup_seconds_max": 0.001},
    }

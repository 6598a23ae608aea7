"""Store verbs on a Pod-sized object, each as a ratio to ``copy.deepcopy`` of that object in the same run;
label-selector lists over 1k and 10k objects; fixture setup (a fresh Store with built-ins and namespaces).

The machine is shared, so each verb's ratio is the median of paired batches: a batch of deep copies, then a
batch of the verb, both in CPU time (``time.process_time``), one ratio per pair. A burst of load from another
process then moves both sides of a pair instead of one verb's figure."""

from __future__ import annotations

import copy
import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks.objects import pod
from benchmarks.timing import median_seconds, quiet_gc
from fakekube.store import Store

_NUMBER = 100  # calls per batch
_REPEAT = 9  # pairs of batches per verb


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


def _batch(fn: Callable[[int], object], start: int) -> float:
    began = time.process_time()
    for i in range(start, start + _NUMBER):
        fn(i)
    return (time.process_time() - began) / _NUMBER


def _deepcopy_batch() -> float:
    """Seconds per ``copy.deepcopy`` of the bench Pod (its construction, timed alone, left out)."""
    bodies = [pod() for _ in range(_NUMBER)]
    began = time.process_time()
    for body in bodies:
        copy.deepcopy(body)
    return (time.process_time() - began) / _NUMBER


def _paired(fn: Callable[[int], object]) -> dict[str, float]:
    """Median seconds of ``fn`` (called with a fresh index each time) and median ratio to a deep copy."""
    ratios, seconds, copies = [], [], []
    counter = 0
    with quiet_gc():
        for _ in range(_REPEAT):
            baseline = _deepcopy_batch()
            took = _batch(fn, counter)
            counter += _NUMBER
            ratios.append(took / baseline)
            seconds.append(took)
            copies.append(baseline)
    return {"median_seconds": statistics.median(seconds), "ratio_to_deepcopy": round(statistics.median(ratios), 2),
            "deepcopy_seconds": statistics.median(copies)}


def _single_object_ops(managed_fields: bool) -> dict[str, dict[str, float]]:
    store = Store(managed_fields=managed_fields)
    store.create("pods", pod(), "default")
    current = [store.get("pods", "bench", "default")]

    def update(i: int) -> None:
        body = current[0]  # the previous answer: the caller's own copy, with the current resourceVersion
        body["metadata"]["labels"]["flip"] = str(i & 1)
        current[0] = store.update("pods", body, "default")

    def merge_patch(i: int) -> None:
        store.patch("pods", "bench", {"metadata": {"labels": {"flip": str(i & 1)}}}, "default")

    def json_patch(i: int) -> None:
        store.patch("pods", "bench", [{"op": "add", "path": "/metadata/labels/flip", "value": str(i & 1)}],
                    "default", patch_type="application/json-patch+json")

    def strategic_merge_patch(i: int) -> None:
        image = f"registry.example.com/app:1.2.{i & 1}"
        store.patch("pods", "bench", {"spec": {"containers": [{"name": "c0", "image": image}]}}, "default",
                    patch_type="application/strategic-merge-patch+json")

    def apply(i: int) -> None:
        config = {"apiVersion": "v1", "kind": "Pod",
                  "metadata": {"name": "bench", "labels": {"applied": str(i & 1)}}}
        store.patch("pods", "bench", config, "default", patch_type="application/apply-patch+yaml",
                    field_manager="bench-apply")

    return {
        "get": _paired(lambda i: store.get("pods", "bench", "default")),
        "create": _paired(lambda i: store.create("pods", pod(f"c{i}"), "default")),
        "update": _paired(update),
        "merge_patch": _paired(merge_patch),
        "json_patch": _paired(json_patch),
        "strategic_merge_patch": _paired(strategic_merge_patch),
        "apply": _paired(apply),
        "delete": _paired(lambda i: store.delete("pods", f"c{i}", "default")),
    }


def run() -> dict[str, Any]:
    with_fields = _single_object_ops(managed_fields=True)
    return {
        "deepcopy_seconds": statistics.median(op["deepcopy_seconds"] for op in with_fields.values()),
        # The real server records managedFields on every write (and they roughly double an object's size);
        # Store(managed_fields=False) skips that bookkeeping, as the simulation does by default.
        "ops": with_fields,
        "ops_without_managed_fields": _single_object_ops(managed_fields=False),
        "list_label_selector_1k_seconds": _list_time(1_000),
        "list_label_selector_10k_seconds": _list_time(10_000),
        "fixture_setup_seconds": median_seconds(Store, number=50, repeat=5),
        "targets": {"single_object_ratio_max": 3.0, "list_10k_seconds_max": 0.05, "fixture_setup_seconds_max": 0.001},
    }

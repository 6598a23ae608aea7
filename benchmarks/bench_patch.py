"""Patch engine benchmark: median seconds per operation on a Pod-sized object, and the ratio to
``copy.deepcopy`` of the same object measured in the same run (target: strategic merge ≤ 5×)."""

from __future__ import annotations

import copy
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from fakekube.apimodel.patch_schemas import builtin_patch_schema as builtin_schema
from fakekube.patch import JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, apply_patch
from fakekube.patch.apply import server_side_apply

POD_SCHEMA = builtin_schema("", "Pod")


def pod() -> dict[str, Any]:
    """A realistic Pod: three containers with env, ports, mounts, probes, plus status conditions."""
    def container(name: str) -> dict[str, Any]:
        return {
            "name": name, "image": f"registry.example.com/{name}:1.2.3", "imagePullPolicy": "IfNotPresent",
            "args": ["--port=8080", "--verbose"],
            "env": [{"name": f"VAR_{i}", "value": str(i)} for i in range(8)],
            "ports": [{"containerPort": 8080 + i, "protocol": "TCP", "name": f"p{i}"} for i in range(3)],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
            "volumeMounts": [{"name": "data", "mountPath": "/data"}, {"name": "tmp", "mountPath": "/tmp"}],
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 5},
        }
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-0", "namespace": "default", "uid": "0b7e", "resourceVersion": "42",
                     "labels": {"app": "web", "tier": "frontend"}, "annotations": {"a": "b"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                          "uid": "1234", "controller": True}]},
        "spec": {"containers": [container(n) for n in ("app", "sidecar", "metrics")],
                 "volumes": [{"name": "data", "emptyDir": {}}, {"name": "tmp", "emptyDir": {}}],
                 "nodeName": "node-1", "restartPolicy": "Always"},
        "status": {"phase": "Running", "conditions": [
            {"type": t, "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}
            for t in ("PodScheduled", "Initialized", "ContainersReady", "Ready")]},
    }


def _median(fn: Callable[[], Any], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def run(repeat: int = 300) -> dict[str, Any]:
    live = pod()
    json_body = json.dumps([{"op": "replace", "path": "/spec/containers/0/image", "value": "x:2"},
                            {"op": "add", "path": "/metadata/labels/new", "value": "1"}])
    merge_body = json.dumps({"metadata": {"labels": {"new": "1"}}, "status": {"phase": "Succeeded"}})
    smp_body = json.dumps({"spec": {"containers": [{"name": "sidecar", "image": "x:2"}]},
                           "status": {"conditions": [{"type": "Ready", "status": "False"}]}})
    config = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0"},
              "spec": {"containers": [{"name": "app", "image": "x:2"}]}}
    applied = server_side_apply(live, config, manager="bench", force=True, schema=POD_SCHEMA,
                                api_version="v1", subresource=None, now="2026-01-01T00:00:00Z")

    deepcopy = _median(lambda: copy.deepcopy(live), repeat)
    ops = {
        "json": lambda: apply_patch(live, json_body, JSON_PATCH),
        "merge": lambda: apply_patch(live, merge_body, MERGE_PATCH),
        "strategic": lambda: apply_patch(live, smp_body, STRATEGIC_MERGE_PATCH, schema=POD_SCHEMA),
        "apply": lambda: server_side_apply(applied, config, manager="bench", force=False, schema=POD_SCHEMA,
                                           api_version="v1", subresource=None, now="2026-01-01T00:00:01Z"),
    }
    results: dict[str, Any] = {"deepcopy_seconds": deepcopy, "object_bytes": len(json.dumps(live))}
    for name, fn in ops.items():
        seconds = _median(fn, repeat)
        results[name] = {"median_seconds": seconds, "ratio_to_deepcopy": seconds / deepcopy}
    results["strategic_within_target"] = results["strategic"]["ratio_to_deepcopy"] <= 5.0
    return results


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))

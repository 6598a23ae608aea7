"""CRD rule validation time: creating custom resources whose CRD has kubebuilder-style rules.

    python -m benchmarks.bench_crd_rules [N]

For an ordinary CRD (bounded lists and strings: its rules' estimated costs cannot reach the runtime limits, so
nothing is counted) and for one whose unbounded lists make fakekube count the rules' runtime cost
(fakekube.cel.budget): the mean wall time of a create (validation included) over N creates, and, steadier on a
shared machine, the CPU time (median of 7 rounds) of building the CRD's validator (compiling its rules, and
estimating them to decide whether to count: once per CRD version) and of running its rules on one object.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from fakekube.cel import validator
from fakekube.store import Store


def _crd(plural: str, bounded: bool) -> dict[str, Any]:
    limit: dict[str, Any] = {"maxItems": 16} if bounded else {}
    strlim: dict[str, Any] = {"maxLength": 63} if bounded else {}
    port = {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", **strlim}, "port": {"type": "integer"}, "protocol": {"type": "string", **strlim}},
        "x-kubernetes-validations": [{"rule": "self.port > 0 && self.port < 65536", "message": "bad port"},
                                     {"rule": "!has(self.protocol) || self.protocol in ['TCP', 'UDP']"}]}
    spec = {"type": "object", "properties": {
        "replicas": {"type": "integer"}, "mode": {"type": "string", **strlim},
        "name": {"type": "string", **strlim, "x-kubernetes-validations": [{"rule": "self.matches('^[a-z0-9-]+$')"}]},
        "ports": {"type": "array", **limit, "items": port, "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name"]}},
        "x-kubernetes-validations": [
            {"rule": "self.replicas >= 0", "message": "replicas must not be negative"},
            {"rule": "!has(oldSelf.mode) || self.mode == oldSelf.mode", "message": "mode is immutable"},
            *([{"rule": "self.ports.all(p, self.ports.exists_one(q, q.port == p.port))"}] if bounded else [])]}
    kind = plural.capitalize()[:-1]
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.bench.example.com"},
            "spec": {"group": "bench.example.com", "scope": "Namespaced",
                     "names": {"plural": plural, "singular": plural[:-1], "kind": kind},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": spec}}}}]}}


def _obj(plural: str, i: int) -> dict[str, Any]:
    ports = [{"name": f"p{k}", "port": 8000 + k, "protocol": "TCP"} for k in range(4)]
    return {"apiVersion": "bench.example.com/v1", "kind": plural.capitalize()[:-1], "metadata": {"name": f"o{i}"},
            "spec": {"replicas": 2, "mode": "fast", "name": f"web-{i}", "ports": ports}}


def run(n: int) -> dict[str, float]:
    out = {}
    for plural, bounded in (("boundeds", True), ("unboundeds", False)):
        kube = Store()
        kube.create("customresourcedefinitions", _crd(plural, bounded))
        start = time.perf_counter()
        kube.create(plural, _obj(plural, -1), "default")  # the first create builds the validator
        out[f"{plural}: first create (builds the validator), ms"] = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        for i in range(n):
            kube.create(plural, _obj(plural, i), "default")
        out[f"{plural}: create, ms"] = (time.perf_counter() - start) * 1000 / n
        schema = _crd(plural, bounded)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
        out[f"{plural}: build the validator, CPU ms"] = _cpu(lambda s=schema: validator.build(s), 30)
        node, obj = validator.build(schema), _obj(plural, 0)
        out[f"{plural}: run the rules on one object, CPU ms"] = _cpu(
            lambda n=node, o=obj: validator.validate_object(n, o, None), 300)
    return out


def _cpu(work: Any, repeat: int) -> float:
    rounds = []
    for _ in range(7):
        start = time.process_time()
        for _ in range(repeat):
            work()
        rounds.append((time.process_time() - start) * 1000 / repeat)
    return statistics.median(rounds)


if __name__ == "__main__":
    for name, value in run(int(sys.argv[1]) if len(sys.argv) > 1 else 300).items():
        print(f"{name}: {value:.3f}")

"""Container resource usage: what metrics-server would report for each running container and each node.

The model (kwok's ``ClusterResourceUsage`` is its shape, sigs.k8s.io/kwok ``pkg/apis/v1alpha1``
``cluster_resource_usage_types.go``: usages chosen per pod and container by rule):

- by default a running container uses what it requests (``resources.requests``: cpu and memory), and a
  container that requests nothing uses kwok's defaults, 1m of CPU and 1Mi of memory
  (kwok ``kustomize/metrics/usage/usage-from-annotation.yaml``). Requests are what the scheduler reserved, so
  ``kubectl top nodes`` then reads what ``kubectl describe node`` calls allocated, and the figures are the same
  on every run (no randomness, nothing to wait for);
- the pod annotations ``sim.fakekube.io/usage-cpu`` and ``sim.fakekube.io/usage-memory`` set a pod's every
  container (kwok's ``kwok.x-k8s.io/usage-cpu`` example, under fakekube's prefix);
- ``set(cpu=..., memory=..., pod=..., container=..., labels=...)`` sets the containers a ``ContainerSelector``
  picks, a fixed quantity or a function of the pod, the container name and the time; the newest matching rule
  wins, and a rule's cpu or memory left None falls through to the annotation, then to the default;
- a node uses the sum of its running containers (kwok's ``node.Usage`` sums its pods).

``pod_usage(store)`` gives the store's ``PodUsage`` (made on first use) for the HTTP front and tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from fakekube import quantity
from fakekube.pods import attached

from .selection import ContainerSelector, Rules

GROUP, VERSION = "metrics.k8s.io", "v1beta1"
APISERVICE = f"{VERSION}.{GROUP}"
CPU_ANNOTATION = "sim.fakekube.io/usage-cpu"
MEMORY_ANNOTATION = "sim.fakekube.io/usage-memory"
DEFAULT_CPU = Fraction(1, 1000)  # 1m
DEFAULT_MEMORY = Fraction(1024 * 1024)  # 1Mi

Amount = str | int | float | Callable[[Mapping[str, Any], str, datetime], "str | int | float"]


@dataclass(frozen=True, slots=True)
class UsageRule:
    cpu: Amount | None = None
    memory: Amount | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    cpu: Fraction  # cores
    memory: Fraction  # bytes

    @property
    def nanocores(self) -> int:
        return int(self.cpu * 10**9)

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.cpu + other.cpu, self.memory + other.memory)


ZERO = Usage(Fraction(0), Fraction(0))


def _amount(value: Amount, pod: Mapping[str, Any], container: str, now: datetime) -> Fraction:
    if callable(value):
        value = value(pod, container, now)
    return quantity.value_of(value)


class PodUsage:
    """The usage model of a store's containers (see the module's docstring)."""

    def __init__(self, store: Any = None) -> None:
        self._store = store
        self.rules: Rules[UsageRule] = Rules()

    def set(self, *, cpu: Amount | None = None, memory: Amount | None = None,
            namespace: str | Iterable[str] | None = None, pod: str | Iterable[str] | None = None,
            labels: str | Mapping[str, str] | None = None,
            container: str | Iterable[str] | None = None) -> Callable[[], None]:
        """Usage of the picked containers (a quantity such as ``"250m"``/``"64Mi"``, or a function of the pod,
        the container name and the time returning one). Returns the rule's remover."""
        for value in (cpu, memory):
            if value is not None and not callable(value):
                quantity.value_of(value)  # a bad quantity fails here, not when metrics are read
        selector = ContainerSelector.of(namespace=namespace, pod=pod, labels=labels, container=container)
        return self.rules.add(selector, UsageRule(cpu, memory))

    def container(self, pod: Mapping[str, Any], spec: Mapping[str, Any], now: datetime) -> Usage:
        """The usage of one running container (``spec``: its entry of ``pod.spec.containers``)."""
        name = spec.get("name", "")
        rule = self.rules.find(pod, name)
        annotations = (pod.get("metadata") or {}).get("annotations") or {}
        requests = (spec.get("resources") or {}).get("requests") or {}

        def pick(resource: str, chosen: Amount | None, annotation: str, default: Fraction) -> Fraction:
            if chosen is not None:
                return _amount(chosen, pod, name, now)
            for text in (annotations.get(annotation), requests.get(resource)):
                if text is not None:
                    try:
                        return quantity.value_of(text)
                    except quantity.QuantityError:
                        pass  # an annotation that is no quantity counts as none
            return default

        cpu = pick("cpu", rule.cpu if rule else None, CPU_ANNOTATION, DEFAULT_CPU)
        memory = pick("memory", rule.memory if rule else None, MEMORY_ANNOTATION, DEFAULT_MEMORY)
        return Usage(max(cpu, Fraction(0)), max(memory, Fraction(0)))

    def pod(self, pod: Mapping[str, Any], now: datetime) -> list[tuple[str, Usage]]:
        """(container name, usage) of each running container of a running pod, in spec order; [] otherwise."""
        status = pod.get("status") or {}
        if status.get("phase") != "Running":
            return []
        running = {s.get("name") for s in status.get("containerStatuses") or ()
                   if "running" in (s.get("state") or {})}
        return [(c.get("name", ""), self.container(pod, c, now))
                for c in (pod.get("spec") or {}).get("containers") or () if c.get("name") in running]


def metrics_apiservice() -> dict[str, Any]:
    """The APIService metrics-server's manifest registers (kubernetes-sigs/metrics-server ``manifests/base``
    ``apiservice.yaml``): while the store holds it, the HTTP front serves metrics.k8s.io (fakekube.server.metrics)."""
    return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
            "metadata": {"name": APISERVICE, "labels": {"k8s-app": "metrics-server"}},
            "spec": {"group": GROUP, "version": VERSION, "groupPriorityMinimum": 100, "versionPriority": 100,
                     "insecureSkipTLSVerify": True, "service": {"name": "metrics-server", "namespace": "kube-system"}}}


def pod_usage(store: Any) -> PodUsage:
    """The store's ``PodUsage``, made on first use (the HTTP front and tests share it)."""
    return attached(store, "pod_usage", PodUsage)

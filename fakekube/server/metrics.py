"""metrics.k8s.io/v1beta1 (NodeMetrics, PodMetrics) as metrics-server serves it, from the usage model of
``fakekube.pods.usage``.

In a cluster the aggregator proxies ``/apis/metrics.k8s.io`` to metrics-server once the APIService
``v1beta1.metrics.k8s.io`` exists; here the front serves the group, in discovery too, while the store holds that
APIService (the cluster's bootstrap creates it, as installing metrics-server does; delete it and the group is
gone, as on a cluster without metrics-server). What metrics-server answers (sigs.k8s.io/metrics-server
``pkg/api/node.go``, ``pod.go``, ``filter.go``, ``install.go``; ``pkg/storage/types.go`` ``resourceUsage``):

- ``nodes`` (cluster-scoped) and ``pods`` (namespaced, and across namespaces), verbs get and list; list filters
  by ``labelSelector`` (the node's or the pod's labels) and ``fieldSelector`` (``metadata.name``,
  ``metadata.namespace``), items sorted by name (pods: namespace, then name);
- only what the kubelets report: nodes whose Ready condition is True (``pkg/scraper/scraper.go`` skips the others)
  and, on them, running pods with their running containers;
- CPU is the usage in nanocores as a DecimalSI quantity (``uint64Quantity(..., DecimalSI, -9)``: ``1234567n``,
  or ``5m`` when it is whole millicores), memory the working set in bytes as a BinarySI quantity (``Ki``/``Mi``
  when whole); ``timestamp`` is the last scrape (every 15 s, metrics-server's default ``--metric-resolution``)
  and ``window`` the 15 s between two scrapes;
- a get of what has no metrics: ``nodemetrics.metrics.k8s.io "<node>" not found``,
  ``podmetrics.metrics.k8s.io "<ns>/<pod>" not found``; of a node or pod that does not exist, the listers'
  ``node "<name>" not found`` / ``pods "<name>" not found``.

Unlike metrics-server, a pod is listed as soon as it runs (metrics-server waits for two scrapes): a test never
waits for metrics.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from fakekube import errors, quantity
from fakekube.clock import rfc3339
from fakekube.fieldselectors import FieldSelector
from fakekube.pods.usage import APISERVICE, GROUP, VERSION, Usage, pod_usage
from fakekube.selectors import LabelSelector
from fakekube.server import routes
from fakekube.server.params import Query
from fakekube.server.routing import ResourcePath

API_VERSION = f"{GROUP}/{VERSION}"
RESOLUTION = timedelta(seconds=15)


@dataclass(frozen=True)
class ExtraResource:
    name: str
    kind: str
    namespaced: bool
    verbs: tuple[str, ...] = ("get", "list")


@dataclass(frozen=True)
class ExtraGroup:
    """A group served beside the registry's (an aggregated API), for discovery."""

    group: str
    version: str
    resources: tuple[ExtraResource, ...]


METRICS_GROUP = ExtraGroup(GROUP, VERSION, (ExtraResource("nodes", "NodeMetrics", False),
                                            ExtraResource("pods", "PodMetrics", True)))


def served(store: Any) -> bool:
    return store.stored_object("apiregistration.k8s.io/apiservices", ("", APISERVICE)) is not None


def extra_groups(store: Any) -> tuple[ExtraGroup, ...]:
    return (METRICS_GROUP,) if served(store) else ()


# -- quantities and times as metrics-server writes them ---------------------------------------------------------

def cpu_quantity(cores: Fraction) -> str:
    return quantity.canonical(Fraction(int(cores * 10**9), 10**9), quantity.DECIMAL_SI)


def memory_quantity(size: Fraction) -> str:
    return quantity.canonical(Fraction(int(size)), quantity.BINARY_SI)


def usage_list(usage: Usage) -> dict[str, str]:
    return {"cpu": cpu_quantity(usage.cpu), "memory": memory_quantity(usage.memory)}


def last_scrape(now: datetime) -> datetime:
    epoch = now.timestamp()
    step = RESOLUTION.total_seconds()
    return now - timedelta(seconds=epoch % step)


def _window() -> str:
    return f"{RESOLUTION.total_seconds():g}s"  # Go's Duration.String() of whole seconds


# -- the objects ------------------------------------------------------------------------------------------------

def _ready(node: Mapping[str, Any]) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (node.get("status") or {}).get("conditions") or ())


class MetricsView:
    """Metrics of a store at one moment."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.now = store.clock.now()
        self.usage = pod_usage(store)
        self.scraped = rfc3339(last_scrape(self.now))
        self.created = rfc3339(self.now)
        self._nodes = {n["metadata"]["name"]: n for n in store.objects("nodes")}
        self._pods: list[dict[str, Any]] | None = None

    def pods(self) -> list[dict[str, Any]]:
        if self._pods is None:
            self._pods = [p for p in self.store.objects("pods")
                          if (p.get("spec") or {}).get("nodeName") in self._nodes
                          and _ready(self._nodes[p["spec"]["nodeName"]])]
        return self._pods

    def node_metrics(self, node: Mapping[str, Any]) -> dict[str, Any] | None:
        name = node["metadata"]["name"]
        if not _ready(node):
            return None
        total = Usage(Fraction(0), Fraction(0))
        for pod in self.pods():
            if pod["spec"]["nodeName"] == name:
                for _, used in self.usage.pod(pod, self.now):
                    total = total + used
        meta: dict[str, Any] = {"name": name, "creationTimestamp": self.created}
        if node["metadata"].get("labels"):
            meta["labels"] = dict(node["metadata"]["labels"])
        return {"kind": "NodeMetrics", "apiVersion": API_VERSION, "metadata": meta, "timestamp": self.scraped,
                "window": _window(), "usage": usage_list(total)}

    def pod_metrics(self, pod: Mapping[str, Any]) -> dict[str, Any] | None:
        node = self._nodes.get((pod.get("spec") or {}).get("nodeName") or "")
        if node is None or not _ready(node):
            return None
        containers = self.usage.pod(pod, self.now)
        if not containers:
            return None
        meta: dict[str, Any] = {"name": pod["metadata"]["name"], "namespace": pod["metadata"].get("namespace", ""),
                                "creationTimestamp": self.created}
        if pod["metadata"].get("labels"):
            meta["labels"] = dict(pod["metadata"]["labels"])
        return {"kind": "PodMetrics", "apiVersion": API_VERSION, "metadata": meta, "timestamp": self.scraped,
                "window": _window(),
                "containers": [{"name": name, "usage": usage_list(used)} for name, used in containers]}


def _selectors(query: Query) -> tuple[LabelSelector, FieldSelector | None]:
    labels = LabelSelector.parse(query.str("labelSelector"))
    text = query.str("fieldSelector")
    fields = FieldSelector.parse(text) if text else None
    return labels, fields


def _field_set(meta: Mapping[str, Any], namespaced: bool) -> dict[str, str]:
    # apiserver generic.AddObjectMetaFieldsSet: metadata.name, and metadata.namespace for namespaced objects
    out = {"metadata.name": meta.get("name", "")}
    if namespaced:
        out["metadata.namespace"] = meta.get("namespace", "")
    return out


def serve(store: Any, method: str, route: ResourcePath, query: Query) -> dict[str, Any]:
    """The answer to a request under ``/apis/metrics.k8s.io`` (errors raise ``ApiError``)."""
    if route.version != VERSION or route.watch_prefix:
        raise routes.PageNotFound()
    resource = next((r for r in METRICS_GROUP.resources if r.name == route.plural), None)
    if resource is None or route.subresource is not None or (route.namespace is not None and not resource.namespaced):
        raise routes.no_route()
    if method != "GET":
        raise routes.method_not_allowed()
    if route.name is None and query.bool("watch"):
        raise errors.ApiError(405, "MethodNotAllowed",
                              f'watch is not supported on resources of kind "{resource.name}.{GROUP}"',
                              {"group": GROUP, "kind": resource.name})
    view = MetricsView(store)
    if resource.name == "nodes":
        return _nodes(store, view, route, query)
    return _pods(store, view, route, query)


def _nodes(store: Any, view: MetricsView, route: ResourcePath, query: Query) -> dict[str, Any]:
    if route.name is not None:
        node = store.stored_object("/nodes", ("", route.name))
        if node is None:
            raise errors.NotFound("node", "", route.name)  # the node lister's resource
        found = view.node_metrics(node)
        if found is None:
            raise errors.NotFound("nodemetrics", GROUP, route.name)
        return found
    labels, fields = _selectors(query)
    items = []
    for node in sorted(store.objects("nodes"), key=lambda n: n["metadata"]["name"]):
        meta = node["metadata"]
        if not labels.matches(meta.get("labels") or {}):
            continue
        if fields is not None and not fields.matches(_field_set(meta, False)):
            continue
        found = view.node_metrics(node)
        if found is not None:
            items.append(found)
    return {"kind": "NodeMetricsList", "apiVersion": API_VERSION, "metadata": {}, "items": items}


def _pods(store: Any, view: MetricsView, route: ResourcePath, query: Query) -> dict[str, Any]:
    if route.name is not None:
        namespace = route.namespace or ""
        pod = store.stored_object("/pods", (namespace, route.name))
        if pod is None:
            raise errors.NotFound("pods", "", route.name)  # the pod lister's resource
        found = view.pod_metrics(pod)
        if found is None:
            raise errors.NotFound("podmetrics", GROUP, f"{namespace}/{route.name}")
        return found
    labels, fields = _selectors(query)
    items = []
    pods = view.pods()
    for pod in sorted(pods, key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["name"])):
        meta = pod["metadata"]
        if route.namespace is not None and meta.get("namespace") != route.namespace:
            continue
        if not labels.matches(meta.get("labels") or {}):
            continue
        if fields is not None and not fields.matches(_field_set(meta, True)):
            continue
        found = view.pod_metrics(pod)
        if found is not None:
            items.append(found)
    return {"kind": "PodMetricsList", "apiVersion": API_VERSION, "metadata": {}, "items": items}


# -- server-side printing (kubectl get podmetrics / nodemetrics) ----------------------------------------------------

def _sum(quantities: list[str], fmt: str) -> str:
    return quantity.canonical(sum((quantity.value_of(q) for q in quantities), Fraction(0)), fmt)


def as_table(body: dict[str, Any], version: str, include: str) -> dict[str, Any]:
    """metrics-server's ``ConvertToTable`` (``pkg/api/table.go``): Name, then each resource in name order (a pod's
    containers summed), then Window; no columns at all when there is no item."""
    items = body.get("items") if body.get("kind", "").endswith("List") else [body]
    columns: Any = None
    rows: Any = None
    for item in items or ():
        if "containers" in item:
            usages = [c["usage"] for c in item["containers"]]
            usage = {"cpu": _sum([u["cpu"] for u in usages], quantity.DECIMAL_SI),
                     "memory": _sum([u["memory"] for u in usages], quantity.BINARY_SI)} if usages else {}
        else:
            usage = item["usage"]
        names = sorted(usage)
        if columns is None:
            columns = [{"name": "Name", "type": "string", "format": "name", "description": "Name of the resource",
                        "priority": 0},
                       *({"name": n, "type": "string", "format": "quantity", "description": "", "priority": 0}
                         for n in names),
                       {"name": "Window", "type": "string", "format": "duration", "description": "", "priority": 0}]
            rows = []
        row: dict[str, Any] = {"cells": [item["metadata"]["name"], *(usage.get(n, "0") for n in names),
                                         item["window"]]}
        if include == "Object":
            row["object"] = item
        elif include == "Metadata":
            row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                             "metadata": item["metadata"]}
        rows.append(row)
    return {"kind": "Table", "apiVersion": f"meta.k8s.io/{version}", "metadata": {}, "columnDefinitions": columns,
            "rows": rows}

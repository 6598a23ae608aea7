"""``endpoint-controller`` (kubernetes ``pkg/controller/endpoint/endpoints_controller.go`` ``syncService``,
``pkg/api/v1/endpoints/util.go`` ``RepackSubsets``).

For every Service with a selector, an Endpoints object of the same name: the selected pods that have an IP
and are not terminal (nor terminating, unless ``publishNotReadyAddresses``), each as an address (``ip``,
``nodeName``, ``targetRef``, ``hostname`` when the pod's subdomain is the Service) under ``addresses`` when
Ready (or the Service publishes not-ready addresses) and ``notReadyAddresses`` otherwise, with the Service's
ports resolved per pod (a named ``targetPort`` through the pod's container ports; a pod without that port is
left out of that port's subset). Subsets are repacked: one per distinct port set, addresses sorted by IP.
Labels are the Service's, plus ``service.kubernetes.io/headless`` for a headless Service; more than 1000
addresses are truncated with the ``endpoints.kubernetes.io/over-capacity: truncated`` annotation. ``POST``
when missing, ``PUT`` when changed, ``DELETE`` when the Service is gone. Services without a selector are
yours (``default/kubernetes`` is kube-apiserver's).
"""

from __future__ import annotations

import contextlib
from typing import Any

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.sim.controller import Request

from .. import identity
from ..objects import is_pod_ready
from .endpoints_util import (
    HEADLESS_LABEL,
    ServicePodsController,
    is_headless,
    publish_not_ready,
    service_ports,
    service_selector,
    should_be_in_endpoints,
    should_set_hostname,
    target_ref,
)

Obj = dict[str, Any]
MAX_CAPACITY = 1000
OVER_CAPACITY = "endpoints.kubernetes.io/over-capacity"


def _port_key(ports: list[Obj]) -> tuple[tuple[str, int, str], ...]:
    return tuple(sorted((p.get("name", ""), p["port"], p.get("protocol", "TCP")) for p in ports))


def _pod_ports(pod: Obj, service: Obj) -> list[Obj] | None:
    """The Service's ports as this pod serves them; None when it serves none of them."""
    ports = service_ports(service, pod)
    if not ports and not ((service.get("spec") or {}).get("ports") or []) and is_headless(service):
        return []  # a headless Service without ports still lists its pods
    return ports or None


def subsets_for(service: Obj, pods: list[Obj]) -> list[Obj]:
    """The repacked subsets of ``service`` backed by ``pods``: one per distinct port set."""
    tolerate = publish_not_ready(service)
    subsets: dict[tuple[Any, ...], Obj] = {}
    for pod in pods:
        if not should_be_in_endpoints(pod, tolerate):
            continue
        ports = _pod_ports(pod, service)
        if ports is None:
            continue
        address: Obj = {"ip": pod["status"]["podIP"]}
        if should_set_hostname(pod, service):
            address["hostname"] = pod["spec"]["hostname"]
        if (pod.get("spec") or {}).get("nodeName"):
            address["nodeName"] = pod["spec"]["nodeName"]
        address["targetRef"] = target_ref(pod)
        ports = sorted(ports, key=lambda p: (p["name"], p["port"], p["protocol"]))
        subset = subsets.setdefault(_port_key(ports), {"ports": ports, "addresses": [], "notReadyAddresses": []})
        subset["addresses" if tolerate or is_pod_ready(pod) else "notReadyAddresses"].append(address)
    result = []
    for key in sorted(subsets):
        subset = subsets[key]
        out: Obj = {}
        for field in ("addresses", "notReadyAddresses"):
            if subset[field]:
                out[field] = sorted(subset[field], key=lambda a: (a["ip"], a["targetRef"]["uid"]))
        if subset["ports"]:
            out["ports"] = subset["ports"]
        result.append(out)
    return result


def _truncate(subsets: list[Obj]) -> bool:
    """Keep at most ``MAX_CAPACITY`` addresses, ready ones first (``truncateEndpoints``)."""
    total = sum(len(s.get("addresses") or ()) + len(s.get("notReadyAddresses") or ()) for s in subsets)
    if total <= MAX_CAPACITY:
        return False
    budget = MAX_CAPACITY
    for field in ("addresses", "notReadyAddresses"):
        for subset in subsets:
            items = subset.get(field) or []
            keep = items[:budget]
            budget -= len(keep)
            if field in subset:
                subset[field] = keep
    return True


class EndpointsController(ServicePodsController):
    identity = identity.ENDPOINTS

    async def sync(self, req: Request) -> None:
        service = await self.writer.get("services", req.name, req.namespace)
        existing = await self.writer.get("endpoints", req.name, req.namespace)
        if service is None:
            if existing is not None:
                with contextlib.suppress(errors.NotFound):
                    await self.writer.delete("endpoints", req.name, req.namespace)
            return
        if service_selector(service) is None:
            return
        subsets = subsets_for(service, await self.pods_of(service))
        truncated = _truncate(subsets)
        labels = dict(service["metadata"].get("labels") or {})
        if is_headless(service):
            labels[HEADLESS_LABEL] = ""
        else:
            labels.pop(HEADLESS_LABEL, None)
        if existing is None:
            body: Obj = {"apiVersion": "v1", "kind": "Endpoints",
                         "metadata": {"name": req.name, "namespace": req.namespace}}
        else:
            body = json_copy(existing)
        annotations = dict(body["metadata"].get("annotations") or {})
        if truncated:
            annotations[OVER_CAPACITY] = "truncated"
        else:
            annotations.pop(OVER_CAPACITY, None)
        if existing is not None and (existing.get("subsets") or []) == subsets and \
                (existing["metadata"].get("labels") or {}) == labels and \
                (existing["metadata"].get("annotations") or {}) == annotations:
            return
        body["metadata"]["labels"] = labels
        if annotations:
            body["metadata"]["annotations"] = annotations
        else:
            body["metadata"].pop("annotations", None)
        if subsets:
            body["subsets"] = subsets
        else:
            body.pop("subsets", None)
        if existing is None:
            try:
                await self.writer.create("endpoints", body, req.namespace)
            except errors.AlreadyExists:
                self.enqueue(req)  # our cache is behind: try again against what is there
            except (errors.NotFound, errors.Forbidden):
                pass  # the namespace is gone or terminating
            return
        await self.writer.update("endpoints", body)

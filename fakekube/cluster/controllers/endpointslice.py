"""``endpointslice-controller`` (kubernetes ``pkg/controller/endpointslice/endpointslice_controller.go``,
``staging/src/k8s.io/endpointslice/reconciler.go`` and ``utils.go``).

For every Service with a selector, EndpointSlices (``generateName: <service>-``, owned by the Service,
labelled ``kubernetes.io/service-name`` and ``endpointslice.kubernetes.io/managed-by:
endpointslice-controller.k8s.io`` plus the Service's labels and ``service.kubernetes.io/headless`` for a
headless one), one group per distinct port set (a named ``targetPort`` resolves per pod), at most 100
endpoints each (``--max-endpoints-per-slice``). An endpoint is a selected pod with an IP that is not
terminal: ``addresses: [podIP]``, ``conditions`` — ``serving`` the pod's readiness, ``terminating`` its
deletion, ``ready`` serving and not terminating (``publishNotReadyAddresses`` makes both true) —
``nodeName``, ``zone`` (the node's ``topology.kubernetes.io/zone``), ``targetRef`` and ``hostname`` when the
pod's subdomain is the Service.

Reconciling keeps endpoints in the slices that hold them, fills slices with room before creating new ones,
deletes slices that end up empty or whose port set is gone, and keeps one placeholder slice (no ports, no
endpoints) for a Service that selects nothing — reused once endpoints appear. Writes: ``POST``, ``PUT``
(Update) and ``DELETE endpointslices``. Slices this controller wrote and its cache has not seen yet make it
wait for the cache (``EndpointSliceTracker.StaleSlices``) rather than create duplicates.
"""

from __future__ import annotations

import contextlib
from typing import Any

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.sim.controller import Request

from .. import identity
from ..objects import controller_ref, is_terminating, owner_reference
from .endpoints_util import (
    HEADLESS_LABEL,
    ServicePodsController,
    is_headless,
    publish_not_ready,
    service_ports,
    service_selector,
    serving,
    should_be_in_endpoints,
    should_set_hostname,
    target_ref,
)

Obj = dict[str, Any]
SLICES = "endpointslices.discovery.k8s.io"
SERVICE_NAME = "kubernetes.io/service-name"
MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
CONTROLLER_NAME = "endpointslice-controller.k8s.io"
ZONE_LABEL = "topology.kubernetes.io/zone"
MAX_ENDPOINTS = 100
STALE_RETRY = 0.005  # the workqueue's base back-off: wait for the cache to catch up with our own writes


def _port_key(ports: list[Obj] | None) -> tuple[tuple[str, int, str], ...] | None:
    if ports is None:
        return None
    return tuple(sorted((p.get("name") or "", p.get("port") or 0, p.get("protocol") or "TCP") for p in ports))


def endpoint_ports(service: Obj, pod: Obj) -> list[Obj]:
    """``getEndpointPorts``: the Service's ports this pod serves, in discovery/v1 ``EndpointPort`` order."""
    return [{k: port[k] for k in ("name", "protocol", "port", "appProtocol") if k in port}
            for port in service_ports(service, pod)]


def pod_endpoint(pod: Obj, service: Obj, node: Obj | None) -> Obj:
    """``podToEndpoint``."""
    is_serving = serving(pod, service)
    terminating = is_terminating(pod)
    ready = publish_not_ready(service) or (is_serving and not terminating)
    endpoint: Obj = {"addresses": [pod["status"]["podIP"]],
                     "conditions": {"ready": ready, "serving": is_serving, "terminating": terminating}}
    if should_set_hostname(pod, service):
        endpoint["hostname"] = pod["spec"]["hostname"]
    endpoint["targetRef"] = target_ref(pod)
    node_name = (pod.get("spec") or {}).get("nodeName")
    if node_name:
        endpoint["nodeName"] = node_name
    zone = ((node or {}).get("metadata", {}).get("labels") or {}).get(ZONE_LABEL)
    if zone:
        endpoint["zone"] = zone
    return endpoint


def _uid(endpoint: Obj) -> str:
    return (endpoint.get("targetRef") or {}).get("uid") or endpoint["addresses"][0]


class EndpointSliceController(ServicePodsController):
    identity = identity.ENDPOINTSLICE

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.slices = self.manager.informer(SLICES)
        self.controller.owns(SLICES)
        self.written: dict[Request, dict[str, int | None]] = {}  # slice name → resourceVersion (None: deleted)

    # -- the tracker ----------------------------------------------------------------------------------------

    def _stale(self, req: Request) -> bool:
        for name, rv in (self.written.get(req) or {}).items():
            cached = self.slices.get_raw(req.namespace, name)
            if rv is None and cached is not None:
                return True
            if rv is not None and (cached is None or int(cached["metadata"]["resourceVersion"]) < rv):
                return True
        self.written.pop(req, None)
        return False

    def _track(self, req: Request, name: str, obj: Obj | None) -> None:
        self.written.setdefault(req, {})[name] = int(obj["metadata"]["resourceVersion"]) if obj else None

    # -- syncService ----------------------------------------------------------------------------------------

    async def sync(self, req: Request) -> None:
        service = await self.writer.get("services", req.name, req.namespace)
        if service is None or service_selector(service) is None or is_terminating(service):
            self.written.pop(req, None)
            return  # a deleted Service's slices go with it (garbage collection of the owner)
        if self._stale(req):
            self.enqueue(req, after=STALE_RETRY)
            return
        existing = [s for s in await self.writer.list(SLICES, req.namespace, {SERVICE_NAME: req.name})
                    if (s["metadata"].get("labels") or {}).get(MANAGED_BY) == CONTROLLER_NAME
                    and (controller_ref(s) or {}).get("uid") == service["metadata"]["uid"]]
        desired: dict[Any, tuple[list[Obj], dict[str, Obj]]] = {}
        nodes = {n["metadata"]["name"]: n for n in await self.writer.list("nodes")}
        for pod in await self.pods_of(service):
            if not should_be_in_endpoints(pod, include_terminating=True):
                continue
            ports = endpoint_ports(service, pod)
            endpoint = pod_endpoint(pod, service, nodes.get((pod.get("spec") or {}).get("nodeName") or ""))
            desired.setdefault(_port_key(ports), (ports, {}))[1][_uid(endpoint)] = endpoint
        await self._reconcile(req, service, existing, desired)

    def _labels(self, service: Obj) -> dict[str, str]:
        """``setEndpointSliceLabels``: the Service's labels, then ours."""
        labels = {k: v for k, v in (service["metadata"].get("labels") or {}).items()
                  if k not in (SERVICE_NAME, MANAGED_BY, HEADLESS_LABEL)}
        labels[SERVICE_NAME] = service["metadata"]["name"]
        labels[MANAGED_BY] = CONTROLLER_NAME
        if is_headless(service):
            labels[HEADLESS_LABEL] = ""
        return labels

    def _new_slice(self, service: Obj, ports: list[Obj] | None, endpoints: list[Obj] | None) -> Obj:
        meta = service["metadata"]
        return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"generateName": f"{meta['name']}-", "namespace": meta.get("namespace"),
                             "labels": self._labels(service), "ownerReferences": [owner_reference(service)]},
                "addressType": "IPv4", "endpoints": endpoints, "ports": ports}

    async def _reconcile(self, req: Request, service: Obj, existing: list[Obj],
                         desired: dict[Any, tuple[list[Obj], dict[str, Obj]]]) -> None:
        labels = self._labels(service)
        existing = sorted(existing, key=lambda s: (s["metadata"].get("creationTimestamp") or "",
                                                   s["metadata"]["name"]))
        updates: list[Obj] = []
        deletes: list[Obj] = []
        creates: list[Obj] = []
        for key, (ports, wanted) in desired.items():
            placed: set[str] = set()
            slices = [s for s in existing if _port_key(s.get("ports")) == key]
            plans: list[tuple[Obj, list[Obj]]] = []
            for slc in slices:
                kept = []
                for endpoint in slc.get("endpoints") or ():
                    uid = _uid(endpoint)
                    if uid in wanted and uid not in placed:
                        kept.append(wanted[uid])
                        placed.add(uid)
                plans.append((slc, kept))
            rest = [ep for uid, ep in wanted.items() if uid not in placed]
            for _, kept in plans:
                room = MAX_ENDPOINTS - len(kept)
                if room > 0 and rest:
                    kept.extend(rest[:room])
                    rest = rest[room:]
            for slc, kept in plans:
                if not kept:
                    deletes.append(slc)
                elif kept != (slc.get("endpoints") or []) or (slc["metadata"].get("labels") or {}) != labels:
                    updates.append({**json_copy(slc), "endpoints": kept, "ports": ports,
                                    "metadata": {**json_copy(slc["metadata"]), "labels": labels}})
            for start in range(0, len(rest), MAX_ENDPOINTS):
                creates.append(self._new_slice(service, ports, rest[start:start + MAX_ENDPOINTS]))
        deletes += [s for s in existing if _port_key(s.get("ports")) not in desired]
        if not desired:
            placeholder = next((s for s in deletes if not s.get("endpoints") and not s.get("ports")), None)
            if placeholder is not None:
                deletes.remove(placeholder)
                if (placeholder["metadata"].get("labels") or {}) != labels:
                    updates.append({**json_copy(placeholder),
                                    "metadata": {**json_copy(placeholder["metadata"]), "labels": labels}})
            else:
                creates.append(self._new_slice(service, None, None))
        elif creates:
            # A slice about to be deleted (the placeholder, or one whose port set is gone) is reused instead.
            reusable = [s for s in deletes if not s.get("endpoints")]
            for slc in reusable[:len(creates)]:
                new = creates.pop(0)
                deletes.remove(slc)
                updates.append({**json_copy(slc), "endpoints": new["endpoints"], "ports": new["ports"],
                                "metadata": {**json_copy(slc["metadata"]), "labels": labels}})
        await self._write(req, service, creates, updates, deletes)

    async def _write(self, req: Request, service: Obj, creates: list[Obj], updates: list[Obj],
                     deletes: list[Obj]) -> None:
        namespace = service["metadata"].get("namespace")
        for body in creates:
            try:
                made = await self.writer.create(SLICES, body, namespace)
            except (errors.NotFound, errors.Forbidden):
                return  # the namespace is going away
            self._track(req, made["metadata"]["name"], made)
        for body in updates:
            try:
                made = await self.writer.update(SLICES, body)
            except errors.NotFound:
                continue
            self._track(req, made["metadata"]["name"], made)
        for slc in deletes:
            with contextlib.suppress(errors.NotFound):
                await self.writer.delete(SLICES, slc["metadata"]["name"], namespace)
            self._track(req, slc["metadata"]["name"], None)

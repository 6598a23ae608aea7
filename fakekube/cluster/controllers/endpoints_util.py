"""What the Endpoints and EndpointSlice controllers share: which pods back a Service, on which ports.

Each helper follows the upstream function in its docstring (kubernetes ``staging/src/k8s.io/endpointslice/
util/controller_utils.go``, ``pkg/api/v1/pod/util.go``, ``pkg/controller/util/endpoint``).
"""

from __future__ import annotations

from typing import Any

from fakekube.selectors import LabelSelector
from fakekube.sim.controller import Request

from ..objects import TERMINAL_PHASES, is_pod_ready, is_terminating
from .common import KcmController

Obj = dict[str, Any]
HEADLESS_LABEL = "service.kubernetes.io/headless"


def service_selector(service: Obj) -> LabelSelector | None:
    """A Service's ``spec.selector`` as a selector; None for a Service without one, whose endpoints nobody
    manages but you (``service.Spec.Selector == nil``: an empty map is stored as none, protobuf keeps no
    empty maps)."""
    selector = (service.get("spec") or {}).get("selector")
    if not selector:
        return None
    return LabelSelector.from_dict({"matchLabels": selector})


def is_headless(service: Obj) -> bool:
    """``!IsServiceIPSet``; a Service the API server has not given an address yet reads as the ClusterIP
    Service it will be (``spec.clusterIP`` is allocated on create unless it is ``None``)."""
    return (service.get("spec") or {}).get("clusterIP") == "None"


def publish_not_ready(service: Obj) -> bool:
    return bool((service.get("spec") or {}).get("publishNotReadyAddresses"))


def should_be_in_endpoints(pod: Obj, include_terminating: bool) -> bool:
    """``ShouldPodBeInEndpoints``: not terminal, has an IP, and not terminating unless asked for."""
    status = pod.get("status") or {}
    if status.get("phase") in TERMINAL_PHASES or not status.get("podIP"):
        return False
    return include_terminating or not is_terminating(pod)


def find_port(pod: Obj, service_port: Obj) -> int | None:
    """``podutil.FindPort``: a numeric ``targetPort`` as is, a named one from the pod's container ports with
    that name and protocol; no ``targetPort`` is the API server's default, the Service port."""
    target = service_port.get("targetPort", service_port.get("port"))
    if isinstance(target, int):
        return target
    text = str(target)
    if text.isdigit():
        return int(text)
    protocol = service_port.get("protocol") or "TCP"
    for container in (pod.get("spec") or {}).get("containers") or ():
        for port in container.get("ports") or ():
            if port.get("name") == text and (port.get("protocol") or "TCP") == protocol:
                return int(port["containerPort"])
    return None


def service_ports(service: Obj, pod: Obj) -> list[Obj]:
    """The Service's ports this pod serves, with their numbers on the pod (``getEndpointPorts``; the
    Endpoints controller's per-port loop): ``name``, ``port``, ``protocol`` and ``appProtocol`` when set."""
    ports = []
    for service_port in (service.get("spec") or {}).get("ports") or ():
        number = find_port(pod, service_port)
        if number is None:
            continue  # this pod lacks the named port: it backs the Service's other ports only
        port: Obj = {"name": service_port.get("name") or "", "port": number,
                     "protocol": service_port.get("protocol") or "TCP"}
        if service_port.get("appProtocol"):
            port["appProtocol"] = service_port["appProtocol"]
        ports.append(port)
    return ports


def should_set_hostname(pod: Obj, service: Obj) -> bool:
    """``ShouldSetHostname``: the pod names a hostname and this Service as its subdomain."""
    spec = pod.get("spec") or {}
    return bool(spec.get("hostname")) and spec.get("subdomain") == service["metadata"]["name"] and \
        pod["metadata"].get("namespace") == service["metadata"].get("namespace")


def target_ref(pod: Obj) -> Obj:
    meta = pod["metadata"]
    return {"kind": "Pod", "namespace": meta.get("namespace"), "name": meta["name"], "uid": meta["uid"]}


def serving(pod: Obj, service: Obj) -> bool:
    return publish_not_ready(service) or is_pod_ready(pod)


def services_selecting(services: list[Obj], pod: Obj) -> list[Request]:
    """``GetPodServiceMemberships``: the Services in the pod's namespace whose selector matches it."""
    labels = pod["metadata"].get("labels") or {}
    found = []
    for service in services:
        selector = service_selector(service)
        if selector is not None and selector.matches(labels):
            found.append(Request.of(service))
    return found


class ServicePodsController(KcmController):
    """A controller keyed by Service that also wakes up for every Service selecting a pod that changed
    (``addPod`` / ``updatePod`` / ``deletePod``: the old and the new labels' Services)."""

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.services = self.manager.informer("services")
        self.controller.for_("services")
        self.controller.watches("pods", self._services_of)

    def _services_of(self, pod: Obj) -> list[Request]:
        return services_selecting(self.services.list_raw(pod["metadata"].get("namespace")), pod)

    async def pods_of(self, service: Obj) -> list[Obj]:
        selector = service_selector(service)
        if selector is None:
            return []
        pods = await self.writer.list("pods", service["metadata"].get("namespace"))
        return sorted((p for p in pods if selector.matches(p["metadata"].get("labels") or {})),
                      key=lambda p: p["metadata"]["name"])

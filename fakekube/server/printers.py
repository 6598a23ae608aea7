"""Printer columns: what ``kubectl get`` shows for each kind, computed from the object the store returned.

Built-in kinds follow the real server's printers (kubernetes ``pkg/printers/internalversion/printers.go``): the
same column names, types and priorities, and the same cell formats. The server always prints "wide" (priority-1
columns included) and kubectl hides priority > 0 unless ``-o wide``. Kinds without a printer get NAME and AGE.

Custom resources follow apiextensions-apiserver's table convertor: NAME, then the served version's
``additionalPrinterColumns`` (AGE from ``.metadata.creationTimestamp`` when there are none), each cell the first
JSONPath result converted to the column's type; ``date`` cells become an age like ``5m``, as upstream does.

Ages are measured against the store's clock, so a store on a virtual clock prints ages of its own world. How each
cell is formatted (ages, labels, selectors, typed custom-resource cells) is ``fakekube.server.cells``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fakekube.server import jsonpath
from fakekube.server.cells import (
    access_modes,
    age_of,
    as_list,
    container_cells,
    dig,
    format_label_selector,
    format_labels,
    meta_of,
    name_of,
    or_none,
    since,
    typed_cell,
)
from fakekube.server.columndocs import CREATION_TIMESTAMP, OBJECT_NAME, Doc

Cells = list[Any]
RowFunc = Callable[[dict[str, Any], datetime], Cells]



def column(name: str, type_: str = "string", description: str | Doc = "", *, priority: int = 0,
           format_: str = "") -> dict[str, Any]:
    """A ``metav1.TableColumnDefinition``; every field is always present, as the real server encodes them. A
    ``Doc`` description is a field's documentation, read when a Table is written (columndocs.resolved)."""
    return {"name": name, "type": type_, "format": format_, "description": description, "priority": priority}


NAME = column("Name", description=OBJECT_NAME, format_="name")
AGE = column("Age", description=CREATION_TIMESTAMP)


@dataclass(frozen=True, slots=True)
class Printer:
    columns: tuple[dict[str, Any], ...]
    row: RowFunc


# -- built-in printers -----------------------------------------------------------------------------------------


def _pod_row(pod: dict[str, Any], now: datetime) -> Cells:
    """``printPod``: READY counts ready running containers; STATUS is the most telling reason."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    phase = status.get("phase") or ""
    reason = status.get("reason") or phase
    conditions = as_list(status.get("conditions"))
    if any(c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated" for c in conditions):
        reason = "SchedulingGated"
    init_specs = {c.get("name"): c for c in as_list(spec.get("initContainers"))}

    def sidecar(name: Any) -> bool:  # a restartable init container (restartPolicy: Always)
        return (init_specs.get(name) or {}).get("restartPolicy") == "Always"

    total = len(as_list(spec.get("containers"))) + sum(1 for c in init_specs.values() if c.get("restartPolicy") ==
                                                     "Always")
    ready = restarts = sidecar_restarts = 0
    last_restart = sidecar_last_restart = ""
    initializing = False
    init_statuses = as_list(status.get("initContainerStatuses"))
    for i, cs in enumerate(init_statuses):
        count = int(cs.get("restartCount") or 0)
        restarts += count
        finished = dig(cs, "lastState", "terminated", "finishedAt") or ""
        last_restart = max(last_restart, finished)
        if sidecar(cs.get("name")):
            sidecar_restarts += count
            sidecar_last_restart = max(sidecar_last_restart, finished)
        terminated, waiting = dig(cs, "state", "terminated"), dig(cs, "state", "waiting")
        if terminated is not None and int(terminated.get("exitCode") or 0) == 0:
            continue
        if sidecar(cs.get("name")) and cs.get("started"):
            ready += 1 if cs.get("ready") else 0
            continue
        if terminated is not None:
            if terminated.get("reason"):
                reason = "Init:" + terminated["reason"]
            elif terminated.get("signal"):
                reason = f"Init:Signal:{terminated['signal']}"
            else:
                reason = f"Init:ExitCode:{terminated.get('exitCode', 0)}"
        elif waiting is not None and waiting.get("reason") and waiting["reason"] != "PodInitializing":
            reason = "Init:" + waiting["reason"]
        else:
            reason = f"Init:{i}/{len(init_specs)}"
        initializing = True
        break
    initialized = any(c.get("type") == "Initialized" and c.get("status") == "True" for c in conditions)
    if not initializing or initialized:
        restarts, last_restart = sidecar_restarts, sidecar_last_restart
        has_running = False
        for cs in reversed(as_list(status.get("containerStatuses"))):
            restarts += int(cs.get("restartCount") or 0)
            last_restart = max(last_restart, dig(cs, "lastState", "terminated", "finishedAt") or "")
            waiting, terminated = dig(cs, "state", "waiting"), dig(cs, "state", "terminated")
            if waiting is not None and waiting.get("reason"):
                reason = waiting["reason"]
            elif terminated is not None and terminated.get("reason"):
                reason = terminated["reason"]
            elif terminated is not None:
                reason = (f"Signal:{terminated['signal']}" if terminated.get("signal")
                          else f"ExitCode:{terminated.get('exitCode', 0)}")
            elif cs.get("ready") and dig(cs, "state", "running") is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            pod_ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
            reason = "Running" if pod_ready else "NotReady"
    if meta_of(pod).get("deletionTimestamp"):
        if status.get("reason") == "NodeLost":
            reason = "Unknown"
        elif phase not in ("Succeeded", "Failed"):
            reason = "Terminating"
    restarts_cell = str(restarts)
    if restarts and last_restart:
        restarts_cell = f"{restarts} ({since(last_restart, now)} ago)"
    ips = as_list(status.get("podIPs"))
    pod_ip = (ips[0].get("ip") if ips and isinstance(ips[0], dict) else "") or ""
    gates = as_list(spec.get("readinessGates"))
    gates_cell = "<none>"
    if gates:
        by_type = {}
        for c in conditions:
            by_type.setdefault(c.get("type"), c)
        true = sum(1 for g in gates if (by_type.get(g.get("conditionType")) or {}).get("status") == "True")
        gates_cell = f"{true}/{len(gates)}"
    return [name_of(pod), f"{ready}/{total}", reason, restarts_cell, age_of(pod, now), or_none(pod_ip),
            or_none(spec.get("nodeName")), or_none(status.get("nominatedNodeName")), gates_cell]


def _service_external_ip(svc: dict[str, Any]) -> str:
    spec = svc.get("spec") or {}
    kind = spec.get("type") or ""
    external = [ip for ip in as_list(spec.get("externalIPs")) if isinstance(ip, str)]
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else "<none>"
    if kind == "LoadBalancer":
        ingress = as_list(dig(svc, "status", "loadBalancer", "ingress"))
        lb = sorted({i.get("ip") or i.get("hostname") for i in ingress if i.get("ip") or i.get("hostname")})
        if external:
            return ",".join([*lb, *external])
        return ",".join(lb) if lb else "<pending>"
    if kind == "ExternalName":
        return spec.get("externalName", "")
    return "<unknown>"


def _service_row(svc: dict[str, Any], now: datetime) -> Cells:
    spec = svc.get("spec") or {}
    cluster_ips = as_list(spec.get("clusterIPs"))
    ports = []
    for p in as_list(spec.get("ports")):
        protocol = p.get("protocol") or "TCP"
        node_port = p.get("nodePort") or 0
        ports.append(f"{p.get('port', 0)}:{node_port}/{protocol}" if node_port else f"{p.get('port', 0)}/{protocol}")
    return [name_of(svc), spec.get("type") or "", cluster_ips[0] if cluster_ips else "<none>",
            _service_external_ip(svc), ",".join(ports) or "<none>", age_of(svc, now),
            format_labels(spec.get("selector"))]


def _deployment_row(dep: dict[str, Any], now: datetime) -> Cells:
    spec, status = dep.get("spec") or {}, dep.get("status") or {}
    names, images = container_cells(dig(spec, "template", "spec", "containers"))
    desired = spec.get("replicas")
    desired = 1 if desired is None else desired  # defaulted by the real server; shown as stored otherwise
    return [name_of(dep), f"{int(status.get('readyReplicas') or 0)}/{int(desired)}",
            int(status.get("updatedReplicas") or 0), int(status.get("availableReplicas") or 0), age_of(dep, now),
            names, images, format_label_selector(spec.get("selector"))]


def _event_row(ev: dict[str, Any], now: datetime) -> Cells:
    first = since(ev.get("firstTimestamp"), now) if ev.get("firstTimestamp") else since(ev.get("eventTime"), now)
    last = since(ev.get("lastTimestamp"), now) if ev.get("lastTimestamp") else first
    count = ev.get("count") or 0
    series = ev.get("series")
    if isinstance(series, dict):
        last = since(series.get("lastObservedTime"), now)
        count = series.get("count") or 0
    elif not count:
        count = 1  # singleton events of the events.k8s.io API carry no count
    involved = ev.get("involvedObject") or {}
    kind = str(involved.get("kind") or "").lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    source = ev.get("source") or {}
    component = source.get("component") or ev.get("reportingComponent") or ""
    host = source.get("host") or ev.get("reportingInstance") or ""
    return [last, ev.get("type") or "", ev.get("reason") or "", target, involved.get("fieldPath") or "",
            f"{component}, {host}" if host else component, str(ev.get("message") or "").strip(), first,
            int(count), name_of(ev)]


def _pvc_row(pvc: dict[str, Any], now: datetime) -> Cells:
    spec, status = pvc.get("spec") or {}, pvc.get("status") or {}
    phase = "Terminating" if meta_of(pvc).get("deletionTimestamp") else status.get("phase") or ""
    capacity = modes = ""
    if spec.get("volumeName"):
        modes = access_modes(status.get("accessModes"))
        capacity = str(dig(status, "capacity", "storage") or "")
    storage_class = spec.get("storageClassName")
    if storage_class is None:  # the beta annotation still wins when the field is unset
        storage_class = (meta_of(pvc).get("annotations") or {}).get("volume.beta.kubernetes.io/storage-class", "")
    return [name_of(pvc), phase, spec.get("volumeName") or "", capacity, modes, storage_class,
            spec.get("volumeAttributesClassName") or "<unset>", age_of(pvc, now), spec.get("volumeMode") or "<unset>"]


def _simple(*cells: Callable[[dict[str, Any]], Any]) -> RowFunc:
    """NAME, the given cells, AGE: the shape of most printers."""
    def row(obj: dict[str, Any], now: datetime) -> Cells:
        return [name_of(obj), *(cell(obj) for cell in cells), age_of(obj, now)]
    return row


def _capped(items: list[str], total: int, none: str, cap: int = 3) -> str:
    """At most three entries, then `` + N more...`` (``formatEndpoints``, ``formatDiscoveryEndpoints``)."""
    if total == 0 and not items:
        return none
    text = ",".join(items[:cap])
    return f"{text} + {total - cap} more..." if total > cap else text


def _endpoints_cell(ep: dict[str, Any]) -> str:
    """``formatEndpoints``: ``ip:port`` per ready address and port, ``<none>`` without subsets."""
    subsets = as_list(ep.get("subsets"))
    if not subsets:
        return "<none>"
    entries: list[str] = []
    total = 0
    for subset in subsets:
        addresses = [a.get("ip", "") for a in as_list(subset.get("addresses"))]
        ports = as_list(subset.get("ports"))
        for port in ports or [None]:
            total += len(addresses)
            entries += [ip if port is None else f"{ip}:{port.get('port')}" for ip in addresses]
    return _capped(entries, total, "")


def _slice_row(slc: dict[str, Any], now: datetime) -> Cells:
    """``printEndpointSlice``: address type, ports (``<unset>``), the first three addresses."""
    ports = [str(p.get("port")) if p.get("port") is not None else "<unset>" for p in as_list(slc.get("ports"))]
    addresses = [a for ep in as_list(slc.get("endpoints")) for a in as_list(ep.get("addresses"))]
    return [name_of(slc), slc.get("addressType") or "", ",".join(ports) or "<unset>",
            _capped(addresses, len(addresses), "<unset>"), age_of(slc, now)]


def _daemonset_row(ds: dict[str, Any], now: datetime) -> Cells:
    status = ds.get("status") or {}
    selector = dig(ds, "spec", "template", "spec", "nodeSelector") or {}
    return [name_of(ds), *(status.get(k, 0) for k in ("desiredNumberScheduled", "currentNumberScheduled",
                                                     "numberReady", "updatedNumberScheduled", "numberAvailable")),
            format_labels(selector), age_of(ds, now),
            *container_cells(dig(ds, "spec", "template", "spec", "containers")),
            format_label_selector(dig(ds, "spec", "selector"))]


def _cronjob_row(cj: dict[str, Any], now: datetime) -> Cells:
    spec = cj.get("spec") or {}
    last = dig(cj, "status", "lastScheduleTime")
    return [name_of(cj), spec.get("schedule") or "", spec.get("timeZone") or "<none>",
            "True" if spec.get("suspend") else "False", len(as_list(dig(cj, "status", "active"))),
            since(last, now) if last else "<none>", age_of(cj, now),
            *container_cells(dig(spec, "jobTemplate", "spec", "template", "spec", "containers")),
            format_label_selector(dig(spec, "jobTemplate", "spec", "selector"))]


def _pdb_row(pdb: dict[str, Any], now: datetime) -> Cells:
    spec = pdb.get("spec") or {}
    return [name_of(pdb), str(spec.get("minAvailable", "N/A")), str(spec.get("maxUnavailable", "N/A")),
            dig(pdb, "status", "disruptionsAllowed") or 0, age_of(pdb, now)]


DEFAULT = Printer((NAME, AGE), _simple())


def _doc(type_: str, field: str) -> Doc:
    return Doc(type_, field)


CONTAINERS = column("Containers", description="Names of each container in the template.", priority=1)
IMAGES = column("Images", description="Images referenced by each container in the template.", priority=1)
# Descriptions as kubernetes v1.37.2 pkg/printers/internalversion/printers.go gives them: a literal, or a
# field's doc (SwaggerDoc; fakekube.server.columndocs).
BUILTIN: dict[tuple[str, str], Printer] = {
    ("", "pods"): Printer((
        NAME,
        column("Ready", description="The aggregate readiness state of this pod for accepting traffic."),
        column("Status", description="The aggregate status of the containers in this pod."),
        column("Restarts", description="The number of times the containers in this pod have been restarted and "
                                       "when the last container in this pod has restarted."),
        AGE,
        column("IP", description=_doc("core.v1.PodStatus", "podIP"), priority=1),
        column("Node", description=_doc("core.v1.PodSpec", "nodeName"), priority=1),
        column("Nominated Node", description=_doc("core.v1.PodStatus", "nominatedNodeName"), priority=1),
        column("Readiness Gates", description=_doc("core.v1.PodSpec", "readinessGates"), priority=1),
    ), _pod_row),
    ("", "configmaps"): Printer((
        NAME, column("Data", description=_doc("core.v1.ConfigMap", "data")), AGE,
    ), _simple(lambda o: len(o.get("data") or {}) + len(o.get("binaryData") or {}))),
    ("", "secrets"): Printer((
        NAME, column("Type", description=_doc("core.v1.Secret", "type")),
        column("Data", description=_doc("core.v1.Secret", "data")), AGE,
    ), _simple(lambda o: o.get("type") or "", lambda o: len(o.get("data") or {}))),
    ("", "namespaces"): Printer((
        NAME, column("Status", description="The status of the namespace"), AGE,
    ), _simple(lambda o: dig(o, "status", "phase") or "")),
    ("", "services"): Printer((
        NAME, column("Type", description=_doc("core.v1.ServiceSpec", "type")),
        column("Cluster-IP", description=_doc("core.v1.ServiceSpec", "clusterIP")),
        column("External-IP", description=_doc("core.v1.ServiceSpec", "externalIPs")),
        column("Port(s)", description=_doc("core.v1.ServiceSpec", "ports")), AGE,
        column("Selector", description=_doc("core.v1.ServiceSpec", "selector"), priority=1),
    ), _service_row),
    ("", "serviceaccounts"): DEFAULT,
    ("", "persistentvolumeclaims"): Printer((
        NAME, column("Status", description=_doc("core.v1.PersistentVolumeClaimStatus", "phase")),
        column("Volume", description=_doc("core.v1.PersistentVolumeClaimSpec", "volumeName")),
        column("Capacity", description=_doc("core.v1.PersistentVolumeClaimStatus", "capacity")),
        column("Access Modes", description=_doc("core.v1.PersistentVolumeClaimStatus", "accessModes")),
        column("StorageClass", description="StorageClass of the pvc"),
        column("VolumeAttributesClass", description="VolumeAttributesClass of the pvc"), AGE,
        column("VolumeMode", description=_doc("core.v1.PersistentVolumeClaimSpec", "volumeMode"), priority=1),
    ), _pvc_row),
    ("", "events"): Printer((
        column("Last Seen", description=_doc("core.v1.Event", "lastTimestamp")),
        column("Type", description=_doc("core.v1.Event", "type")),
        column("Reason", description=_doc("core.v1.Event", "reason")),
        column("Object", description=_doc("core.v1.Event", "involvedObject")),
        column("Subobject", description=_doc("core.v1.ObjectReference", "fieldPath"), priority=1),
        column("Source", description=_doc("core.v1.Event", "source"), priority=1),
        column("Message", description=_doc("core.v1.Event", "message")),
        column("First Seen", description=_doc("core.v1.Event", "firstTimestamp"), priority=1),
        column("Count", description=_doc("core.v1.Event", "count"), priority=1),
        column("Name", description=OBJECT_NAME, priority=1, format_="name"),
    ), _event_row),
    ("apps", "deployments"): Printer((
        NAME, column("Ready", description="Number of the pod with ready state"),
        column("Up-to-date", description=_doc("apps.v1.DeploymentStatus", "updatedReplicas")),
        column("Available", description=_doc("apps.v1.DeploymentStatus", "availableReplicas")), AGE,
        CONTAINERS, IMAGES, column("Selector", description=_doc("apps.v1.DeploymentSpec", "selector"), priority=1),
    ), _deployment_row),
    ("", "endpoints"): Printer((
        NAME, column("Endpoints", description=_doc("core.v1.Endpoints", "subsets")), AGE,
    ), _simple(_endpoints_cell)),
    ("discovery.k8s.io", "endpointslices"): Printer((
        NAME, column("AddressType", description=_doc("discovery.v1.EndpointSlice", "addressType")),
        column("Ports", description=_doc("discovery.v1.EndpointSlice", "ports")),
        column("Endpoints", description=_doc("discovery.v1.EndpointSlice", "endpoints")), AGE,
    ), _slice_row),
    ("apps", "daemonsets"): Printer((
        NAME, column("Desired", "integer", _doc("apps.v1.DaemonSetStatus", "desiredNumberScheduled")),
        column("Current", "integer", _doc("apps.v1.DaemonSetStatus", "currentNumberScheduled")),
        column("Ready", "integer", _doc("apps.v1.DaemonSetStatus", "numberReady")),
        column("Up-to-date", "integer", _doc("apps.v1.DaemonSetStatus", "updatedNumberScheduled")),
        column("Available", "integer", _doc("apps.v1.DaemonSetStatus", "numberAvailable")),
        column("Node Selector", description=_doc("core.v1.PodSpec", "nodeSelector")), AGE,
        CONTAINERS, IMAGES, column("Selector", description=_doc("apps.v1.DaemonSetSpec", "selector"), priority=1),
    ), _daemonset_row),
    ("batch", "cronjobs"): Printer((
        NAME, column("Schedule", description=_doc("batch.v1.CronJobSpec", "schedule")),
        column("Timezone", description=_doc("batch.v1.CronJobSpec", "timeZone")),
        column("Suspend", "boolean", _doc("batch.v1.CronJobSpec", "suspend")),
        column("Active", "integer", _doc("batch.v1.CronJobStatus", "active")),
        column("Last Schedule", description=_doc("batch.v1.CronJobStatus", "lastScheduleTime")), AGE,
        CONTAINERS, IMAGES, column("Selector", description=_doc("batch.v1.JobSpec", "selector"), priority=1),
    ), _cronjob_row),
    ("policy", "poddisruptionbudgets"): Printer((
        NAME, column("Min Available", description="The minimum number of pods that must be available."),
        column("Max Unavailable", description="The maximum number of pods that may be unavailable."),
        column("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
        AGE,
    ), _pdb_row),
    ("coordination.k8s.io", "leases"): Printer((
        NAME, column("Holder", description=_doc("coordination.v1.LeaseSpec", "holderIdentity")), AGE,
    ), _simple(lambda o: dig(o, "spec", "holderIdentity") or "")),
    ("networking.k8s.io", "networkpolicies"): Printer((
        NAME, column("Pod-Selector", description=_doc("networking.v1.NetworkPolicySpec", "podSelector")),
        AGE,
    ), _simple(lambda o: format_label_selector(dig(o, "spec", "podSelector")))),
}
# The events.k8s.io view of the same Event objects prints like the core one upstream (same internal type).
BUILTIN[("events.k8s.io", "events")] = BUILTIN[("", "events")]



# -- custom resources ------------------------------------------------------------------------------------------


def crd_printer(columns: list[dict[str, Any]] | None) -> Printer:
    """The table convertor of one CRD version. Columns whose JSONPath falls outside the supported subset are
    dropped (the real server refuses such a CRD instead; the store accepted it, so print what can be printed)."""
    if not columns:
        columns = [{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp",
                    "description": CREATION_TIMESTAMP}]
    defs: list[dict[str, Any]] = [NAME]
    paths: list[tuple[tuple[jsonpath.Step, ...], str]] = []
    for col in columns:
        path = str(col.get("jsonPath") or "")
        try:
            steps = jsonpath.parse(path)
        except jsonpath.JSONPathError:
            continue
        type_ = str(col.get("type") or "string")
        defs.append(column(str(col.get("name") or ""), type_,
                           col.get("description") or
                           f"Custom resource definition column (in JSONPath format): {path}",
                           priority=int(col.get("priority") or 0), format_=str(col.get("format") or "")))
        paths.append((steps, type_))

    def row(obj: dict[str, Any], now: datetime) -> Cells:
        cells: Cells = [name_of(obj)]
        for steps, type_ in paths:
            found = jsonpath.find(steps, obj)
            cells.append(typed_cell(type_, found[0], now) if found else None)
        return cells

    return Printer(tuple(defs), row)

"""core/v1 Service: defaulting, ClusterIP/NodePort allocation, validation.

kubernetes ``pkg/apis/core/v1/defaults.go`` (``SetDefaults_Service``), ``pkg/registry/core/service/strategy.go``
(status), ``pkg/registry/core/service/storage/storage.go`` (``beginUpdate``: ``patchAllocatedValues``,
``NormalizeClusterIPs``), ``pkg/registry/core/service/storage/alloc.go`` (IP families of a single-stack IPv4 cluster, ``allocateCreate``/``allocateUpdate``, release on
delete) and ``pkg/apis/core/validation/validation.go`` (``ValidateService``, ``validateServicePort``,
``validateUpgradeDowngradeClusterIPs``). The allocators are the store's (``ctx.allocators``); what a failed or
dry-run write took goes back. Sources and commits in docs/semantics.md.
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.allocators import AllocationError
from fakekube.errors import FieldError, duplicate, forbidden, invalid, not_supported, required
from fakekube.kinds.checks import (
    dns_label,
    dns_subdomain,
    go_string_slice,
    go_struct,
    int_or_string_json,
    mapping,
    one_of,
    port_name_errors,
    port_number,
    seq,
    spec_of,
)
from fakekube.kinds.context import WriteContext
from fakekube.strategies import BuiltinStrategy
from fakekube.validation import validate_labels

SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]
PROTOCOLS = ["SCTP", "TCP", "UDP"]
DEFAULT_CLIENT_IP_TIMEOUT = 10800


def _ports(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in seq(spec.get("ports")) if isinstance(p, dict)]


def _type(spec: dict[str, Any]) -> str:
    return spec.get("type") or "ClusterIP"


def _headless(spec: dict[str, Any]) -> bool:
    return spec.get("clusterIP") == "None"


def _needs_cluster_ip(spec: dict[str, Any]) -> bool:
    return _type(spec) != "ExternalName"


def _needs_node_ports(spec: dict[str, Any]) -> bool:
    kind = _type(spec)
    return kind == "NodePort" or (kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is not False)


def _needs_health_check_port(spec: dict[str, Any]) -> bool:
    return _type(spec) == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def _externally_accessible(spec: dict[str, Any]) -> bool:
    return _type(spec) in ("NodePort", "LoadBalancer") or (_type(spec) == "ClusterIP"
                                                            and bool(spec.get("externalIPs")))


def default_service(svc: dict[str, Any]) -> None:
    """``SetDefaults_Service``."""
    spec = spec_of(svc)
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        config = spec.get("sessionAffinityConfig")
        client_ip = config.get("clientIP") if isinstance(config, dict) else None
        if not isinstance(client_ip, dict) or client_ip.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": DEFAULT_CLIENT_IP_TIMEOUT}}
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    for port in _ports(spec):
        if not port.get("protocol"):
            port["protocol"] = "TCP"
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port")
    if _externally_accessible(spec) and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    if spec.get("internalTrafficPolicy") is None and spec["type"] in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec["internalTrafficPolicy"] = "Cluster"
    if spec["type"] == "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is None:
            spec["allocateLoadBalancerNodePorts"] = True
        status = svc.get("status")
        for ingress in seq(mapping(mapping(status).get("loadBalancer")).get("ingress")):
            if isinstance(ingress, dict) and ingress.get("ip") and ingress.get("ipMode") is None:
                ingress["ipMode"] = "VIP"


def _invalid(svc: dict[str, Any], errs: list[FieldError]) -> errors.Invalid:
    return errors.Invalid("Service", "", mapping(svc.get("metadata")).get("name") or "", errs)


def _init_ip_families(spec: dict[str, Any], family: str, svc: dict[str, Any]) -> None:
    """alloc.go ``initIPFamilyFields`` for a single-stack cluster of ``family``."""
    if _type(spec) == "ExternalName":
        spec.pop("ipFamilies", None)
        spec.pop("ipFamilyPolicy", None)
        return
    no_selector_headless = _headless(spec) and not spec.get("selector")
    if spec.get("ipFamilyPolicy") is None:
        spec["ipFamilyPolicy"] = "RequireDualStack" if no_selector_headless else "SingleStack"
    if no_selector_headless:
        # The headless, selectorless special case comes before the cluster's families are checked: such a
        # service names both families, unless its policy is SingleStack, even on a single-stack cluster.
        families = list(seq(spec.get("ipFamilies"))) or [family]
        if len(families) < 2 and spec["ipFamilyPolicy"] != "SingleStack":
            families.append("IPv6" if families[0] == "IPv4" else "IPv4")
        spec["ipFamilies"] = families
        return
    errs: list[FieldError] = []
    if spec["ipFamilyPolicy"] == "RequireDualStack":
        errs.append(invalid("spec.ipFamilyPolicy", "RequireDualStack",
                            "this cluster is not configured for dual-stack services"))
    for i, fam in enumerate(seq(spec.get("ipFamilies"))):
        if fam != family:
            errs.append(invalid(f"spec.ipFamilies[{i}]", fam, "not configured on this cluster"))
    if errs:
        raise _invalid(svc, errs)
    if not spec.get("ipFamilies"):
        spec["ipFamilies"] = [family]


def _allocate_node_ports(svc: dict[str, Any], spec: dict[str, Any], ctx: WriteContext,
                         keep: frozenset[int] | set[int] = frozenset()) -> None:
    ports = ctx.allocators.node_ports
    taken: dict[int, str] = {}
    for i, port in enumerate(_ports(spec)):
        wanted = port.get("nodePort")
        if wanted:
            if wanted in taken or wanted in keep:
                taken.setdefault(wanted, port.get("protocol", "TCP"))
                continue  # one allocation serves the same nodePort on another protocol
            try:
                ports.allocate(wanted)
            except AllocationError as exc:
                raise _invalid(svc, [invalid(f"spec.ports[{i}].nodePort", wanted, str(exc))]) from None
            ctx.on_failure(lambda p=wanted: ports.release(p))
            taken[wanted] = port.get("protocol", "TCP")
    for port in _ports(spec):
        if not port.get("nodePort"):
            try:
                port["nodePort"] = ports.allocate_next()
            except AllocationError as exc:
                raise errors.ApiError(500, "InternalError", f"failed to allocate a nodePort: {exc}") from None
            ctx.on_failure(lambda p=port["nodePort"]: ports.release(p))
    if _needs_health_check_port(spec) and not spec.get("healthCheckNodePort"):
        spec["healthCheckNodePort"] = ports.allocate_next()
        ctx.on_failure(lambda p=spec["healthCheckNodePort"]: ports.release(p))
    elif _needs_health_check_port(spec) and spec["healthCheckNodePort"] not in keep:
        try:
            ports.allocate(spec["healthCheckNodePort"])
        except AllocationError as exc:
            raise _invalid(svc, [invalid("spec.healthCheckNodePort", spec["healthCheckNodePort"], str(exc))]) from None
        ctx.on_failure(lambda p=spec["healthCheckNodePort"]: ports.release(p))


def _allocate_cluster_ip(svc: dict[str, Any], spec: dict[str, Any], ctx: WriteContext) -> None:
    ips = ctx.allocators.cluster_ips
    if _headless(spec):
        spec["clusterIPs"] = ["None"]
        return
    wanted = spec.get("clusterIP") or ""
    if wanted:
        try:
            ips.allocate(wanted)
        except AllocationError as exc:
            raise _invalid(svc, [invalid("spec.clusterIPs", go_string_slice(spec.get("clusterIPs") or [wanted]),
                                         f"failed to allocate IP {wanted}: {exc}")]) from None
    else:
        try:
            wanted = ips.allocate_next()
        except AllocationError as exc:
            raise errors.ApiError(500, "InternalError", f"failed to allocate a serviceIP: {exc}") from None
    if not ctx.dry_run and not mapping(svc.get("metadata")).get("name"):
        # The allocator records the IP as an IPAddress whose parentRef names the Service, before validation has
        # looked at the Service: without a name that IPAddress is invalid (kubernetes pkg/registry/core/service/
        # ipallocator/ipallocator.go createIPAddress, storage/alloc.go allocIPs; observed on kube-apiserver
        # v1.37.2 for a null body). A dry run creates no IPAddress.
        ips.release(wanted)
        shown = f"IP {wanted}" if spec.get("clusterIP") else "IP"
        raise _invalid(svc, [invalid("spec.clusterIPs", go_string_slice(spec.get("clusterIPs") or [""]),
                                     f'failed to allocate {shown}: IPAddress.networking.k8s.io "{wanted}" is '
                                     "invalid: spec.parentRef.name: Required value")])
    ctx.on_failure(lambda: ips.release(wanted))
    spec["clusterIP"] = wanted
    spec["clusterIPs"] = [wanted]


def _held(spec: dict[str, Any]) -> tuple[str | None, set[int]]:
    ip = spec.get("clusterIP") if _needs_cluster_ip(spec) and not _headless(spec) else None
    ports = {p["nodePort"] for p in _ports(spec) if p.get("nodePort")} if _needs_node_ports(spec) else set()
    if _needs_health_check_port(spec) and spec.get("healthCheckNodePort"):
        ports.add(spec["healthCheckNodePort"])
    return ip or None, ports


def _patch_allocated_values(spec: dict[str, Any], old_spec: dict[str, Any]) -> None:
    """``patchAllocatedValues`` and ``NormalizeClusterIPs``: what the request left out of what the server
    allocated is kept (a PUT of a fresh manifest keeps its clusterIP and nodePorts); then
    ``dropTypeDependentFields``: leaving a type drops what only it used, unless the request changed it."""
    if _needs_cluster_ip(old_spec) and _needs_cluster_ip(spec):
        if not spec.get("clusterIP") and old_spec.get("clusterIP"):
            spec["clusterIP"] = old_spec["clusterIP"]
        if not spec.get("clusterIPs") and old_spec.get("clusterIPs"):
            spec["clusterIPs"] = old_spec["clusterIPs"]
        for key in ("ipFamilies", "ipFamilyPolicy"):
            if not spec.get(key) and old_spec.get(key):
                spec[key] = old_spec[key]
    if _needs_node_ports(old_spec) and _needs_node_ports(spec):
        used = {p.get("nodePort") for p in _ports(old_spec)} & {p.get("nodePort") for p in _ports(spec)}
        by_name = {p.get("name", ""): p.get("nodePort") for p in _ports(old_spec)}
        for port in _ports(spec):
            previous = by_name.get(port.get("name", ""))
            if not port.get("nodePort") and previous and previous not in used:
                port["nodePort"] = previous
    if (_needs_health_check_port(old_spec) and _needs_health_check_port(spec)
            and not spec.get("healthCheckNodePort")):
        spec["healthCheckNodePort"] = old_spec.get("healthCheckNodePort")
    # NormalizeClusterIPs: a changed clusterIP with untouched clusterIPs moves clusterIPs[0] with it.
    if (spec.get("clusterIP") != old_spec.get("clusterIP") and spec.get("clusterIPs") == old_spec.get("clusterIPs")
            and spec.get("clusterIP")):
        spec["clusterIPs"] = [spec["clusterIP"], *(seq(spec.get("clusterIPs")))[1:]]
    # dropTypeDependentFields: leaving a type drops what only it used, unless the request changed it.
    if not _needs_node_ports(spec) and _needs_node_ports(old_spec):
        old_ports = {p.get("nodePort") for p in _ports(old_spec)}
        for port in _ports(spec):
            if port.get("nodePort") in old_ports:
                port.pop("nodePort", None)
    if _type(spec) == "ExternalName" and _type(old_spec) != "ExternalName":
        for key in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "internalTrafficPolicy"):
            if spec.get(key) == old_spec.get(key):
                spec.pop(key, None)


class ServiceStrategy(BuiltinStrategy):
    initial_status = {"loadBalancer": {}}
    returns_deleted_object = True
    releases_on_delete = True

    def default(self, obj: dict[str, Any]) -> None:
        default_service(obj)

    def begin_create(self, obj: dict[str, Any], ctx: WriteContext) -> None:
        spec = spec_of(obj)
        if spec.get("clusterIP") and not spec.get("clusterIPs"):
            spec["clusterIPs"] = [spec["clusterIP"]]
        elif spec.get("clusterIPs") and not spec.get("clusterIP"):
            spec["clusterIP"] = spec["clusterIPs"][0]
        _init_ip_families(spec, ctx.allocators.cluster_ips.family, obj)
        if _needs_cluster_ip(spec):
            _allocate_cluster_ip(obj, spec, ctx)
        if _needs_node_ports(spec):
            _allocate_node_ports(obj, spec, ctx)

    def begin_update(self, new: dict[str, Any], old: dict[str, Any], ctx: WriteContext) -> None:
        spec, old_spec = spec_of(new), mapping(old.get("spec"))
        _patch_allocated_values(spec, old_spec)
        old_ip, old_ports = _held(old_spec)
        if _needs_cluster_ip(spec) and not _needs_cluster_ip(old_spec):
            _init_ip_families(spec, ctx.allocators.cluster_ips.family, new)
            _allocate_cluster_ip(new, spec, ctx)
        if _needs_node_ports(spec):
            _allocate_node_ports(new, spec, ctx, keep=old_ports)
        new_ip, new_ports = _held(spec)
        allocators = ctx.allocators
        if old_ip and old_ip != new_ip and not _needs_cluster_ip(spec):
            ctx.on_success(lambda: allocators.cluster_ips.release(old_ip))
        for port in old_ports - new_ports:
            ctx.on_success(lambda p=port: allocators.node_ports.release(p))

    def after_delete(self, obj: dict[str, Any], ctx: WriteContext) -> None:
        ip, ports = _held(mapping(obj.get("spec")))
        if ip:
            ctx.allocators.cluster_ips.release(ip)
        for port in ports:
            ctx.allocators.node_ports.release(port)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_service(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        errs = validate_service(new)
        spec, old_spec = mapping(new.get("spec")), mapping(old.get("spec"))
        if "ExternalName" not in (_type(spec), _type(old_spec)) and not (_headless(spec) and _headless(old_spec)):
            old_ips, ips = seq(old_spec.get("clusterIPs")), seq(spec.get("clusterIPs"))
            if len(old_ips) == len(ips):
                errs.extend(invalid(f"spec.clusterIPs[{i}]", go_string_slice(ips), "may not change once set")
                            for i, ip in enumerate(old_ips) if ip != ips[i])
            elif old_ips and not ips:
                errs.append(invalid("spec.clusterIPs[0]", go_string_slice(ips), "primary clusterIP can not be unset"))
        return errs


def validate_service(svc: dict[str, Any]) -> list[FieldError]:
    spec = mapping(svc.get("spec"))
    errs: list[FieldError] = []
    kind = spec.get("type") or ""
    if kind not in SERVICE_TYPES:
        errs.append(not_supported("spec.type", kind, SERVICE_TYPES))
    ports = seq(spec.get("ports"))
    if not ports and not _headless(spec) and kind != "ExternalName":
        errs.append(required("spec.ports", ""))
    names: set[str] = set()
    seen: set[tuple[Any, Any]] = set()
    node_ports: set[tuple[Any, Any]] = set()
    for i, port in enumerate(ports):
        here = f"spec.ports[{i}]"
        port = port if isinstance(port, dict) else {}
        name = port.get("name") or ""
        if len(ports) > 1 and not name:
            errs.append(required(f"{here}.name", ""))
        elif name:
            errs.extend(dns_label(name, f"{here}.name"))
            if name in names:
                errs.append(duplicate(f"{here}.name", name))
            names.add(name)
        errs.extend(port_number(port.get("port", 0), f"{here}.port"))
        protocol = port.get("protocol")
        errs.extend(one_of(protocol, f"{here}.protocol", PROTOCOLS))
        target = port.get("targetPort")
        if isinstance(target, str):
            errs.extend(invalid(f"{here}.targetPort", target, m) for m in port_name_errors(target))
        else:
            errs.extend(port_number(target, f"{here}.targetPort"))
        if kind == "ClusterIP" and port.get("nodePort"):
            errs.append(forbidden(f"{here}.nodePort", "may not be used when `type` is 'ClusterIP'"))
        key = (port.get("port"), protocol)
        if key in seen:
            errs.append(duplicate(here, key_text(port)))
        seen.add(key)
        if port.get("nodePort"):
            node_key = (port["nodePort"], protocol)
            if node_key in node_ports:
                errs.append(duplicate(f"{here}.nodePort", port["nodePort"]))
            node_ports.add(node_key)
    errs.extend(validate_labels(spec.get("selector"), "spec.selector"))
    affinity = spec.get("sessionAffinity") or ""
    if affinity not in ("ClientIP", "None"):
        errs.append(not_supported("spec.sessionAffinity", affinity, ["ClientIP", "None"]))
    if kind == "ExternalName":
        if spec.get("clusterIPs") or (spec.get("clusterIP") and spec.get("clusterIP") != ""):
            errs.append(forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
        name = spec.get("externalName") or ""
        if not name:
            errs.append(required("spec.externalName", ""))
        else:
            errs.extend(dns_subdomain(name.rstrip("."), "spec.externalName"))
    return errs


def key_text(port: dict[str, Any]) -> errors.GoLiteral:
    """The duplicate port's value in the error: an internal ``core.ServicePort`` as ``json.Marshal`` writes it."""
    return go_struct(("Name", port.get("name", "")), ("Protocol", port.get("protocol", "")),
                     ("AppProtocol", port.get("appProtocol")), ("Port", port.get("port", 0)),
                     ("TargetPort", int_or_string_json(port.get("targetPort"))), ("NodePort", port.get("nodePort", 0)))

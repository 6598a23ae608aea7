"""networking.k8s.io/v1 kinds (kubernetes ``pkg/registry/networking/<resource>/strategy.go``,
``pkg/apis/networking/v1/defaults.go``, ``pkg/apis/networking/validation/validation.go``; sources and commits in
docs/semantics.md)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, GoLiteral, invalid, not_supported, required, too_long
from fakekube.kinds import admission
from fakekube.kinds.checks import (
    dns_subdomain,
    go_string_slice,
    go_struct,
    immutable,
    mapping,
    seq,
    validate_label_selector,
)
from fakekube.kinds.context import WriteContext
from fakekube.namerules import is_dns1123_subdomain, name_is_path_segment
from fakekube.strategies import BuiltinStrategy, Strategy

_HTTP_PATH = re.compile(r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+")  # httpPathFmt
_MAX_CONTROLLER = 250  # maxLenIngressClassController

PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"]
POLICY_TYPES = ["Ingress", "Egress"]


class NetworkPolicyStrategy(BuiltinStrategy):
    """Generation on spec changes; ``policyTypes`` defaults to ``[Ingress]`` (plus ``Egress`` when there are egress
    rules), rule ports to TCP; ``podSelector`` is always present (a non-pointer struct)."""

    generation_fields = ("spec",)
    raw_deep_equal_fields = ("spec",)  # networkpolicy/strategy.go PrepareForUpdate: reflect.DeepEqual

    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            spec = obj["spec"] = {}
        if not isinstance(spec.get("podSelector"), dict):
            spec["podSelector"] = {}
        for direction in ("ingress", "egress"):
            for rule in seq(spec.get(direction)):
                for port in seq(mapping(rule).get("ports")):
                    if isinstance(port, dict) and not port.get("protocol"):
                        port["protocol"] = "TCP"
        if not spec.get("policyTypes"):
            spec["policyTypes"] = ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = mapping(obj.get("spec"))
        errs = validate_label_selector(spec.get("podSelector"), "spec.podSelector")
        types = seq(spec.get("policyTypes"))
        for i, kind in enumerate(types):
            if kind not in POLICY_TYPES:
                errs.append(not_supported(f"spec.policyTypes[{i}]", kind, POLICY_TYPES))
        if len(types) > 2:
            errs.append(invalid("spec.policyTypes", go_string_slice(types),
                                "may not specify more than two policyTypes"))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return self.validate(new)


class IngressStrategy(BuiltinStrategy):
    initial_status = {"loadBalancer": {}}
    generation_fields = ("spec",)

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        if old is None and ctx.subresource is None:
            admission.default_ingress_class(obj, ctx)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = mapping(obj.get("spec"))
        errs: list[FieldError] = []
        rules = seq(spec.get("rules"))
        if not rules and spec.get("defaultBackend") is None:
            errs.append(invalid("spec", GoLiteral("null" if not isinstance(spec.get("rules"), list) else "[]"),
                                "either `defaultBackend` or `rules` must be specified"))
        if spec.get("ingressClassName"):
            errs += dns_subdomain(spec["ingressClassName"], "spec.ingressClassName")
        for i, rule in enumerate(rules):
            for j, path in enumerate(seq(mapping(mapping(rule).get("http")).get("paths"))):
                here = f"spec.rules[{i}].http.paths[{j}]"
                path = path if isinstance(path, dict) else {}
                kind = path.get("pathType")
                if not kind:
                    errs.append(required(f"{here}.pathType", "pathType must be specified"))
                elif kind not in PATH_TYPES:
                    errs.append(not_supported(f"{here}.pathType", kind, PATH_TYPES))
                elif kind in ("Exact", "Prefix") and not str(path.get("path", "")).startswith("/"):
                    errs.append(invalid(f"{here}.path", path.get("path", ""), "must be an absolute path"))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return [] if subresource == "status" else self.validate(new)


def domain_prefixed_path(value: Any, path: str) -> list[FieldError]:
    """apimachinery ``IsDomainPrefixedPath``: ``acme.io/foo``."""
    if not isinstance(value, str) or not value:
        return [required(path, "")]
    host, _, rest = value.partition("/")
    if not host or not rest:
        return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errs = [invalid(path, host, m) for m in is_dns1123_subdomain(host)]
    if not _HTTP_PATH.fullmatch(rest):
        errs.append(invalid(path, rest, f"Invalid path (regex used for validation is '{_HTTP_PATH.pattern}')"))
    return errs


class IngressClassStrategy(BuiltinStrategy):
    generation_fields = ("spec",)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        # validateIngressClassSpec (the parameters reference is not checked here)
        controller = mapping(obj.get("spec")).get("controller")
        errs = []
        if isinstance(controller, str) and len(controller) > _MAX_CONTROLLER:
            errs.append(too_long("spec.controller", _MAX_CONTROLLER))
        return [*errs, *domain_prefixed_path(controller, "spec.controller")]

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        controller, old_controller = mapping(new.get("spec")).get("controller"), mapping(old.get("spec")).get(
            "controller")
        return immutable(controller, old_controller, "spec.controller")


class ServiceCIDRStrategy(BuiltinStrategy):
    initial_status = {}
    status_keeps = ("labels", "annotations", "finalizers", "ownerReferences")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        # validateServiceCIDRSpec, its presence and count (the CIDRs' syntax is not checked here)
        cidrs = seq(mapping(obj.get("spec")).get("cidrs"))
        if not cidrs:
            return [required("spec.cidrs", "at least one CIDR required")]
        if len(cidrs) > 2:
            return [invalid("spec.cidrs", go_struct(("CIDRs", cidrs)), "may only hold up to 2 values")]
        return []


def _parent_ref(ref: Any) -> list[FieldError]:
    """``validateIPAddressParentReference``: the referent's resource and name are required, every part that is
    set well formed (the group may be empty: the core group's Services hold IPs). The required checks are
    covered by v1.37's declarative validation, whose errors come after the handwritten ones (observed on
    kube-apiserver v1.37.2)."""
    if not isinstance(ref, dict):
        return [required("spec.parentRef", "")]
    path = "spec.parentRef"
    errs: list[FieldError] = []
    group = _text(ref.get("group"))
    if group:
        errs.extend(dns_subdomain(group, f"{path}.group"))
    for key in ("resource", "name", "namespace"):
        value = _text(ref.get(key))
        errs.extend(invalid(f"{path}.{key}", value, m) for m in name_is_path_segment(value, False))
    errs.extend(required(f"{path}.{key}", "") for key in ("resource", "name") if not _text(ref.get(key)))
    return errs


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _parent_ref_struct(ref: Any) -> tuple[str, ...] | None:
    return None if not isinstance(ref, dict) else tuple(_text(ref.get(k)) for k in ("group", "resource", "namespace",
                                                                                      "name"))


class IPAddressStrategy(Strategy):
    """``ValidateIPAddress`` (the name rule, an address in canonical form, is the registry's name rule
    ``ip``), and on update ``ValidateIPAddressUpdate``: the parent reference never changes (the declarative
    rule's error, which shows no value)."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return _parent_ref(mapping(obj.get("spec")).get("parentRef"))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        ref, old_ref = mapping(new.get("spec")).get("parentRef"), mapping(old.get("spec")).get("parentRef")
        return [*self.validate(new), *immutable(_parent_ref_struct(ref), _parent_ref_struct(old_ref),
                                                "spec.parentRef", GoLiteral("null"))]


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "IPAddress": IPAddressStrategy,
    "NetworkPolicy": NetworkPolicyStrategy,
    "Ingress": IngressStrategy,
    "IngressClass": IngressClassStrategy,
    "ServiceCIDR": ServiceCIDRStrategy,
}

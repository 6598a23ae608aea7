"""Validation of the resource.k8s.io slices and device taint rules (kubernetes ``pkg/apis/resource/validation/
validation.go`` at v1.37.2: ``validateResourceSliceSpec``, ``validateResourcePool``, ``validateDeviceTaint``;
sources in docs/semantics.md). A slice's devices and selectors are not checked here."""

from __future__ import annotations

from typing import Any

from fakekube.errors import FieldError, invalid, not_supported, required
from fakekube.kinds.checks import dns_subdomain, is_int, mapping
from fakekube.namerules import is_qualified_name, is_valid_label_value

_TAINT_EFFECTS = ["NoExecute", "NoSchedule", "None"]
_ONE_NODE_CHOICE = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"


def validate_resource_slice(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[FieldError]:
    spec = mapping(obj.get("spec"))
    errs: list[FieldError] = []
    driver = spec.get("driver")
    if not driver:
        errs.append(required("spec.driver", ""))
    pool = mapping(spec.get("pool"))
    name = pool.get("name")
    if not name:
        errs.append(required("spec.pool.name", ""))
    else:
        for part in str(name).split("/"):
            errs.extend(dns_subdomain(part, "spec.pool.name"))
    count = pool.get("resourceSliceCount") if is_int(pool.get("resourceSliceCount")) else 0
    if count <= 0:
        errs.append(invalid("spec.pool.resourceSliceCount", count, "must be greater than zero"))
    generation = pool.get("generation")
    if is_int(generation) and generation < 0:
        errs.append(invalid("spec.pool.generation", generation, "must be greater than or equal to zero"))
    if old is not None:
        old_spec = mapping(old.get("spec"))
        for key, here, was in (("name", pool.get("name"), mapping(old_spec.get("pool")).get("name")),
                               ("driver", driver, old_spec.get("driver")),
                               ("nodeName", spec.get("nodeName"), old_spec.get("nodeName"))):
            if here != was:
                path = "spec.pool.name" if key == "name" else f"spec.{key}"
                errs.append(invalid(path, here if here is not None else "", "field is immutable"))
    chosen = []
    node = spec.get("nodeName")
    if node is not None:
        if node:
            chosen.append("`nodeName`")
            errs.extend(dns_subdomain(node, "spec.nodeName"))
        else:
            errs.append(invalid("spec.nodeName", "", "must be either unset or set to a non-empty string"))
    if spec.get("nodeSelector") is not None:
        chosen.append("`nodeSelector`")
    for key in ("allNodes", "perDeviceNodeSelection"):
        value = spec.get(key)
        if value is True:
            chosen.append(f"`{key}`")
        elif value is not None:
            errs.append(invalid(f"spec.{key}", value, "must be either unset or set to true"))
    if not chosen:
        errs.append(required("spec", _ONE_NODE_CHOICE))
    elif len(chosen) > 1:
        errs.append(invalid("spec", "{" + ", ".join(chosen) + "}", _ONE_NODE_CHOICE + ", but multiple fields are set"))
    if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
        errs.append(invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed"))
    return errs


def validate_device_taint(taint: Any, old: Any, path: str) -> list[FieldError]:
    """``validateDeviceTaint``: the key a label name, the value a label value, the effect (checked when new or
    changed) required and supported."""
    taint = mapping(taint)
    key = taint.get("key") if isinstance(taint.get("key"), str) else ""
    errs = [invalid(f"{path}.key", key, m) for m in is_qualified_name(key)]
    value = taint.get("value")
    if isinstance(value, str) and value:
        errs.extend(invalid(f"{path}.value", value, m) for m in is_valid_label_value(value))
    effect = taint.get("effect")
    if old is None or mapping(old).get("effect") != effect:
        if not effect:
            errs.append(required(f"{path}.effect", ""))
        elif effect not in _TAINT_EFFECTS:
            errs.append(not_supported(f"{path}.effect", effect, _TAINT_EFFECTS))
    return errs

"""core/v1 kinds (kubernetes ``pkg/registry/core/<resource>/strategy.go`` and ``storage/storage.go``,
``pkg/apis/core/v1/defaults.go``, ``pkg/apis/core/validation/validation.go``; sources and commits in
docs/semantics.md). Pods are in :mod:`fakekube.kinds.pod`, Services in :mod:`fakekube.kinds.service`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from fakekube import quantity
from fakekube.errors import FieldError, forbidden, invalid, not_supported, required, too_long
from fakekube.kinds import admission
from fakekube.kinds.checks import config_key, immutable, mapping, non_negative, seq, spec_of
from fakekube.kinds.context import WriteContext
from fakekube.kinds.events import CoreEventStrategy
from fakekube.kinds.pod import PodStrategy
from fakekube.kinds.podspec import default_pod_template, default_pvc_spec, default_volume_source
from fakekube.kinds.podvalidation import validate_pod_template
from fakekube.kinds.pvvalidation import validate_pv_spec
from fakekube.kinds.service import ServiceStrategy
from fakekube.kinds.workloads import validate_template
from fakekube.namerules import remember_valid
from fakekube.quantity import canonicalize_list
from fakekube.strategies import BuiltinStrategy, Strategy, bump_generation_if
from fakekube.uids import uuid4_text
from fakekube.validation import validate_kube_finalizer_names, validate_qualified_name

ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]
IMMUTABLE_WHEN_SET = "field is immutable when `immutable` is set"
MAX_SECRET_SIZE = 1024 * 1024
_SECRET_KEYS = {
    "kubernetes.io/dockercfg": (".dockercfg",),
    "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
    "kubernetes.io/ssh-auth": ("ssh-privatekey",),
    "kubernetes.io/tls": ("tls.crt", "tls.key"),
}


def _value(text: Any) -> Any:
    try:
        return quantity.value_of(text)
    except (quantity.QuantityError, TypeError):
        return None


# ----------------------------------------------------------------------------------- Namespace

class NamespaceStrategy(BuiltinStrategy):
    """``status.phase: Active`` on create and ``kubernetes`` appended to the requested ``spec.finalizers``;
    ``spec.finalizers`` only change through ``/finalize``; the ``kubernetes.io/metadata.name`` label always
    equals the name (pkg/registry/core/namespace/strategy.go). A deleting namespace stays while
    ``spec.finalizers`` remain (storage.go ``ShouldDeleteNamespaceDuringUpdate``)."""

    initial_status = {"phase": "Active"}

    def default(self, obj: dict[str, Any]) -> None:
        # SetDefaults_Namespace (the name label, when there is a name: so a create's managedFields own it;
        # generateName's namespaces get it in prepare_for_create) and
        # SetDefaults_NamespaceStatus (pkg/apis/core/v1/defaults.go).
        meta = obj.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("name"), str) and meta["name"]:
            _name_label(meta, meta["name"])
        status = obj.get("status")
        if status is None:
            obj["status"] = {"phase": "Active"}
        elif isinstance(status, dict) and not status.get("phase"):
            status["phase"] = "Active"

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        spec = spec_of(obj)
        finalizers = spec.get("finalizers")
        if not isinstance(finalizers, list) or not finalizers:
            spec["finalizers"] = ["kubernetes"]
        elif "kubernetes" not in finalizers:
            finalizers.append("kubernetes")
        _name_label(obj["metadata"], obj["metadata"].get("name", ""))

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        new["spec"] = mapping(old.get("spec"))
        _name_label(new["metadata"], old["metadata"]["name"])

    def prepare_for_finalize_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_finalize_update(new, old)
        _name_label(new["metadata"], old["metadata"]["name"])

    def holds_deleted(self, obj: dict[str, Any]) -> bool:
        return bool(mapping(obj.get("spec")).get("finalizers"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        # ValidateNamespace: every spec finalizer against the whole list's path, qualified name first.
        return [err for fin in seq(mapping(obj.get("spec")).get("finalizers"))
                for err in _namespace_finalizer(fin, "spec.finalizers")]

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            # ValidateNamespaceStatusUpdate (its field path is spelled status.Phase upstream).
            phase = mapping(new.get("status")).get("phase", "")
            deleting = bool(new["metadata"].get("deletionTimestamp"))
            wanted = "Terminating" if deleting else "Active"
            if phase != wanted:
                rule = "not empty" if deleting else "empty"
                return [invalid("status.Phase", phase, f"may only be '{wanted}' if `deletionTimestamp` is {rule}")]
            return []
        if subresource == "finalize":
            # ValidateNamespaceFinalizeUpdate: each finalizer against its own index.
            return [err for i, fin in enumerate(seq(mapping(new.get("spec")).get("finalizers")))
                    for err in _namespace_finalizer(fin, f"spec.finalizers[{i}]")]
        return self.validate(new)


def _namespace_finalizer(finalizer: Any, field_path: str) -> list[FieldError]:
    """pkg/apis/core/validation validateFinalizerName: a qualified name, and a standard one when unprefixed."""
    return (validate_qualified_name(finalizer, field_path)
            + validate_kube_finalizer_names([finalizer], field_path, indexed=False))


def _name_label(meta: dict[str, Any], name: Any) -> None:
    if meta.get("labels") is None:
        meta["labels"] = {}
    if isinstance(meta["labels"], dict):  # anything else is reported by the metadata validation
        meta["labels"]["kubernetes.io/metadata.name"] = name


# ----------------------------------------------------------------------------------- Secret and ConfigMap

def _fold_string_data(obj: dict[str, Any]) -> None:
    """``stringData`` is write-only: merged into ``data`` base64-encoded, never stored (v1 conversion)."""
    string_data = obj.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = obj.get("data")
        if not isinstance(data, dict):
            data = obj["data"] = {}
        for key, value in string_data.items():
            data[key] = base64.b64encode(str(value).encode()).decode()


_VALID_CONFIG_KEYS: set[str] = set()  # keys IsConfigMapKey accepts (a pure check of the key alone), bounded


def _validate_keys(obj: dict[str, Any], *fields: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for name in fields:
        data = obj.get(name)
        for key in data if isinstance(data, dict) else ():
            if type(key) is not str or key not in _VALID_CONFIG_KEYS:
                errs += remember_valid(_VALID_CONFIG_KEYS, key, config_key(key, f"{name}[{key}]"))
            if key in seen:
                errs.append(invalid(f"{name}[{key}]", key, "duplicate of key present in data"))
            seen.add(key)
    return errs


def _config_map_size(obj: dict[str, Any]) -> int:
    """The bytes of a ConfigMap's values: UTF-8 text of ``data``, the decoded bytes of ``binaryData``."""
    total = 0
    data, binary = obj.get("data"), obj.get("binaryData")
    for value in data.values() if isinstance(data, dict) else ():
        if isinstance(value, str):
            total += len(value) if value.isascii() else len(value.encode())
    for value in binary.values() if isinstance(binary, dict) else ():
        if isinstance(value, str):
            # base64: 3 bytes per 4 characters, less the padding
            total += len(value) * 3 // 4 - value[-2:].count("=")
    return total


def _immutable_content(new: dict[str, Any], old: dict[str, Any], *fields: str) -> list[FieldError]:
    if old.get("immutable") is not True:
        return []
    errs = [] if new.get("immutable") is True else [forbidden("immutable", IMMUTABLE_WHEN_SET)]
    return errs + [forbidden(name, IMMUTABLE_WHEN_SET) for name in fields if new.get(name) != old.get(name)]


class SecretStrategy(Strategy):
    def default(self, obj: dict[str, Any]) -> None:
        if not obj.get("type"):
            obj["type"] = "Opaque"
        # The v1 → internal conversion folds stringData as the body is decoded, before the field manager sees
        # it (pkg/apis/core/v1/conversion.go Convert_v1_Secret_To_core_Secret): the writer owns data keys.
        _fold_string_data(obj)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        _fold_string_data(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _fold_string_data(new)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errs = _validate_keys(obj, "data")
        data = mapping(obj.get("data"))
        for key in _SECRET_KEYS.get(obj.get("type") or "", ()):
            if key not in data:
                errs.append(required(f"data[{key}]", ""))
        if obj.get("type") == "kubernetes.io/service-account-token":
            annotations = mapping(mapping(obj.get("metadata")).get("annotations"))
            if not annotations.get("kubernetes.io/service-account.name"):
                errs.append(required("metadata.annotations[kubernetes.io/service-account.name]", ""))
        size = sum(len(str(v)) * 3 // 4 for v in data.values())
        if size > MAX_SECRET_SIZE:
            errs.append(FieldError("FieldValueTooLong", "data", f"may not be more than {MAX_SECRET_SIZE} bytes"))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        errs = immutable(new.get("type"), old.get("type"), "type")
        return errs + _immutable_content(new, old, "data") + self.validate(new)


class ConfigMapStrategy(Strategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errs = _validate_keys(obj, "data", "binaryData")
        if _config_map_size(obj) > MAX_SECRET_SIZE:
            # ValidateConfigMap: the whole object's error, on the path "" (which field.Path prints as "[]")
            errs.append(too_long("[]", MAX_SECRET_SIZE))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return _immutable_content(new, old, "data", "binaryData") + self.validate(new)


class ServiceAccountStrategy(Strategy):
    returns_deleted_object = True


# ----------------------------------------------------------------------------------- PodTemplate and RC

class PodTemplateStrategy(Strategy):
    """``podtemplate/strategy.go``: generation 1 on create, + 1 when the template changes."""

    returns_deleted_object = True
    tracks_generation = True

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        bump_generation_if(new, old, new.get("template") != old.get("template"))

    def default(self, obj: dict[str, Any]) -> None:
        default_pod_template(obj.get("template"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_pod_template(obj.get("template"), "template")

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return self.validate(new)


class ReplicationControllerStrategy(BuiltinStrategy):
    orphans_dependents_by_default = True  # DefaultGarbageCollectionPolicy, for back compatibility
    initial_status = {"replicas": 0}
    generation_fields = ("spec",)

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        labels = mapping(mapping(spec.get("template")).get("metadata")).get("labels")
        meta = obj.get("metadata")
        if labels:
            if not spec.get("selector"):
                spec["selector"] = dict(labels)
            if isinstance(meta, dict) and not meta.get("labels"):
                meta["labels"] = dict(labels)
        spec.setdefault("replicas", 1)
        default_pod_template(spec.get("template"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = mapping(obj.get("spec"))
        errs = non_negative(spec.get("minReadySeconds"), "spec.minReadySeconds")
        if not spec.get("selector"):
            errs.append(required("spec.selector", ""))
        errs += non_negative(spec.get("replicas"), "spec.replicas")
        return errs + validate_template(spec, "spec", kind_for_deadline="ReplicationController", map_selector=True)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return [] if subresource == "status" else self.validate(new)


# ----------------------------------------------------------------------------------- volumes

def _validate_pvc_spec(spec: Any, path: str) -> list[FieldError]:
    spec = spec if isinstance(spec, dict) else {}
    errs: list[FieldError] = []
    modes = seq(spec.get("accessModes"))
    if not modes and not spec.get("dataSourceRef"):
        errs.append(required(f"{path}.accessModes", "at least 1 access mode is required"))
    for mode in modes:
        if mode not in ACCESS_MODES:
            errs.append(not_supported(f"{path}.accessModes", mode, ACCESS_MODES))
    requests = mapping(mapping(spec.get("resources")).get("requests"))
    if "storage" not in requests:
        errs.append(required(f"{path}.resources[storage]", ""))
    else:
        value = _value(requests["storage"])
        if value is not None and value <= 0:
            errs.append(invalid(f"{path}.resources[storage]", requests["storage"], "must be greater than zero"))
    mode = spec.get("volumeMode")
    if mode is not None and mode not in ("Block", "Filesystem"):
        errs.append(not_supported(f"{path}.volumeMode", mode, ["Block", "Filesystem"]))
    return errs


class PersistentVolumeClaimStrategy(BuiltinStrategy):
    initial_status = {"phase": "Pending"}
    returns_deleted_object = True
    # PrepareForCreate sets an empty status; phase Pending is the v1 defaulting's, on every read (kubernetes
    # pkg/registry/core/persistentvolumeclaim/strategy.go, pkg/apis/core/v1/defaults.go)
    created_without_read_defaults = True

    def default(self, obj: dict[str, Any]) -> None:
        default_pvc_spec(spec_of(obj))
        status = obj.get("status")
        if isinstance(status, dict):
            canonicalize_list(status.get("capacity"))

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        if old is None and ctx.subresource is None:
            admission.default_storage_class(obj, ctx)
        admission.storage_protection(obj, "PersistentVolumeClaim", old, ctx)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return _validate_pvc_spec(obj.get("spec"), "spec")

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        errs = self.validate(new)
        spec, old_spec = dict(mapping(new.get("spec"))), dict(mapping(old.get("spec")))
        if not old_spec.get("volumeName"):
            old_spec["volumeName"] = spec.get("volumeName")  # bound once, by the PV controller
        old_spec["volumeAttributesClassName"] = spec.get("volumeAttributesClassName")
        new_requests = dict(mapping(mapping(spec.get("resources")).get("requests")))
        old_requests = mapping(mapping(old_spec.get("resources")).get("requests"))
        if mapping(new.get("status")).get("phase") == "Bound" and "storage" in old_requests:
            new_requests["storage"] = old_requests["storage"]
        spec["resources"] = {**mapping(spec.get("resources")), "requests": new_requests}
        for key in ("volumeName", "volumeAttributesClassName"):
            if spec.get(key) is None:
                spec.pop(key, None)
            if old_spec.get(key) is None:
                old_spec.pop(key, None)
        if spec != old_spec:
            errs.append(forbidden("spec", "spec is immutable after creation except resources.requests and "
                                          "volumeAttributesClassName for bound claims"))
        new_size = _value(mapping(mapping(mapping(new.get("spec")).get("resources")).get("requests")).get("storage"))
        old_size = _value(old_requests.get("storage"))
        capacity = _value(mapping(mapping(old.get("status")).get("capacity")).get("storage"))
        if new_size is not None and old_size is not None and new_size < old_size and (capacity is None
                                                                                      or new_size <= capacity):
            errs.append(forbidden("spec.resources.requests.storage", "field can not be less than status.capacity"))
        return errs


class PersistentVolumeStrategy(BuiltinStrategy):
    initial_status = {"phase": "Pending"}
    returns_deleted_object = True

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if not spec.get("persistentVolumeReclaimPolicy"):
            spec["persistentVolumeReclaimPolicy"] = "Retain"
        if not spec.get("volumeMode"):
            spec["volumeMode"] = "Filesystem"
        canonicalize_list(spec.get("capacity"))
        default_volume_source(spec)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj["status"]["lastPhaseTransitionTime"] = obj["metadata"].get("creationTimestamp")

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        admission.storage_protection(obj, "PersistentVolume", old, ctx)
        # The status strategy stamps a phase change that does not carry its own transition time.
        if old is None or ctx.subresource != "status":
            return
        status, old_status = obj.get("status"), mapping(old.get("status"))
        if isinstance(status, dict) and status.get("phase") != old_status.get("phase") and status.get(
                "lastPhaseTransitionTime") in (None, old_status.get("lastPhaseTransitionTime")):
            status["lastPhaseTransitionTime"] = ctx.now()

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_pv_spec(mapping(obj.get("spec")))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        # ValidatePersistentVolumeUpdate: the volume mode never changes (the volume source's immutability, whose
        # message embeds a go-cmp diff, is not checked).
        mode, old_mode = mapping(new.get("spec")).get("volumeMode"), mapping(old.get("spec")).get("volumeMode")
        return [*self.validate(new), *immutable(mode, old_mode, "volumeMode")]


# ----------------------------------------------------------------------------------- cluster objects

class NodeStrategy(BuiltinStrategy):
    initial_status = {
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 0}},
        "nodeInfo": {key: "" for key in ("machineID", "systemUUID", "bootID", "kernelVersion", "osImage",
                                          "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion",
                                          "operatingSystem", "architecture")},
    }

    def default(self, obj: dict[str, Any]) -> None:
        status = obj.get("status")
        if isinstance(status, dict):
            canonicalize_list(status.get("capacity"))
            if isinstance(status.get("capacity"), dict) and status.get("allocatable") is None:
                status["allocatable"] = dict(status["capacity"])
            canonicalize_list(status.get("allocatable"))

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        admission.taint_new_node(obj, old, ctx)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        # A Node may be registered with its status (the kubelet does); NodeStrategy keeps it.
        status = obj.get("status")
        super().prepare_for_create(obj)
        if isinstance(status, dict):
            obj["status"].update(status)


class EndpointsStrategy(Strategy):
    # api v0.37.2 core/v1/lifecycle.go: Endpoints APILifecycleDeprecated 1.33, replaced by EndpointSlice.
    deprecated_since = (1, 33)
    replacement = "discovery.k8s.io/v1 EndpointSlice"

    def default(self, obj: dict[str, Any]) -> None:
        for subset in seq(obj.get("subsets")):
            for port in seq(mapping(subset).get("ports")):
                if isinstance(port, dict) and not port.get("protocol"):
                    port["protocol"] = "TCP"


class ComponentStatusStrategy(Strategy):
    # api v0.37.2 core/v1/lifecycle.go: ComponentStatus APILifecycleDeprecated 1.19, no replacement.
    deprecated_since = (1, 19)


class LimitRangeStrategy(Strategy):
    def begin_create(self, obj: dict[str, Any], ctx: WriteContext) -> None:
        # limitrange strategy.go PrepareForCreate: a LimitRange with no name (nor generateName) is named with a
        # fresh UUID instead of refused (drawn here, where the store's random stream is at hand).
        meta = obj["metadata"]
        if not meta.get("name"):
            meta["name"] = uuid4_text(ctx.rng)

    def default(self, obj: dict[str, Any]) -> None:
        for item in seq(mapping(obj.get("spec")).get("limits")):
            if not isinstance(item, dict):
                continue
            for key in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
                canonicalize_list(item.get(key))
            if item.get("type") == "Container":
                default, request = item.setdefault("default", {}), item.setdefault("defaultRequest", {})
                for name, value in mapping(item.get("max")).items():
                    default.setdefault(name, value)
                for name, value in default.items():
                    request.setdefault(name, value)
                for name, value in mapping(item.get("min")).items():
                    request.setdefault(name, value)
                for key in ("default", "defaultRequest"):
                    if not item[key]:
                        del item[key]


class ResourceQuotaStrategy(BuiltinStrategy):
    initial_status = {}
    returns_deleted_object = True

    def default(self, obj: dict[str, Any]) -> None:
        canonicalize_list(mapping(obj.get("spec")).get("hard"))
        status = obj.get("status")
        if isinstance(status, dict):
            canonicalize_list(status.get("hard"))
            canonicalize_list(status.get("used"))


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "Namespace": NamespaceStrategy,
    "Pod": PodStrategy,
    "PodTemplate": PodTemplateStrategy,
    "ReplicationController": ReplicationControllerStrategy,
    "Service": ServiceStrategy,
    "Secret": SecretStrategy,
    "ConfigMap": ConfigMapStrategy,
    "ServiceAccount": ServiceAccountStrategy,
    "PersistentVolumeClaim": PersistentVolumeClaimStrategy,
    "PersistentVolume": PersistentVolumeStrategy,
    "Node": NodeStrategy,
    "Endpoints": EndpointsStrategy,
    "ComponentStatus": ComponentStatusStrategy,
    "LimitRange": LimitRangeStrategy,
    "ResourceQuota": ResourceQuotaStrategy,
    "Event": CoreEventStrategy,
}

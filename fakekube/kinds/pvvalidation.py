"""A PersistentVolume's spec checks, in kubernetes v1.37.2 ``pkg/apis/core/validation/validation.go``
``ValidatePersistentVolumeSpec``'s order (not inline: a PV object's own spec; sources in docs/semantics.md):
access modes, capacity (exactly ``storage``, a positive quantity), reclaim policy, node affinity, exactly one
volume source, the hostPath ``/`` recycle rule, storage class, volume mode, volume attributes class.

Of the volume sources, hostPath, local, nfs and csi are checked as upstream does; the others are only counted
(one at most; their own fields are not checked). Node affinity is checked for its ``required`` terms' presence
only."""

from __future__ import annotations

import math
import posixpath
from typing import Any

from fakekube import quantity
from fakekube.errors import FieldError, forbidden, invalid, not_supported, required, too_long
from fakekube.kinds.checks import dns_subdomain, mapping, seq
from fakekube.namerules import is_dns1123_subdomain

ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]
RECLAIM_POLICIES = ["Delete", "Recycle", "Retain"]
VOLUME_MODES = ["Block", "Filesystem"]
HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate",
                   "Socket"]
# The PersistentVolumeSource members (JSON names) in the order ValidatePersistentVolumeSpec tries them.
_SOURCES = ("hostPath", "gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "flocker", "nfs", "rbd", "quobyte",
            "cephfs", "iscsi", "cinder", "fc", "flexVolume", "azureFile", "vsphereVolume", "photonPersistentDisk",
            "portworxVolume", "azureDisk", "scaleIO", "local", "storageos", "csi")
_MESSAGE_PATH = {"cephfs": "cephFS"}  # the JSON name is cephfs; the "more than 1" error says cephFS
_NOT_POSITIVE = "must be greater than zero"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _no_backsteps(value: str, path: str) -> list[FieldError]:
    return [invalid(path, value, "must not contain '..'")] if ".." in value.replace("\\", "/").split("/") else []


def _host_path(src: dict[str, Any], path: str) -> list[FieldError]:
    where = _text(src.get("path"))
    if not where:
        return [required(f"{path}.path", "")]
    errs = _no_backsteps(where, f"{path}.path")
    kind = src.get("type")
    if kind is not None and kind not in HOST_PATH_TYPES:
        errs.append(not_supported(f"{path}.type", kind, HOST_PATH_TYPES))
    return errs


def _local(src: dict[str, Any], path: str) -> list[FieldError]:
    where = _text(src.get("path"))
    return _no_backsteps(where, f"{path}.path") if where else [required(f"{path}.path", "")]


def _nfs(src: dict[str, Any], path: str) -> list[FieldError]:
    server, where = _text(src.get("server")), _text(src.get("path"))
    errs = [] if server else [required(f"{path}.server", "")]
    if not where:
        errs.append(required(f"{path}.path", ""))
    if not where.startswith("/"):
        errs.append(invalid(f"{path}.path", where, "must be an absolute path"))
    return errs


def _csi(src: dict[str, Any], path: str) -> list[FieldError]:
    driver = _text(src.get("driver"))
    errs: list[FieldError] = []
    if not driver:
        errs.append(required(f"{path}.driver", ""))
    else:
        if len(driver) > 63:
            errs.append(too_long(f"{path}.driver", 63))
        errs.extend(invalid(f"{path}.driver", driver, m) for m in is_dns1123_subdomain(driver.lower()))
    if not _text(src.get("volumeHandle")):
        errs.append(required(f"{path}.volumeHandle", ""))
    return errs


_CHECKS = {"hostPath": _host_path, "local": _local, "nfs": _nfs, "csi": _csi}


def _capacity(capacity: Any) -> list[FieldError]:
    errs: list[FieldError] = []
    if not capacity:
        errs.append(required("spec.capacity", ""))
    if not isinstance(capacity, dict) or "storage" not in capacity or len(capacity) > 1:
        errs.append(not_supported("spec.capacity", capacity if isinstance(capacity, dict) else None, ["storage"]))
    # Go walks the map in random order; sorted here.
    for name, text in sorted(mapping(capacity).items()):
        try:
            value = quantity.value_of(text)
        except (quantity.QuantityError, TypeError):
            continue  # the decoder refuses what is not a quantity
        path = f"spec.capacity[{name}]"
        whole = math.ceil(value) if value >= 0 else math.floor(value)  # Quantity.Value rounds away from zero
        if whole < 0:
            errs.append(invalid(path, whole, "must be a valid resource quantity"))
        if value <= 0:
            errs.append(invalid(path, str(text), _NOT_POSITIVE))
    return errs


def _sources(spec: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    count = 0
    affinity = spec.get("nodeAffinity")
    for name in _SOURCES:
        src = spec.get(name)
        if src is None:
            continue
        if count and name != "flexVolume":  # flexVolume is counted without the check
            errs.append(forbidden(f"spec.{_MESSAGE_PATH.get(name, name)}", "may not specify more than 1 volume type"))
            continue
        count += 1
        check = _CHECKS.get(name)
        if check is not None:
            errs.extend(check(mapping(src), f"spec.{name}"))
        if name == "local" and affinity is None:
            errs.append(required("spec.nodeAffinity", "Local volume requires node affinity"))
    if not count:
        errs.append(required("spec", "must specify a volume type"))
    return errs


def validate_pv_spec(spec: dict[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeSpec`` of a PersistentVolume (not an inline spec)."""
    errs: list[FieldError] = []
    modes = seq(spec.get("accessModes"))
    if not modes:
        errs.append(required("spec.accessModes", ""))
    errs.extend(not_supported("spec.accessModes", m, ACCESS_MODES) for m in modes if m not in ACCESS_MODES)
    if "ReadWriteOncePod" in modes and any(m != "ReadWriteOncePod" and m in ACCESS_MODES for m in modes):
        errs.append(forbidden("spec.accessModes", "may not use ReadWriteOncePod with other access modes"))
    errs.extend(_capacity(spec.get("capacity")))
    policy = _text(spec.get("persistentVolumeReclaimPolicy"))
    if policy and policy not in RECLAIM_POLICIES:
        errs.append(not_supported("spec.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES))
    affinity = spec.get("nodeAffinity")
    if isinstance(affinity, dict) and affinity.get("required") is None:
        errs.append(required("spec.nodeAffinity.required", "must specify required node constraints"))
    errs.extend(_sources(spec))
    host_path = spec.get("hostPath")
    if isinstance(host_path, dict) and policy == "Recycle" and posixpath.normpath(_text(host_path.get("path"))
                                                                                  or ".") == "/":
        errs.append(forbidden("spec.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"))
    class_name = _text(spec.get("storageClassName"))
    if class_name:
        errs.extend(dns_subdomain(class_name, "spec.storageClassName"))
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        errs.append(not_supported("spec.volumeMode", mode, VOLUME_MODES))
    attributes = spec.get("volumeAttributesClassName")
    if attributes is not None:
        if not attributes:
            errs.append(required("spec.volumeAttributesClassName", "an empty string is disallowed"))
        else:
            errs.extend(dns_subdomain(attributes, "spec.volumeAttributesClassName"))
        if spec.get("csi") is None:
            errs.append(required("spec.csi", "has to be specified when using volumeAttributesClassName"))
    return errs

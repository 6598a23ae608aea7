"""Validation of pod specs — a Pod's and every template's — and of pod updates.

The rules operators trip on, with kube-apiserver's texts: kubernetes ``pkg/apis/core/validation/
validation.go`` (``ValidatePodSpec``, ``validateContainers``/``validateInitContainers``/
``validateContainerCommon``, ``validateContainerPorts``, ``ValidateVolumes``, ``validateVolumeMounts``,
``ValidateResourceRequirements``, ``validateRestartPolicy``, ``validateDNSPolicy``, ``ValidateTolerations``,
``ValidatePodCreate``, ``ValidatePodUpdate``). Not every rule of upstream's 9,000 lines is here: what is
left out is listed in docs/not-emulated.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from fakekube import quantity
from fakekube.errors import FieldError, duplicate, forbidden, invalid, not_supported, required
from fakekube.jsonvalues import encode_json, json_equal
from fakekube.kinds.admission import TOKEN_VOLUME_PREFIX
from fakekube.kinds.checks import (
    dns_label,
    dns_subdomain,
    is_int,
    mapping,
    non_negative,
    one_of,
    port_name_errors,
    port_number,
    seq,
)
from fakekube.namerules import GENERATE_NAME_ALPHABET, is_qualified_name, is_valid_label_value, remember_valid
from fakekube.validation import validate_annotations, validate_labels

RESTART_POLICIES = ["Always", "OnFailure", "Never"]
DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]
PULL_POLICIES = ["Always", "IfNotPresent", "Never"]
PROTOCOLS = ["SCTP", "TCP", "UDP"]
TERMINATION_MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"]
TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]
_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_UPDATABLE = ("`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
              "`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` "
              "(allow it to be set to 1 if it was previously negative)")
_OVERCOMMIT = ("cpu", "memory", "ephemeral-storage")


def validate_volumes(volumes: Any, path: str) -> tuple[set[str], list[FieldError]]:
    names: set[str] = set()
    errs: list[FieldError] = []
    for i, volume in enumerate(seq(volumes)):
        here = f"{path}[{i}]"
        volume = mapping(volume)
        name = volume.get("name") or ""
        if not name:
            errs.append(required(f"{here}.name", ""))
        else:
            errs.extend(dns_label(name, f"{here}.name"))
            if name in names:
                errs.append(duplicate(f"{here}.name", name))
            names.add(name)
        sources = [k for k in volume if k != "name"]
        if len(sources) > 1:
            errs.append(forbidden(f"{here}.{sources[1]}", "may not specify more than 1 volume type"))
    return names, errs


def _validate_ports(ports: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(seq(ports)):
        here = f"{path}[{i}]"
        port = mapping(port)
        name = port.get("name")
        if name:
            msgs = port_name_errors(str(name))
            if msgs:
                errs.extend(invalid(f"{here}.name", name, m) for m in msgs)
            elif name in names:
                errs.append(duplicate(f"{here}.name", name))
            names.add(name)
        if not port.get("containerPort"):
            errs.append(required(f"{here}.containerPort", ""))
        else:
            errs.extend(port_number(port["containerPort"], f"{here}.containerPort"))
        if port.get("hostPort"):
            errs.extend(port_number(port["hostPort"], f"{here}.hostPort"))
        errs.extend(one_of(port.get("protocol"), f"{here}.protocol", PROTOCOLS))
    return errs


def _validate_env(env: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, var in enumerate(seq(env)):
        here = f"{path}[{i}]"
        name = mapping(var).get("name") or ""
        if not name:
            errs.append(required(f"{here}.name", ""))
        elif "=" in name or not name.isascii() or not name.isprintable():
            errs.append(invalid(f"{here}.name", name, "a valid environment variable name must consist only of "
                                                      "printable ASCII characters other than '='"))
    return errs


def _validate_mounts(mounts: Any, volumes: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    paths: set[str] = set()
    for i, mount in enumerate(seq(mounts)):
        here = f"{path}[{i}]"
        mount = mapping(mount)
        name = mount.get("name") or ""
        if not name:
            errs.append(required(f"{here}.name", ""))
        elif name not in volumes:
            errs.append(FieldError("FieldValueNotFound", f"{here}.name", "", name))
        mount_path = mount.get("mountPath") or ""
        if not mount_path:
            errs.append(required(f"{here}.mountPath", ""))
        elif mount_path in paths:
            errs.append(invalid(f"{here}.mountPath", mount_path, "must be unique"))
        paths.add(mount_path)
    return errs


def _validate_resources(resources: Any, path: str) -> list[FieldError]:
    resources = mapping(resources)
    limits, requests = mapping(resources.get("limits")), mapping(resources.get("requests"))
    errs: list[FieldError] = []
    for kind, values in (("limits", limits), ("requests", requests)):
        for name, text in values.items():
            try:
                value = quantity.value_of(text)
            except quantity.QuantityError:
                continue  # a decoding error, reported before validation
            if value < 0:
                errs.append(invalid(f"{path}.{kind}[{name}]", text, "must be greater than or equal to 0"))
    for name in sorted(requests):
        if name not in limits:
            continue
        try:
            request, limit = quantity.value_of(requests[name]), quantity.value_of(limits[name])
        except quantity.QuantityError:
            continue
        if name not in _OVERCOMMIT and "/" in name and request != limit:
            errs.append(invalid(f"{path}.requests", requests[name],
                                f"must be equal to {name} limit of {limits[name]}"))
        elif request > limit:
            errs.append(invalid(f"{path}.requests", requests[name],
                                f"must be less than or equal to {name} limit of {limits[name]}"))
    return errs


def _validate_probe(probe: Any, path: str, *, liveness_like: bool) -> list[FieldError]:
    if not isinstance(probe, dict):
        return []
    errs: list[FieldError] = []
    handlers = [h for h in _PROBE_HANDLERS if h in probe]
    if not handlers:
        errs.append(required(path, "must specify a handler type"))
    elif len(handlers) > 1:
        errs.append(forbidden(f"{path}.{handlers[1]}", "may not specify more than 1 handler type"))
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        errs.extend(non_negative(probe.get(key), f"{path}.{key}"))
    if liveness_like and is_int(probe.get("successThreshold")) and probe["successThreshold"] != 1:
        errs.append(invalid(f"{path}.successThreshold", probe["successThreshold"], "must be 1"))
    return errs


# Containers known to pass every check but their volume mounts' (the one check that depends on the pod: on the
# volumes it declares, and admission adds one with a random name), by the JSON of the rest: a workload's pods
# repeat their template's containers. Only valid ones are remembered (bounded, as label values are).
_VALID_CONTAINERS: set[bytes] = set()


def _validate_container(container: Any, volumes: set[str], path: str, *, is_pod: bool) -> list[FieldError]:
    c = mapping(container)
    key = None
    if type(container) is dict:
        text = encode_json({k: v for k, v in container.items() if k != "volumeMounts"})
        key = (b"pod:" if is_pod else b"template:") + text if text is not None else None
    mounts = _validate_mounts(c.get("volumeMounts"), volumes, f"{path}.volumeMounts")
    if key is not None and key in _VALID_CONTAINERS:
        return mounts
    before, after = _container_checks(c, path, is_pod=is_pod)
    remember_valid(_VALID_CONTAINERS, key, before + after)
    return before + mounts + after


def _container_checks(c: dict[str, Any], path: str, *, is_pod: bool) -> tuple[list[FieldError], list[FieldError]]:
    """A container's checks other than its volume mounts': those listed before them, those after."""
    errs: list[FieldError] = []
    name = c.get("name") or ""
    if not name:
        errs.append(required(f"{path}.name", ""))
    else:
        errs.extend(dns_label(name, f"{path}.name"))
    image = c.get("image")
    if not image:
        errs.append(required(f"{path}.image", ""))
    elif is_pod and isinstance(image, str) and image != image.strip():
        errs.append(invalid(f"{path}.image", image, "must not have leading or trailing whitespace"))
    errs.extend(one_of(c.get("terminationMessagePolicy"), f"{path}.terminationMessagePolicy",
                       TERMINATION_MESSAGE_POLICIES))
    errs.extend(_validate_ports(c.get("ports"), f"{path}.ports"))
    errs.extend(_validate_env(c.get("env"), f"{path}.env"))
    after = one_of(c.get("imagePullPolicy"), f"{path}.imagePullPolicy", PULL_POLICIES)
    after.extend(_validate_resources(c.get("resources"), f"{path}.resources"))
    for probe, liveness_like in (("livenessProbe", True), ("readinessProbe", False), ("startupProbe", True)):
        after.extend(_validate_probe(c.get(probe), f"{path}.{probe}", liveness_like=liveness_like))
    return errs, after


def validate_tolerations(tolerations: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, toleration in enumerate(seq(tolerations)):
        here = f"{path}[{i}]"
        t = mapping(toleration)
        key, operator, effect = t.get("key") or "", t.get("operator") or "", t.get("effect") or ""
        if key:
            errs.extend(invalid(f"{here}.key", key, m) for m in is_qualified_name(key))
        if not key and operator != "Exists":
            errs.append(invalid(f"{here}.operator", operator, 'operator must be Exists when `key` is empty, which '
                                                               'means "match all values and all keys"'))
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(invalid(f"{here}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is "
                                                          "set"))
        if operator in ("Equal", ""):
            msgs = is_valid_label_value(str(t.get("value") or ""))
            if msgs:
                errs.append(invalid(f"{here}.operator", t.get("value"), ";".join(msgs)))
        elif operator == "Exists":
            if t.get("value"):
                errs.append(invalid(f"{here}.operator", t.get("value"),
                                    "value must be empty when `operator` is 'Exists'"))
        else:
            errs.append(not_supported(f"{here}.operator", operator, ["Equal", "Exists"]))
        if effect and effect not in TAINT_EFFECTS:
            errs.append(not_supported(f"{here}.effect", effect, TAINT_EFFECTS))
    return errs


# Specs known to pass every check of validate_pod_spec, by their JSON text with the names of admission's token
# volumes masked (``_spec_key``): a workload's pods repeat their template's spec, but each pod's ServiceAccount
# admission adds a volume with a random name (``kube-api-access-`` and five characters of the generateName
# alphabet) and mounts it in every container. Only valid specs are remembered, at most ~16 MB of them.
_VALID_SPECS: set[bytes] = set()
_MAX_VALID_SPECS = 1_000
_MAX_SPEC_TEXT = 16_384
_TOKEN_VOLUME_NAME = re.compile(f"{re.escape(TOKEN_VOLUME_PREFIX)}[{GENERATE_NAME_ALPHABET}]{{5}}")


def _spec_key(spec: Any, is_pod: bool) -> bytes | None:
    """The spec's JSON text, each volume name shaped like admission's token volume's replaced by a mark of its
    own (its rank between NUL bytes, which JSON text never holds raw), wherever the name occurs.

    Two specs with the same key differ only in which such names they use, in the same places. That cannot
    change whether they pass: every check treats those names alike. They are all valid DNS labels and label
    values of one length, made of characters each pattern here puts in the same class (lower-case letters and
    digits, away from the ends); none is in a list of supported values, none parses as a number or quantity
    (the prefix has letters and dashes); and names are otherwise only compared for equality (duplicate volumes,
    a mount's volume), which the marks keep: one mark per distinct name, and a name occurs nowhere unmarked.
    None when there is no exact JSON text (``fakekube.jsonvalues.encode_json``)."""
    if type(spec) is not dict:
        return None
    text = encode_json(spec)
    if text is None or len(text) > _MAX_SPEC_TEXT:
        return None
    masked: dict[str, bytes] = {}
    for volume in seq(spec.get("volumes")):
        name = volume.get("name") if type(volume) is dict else None
        if type(name) is str and name not in masked and _TOKEN_VOLUME_NAME.fullmatch(name):
            masked[name] = b"\0%d\0" % len(masked)
    for name, mark in masked.items():
        text = text.replace(name.encode(), mark)
    return (b"pod:" if is_pod else b"template:") + text


def validate_pod_spec(spec: Any, path: str, *, is_pod: bool = False) -> list[FieldError]:
    """``ValidatePodSpec`` (plus the pod-only container checks when ``is_pod``)."""
    key = _spec_key(spec, is_pod)
    if key is not None and key in _VALID_SPECS:
        return []
    errs = _validate_pod_spec(spec, path, is_pod=is_pod)
    return errs if key is None else remember_valid(_VALID_SPECS, key, errs, _MAX_VALID_SPECS)


def _validate_pod_spec(spec: Any, path: str, *, is_pod: bool) -> list[FieldError]:
    spec = mapping(spec)
    volumes, errs = validate_volumes(spec.get("volumes"), f"{path}.volumes")
    containers = seq(spec.get("containers"))
    names: set[str] = set()  # shared: an init container may not reuse a container's name
    if not containers:
        errs.append(required(f"{path}.containers", ""))
    for field, items in (("containers", containers), ("initContainers", seq(spec.get("initContainers")))):
        for i, container in enumerate(items):
            here = f"{path}.{field}[{i}]"
            errs.extend(_validate_container(container, volumes, here, is_pod=is_pod))
            name = mapping(container).get("name")
            if name:
                if name in names:
                    errs.append(duplicate(f"{here}.name", name))
                names.add(name)
    errs.extend(one_of(spec.get("restartPolicy"), f"{path}.restartPolicy", RESTART_POLICIES))
    errs.extend(one_of(spec.get("dnsPolicy"), f"{path}.dnsPolicy", DNS_POLICIES))
    errs.extend(validate_labels(spec.get("nodeSelector"), f"{path}.nodeSelector"))
    for key in ("serviceAccountName", "nodeName", "priorityClassName"):
        if spec.get(key):
            errs.extend(dns_subdomain(spec[key], f"{path}.{key}"))
    deadline = spec.get("activeDeadlineSeconds")
    if is_int(deadline) and not 1 <= deadline <= 2**31 - 1:
        errs.append(invalid(f"{path}.activeDeadlineSeconds", deadline, "must be between 1 and 2147483647, inclusive"))
    for key in ("hostname", "subdomain"):
        if spec.get(key):
            errs.extend(dns_label(spec[key], f"{path}.{key}"))
    errs.extend(validate_tolerations(spec.get("tolerations"), f"{path}.tolerations"))
    return errs


def validate_pod_template(template: Any, path: str) -> list[FieldError]:
    """``ValidatePodTemplateSpec``: the template's labels and annotations, then its spec. The paths skip
    ``metadata`` (``<path>.labels``): upstream names them from the embedded ObjectMeta's fields (observed on
    kube-apiserver v1.37.2)."""
    template = mapping(template)
    meta = mapping(template.get("metadata"))
    errs = validate_labels(meta.get("labels"), f"{path}.labels")
    errs += validate_annotations(meta.get("annotations"), f"{path}.annotations")
    return errs + validate_pod_spec(template.get("spec"), f"{path}.spec")


def validate_pod_create(pod: dict[str, Any]) -> list[FieldError]:
    errs = validate_pod_spec(pod.get("spec"), "spec", is_pod=True)
    if seq(mapping(pod.get("spec")).get("ephemeralContainers")):
        errs.append(forbidden("spec.ephemeralContainers", "cannot be set on create"))
    return errs


def validate_pod_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidatePodUpdate``: only images, a shorter activeDeadlineSeconds and added tolerations may change."""
    spec, old_spec = mapping(new.get("spec")), mapping(old.get("spec"))
    errs: list[FieldError] = []
    for key in ("containers", "initContainers"):
        containers, old_containers = seq(spec.get(key)), seq(old_spec.get(key))
        if len(containers) != len(old_containers):
            return [forbidden(f"spec.{key}", "pod updates may not add or remove containers")]
        for i, container in enumerate(containers):
            if not mapping(container).get("image"):
                errs.append(required(f"spec.{key}[{i}].image", ""))
    deadline, old_deadline = spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds")
    if deadline is not None:
        if not is_int(deadline) or not 0 <= deadline <= 2**31 - 1:
            return errs + [invalid("spec.activeDeadlineSeconds", deadline, "must be between 0 and 2147483647, "
                                                                          "inclusive")]
        if is_int(old_deadline) and old_deadline < deadline:
            return errs + [invalid("spec.activeDeadlineSeconds", deadline,
                                   "must be less than or equal to previous value")]
    elif old_deadline is not None:
        errs.append(invalid("spec.activeDeadlineSeconds", None, "must not update from a positive integer to nil "
                                                                "value"))
    if spec == old_spec:
        # Nothing in the spec changed: the stored spec passed these checks when it was written, and they
        # depend on the two specs alone.
        return errs
    tolerations, old_tolerations = seq(spec.get("tolerations")), seq(old_spec.get("tolerations"))
    # validateOnlyAddedTolerations: every stored toleration is still there (its tolerationSeconds may change).
    without_seconds = [{k: v for k, v in mapping(t).items() if k != "tolerationSeconds"} for t in tolerations]
    for toleration in old_tolerations:
        if {k: v for k, v in mapping(toleration).items() if k != "tolerationSeconds"} not in without_seconds:
            errs.append(forbidden("spec.tolerations",
                                  "existing toleration can not be modified except its tolerationSeconds"))
            break
    else:
        if not json_equal(tolerations, old_tolerations):  # the stored ones passed when they were written
            errs.extend(validate_tolerations(tolerations, "spec.tolerations"))
    munged = _munge(spec, old_spec)
    if munged != old_spec:
        errs.append(forbidden("spec", f"pod updates may not change fields other than {_UPDATABLE}\n"
                                      f"{_spec_diff(old_spec, munged)}"))
    return errs


def _munge(spec: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """The new spec with what may change set back to the stored values (``mungedPodSpec``)."""
    munged = dict(spec)
    for key in ("containers", "initContainers"):
        if key in spec:
            munged[key] = [{**c, "image": mapping(o).get("image")} if isinstance(c, dict) else c
                           for c, o in zip(seq(spec[key]), seq(old.get(key)), strict=False)]
    for key in ("activeDeadlineSeconds", "tolerations"):
        if key in old:
            munged[key] = old[key]
        else:
            munged.pop(key, None)
    grace, old_grace = spec.get("terminationGracePeriodSeconds"), old.get("terminationGracePeriodSeconds")
    if is_int(old_grace) and old_grace < 0 and grace == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if "schedulingGates" in old and all(g in seq(old["schedulingGates"]) for g in seq(spec.get("schedulingGates"))):
        munged["schedulingGates"] = old["schedulingGates"]  # gates may only be removed
    return munged


def _spec_diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """Which spec fields differ, one ``-``/``+`` pair each (upstream prints a cmp.Diff of the Go structs)."""
    lines = ["  core.PodSpec{"]
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            for sign, value in (("-", old.get(key)), ("+", new.get(key))):
                if value is not None:
                    lines.append(f"{sign} \t{key}: {json.dumps(value, sort_keys=True)},")
    lines.append("  }")
    return "\n".join(lines)

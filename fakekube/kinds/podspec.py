"""Defaulting of pod specs wherever they are embedded: Pod, PodTemplate and every workload's template.

kubernetes ``pkg/apis/core/v1/defaults.go`` (``SetDefaults_PodSpec``, ``_Container``, ``_Probe``, ``_Volume``,
the volume sources, ``_HTTPGetAction``, ``_ObjectFieldSelector``, ``_ResourceList``) as
``zz_generated.defaults.go`` chains them, and the v1 conversion of ``serviceAccount`` (the deprecated alias of
``serviceAccountName``). ``SetDefaults_Pod`` — requests from limits, ``enableServiceLinks``, host-network ports
— applies to pods only (:func:`default_pod`), never to templates, as upstream keeps it out of PodSpec on
purpose (kubernetes#69445). Sources and commits in docs/semantics.md.

Everything works in place on the decoded JSON and touches only what is there, so a write pays for a walk
over its containers and volumes, never a copy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.jsonvalues import json_copy
from fakekube.kinds.checks import seq
from fakekube.quantity import canonicalize, canonicalize_list

DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30
DEFAULT_SCHEDULER_NAME = "default-scheduler"
TERMINATION_MESSAGE_PATH = "/dev/termination-log"
VOLUME_DEFAULT_MODE = 0o644  # 420: secret, configMap, downwardAPI and projected volumes
TOKEN_EXPIRATION_SECONDS = 3600
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def image_tag(image: str) -> str:
    """The tag ``parsers.ParseImageName`` finds: ``latest`` when there is neither tag nor digest, ``""``
    with a digest or when the reference does not parse."""
    if not isinstance(image, str) or not image or image != image.strip():
        return ""
    name, at, _digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        return last.rsplit(":", 1)[1]
    return "" if at else "latest"


def pull_policy_for(image: Any) -> str:
    return "Always" if image_tag(image) == "latest" else "IfNotPresent"


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def default_http_get(handler: Any) -> None:
    get = _dict(handler.get("httpGet")) if isinstance(handler, dict) else None
    if get is not None:
        if not get.get("path"):
            get["path"] = "/"
        if not get.get("scheme"):
            get["scheme"] = "HTTP"


def default_probe(probe: Any) -> None:
    if not isinstance(probe, dict):
        return
    for key, value in (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1),
                       ("failureThreshold", 3)):
        if not probe.get(key):
            probe[key] = value
    default_http_get(probe)
    grpc = probe.get("grpc")
    if isinstance(grpc, dict) and grpc.get("service") is None:
        grpc["service"] = ""  # a declarative default (+default="") of GRPCAction


def default_field_ref(holder: Any) -> None:
    ref = _dict(holder.get("fieldRef")) if isinstance(holder, dict) else None
    if ref is not None and not ref.get("apiVersion"):
        ref["apiVersion"] = "v1"


def default_container(container: Any) -> None:
    if not isinstance(container, dict):
        return
    if not container.get("imagePullPolicy"):
        container["imagePullPolicy"] = pull_policy_for(container.get("image"))
    if not container.get("terminationMessagePath"):
        container["terminationMessagePath"] = TERMINATION_MESSAGE_PATH
    if not container.get("terminationMessagePolicy"):
        container["terminationMessagePolicy"] = "File"
    for port in seq(container.get("ports")):
        if isinstance(port, dict) and not port.get("protocol"):
            port["protocol"] = "TCP"
    for env in seq(container.get("env")):
        if isinstance(env, dict) and isinstance(env.get("valueFrom"), dict):
            default_field_ref(env["valueFrom"])
    resources = _dict(container.get("resources"))
    if resources is None:
        # ResourceRequirements is a struct, not a pointer: the server always writes "resources": {}.
        container["resources"] = {}
    else:
        canonicalize_list(resources.get("limits"))
        canonicalize_list(resources.get("requests"))
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        if probe in container:
            default_probe(container[probe])
    lifecycle = _dict(container.get("lifecycle"))
    if lifecycle is not None:
        for hook in ("postStart", "preStop"):
            default_http_get(lifecycle.get(hook))


def default_pvc_spec(spec: Any) -> None:
    """``SetDefaults_PersistentVolumeClaimSpec`` and its ResourceLists (PVCs and ephemeral volume templates)."""
    if not isinstance(spec, dict):
        return
    if not spec.get("volumeMode"):
        spec["volumeMode"] = "Filesystem"
    resources = _dict(spec.get("resources"))
    if resources is not None:
        canonicalize_list(resources.get("limits"))
        canonicalize_list(resources.get("requests"))


def _default_mode(source: Any) -> None:
    if isinstance(source, dict) and source.get("defaultMode") is None:
        source["defaultMode"] = VOLUME_DEFAULT_MODE


_SOURCE_DEFAULTS: dict[str, tuple[tuple[str, Any], ...]] = {
    "iscsi": (("iscsiInterface", "default"),),
    "rbd": (("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring")),
    "azureDisk": (("cachingMode", "ReadWrite"), ("fsType", "ext4"), ("readOnly", False), ("kind", "Shared")),
    "scaleIO": (("storageMode", "ThinProvisioned"), ("fsType", "xfs")),
}
_VOLUME_SOURCES = frozenset({
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
    "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
})


def _default_host_path(src: dict[str, Any]) -> None:
    if src.get("type") is None:
        src["type"] = ""


def _default_downward_api(src: dict[str, Any]) -> None:
    _default_mode(src)
    for item in seq(src.get("items")):
        default_field_ref(item)


def _default_projected(src: dict[str, Any]) -> None:
    _default_mode(src)
    for projection in seq(src.get("sources")):
        if not isinstance(projection, dict):
            continue
        for item in seq((_dict(projection.get("downwardAPI")) or {}).get("items")):
            default_field_ref(item)
        token = _dict(projection.get("serviceAccountToken"))
        if token is not None and token.get("expirationSeconds") is None:
            token["expirationSeconds"] = TOKEN_EXPIRATION_SECONDS


def _default_empty_dir(src: dict[str, Any]) -> None:
    if "sizeLimit" in src:
        src["sizeLimit"] = canonicalize(src["sizeLimit"])


def _default_ephemeral(src: dict[str, Any]) -> None:
    template = _dict(src.get("volumeClaimTemplate"))
    if template is not None:
        default_pvc_spec(template.get("spec"))


def _default_image(src: dict[str, Any]) -> None:
    if not src.get("pullPolicy"):
        src["pullPolicy"] = pull_policy_for(src.get("reference"))


def _fixed_defaults(defaults: tuple[tuple[str, Any], ...]) -> Callable[[dict[str, Any]], None]:
    def apply(src: dict[str, Any]) -> None:
        for key, value in defaults:
            if src.get(key) in (None, ""):
                src[key] = value
    return apply


# Per volume source, its defaults; a volume names one source, so the dispatch is by the keys it has.
_SOURCE_DEFAULTERS: dict[str, Callable[[dict[str, Any]], None]] = {
    "hostPath": _default_host_path, "secret": _default_mode, "configMap": _default_mode,
    "downwardAPI": _default_downward_api, "projected": _default_projected, "emptyDir": _default_empty_dir,
    "ephemeral": _default_ephemeral, "image": _default_image,
    **{kind: _fixed_defaults(defaults) for kind, defaults in _SOURCE_DEFAULTS.items()},
}


def default_volume_source(source: dict[str, Any]) -> None:
    """The per-source defaults (shared by pod volumes and PersistentVolume sources)."""
    for key, src in source.items():
        defaulter = _SOURCE_DEFAULTERS.get(key)
        if defaulter is not None and isinstance(src, dict):
            defaulter(src)


def default_volume(volume: Any) -> None:
    if not isinstance(volume, dict):
        return
    if _VOLUME_SOURCES.isdisjoint(volume):
        volume["emptyDir"] = {}  # SetDefaults_Volume: a volume without a source is an emptyDir
    default_volume_source(volume)


def default_pod_spec(spec: Any, fresh: dict[str, list[Any]] | None = None) -> None:
    """``SetDefaults_PodSpec`` and everything ``SetObjectDefaults_PodTemplate`` reaches from a PodSpec.

    ``fresh``: per list of volumes and containers, the only items to default (the others are a stored,
    already defaulted pod's own, see :func:`default_pod`); None: every item."""
    if not isinstance(spec, dict):
        return
    if not spec.get("dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirst"
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("securityContext") is None:
        spec["securityContext"] = {}
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS
    if not spec.get("schedulerName"):
        spec["schedulerName"] = DEFAULT_SCHEDULER_NAME
    # v1 conversion: serviceAccount is the deprecated spelling, read when the new one is empty and always
    # written back from it.
    if not spec.get("serviceAccountName") and spec.get("serviceAccount"):
        spec["serviceAccountName"] = spec["serviceAccount"]
    if spec.get("serviceAccountName"):
        spec["serviceAccount"] = spec["serviceAccountName"]
    else:
        spec.pop("serviceAccount", None)
    for volume in seq(spec.get("volumes")) if fresh is None else fresh["volumes"]:
        default_volume(volume)
    for key in CONTAINER_LISTS:
        for container in seq(spec.get(key)) if fresh is None else fresh[key]:
            default_container(container)
    if "overhead" in spec and (fresh is None or "overhead" in fresh):
        canonicalize_list(spec["overhead"])


def default_pod_template(template: Any) -> None:
    """A ``PodTemplateSpec`` embedded in a workload: only the PodSpec defaults apply."""
    if isinstance(template, dict):
        default_pod_spec(template.get("spec"))


# What default_pod and default_pod_spec default item by item (or, for overhead, as one value).
_ITEM_LISTS = ("volumes", *CONTAINER_LISTS)


def default_pod(pod: dict[str, Any], old: dict[str, Any] | None = None) -> None:
    """``SetObjectDefaults_Pod``: ``SetDefaults_Pod`` then the PodSpec defaults.

    ``old``: the stored pod an update replaces. A patch's result shares, by identity, the parts of the stored
    spec the patch did not reach (fakekube.verbs.shared_patch), and those are left alone: they are the stored
    pod's own values, defaulted when it was written, defaulting is idempotent, and every default below the
    spec's own fields is a function of one volume, one container or the overhead alone — except the host
    ports that ``hostNetwork`` gives every container's ports, so a spec whose hostNetwork turns on is
    defaulted whole (on copies of the parts it shared). Never writes into what it shares with ``old``."""
    spec = _dict(pod.get("spec"))
    if spec is None:
        return
    old_spec = _dict(old.get("spec")) if old is not None else None
    if spec is old_spec:
        return
    if old_spec is not None and spec.get("hostNetwork") is True and old_spec.get("hostNetwork") is not True:
        for key in (*_ITEM_LISTS, "overhead"):
            if isinstance(spec.get(key), dict | list):
                spec[key] = json_copy(spec[key])
        old_spec = None
    fresh = _fresh_parts(spec, old_spec) if old_spec is not None else None
    for key in ("containers", "initContainers"):
        for container in seq(spec.get(key)) if fresh is None else fresh[key]:
            resources = _dict(container.get("resources")) if isinstance(container, dict) else None
            limits = _dict(resources.get("limits")) if resources is not None else None
            if limits:
                assert resources is not None
                requests = resources.get("requests")
                if not isinstance(requests, dict):
                    requests = resources["requests"] = {}
                for name, value in limits.items():
                    requests.setdefault(name, value)
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    if spec.get("hostNetwork") is True:
        for key in ("containers", "initContainers"):
            for container in seq(spec.get(key)) if fresh is None else fresh[key]:
                for port in seq(container.get("ports") if isinstance(container, dict) else None):
                    if isinstance(port, dict) and not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort")
    default_pod_spec(spec, fresh)


def _fresh_parts(spec: dict[str, Any], old_spec: dict[str, Any]) -> dict[str, list[Any]]:
    """Per item list, the items of ``spec`` that are not ``old_spec``'s own (by identity, in the same list);
    the key ``overhead`` is there when the overhead is not the stored one."""
    fresh: dict[str, list[Any]] = {}
    for key in _ITEM_LISTS:
        items = seq(spec.get(key))
        stored = old_spec.get(key)
        if items is stored:
            fresh[key] = []
        elif type(stored) is list and stored and items:
            known = {id(item) for item in stored}
            fresh[key] = [item for item in items if id(item) not in known]
        else:
            fresh[key] = items
    if "overhead" in spec and spec["overhead"] is not old_spec.get("overhead"):
        fresh["overhead"] = []
    return fresh

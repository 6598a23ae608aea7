"""Merge metadata of the built-in kinds fakekube registers.

Written for this project from the Go struct tags (``patchStrategy`` / ``patchMergeKey`` and the
``+listType`` / ``+listMapKey`` markers) in kubernetes/api ``core/v1/types.go``, ``apps/v1/types.go``,
``networking/v1/types.go``, ``coordination/v1/types.go``, ``events/v1/types.go`` (commit ``10b39a39bcee``)
and kubernetes/apimachinery ``pkg/apis/meta/v1/types.go`` (commit ``eed236ceee2c``).
Only fields with metadata are spelled out; every other field is untyped (maps merge key by key,
lists are replaced), which is what a struct field without tags does.
"""

from __future__ import annotations

from fakekube.patch.schema import PatchSchema, atomic_list, merge_list, obj, set_list, string_map

_str = PatchSchema("scalar")

_owner_reference = obj("OwnerReference")
_managed_fields_entry = obj("ManagedFieldsEntry", fieldsV1=PatchSchema("map", map_type="atomic", name="FieldsV1"))

OBJECT_META = obj(
    "ObjectMeta",
    labels=string_map("labels"),
    annotations=string_map("annotations"),
    # ownerReferences: patchStrategy merge, patchMergeKey uid (+listType=map, +listMapKey=uid).
    ownerReferences=merge_list("uid", _owner_reference),
    # finalizers: patchStrategy merge on a list of strings (+listType=set): union.
    finalizers=set_list(),
    # managedFields is written by the server, never merged: atomic.
    managedFields=atomic_list(_managed_fields_entry),
)


def _condition_list() -> PatchSchema:
    # conditions of every status we register: patchStrategy merge, patchMergeKey type (+listType=map).
    return merge_list("type", obj("Condition"))


_env_var = obj("EnvVar")
_container_port = obj("ContainerPort")
_container = obj(
    "Container",
    env=merge_list("name", _env_var),
    # ports: SMP merges by containerPort; SSA keys are containerPort+protocol.
    ports=merge_list("containerPort", _container_port, list_map_keys=("containerPort", "protocol")),
    volumeMounts=merge_list("mountPath", obj("VolumeMount")),
    volumeDevices=merge_list("devicePath", obj("VolumeDevice")),
    resizePolicy=PatchSchema("list", items=obj("ContainerResizePolicy"), list_type="atomic"),
    # command, args, envFrom: no strategy → replaced wholesale.
)

_pod_spec = obj(
    "PodSpec",
    containers=merge_list("name", _container),
    initContainers=merge_list("name", _container),
    ephemeralContainers=merge_list("name", _container),
    # volumes: patchStrategy "merge,retainKeys", patchMergeKey name.
    volumes=merge_list("name", obj("Volume"), retain_keys=True),
    imagePullSecrets=merge_list("name", obj("LocalObjectReference")),
    hostAliases=merge_list("ip", obj("HostAlias")),
    topologySpreadConstraints=merge_list(
        "topologyKey", obj("TopologySpreadConstraint"), list_map_keys=("topologyKey", "whenUnsatisfiable")
    ),
    schedulingGates=merge_list("name", obj("PodSchedulingGate")),
    resourceClaims=merge_list("name", obj("PodResourceClaim"), retain_keys=True),
    # nodeSelector: +mapType=atomic (SSA owns it as one value; SMP still merges keys).
    nodeSelector=PatchSchema("map", name="nodeSelector", values=_str, map_type="atomic"),
    # tolerations: no strategy → replaced wholesale.
)

_pod_status = obj(
    "PodStatus",
    conditions=_condition_list(),
    podIPs=merge_list("ip", obj("PodIP")),
    # hostIPs: SMP merges by ip, but SSA treats the list as atomic (+listType=atomic).
    hostIPs=PatchSchema("list", name="HostIP", items=obj("HostIP"), strategy="merge", merge_key="ip",
                        list_type="atomic"),
    # containerStatuses: no strategy → replaced wholesale.
)

_pod_template = obj("PodTemplateSpec", metadata=OBJECT_META, spec=_pod_spec)


def _kind(name: str, **fields: PatchSchema) -> PatchSchema:
    return obj(name, metadata=OBJECT_META, **fields)


_SCHEMAS: dict[tuple[str, str], PatchSchema] = {
    ("", "Namespace"): _kind(
        "Namespace",
        spec=obj("NamespaceSpec", finalizers=atomic_list(_str)),
        status=obj("NamespaceStatus", conditions=_condition_list()),
    ),
    ("", "Pod"): _kind("Pod", spec=_pod_spec, status=_pod_status),
    ("", "Service"): _kind(
        "Service",
        spec=obj(
            "ServiceSpec",
            # ports: merge by port; SSA keys port+protocol.
            ports=merge_list("port", obj("ServicePort"), list_map_keys=("port", "protocol")),
            selector=PatchSchema("map", name="selector", values=_str, map_type="atomic"),
        ),
        status=obj("ServiceStatus", conditions=_condition_list()),
    ),
    ("", "ConfigMap"): _kind("ConfigMap", data=string_map("data"), binaryData=string_map("binaryData")),
    ("", "Secret"): _kind("Secret", data=string_map("data"), stringData=string_map("stringData")),
    ("", "ServiceAccount"): _kind(
        "ServiceAccount",
        # secrets: patchStrategy merge, patchMergeKey name.
        secrets=merge_list("name", obj("ObjectReference")),
        imagePullSecrets=atomic_list(obj("LocalObjectReference")),
    ),
    ("", "PersistentVolumeClaim"): _kind(
        "PersistentVolumeClaim",
        spec=obj("PersistentVolumeClaimSpec", accessModes=atomic_list(_str)),
        status=obj("PersistentVolumeClaimStatus", conditions=_condition_list(), capacity=string_map("capacity")),
    ),
    ("", "Event"): _kind("Event"),
    ("events.k8s.io", "Event"): _kind("Event"),
    ("networking.k8s.io", "NetworkPolicy"): _kind(
        "NetworkPolicy",
        spec=obj("NetworkPolicySpec", podSelector=obj("LabelSelector", matchLabels=string_map("matchLabels"))),
    ),
    ("coordination.k8s.io", "Lease"): _kind("Lease"),
    ("apps", "Deployment"): _kind(
        "Deployment",
        spec=obj(
            "DeploymentSpec",
            selector=obj("LabelSelector", matchLabels=string_map("matchLabels")),
            template=_pod_template,
            # strategy: patchStrategy retainKeys (type/rollingUpdate are a discriminated union).
            strategy=obj("DeploymentStrategy", patch_strategy_="retainKeys"),
        ),
        status=obj("DeploymentStatus", conditions=_condition_list()),
    ),
}


def builtin_schema(group: str, kind: str) -> PatchSchema | None:
    """The schema of a built-in kind (``""`` is the core group), or ``None`` when we do not register it."""
    return _SCHEMAS.get((group, kind))


def builtin_kinds() -> list[tuple[str, str]]:
    return sorted(_SCHEMAS)


def custom_resource_schema(openapi: dict) -> PatchSchema:
    """The patch schema of a custom resource: its CRD's structural schema, with ``metadata`` typed as
    ObjectMeta whatever the CRD declares (apiextensions-apiserver ``pkg/controller/openapi/builder``
    gives every CR's metadata the ObjectMeta definition, so labels are a map and finalizers a set)."""
    root = PatchSchema.from_openapi(openapi)
    if root.kind == "object":
        root.fields["metadata"] = OBJECT_META
    elif root.kind == "untyped":
        root = PatchSchema("object", name=root.name, fields={"metadata": OBJECT_META}, deduced=root.deduced)
    return root

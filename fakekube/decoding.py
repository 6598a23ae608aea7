"""What the real server's typed decoder refuses: JSON of the wrong type for a built-in kind's fields.

kube-apiserver decodes a built-in object into its Go struct before anything else runs, so a string where
``spec`` should be an object, or an object where ``spec.containers`` should be a list, is a 400 BadRequest
(``<Kind> in version "v1" cannot be handled as a <Kind>: json: cannot unmarshal string into Go struct field
Pod.spec of type v1.PodSpec``; apimachinery ``pkg/runtime/serializer/json``, apiserver
``pkg/endpoints/handlers/rest.go``). Custom resources are checked by their schema instead (fakekube.schema).

Only the fields fakekube's own rules read are described; the rest is carried through unchecked.
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.patch.jsonutil import go_json_kind

# A shape is a JSON type name ("object", "list", "string", "integer", "boolean", "map"), optionally with
# the shape of its fields (object), items (list) or values (map), and the Go type name errors print.
Shape = tuple[str, str, Any]

STRING: Shape = ("string", "string", None)
INT: Shape = ("integer", "int64", None)
BOOL: Shape = ("boolean", "bool", None)
STRING_MAP: Shape = ("map", "map[string]string", STRING)
STRING_LIST: Shape = ("list", "[]string", STRING)


def obj(go_type: str, **fields: Shape) -> Shape:
    return ("object", go_type, fields)


def items(go_type: str, item: Shape) -> Shape:
    return ("list", go_type, item)


_CONDITIONS = items("[]v1.Condition", obj("v1.Condition", type=STRING, status=STRING))
_CONTAINERS = items("[]v1.Container", obj("v1.Container", name=STRING, image=STRING))

SHAPES: dict[tuple[str, str], Shape] = {
    ("", "Pod"): obj(
        "v1.Pod",
        spec=obj("v1.PodSpec", containers=_CONTAINERS, initContainers=_CONTAINERS, nodeName=STRING,
                 terminationGracePeriodSeconds=INT),
        status=obj("v1.PodStatus", phase=STRING, conditions=_CONDITIONS,
                   podIPs=items("[]v1.PodIP", obj("v1.PodIP", ip=STRING)), podIP=STRING),
    ),
    ("", "ConfigMap"): obj("v1.ConfigMap", data=STRING_MAP, binaryData=STRING_MAP, immutable=BOOL),
    ("", "Secret"): obj("v1.Secret", data=STRING_MAP, stringData=STRING_MAP, type=STRING, immutable=BOOL),
    ("", "Namespace"): obj("v1.Namespace", spec=obj("v1.NamespaceSpec", finalizers=STRING_LIST),
                           status=obj("v1.NamespaceStatus", phase=STRING)),
    ("", "Service"): obj("v1.Service", spec=obj("v1.ServiceSpec", selector=STRING_MAP, clusterIP=STRING),
                         status=obj("v1.ServiceStatus")),
    ("", "ServiceAccount"): obj("v1.ServiceAccount"),
    ("", "PersistentVolumeClaim"): obj("v1.PersistentVolumeClaim", spec=obj("v1.PersistentVolumeClaimSpec"),
                                       status=obj("v1.PersistentVolumeClaimStatus", phase=STRING)),
    ("", "Event"): obj("v1.Event", involvedObject=obj("v1.ObjectReference"), reason=STRING, message=STRING,
                       type=STRING, source=obj("v1.EventSource")),
    ("networking.k8s.io", "NetworkPolicy"): obj("v1.NetworkPolicy", spec=obj("v1.NetworkPolicySpec")),
    ("coordination.k8s.io", "Lease"): obj("v1.Lease", spec=obj("v1.LeaseSpec")),
    ("apps", "Deployment"): obj(
        "v1.Deployment",
        spec=obj("v1.DeploymentSpec", replicas=INT, selector=obj("v1.LabelSelector"),
                 template=obj("v1.PodTemplateSpec")),
        status=obj("v1.DeploymentStatus", replicas=INT, conditions=_CONDITIONS),
    ),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): obj(
        "v1.CustomResourceDefinition",
        spec=obj("v1.CustomResourceDefinitionSpec", group=STRING, scope=STRING,
                 names=obj("v1.CustomResourceDefinitionNames", plural=STRING, kind=STRING, singular=STRING),
                 versions=items("[]v1.CustomResourceDefinitionVersion",
                                obj("v1.CustomResourceDefinitionVersion", name=STRING, served=BOOL,
                                    storage=BOOL))),
    ),
}


def _matches(value: Any, kind: str) -> bool:
    if kind in ("object", "map"):
        return isinstance(value, dict)
    if kind == "list":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool) or (
            isinstance(value, float) and value.is_integer())
    return True


def _mismatch(value: Any, shape: Shape, path: str) -> tuple[str, str, Any] | None:
    """(field path, Go type, offending value) of the first value the decoder would refuse."""
    kind, go_type, inner = shape
    if value is None:
        return None  # null decodes to the zero value
    if not _matches(value, kind):
        return path, go_type, value
    if kind == "object" and inner:
        for name, field_shape in inner.items():
            if name in value:
                found = _mismatch(value[name], field_shape, f"{path}.{name}")
                if found:
                    return found
    elif kind == "list" and inner:
        for item in value:
            found = _mismatch(item, inner, path)
            if found:
                return found
    elif kind == "map" and inner:
        for item in value.values():
            found = _mismatch(item, inner, path)
            if found:
                return found
    return None


def check_decodable(group: str, kind: str, version: str, body: dict[str, Any]) -> None:
    """Raise the 400 the typed decoder gives when ``body`` has a field of the wrong JSON type."""
    shape = SHAPES.get((group, kind))
    if shape is None:
        return
    _, go_type, fields = shape
    for name, field_shape in fields.items():
        if name in body:
            found = _mismatch(body[name], field_shape, f"{go_type.split('.')[-1]}.{name}")
            if found:
                path, field_type, value = found
                raise errors.BadRequest(
                    f'{kind} in version "{version}" cannot be handled as a {kind}: json: cannot unmarshal '
                    f"{go_json_kind(value)} into Go struct field {path} of type {field_type}"
                )


def check_type_meta(obj: dict[str, Any]) -> None:
    """``apiVersion`` and ``kind``, when present, must be strings (TypeMeta's Go fields)."""
    for field_name in ("apiVersion", "kind"):
        value = obj.get(field_name)
        if value is not None and not isinstance(value, str):
            raise errors.BadRequest(
                f"json: cannot unmarshal {go_json_kind(value)} into Go struct field TypeMeta.{field_name} "
                "of type string"
            )

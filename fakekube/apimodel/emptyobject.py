"""The empty object of a built-in kind as the server writes it: what a watch's BOOKMARK event carries.

The watch cache makes a bookmark's object with the registry's ``NewFunc`` — an empty object of the kind's
*internal* type — sets its resourceVersion (and the ``k8s.io/initial-events-end`` annotation), and the
handler converts it to the requested version and writes it like any object (apiserver v0.37.2
``pkg/storage/cacher/cacher.go``: ``Object: c.newFunc()`` in the initial-events and periodic bookmarks). So a
bookmark has every field Go writes for a zero struct (``spec: {containers: null}`` for a Pod, ``status:
{loadBalancer: {}}`` for a Service), plus what converting a zero internal object adds:

- apps/v1 Deployment, ReplicaSet and StatefulSet: the internal ``spec.replicas`` is an ``int32``, converted
  to the versioned ``*int32`` pointing at it, so it is written as ``0`` (kubernetes v1.37.2
  ``pkg/apis/apps/v1/zz_generated.conversion.go``, ``Convert_int32_To_Pointer_int32``);
- apps/v1 DaemonSet: the internal ``spec.templateGeneration`` goes to the annotation
  ``deprecated.daemonset.template.generation: "0"`` (``pkg/apis/apps/v1/conversion.go``,
  ``Convert_apps_DaemonSet_To_v1_DaemonSet``).

A custom resource's is an empty ``Unstructured``: apiVersion, kind and metadata only. Observed on
kube-apiserver v1.37.2 for every served built-in kind (a watch with ``sendInitialEvents``).
"""

from __future__ import annotations

from typing import Any

from fakekube.apimodel.goform import definition_zero
from fakekube.jsonvalues import json_copy

_REPLICAS = {"spec": {"replicas": 0}}
_TEMPLATE_GENERATION = {"metadata": {"annotations": {"deprecated.daemonset.template.generation": "0"}}}
# Added by converting the zero internal object (see the module's docstring), and the kinds whose Go facts the
# protobuf schema table lacks (apiextensions-apiserver v0.37.2 pkg/apis/apiextensions/v1/types.go,
# kube-aggregator v0.37.2 pkg/apis/apiregistration/v1/types.go).
_EXTRA: dict[str, dict[str, Any]] = {
    "io.k8s.api.apps.v1.Deployment": _REPLICAS,
    "io.k8s.api.apps.v1.ReplicaSet": _REPLICAS,
    "io.k8s.api.apps.v1.StatefulSet": _REPLICAS,
    "io.k8s.api.apps.v1.DaemonSet": _TEMPLATE_GENERATION,
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition": {
        "spec": {"group": "", "names": {"plural": "", "kind": ""}, "scope": "", "versions": None},
        "status": {"conditions": None, "acceptedNames": {"plural": "", "kind": ""}, "storedVersions": None}},
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService": {
        "spec": {"groupPriorityMinimum": 0, "versionPriority": 0}, "status": {}},
}


def _merge(into: dict[str, Any], extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = json_copy(value)


def empty_object(definition: str | None, api_version: str, kind: str) -> dict[str, Any]:
    """The empty object of a kind (``definition``: its OpenAPI definition; None for a custom resource), with
    ``metadata: {}`` for the caller to fill."""
    out: dict[str, Any] = {"apiVersion": api_version, "kind": kind}
    if definition is not None:
        out.update(definition_zero(definition))
    out["metadata"] = {}
    _merge(out, _EXTRA.get(definition or "", {}))
    return out

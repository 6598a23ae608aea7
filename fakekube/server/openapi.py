"""A minimal OpenAPI v3: just enough for kubectl's default ``--validate=strict``.

kubectl (cli-runtime ``pkg/resource/query_param_verifier_v3.go``) only checks that the PATCH operation of a
GVK declares the ``fieldValidation`` query parameter; it then sends ``fieldValidation=Strict`` and leaves
validation to the server. So each group-version document lists one PATCH path per kind with that parameter
and no schemas. ``{"paths": {}}`` would be worse than a 404 (kubectl then falls through to the protobuf v2
document), and ``/openapi/v2`` stays a 404 for the same reason.
"""

from __future__ import annotations

from typing import Any

from fakekube.resources import ResourceType

_PATCH_PARAMETERS = [
    {"name": name, "in": "query", "schema": {"type": "string"}}
    for name in ("dryRun", "fieldManager", "fieldValidation", "force")
]


def gv_path(group: str, version: str) -> str:
    return f"api/{version}" if not group else f"apis/{group}/{version}"


def index(group_versions: list[tuple[str, str]], generation: int) -> dict[str, Any]:
    # The hash changes with the registry, so kubectl's cache never serves a document for an older set of CRDs.
    return {"paths": {gv_path(g, v): {"serverRelativeURL": f"/openapi/v3/{gv_path(g, v)}?hash={generation}"}
                      for g, v in group_versions}}


def _item_path(rt: ResourceType) -> str:
    ns = "namespaces/{namespace}/" if rt.namespaced else ""
    return f"/{gv_path(rt.group, rt.version)}/{ns}{rt.plural}/{{name}}"


def document(types: list[ResourceType]) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for rt in types:
        paths[_item_path(rt)] = {"patch": {
            "x-kubernetes-group-version-kind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
            "x-kubernetes-action": "patch",
            "parameters": _PATCH_PARAMETERS,
            "responses": {"200": {"description": "OK"}},
        }}
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes (fakekube)", "version": "v1.32.0"},
            "components": {"schemas": {}}, "paths": paths}

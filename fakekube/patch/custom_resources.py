"""The patch schema of a custom resource: its CRD's structural schema as the API server types it."""

from __future__ import annotations

from typing import Any

from fakekube.patch.schema import PatchSchema

_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def custom_resource_schema(openapi: dict[str, Any]) -> PatchSchema:
    """``openapi`` (a version's ``openAPIV3Schema``) with ``metadata`` typed as ObjectMeta whatever the CRD
    declares: apiextensions-apiserver ``pkg/controller/openapi/builder`` gives every custom resource's
    metadata the ObjectMeta definition, so labels are a map, finalizers a set and ownerReferences a list-map."""
    # The built-in model imports the patch package, so it is looked up when a CRD is first patched.
    from fakekube.apimodel.patch_schemas import patch_schema
    from fakekube.apimodel.versions import kubernetes_version

    object_meta = patch_schema(kubernetes_version(None), _OBJECT_META)
    root = PatchSchema.from_openapi(openapi)
    if root.kind == "object":
        root.fields["metadata"] = object_meta
        # The builder declares apiVersion and kind on every custom resource too.
        for field in ("apiVersion", "kind"):
            root.fields.setdefault(field, PatchSchema("scalar", name=field, scalar="string"))
    elif root.kind == "untyped":
        root = PatchSchema("object", name=root.name, fields={"metadata": object_meta}, deduced=root.deduced)
    return root

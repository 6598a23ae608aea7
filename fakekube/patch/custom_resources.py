"""The patch schema of a custom resource: its CRD's structural schema as the API server types it."""

from __future__ import annotations

from typing import Any

from fakekube.patch.builtin_schemas import OBJECT_META
from fakekube.patch.schema import PatchSchema


def custom_resource_schema(openapi: dict[str, Any]) -> PatchSchema:
    """``openapi`` (a version's ``openAPIV3Schema``) with ``metadata`` typed as ObjectMeta whatever the CRD
    declares: apiextensions-apiserver ``pkg/controller/openapi/builder`` gives every custom resource's
    metadata the ObjectMeta definition, so labels are a map, finalizers a set and ownerReferences a list-map."""
    root = PatchSchema.from_openapi(openapi)
    if root.kind == "object":
        root.fields["metadata"] = OBJECT_META
    elif root.kind == "untyped":
        root = PatchSchema("object", name=root.name, fields={"metadata": OBJECT_META}, deduced=root.deduced)
    return root

"""Table column descriptions taken from the API's own field documentation.

The real printers describe most columns with a field's Go doc comment — ``metav1.ObjectMeta{}.SwaggerDoc()
["name"]`` for Name, ``["creationTimestamp"]`` for Age, ``apiv1.ConfigMap{}.SwaggerDoc()["data"]`` for a
ConfigMap's Data (kubernetes v1.37.2 ``pkg/printers/internalversion/printers.go``), and a custom resource's
Name and default Age columns are ObjectMeta's too (apiextensions-apiserver v0.37.2
``pkg/registry/customresource/tableconvertor/tableconvertor.go``, ``pkg/apiserver/helpers.go``). The same
comments are the OpenAPI definitions' descriptions, which kubernetes-validate ships (fakekube.apimodel.
definitions), so a column names the field (``Doc``) and the text is read from there when a Table is first
written: nothing is read at import.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from fakekube.apimodel.definitions import definitions
from fakekube.apimodel.versions import KubernetesVersion, kubernetes_version

_PREFIXES = {"meta": "io.k8s.apimachinery.pkg.apis.meta.v1."}


@dataclass(frozen=True, slots=True)
class Doc:
    """The description of ``field`` of a Go type: ``core.v1.ConfigMap`` (package path after ``io.k8s.api.``)
    or ``meta.ObjectMeta``."""

    type: str
    field: str

    @property
    def definition(self) -> str:
        package, _, name = self.type.partition(".")
        prefix = _PREFIXES.get(package)
        return prefix + name if prefix else "io.k8s.api." + self.type


OBJECT_NAME = Doc("meta.ObjectMeta", "name")
CREATION_TIMESTAMP = Doc("meta.ObjectMeta", "creationTimestamp")


@cache
def describe(doc: Doc, version: KubernetesVersion | None = None) -> str:
    """The field's description in the version's OpenAPI definitions ("" when the field is not there)."""
    defs = definitions(version or kubernetes_version(None))
    schema = defs.defs.get(doc.definition) or {}
    field = (schema.get("properties") or {}).get(doc.field) or {}
    return str(field.get("description") or "")


def resolved(columns: Any, version: KubernetesVersion | None = None) -> list[dict[str, Any]]:
    """Column definitions with each ``Doc`` description replaced by its text (fresh dicts)."""
    out = []
    for col in columns:
        col = dict(col)
        if isinstance(col["description"], Doc):
            col["description"] = describe(col["description"], version)
        out.append(col)
    return out

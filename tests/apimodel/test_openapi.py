"""Component schemas served from kubernetes-validate's definitions, in the shapes kube-apiserver serves them
(checked against what kubectl's explain and apply read)."""

from __future__ import annotations

from fakekube.apimodel import openapi
from fakekube.apimodel.definitions import definitions
from fakekube.apimodel.versions import kubernetes_version
from fakekube.server.openapi import build_v3
from fakekube.store import Store


def test_references_with_siblings_become_all_of_and_optional_types_lose_null() -> None:
    spec = openapi.component(definitions(), "io.k8s.api.apps.v1.DeploymentSpec")
    strategy = spec["properties"]["strategy"]
    assert strategy["allOf"] == [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy"}]
    assert strategy["x-kubernetes-patch-strategy"] == "retainKeys" and strategy["description"]
    assert spec["properties"]["replicas"] == {**spec["properties"]["replicas"], "type": "integer", "format": "int32"}
    v2 = openapi.component(definitions(), "io.k8s.api.apps.v1.DeploymentSpec", "v2")
    assert v2["properties"]["strategy"]["$ref"] == "#/definitions/io.k8s.api.apps.v1.DeploymentStrategy"


def test_int_or_string_and_quantity_have_their_upstream_shapes() -> None:
    defs = definitions()
    assert openapi.component(defs, openapi.INT_OR_STRING) == {
        "format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]}
    assert openapi.component(defs, openapi.INT_OR_STRING, "v2") == {"type": "string", "format": "int-or-string"}
    assert openapi.component(defs, openapi.QUANTITY)["oneOf"] == [{"type": "string"}, {"type": "number"}]


def test_kinds_carry_their_gvk_without_kubernetes_validates_enums() -> None:
    deployment = openapi.component(definitions(), "io.k8s.api.apps.v1.Deployment")
    assert deployment["x-kubernetes-group-version-kind"] == [{"group": "apps", "kind": "Deployment", "version": "v1"}]
    assert "enum" not in deployment["properties"]["apiVersion"]
    assert "enum" not in deployment["properties"]["kind"]


def test_a_group_version_document_is_closed_under_references() -> None:
    store = Store()
    types = [rt for rt in store.registry if (rt.group, rt.version) == ("apps", "v1")]
    doc = build_v3(kubernetes_version(), "apps", "v1", types)
    schemas = doc["components"]["schemas"]
    text = str(doc)
    for ref in {part.split("'")[0] for part in text.split("#/components/schemas/")[1:]}:
        assert ref in schemas, ref
    patch = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert "application/strategic-merge-patch+json" in patch["requestBody"]["content"]
    assert "fieldValidation" in {p["name"] for p in patch["parameters"]}
    scale = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["get"]
    assert scale["x-kubernetes-group-version-kind"]["kind"] == "Scale"


def test_an_older_release_documents_its_own_fields() -> None:
    old = definitions("1.25")["io.k8s.api.core.v1.PodSpec"]["properties"]
    new = definitions("1.37")["io.k8s.api.core.v1.PodSpec"]["properties"]
    assert "resourceClaims" in new and "resourceClaims" not in old  # PodSpec.resourceClaims is 1.26+

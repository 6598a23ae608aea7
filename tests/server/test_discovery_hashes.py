"""storageVersionHash in discovery, as kube-apiserver v1.37.2 serves it (values observed on the oracle: the
differential corpus's ``discovery/*`` cases compare every group version)."""

from __future__ import annotations

import json

import pytest

from fakekube.server.discovery import Discovery
from fakekube.store import Store


@pytest.fixture(scope="module")
def discovery() -> Discovery:
    return Discovery(Store().registry)


def _hashes(discovery: Discovery, group: str, version: str) -> dict[str, str | None]:
    listed = json.loads(discovery.resource_list(group, version))["resources"]
    return {r["name"]: r.get("storageVersionHash") for r in listed if "/" not in r["name"]}


def test_the_hash_names_the_storage_version(discovery: Discovery) -> None:
    apps = _hashes(discovery, "apps", "v1")
    assert (apps["deployments"], apps["controllerrevisions"]) == ("8aSe+NMegvE=", "85nkx63pcBU=")
    # Kept at beta in etcd for a release after going GA: the hash is of v1beta1's kind.
    assert _hashes(discovery, "apiextensions.k8s.io", "v1")["customresourcedefinitions"] == "jfWCUB31mvA="
    assert _hashes(discovery, "certificates.k8s.io", "v1")["clustertrustbundles"] == "v5yhuVertL4="


def test_resources_without_storage_have_none(discovery: Discovery) -> None:
    core = _hashes(discovery, "", "v1")
    assert core["bindings"] is None and core["componentstatuses"] is None and core["pods"] is not None
    assert set(_hashes(discovery, "authorization.k8s.io", "v1").values()) == {None}


def test_the_core_resource_list_has_no_api_version(discovery: Discovery) -> None:
    # observed on kube-apiserver v1.37.2: /api/v1 has kind and groupVersion only; /apis/<g>/<v> has apiVersion v1
    core = json.loads(discovery.resource_list("", "v1"))
    assert "apiVersion" not in core and core["kind"] == "APIResourceList" and core["groupVersion"] == "v1"
    assert json.loads(discovery.resource_list("apps", "v1"))["apiVersion"] == "v1"


def test_default_feature_gates_decide_the_subresources(discovery: Discovery) -> None:
    # observed on kube-apiserver v1.37.2: no alpha pods/checkpoint; pods/resize and csinodes/status are listed;
    # HorizontalPodAutoscaler v2 is in the "all" category only
    core = {r["name"] for r in json.loads(discovery.resource_list("", "v1"))["resources"]}
    assert "pods/resize" in core and "pods/checkpoint" not in core
    storage = {r["name"] for r in json.loads(discovery.resource_list("storage.k8s.io", "v1"))["resources"]}
    assert "csinodes/status" in storage
    hpa = json.loads(discovery.resource_list("autoscaling", "v2"))["resources"][0]
    assert hpa["categories"] == ["all"]

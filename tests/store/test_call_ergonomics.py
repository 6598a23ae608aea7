"""The Store API's own conveniences: a forgotten namespace is named as such, and a patch's type follows its body."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store


@pytest.fixture
def kube() -> Store:
    store = Store()
    store.create("configmaps", {"metadata": {"name": "cm"}, "data": {"a": "1"}}, "default")
    return store


@pytest.mark.parametrize("call", [
    lambda kube: kube.create("configmaps", {"metadata": {"name": "x"}}),
    lambda kube: kube.get("configmaps", "cm"),
    lambda kube: kube.update("configmaps", {"metadata": {"name": "cm"}}),
    lambda kube: kube.patch("configmaps", "cm", {"data": {"b": "2"}}),
    lambda kube: kube.delete("configmaps", "cm"),
], ids=["create", "get", "update", "patch", "delete"])
def test_a_namespaced_resource_without_a_namespace_says_so(kube: Store, call) -> None:
    before = kube.audit.entries
    with pytest.raises(errors.BadRequest, match=r'configmaps is namespaced, and neither the namespace argument '
                                                r'\(namespace="default"\) nor the body\'s metadata.namespace'):
        call(kube)
    assert kube.get("configmaps", "cm", "default")["data"] == {"a": "1"}
    assert len(kube.audit.entries) == len(before) + 1  # only the get above: the mistake is no request


def test_the_body_namespace_is_enough_and_cluster_scoped_kinds_need_none(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "x", "namespace": "default"}})
    kube.update("configmaps", {"metadata": {"name": "x", "namespace": "default"}, "data": {"k": "v"}})
    kube.create("namespaces", {"metadata": {"name": "other"}})
    assert kube.get("namespaces", "other")["metadata"]["name"] == "other"


def test_a_list_body_is_a_json_patch_and_an_object_a_merge_patch(kube: Store) -> None:
    kube.patch("configmaps", "cm", [{"op": "add", "path": "/data/b", "value": "2"}], "default")
    kube.patch("configmaps", "cm", {"data": {"a": None}}, "default")
    assert kube.get("configmaps", "cm", "default")["data"] == {"b": "2"}
    types = [e.patch_type for e in kube.audit.entries if e.verb == "patch"]
    assert types == ["application/json-patch+json", "application/merge-patch+json"]


def test_a_stated_patch_type_wins_over_the_body_shape(kube: Store) -> None:
    with pytest.raises(errors.ApiError, match="cannot unmarshal array into Go value of type map"):
        kube.patch("configmaps", "cm", [{"op": "add", "path": "/data/b", "value": "2"}], "default",
                   patch_type="application/merge-patch+json")

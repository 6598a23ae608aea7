from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store

from .conftest import pod, widget


def names(listing: dict) -> list[str]:
    return [o["metadata"]["name"] for o in listing["items"]]


@pytest.fixture
def labelled(kube: Store) -> Store:
    kube.create("namespaces", {"metadata": {"name": "other"}})
    for name, labels in [("a", {"app": "web", "tier": "1"}), ("b", {"app": "db"}), ("c", {})]:
        kube.create("configmaps", {"metadata": {"name": name, "labels": labels}}, "default")
    kube.create("configmaps", {"metadata": {"name": "z", "labels": {"app": "web"}}}, "other")
    return kube


def test_list_carries_the_revision_and_kind(labelled: Store) -> None:
    listing = labelled.list("configmaps", "default")
    assert listing["kind"] == "ConfigMapList" and listing["apiVersion"] == "v1"
    assert listing["metadata"]["resourceVersion"] == labelled.resource_version
    assert names(listing) == ["a", "b", "c"]
    assert names(labelled.list("configmaps")) == ["a", "b", "c", "z"]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("app=web", ["a"]),
        ("app!=web", ["b", "c"]),
        ("app in (web,db)", ["a", "b"]),
        ("app notin (web)", ["b", "c"]),
        ("tier", ["a"]),
        ("!tier", ["b", "c"]),
        ("app=web,tier=1", ["a"]),
        ("tier>0", ["a"]),
    ],
)
def test_label_selectors(labelled: Store, selector: str, expected: list[str]) -> None:
    assert names(labelled.list("configmaps", "default", label_selector=selector)) == expected


def test_malformed_selectors_are_bad_requests(labelled: Store) -> None:
    with pytest.raises(errors.BadRequest):
        labelled.list("configmaps", label_selector="app in (web")
    with pytest.raises(errors.BadRequest, match='"spec.nope" is not a known field selector'):
        labelled.list("configmaps", field_selector="spec.nope=1")


def test_field_selectors(labelled: Store) -> None:
    assert names(labelled.list("configmaps", field_selector="metadata.name=b")) == ["b"]
    assert names(labelled.list("configmaps", field_selector="metadata.namespace!=default")) == ["z"]


def test_pod_and_custom_resource_selectable_fields(crd_kube: Store) -> None:
    running = pod("run")
    crd_kube.create("pods", running, "default")
    crd_kube.create("pods", pod("idle"), "default")
    crd_kube.patch("pods", "run", {"status": {"phase": "Running"}}, "default", subresource="status")
    assert names(crd_kube.list("pods", field_selector="status.phase=Running")) == ["run"]
    crd_kube.create("widgets", widget("r", color="red"), "default")
    crd_kube.create("widgets", widget("g", color="green"), "default")
    assert names(crd_kube.list("widgets", field_selector="spec.color=green")) == ["g"]
    with pytest.raises(errors.BadRequest):
        crd_kube.list("widgets", field_selector="spec.replicas=1")


def test_pagination_serves_every_page_at_the_first_pages_revision(kube: Store) -> None:
    for i in range(5):
        kube.create("configmaps", {"metadata": {"name": f"c{i}"}}, "default")
    first = kube.list("configmaps", "default", limit=2)
    assert names(first) == ["c0", "c1"]
    assert first["metadata"]["remainingItemCount"] == 3
    kube.delete("configmaps", "c3", "default")
    kube.create("configmaps", {"metadata": {"name": "c21"}}, "default")
    second = kube.list("configmaps", "default", limit=2, continue_=first["metadata"]["continue"])
    assert names(second) == ["c2", "c3"]  # the snapshot, not the current state
    third = kube.list("configmaps", "default", limit=2, continue_=second["metadata"]["continue"])
    assert names(third) == ["c4"] and "continue" not in third["metadata"]
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


def test_expired_continue_token_and_bad_tokens(kube: Store) -> None:
    for i in range(3):
        kube.create("configmaps", {"metadata": {"name": f"c{i}"}}, "default")
    first = kube.list("configmaps", "default", limit=1)
    kube.create("configmaps", {"metadata": {"name": "later"}}, "default")
    kube.compact()
    with pytest.raises(errors.Expired, match="continue parameter is too old"):
        kube.list("configmaps", "default", limit=1, continue_=first["metadata"]["continue"])
    with pytest.raises(errors.BadRequest):
        kube.list("configmaps", "default", continue_="garbage!")


def test_exact_resource_version_lists_and_too_new_versions(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "a"}}, "default")
    rv = kube.resource_version
    kube.create("configmaps", {"metadata": {"name": "b"}}, "default")
    old = kube.list("configmaps", "default", resource_version=rv, resource_version_match="Exact")
    assert names(old) == ["a"]
    with pytest.raises(errors.ApiError) as info:
        kube.list("configmaps", resource_version="99999")
    assert info.value.code == 504 and "Too large resource version" in info.value.message


def test_list_items_are_ordered_by_namespace_then_name(kube: Store) -> None:
    kube.create("namespaces", {"metadata": {"name": "a-b"}})
    kube.create("namespaces", {"metadata": {"name": "a"}})
    kube.create("configmaps", {"metadata": {"name": "x"}}, "a-b")
    kube.create("configmaps", {"metadata": {"name": "x"}}, "a")
    # etcd key order: "/a-b/x" sorts before "/a/x" because '-' < '/'.
    assert [o["metadata"]["namespace"] for o in kube.list("configmaps")["items"]] == ["a-b", "a"]

"""A write is a no-op only when its JSON is the stored JSON (etcd compares bytes), not when Python's == says so."""

from __future__ import annotations

from typing import Any

from fakekube.store import Store


def _stored(crd_kube: Store, extra: dict[str, Any]) -> dict[str, Any]:
    return crd_kube.create("widgets", {"apiVersion": "example.com/v1", "kind": "Widget",
                                       "metadata": {"name": "w1"},
                                       "spec": {"replicas": 1, "color": "red", "extra": extra}}, "default")


def test_true_over_one_in_a_free_form_field_is_written(crd_kube: Store) -> None:
    created = _stored(crd_kube, {"flag": 1})
    body = {**created, "spec": {**created["spec"], "extra": {"flag": True}}}
    answer = crd_kube.update("widgets", body, "default")
    assert answer["spec"]["extra"]["flag"] is True
    assert answer["metadata"]["resourceVersion"] != created["metadata"]["resourceVersion"]
    assert crd_kube.get("widgets", "w1", "default")["spec"]["extra"]["flag"] is True
    assert "no-op" not in crd_kube.last_request().notes


def test_zero_over_false_by_merge_patch_is_written(crd_kube: Store) -> None:
    created = _stored(crd_kube, {"flag": False})
    answer = crd_kube.patch("widgets", "w1", {"spec": {"extra": {"flag": 0}}}, "default")
    assert answer["spec"]["extra"]["flag"] == 0 and answer["spec"]["extra"]["flag"] is not False
    assert answer["metadata"]["resourceVersion"] != created["metadata"]["resourceVersion"]


def test_the_same_json_again_is_still_a_no_op(crd_kube: Store) -> None:
    created = _stored(crd_kube, {"flag": True, "n": 1})
    answer = crd_kube.update("widgets", created, "default")
    assert answer["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert "no-op" in crd_kube.last_request().notes


def test_keys_in_another_order_are_still_a_no_op(crd_kube: Store) -> None:
    created = _stored(crd_kube, {"a": 1, "b": True})
    body = {**created, "spec": {**created["spec"], "extra": {"b": True, "a": 1}}}
    answer = crd_kube.update("widgets", body, "default")
    assert answer["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]

"""The field manager sees the versioned object the conversion from the internal one writes: a DaemonSet's
``deprecated.daemonset.template.generation`` annotation (kubernetes v1.37.2 pkg/apis/apps/v1/conversion.go
``Convert_apps_DaemonSet_To_v1_DaemonSet``) is owned by the writer of a create and of a PUT without it, as
observed on kube-apiserver v1.37.2."""

from __future__ import annotations

import pytest

from fakekube.store import Store

DS = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"}, "spec": {
    "selector": {"matchLabels": {"a": "b"}},
    "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
OWNED = {".": {}, "f:deprecated.daemonset.template.generation": {}}


@pytest.fixture
def kube() -> Store:
    return Store(seed=1)


def test_a_create_owns_the_template_generation_annotation(kube: Store) -> None:
    created = kube.create("daemonsets", DS, "default", field_manager="maker")
    assert created["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    assert created["metadata"]["managedFields"][0]["fieldsV1"]["f:metadata"] == {"f:annotations": OWNED}


def test_a_put_without_the_annotation_owns_it(kube: Store) -> None:
    kube.create("daemonsets", DS, "default", field_manager="maker")
    updated = kube.update("daemonsets", {**DS, "metadata": {"name": "ds", "labels": {"x": "y"}}}, "default",
                          field_manager="other")
    assert updated["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    other = [e for e in updated["metadata"]["managedFields"] if e["manager"] == "other"]
    # (the map itself, ".", stays with the manager that made it)
    assert other[0]["fieldsV1"]["f:metadata"]["f:annotations"] == {"f:deprecated.daemonset.template.generation": {}}


def test_a_put_that_keeps_the_annotation_does_not_take_it(kube: Store) -> None:
    created = kube.create("daemonsets", DS, "default", field_manager="maker")
    body = {**created, "metadata": {**created["metadata"], "labels": {"x": "y"}}}
    updated = kube.update("daemonsets", body, "default", field_manager="other")
    other = [e for e in updated["metadata"]["managedFields"] if e["manager"] == "other"]
    assert "f:annotations" not in other[0]["fieldsV1"]["f:metadata"]


def test_a_status_put_keeps_the_stored_template_generation(kube: Store) -> None:
    kube.create("daemonsets", DS, "default")
    updated = kube.update("daemonsets", {**DS, "status": {"numberReady": 1}}, "default", subresource="status")
    assert updated["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store

from .conftest import pod, widget


def test_custom_resource_status_write_keeps_only_status(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    w["status"] = {"phase": "Ready"}
    w["spec"]["replicas"] = 9
    w["metadata"]["labels"] = {"sneaky": "yes"}
    updated = crd_kube.update("widgets", w, "default", subresource="status")
    assert updated["status"] == {"phase": "Ready"}
    assert updated["spec"]["replicas"] == 1
    assert "labels" not in updated["metadata"]
    assert updated["metadata"]["generation"] == 1


def test_status_write_with_a_stale_resource_version_is_409(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    crd_kube.patch("widgets", "w1", {"metadata": {"annotations": {"a": "b"}}}, "default")
    w["status"] = {"phase": "Ready"}
    with pytest.raises(errors.Conflict):
        crd_kube.update("widgets", w, "default", subresource="status")


def test_status_merge_patch_never_conflicts(crd_kube: Store) -> None:
    crd_kube.create("widgets", widget(), "default")
    crd_kube.patch("widgets", "w1", {"metadata": {"annotations": {"a": "b"}}}, "default")
    patched = crd_kube.patch("widgets", "w1", {"status": {"phase": "Ready"}}, "default", subresource="status")
    assert patched["status"] == {"phase": "Ready"}


def test_patch_with_resource_version_is_a_precondition(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    crd_kube.patch("widgets", "w1", {"spec": {"replicas": 2}}, "default")
    with pytest.raises(errors.Conflict):
        crd_kube.patch("widgets", "w1", {"metadata": {"resourceVersion": w["metadata"]["resourceVersion"]},
                                         "spec": {"replicas": 3}}, "default")
    assert crd_kube.get("widgets", "w1", "default")["spec"]["replicas"] == 2


def test_pod_status_write_keeps_labels_but_not_owner_references(kube: Store) -> None:
    p = kube.create("pods", pod(), "default")
    p["status"] = {"phase": "Running"}
    p["metadata"]["labels"] = {"from-status": "kept"}
    p["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "u"}]
    p["spec"]["containers"][0]["image"] = "changed"
    updated = kube.update("pods", p, "default", subresource="status")
    assert updated["status"]["phase"] == "Running"
    assert updated["metadata"]["labels"] == {"from-status": "kept"}
    assert "ownerReferences" not in updated["metadata"]
    assert updated["spec"]["containers"][0]["image"] == "nginx"


def test_pod_main_write_keeps_status_and_bumps_generation_on_spec(kube: Store) -> None:
    p = kube.create("pods", pod(), "default")
    kube.patch("pods", "p1", {"status": {"phase": "Running"}}, "default", subresource="status")
    p = kube.get("pods", "p1", "default")
    p["status"] = {"phase": "Failed"}
    p["spec"]["containers"][0]["image"] = "v2"
    updated = kube.update("pods", p, "default")
    assert updated["status"]["phase"] == "Running"
    assert updated["metadata"]["generation"] == 2


def test_deployment_status_write_drops_labels_keeps_annotations(kube: Store) -> None:
    d = kube.create("deployments", {"metadata": {"name": "d"}, "spec": {"replicas": 1, "selector": {
        "matchLabels": {"app": "a"}}, "template": {"metadata": {"labels": {"app": "a"}}, "spec": {
            "containers": [{"name": "c", "image": "i"}]}}}}, "default")
    d["metadata"]["labels"] = {"l": "1"}
    d["metadata"]["annotations"] = {"a": "1"}
    d["status"] = {"replicas": 1}
    updated = kube.update("deployments", d, "default", subresource="status")
    assert "labels" not in updated["metadata"]
    assert updated["metadata"]["annotations"] == {"a": "1"}
    assert updated["status"] == {"replicas": 1}
    assert updated["metadata"]["generation"] == 1
    d = kube.get("deployments", "d", "default")
    d["metadata"]["annotations"] = {"a": "2"}
    assert kube.update("deployments", d, "default")["metadata"]["generation"] == 2


def test_custom_resource_without_status_subresource_bumps_generation_on_status(kube: Store) -> None:
    from .conftest import WIDGET_CRD

    crd = {**WIDGET_CRD, "spec": {**WIDGET_CRD["spec"], "versions": [
        {**WIDGET_CRD["spec"]["versions"][0], "subresources": {}}]}}
    kube.load_crds(crd)
    body = widget()
    body["status"] = {"phase": "Kept"}
    w = kube.create("widgets", body, "default")
    assert w["status"] == {"phase": "Kept"}
    w["status"] = {"phase": "Changed"}
    assert kube.update("widgets", w, "default")["metadata"]["generation"] == 2
    with pytest.raises(errors.NotFound):
        kube.update("widgets", w, "default", subresource="status")


def test_scale_subresource(crd_kube: Store) -> None:
    crd_kube.create("widgets", widget(), "default")
    scale = crd_kube.get("widgets", "w1", "default", subresource="scale")
    assert scale["kind"] == "Scale" and scale["spec"] == {"replicas": 1}
    scale["spec"]["replicas"] = 4
    crd_kube.update("widgets", scale, "default", subresource="scale")
    assert crd_kube.get("widgets", "w1", "default")["spec"]["replicas"] == 4

"""Server-side apply over HTTP with the clients where its empty-container defects were seen (lightkube's own
``test_apply``, kubectl ``apply --server-side``)."""

from __future__ import annotations

import json

import pytest


def _lightkube(kube_server, manager="lightkube"):
    pytest.importorskip("lightkube")
    from lightkube import Client, KubeConfig

    return Client(config=KubeConfig.from_file(str(kube_server.kubeconfig)), field_manager=manager)


def _fields(obj, manager):
    return [e["fieldsV1"] for e in obj["metadata"].get("managedFields", []) if e["manager"] == manager]


def test_lightkube_suite_test_apply(kube_server):
    """lightkube e2e ``test_apply``: create, modify, clear every key, then apply as a plain patch."""
    client = _lightkube(kube_server)
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import ConfigMap
    from lightkube.types import PatchType

    config = ConfigMap(apiVersion="v1", kind="ConfigMap", metadata=ObjectMeta(name="t", namespace="default"),
                       data={"key1": "value1", "key2": "value2"})
    c = client.apply(config)
    assert c.data == {"key1": "value1", "key2": "value2"}
    config.data["key2"] = "new value"
    del config.data["key1"]
    config.data["key3"] = "value3"
    c = client.apply(config)
    assert c.data == {"key2": "new value", "key3": "value3"}
    config.data.clear()
    c = client.apply(config)
    assert not c.data
    config.data["key1"] = "new value"
    c = client.patch(ConfigMap, "t", config.to_dict(), patch_type=PatchType.APPLY)
    assert c.data == {"key1": "new value"}


def test_apply_into_an_empty_map_keeps_the_applied_keys(kube_server):
    client = _lightkube(kube_server, "m")
    from lightkube.resources.core_v1 import ConfigMap

    def apply(data, labels):
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "c", "namespace": "default", "labels": labels}, "data": data}
        client.apply(ConfigMap.from_dict(body))
        return kube_server.store.get("configmaps", "c", "default")

    first = apply({}, {})
    assert _fields(first, "m") == [{"f:data": {}, "f:metadata": {"f:labels": {}}}]
    second = apply({"key1": "v"}, {"app": "x"})
    assert second["data"] == {"key1": "v"}
    assert second["metadata"]["labels"] == {"app": "x"}
    assert _fields(second, "m") == [{"f:data": {"f:key1": {}}, "f:metadata": {"f:labels": {"f:app": {}}}}]


def _kubectl_apply(kubectl, manager, obj, *extra):
    return kubectl("apply", "--server-side", f"--field-manager={manager}", *extra, "-f", "-", "-o", "json", "--show-managed-fields",
                   input=json.dumps(obj))


def _cm(**fields):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "e"}, **fields}


def test_kubectl_apply_empty_containers_and_nulls(kube_server, kubectl):
    # Removal of the last key: the map goes, the applier keeps nothing.
    _kubectl_apply(kubectl, "a", _cm(data={"k": "v"}))
    out = json.loads(_kubectl_apply(kubectl, "a", _cm()).stdout)
    assert "data" not in out and _fields(out, "a") == []
    # A key another manager also owns stays when one of them stops applying it.
    _kubectl_apply(kubectl, "a", _cm(data={"k": "v", "only-a": "1"}))
    _kubectl_apply(kubectl, "b", _cm(data={"k": "v"}))
    out = json.loads(_kubectl_apply(kubectl, "a", _cm(data={"other": "2"})).stdout)
    assert out["data"] == {"k": "v", "other": "2"}
    assert _fields(out, "a") == [{"f:data": {"f:other": {}}}]
    assert _fields(out, "b") == [{"f:data": {"f:k": {}}}]
    # An applied null owns the field; its sole previous value goes, shared content stays.
    out = json.loads(_kubectl_apply(kubectl, "a", _cm(data=None)).stdout)
    assert out["data"] == {"k": "v"}
    assert _fields(out, "a") == [{"f:data": {}}]


def test_kubectl_apply_empty_list_is_not_owned_and_keeps_items(kube_server, kubectl, widget_crd):
    kube_server.store.load_crds(widget_crd)
    widget = {"apiVersion": "example.com/v1", "kind": "Widget",
              "metadata": {"name": "w", "finalizers": ["example.com/a"]}, "spec": {"size": {"cpu": 1}}}
    _kubectl_apply(kubectl, "a", widget)
    # A CR's metadata is ObjectMeta: finalizers are a set, so another applier adds to it.
    out = json.loads(_kubectl_apply(kubectl, "b", {**widget, "metadata": {"name": "w", "finalizers": ["example.com/b"]},
                                                   "spec": {}}).stdout)
    assert out["metadata"]["finalizers"] == ["example.com/a", "example.com/b"]
    # An empty granular list owns nothing and removes what the applier owned alone.
    out = json.loads(_kubectl_apply(kubectl, "a", {**widget, "metadata": {"name": "w", "finalizers": []}}).stdout)
    assert out["metadata"]["finalizers"] == ["example.com/b"]
    assert _fields(out, "a") == [{"f:spec": {"f:size": {".": {}, "f:cpu": {}}}}]
    # Under x-kubernetes-preserve-unknown-fields keys are map keys: an emptied nested object stays owned, and
    # pruning its old content leaves the null upstream's RemoveItems leaves (no schema prunes it there).
    out = json.loads(_kubectl_apply(kubectl, "a", {**widget, "metadata": {"name": "w"}, "spec": {"size": {}}}).stdout)
    assert out["spec"] == {"size": None}
    assert _fields(out, "a") == [{"f:spec": {"f:size": {}}}]


def test_kubectl_apply_ignores_the_fields_a_write_resets(kube_server, kubectl):
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                  "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                           "template": {"metadata": {"labels": {"app": "web"}},
                                        "spec": {"containers": [{"name": "app", "image": "nginx"}]}}},
                  "status": {"replicas": 7}}
    # A manifest exported with its status: apply neither writes nor owns status on the main resource.
    out = json.loads(_kubectl_apply(kubectl, "ci", deployment).stdout)
    assert out.get("status", {}).get("replicas") != 7
    assert [set(f) for f in _fields(out, "ci")] == [{"f:spec"}]
    # On /status it is the other way round: spec is ignored.
    status = json.loads(kubectl("apply", "--server-side", "--field-manager=ctl", "--subresource=status", "-f", "-",
                                "-o", "json", "--show-managed-fields",
                                input=json.dumps({**deployment, "spec": {"replicas": 9}})).stdout)
    assert status["spec"]["replicas"] == 2 and status["status"]["replicas"] == 7
    assert [set(f) for f in _fields(status, "ctl")] == [{"f:status"}]

"""The official ``kubernetes`` client against ``kube_server``: CRUD, status, every patch type, watch resumed
from a resourceVersion, and 410 handling."""

from __future__ import annotations

import threading

import pytest

kubernetes = pytest.importorskip("kubernetes")
from kubernetes import client, config, dynamic, watch  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402


@pytest.fixture
def kube_server(either_front):
    """Every test here runs over HTTP and in process (tests/server/conftest.py, ``either_front``)."""
    return either_front


@pytest.fixture
def api_client(kube_server):
    api = config.new_client_from_config(config_file=str(kube_server.kubeconfig))
    yield api
    api.close()


@pytest.fixture
def core(api_client):
    return client.CoreV1Api(api_client)


@pytest.fixture
def custom(api_client, widgets):
    return client.CustomObjectsApi(api_client)


def _cm(name, **data):
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={"app": "demo"}), data=data)


def test_crud(core, kube_server):
    created = core.create_namespaced_config_map("default", _cm("c1", a="1"))
    assert created.metadata.resource_version and created.metadata.uid
    got = core.read_namespaced_config_map("c1", "default")
    assert got.data == {"a": "1"}
    got.data["a"] = "2"
    replaced = core.replace_namespaced_config_map("c1", "default", got)
    assert int(replaced.metadata.resource_version) > int(created.metadata.resource_version)
    listed = core.list_namespaced_config_map("default", label_selector="app=demo")
    assert [i.metadata.name for i in listed.items] == ["c1"]
    assert listed.metadata.resource_version
    everywhere = core.list_config_map_for_all_namespaces(field_selector="metadata.name=c1")
    assert len(everywhere.items) == 1
    # A stale replace is a 409 Conflict with the real server's message.
    got.data["a"] = "stale"
    with pytest.raises(ApiException) as conflict:
        core.replace_namespaced_config_map("c1", "default", got)
    assert conflict.value.status == 409 and "Operation cannot be fulfilled" in conflict.value.body
    status = core.delete_namespaced_config_map("c1", "default", propagation_policy="Background")
    assert status["status"] == "Success"
    with pytest.raises(ApiException) as missing:
        core.read_namespaced_config_map("c1", "default")
    assert missing.value.status == 404
    assert kube_server.store.audit.filter(verb="create")[0].actor == "OpenAPI-Generator"


def test_pagination_and_delete_collection(core):
    for i in range(5):
        core.create_namespaced_config_map("default", _cm(f"p{i}"))
    first = core.list_namespaced_config_map("default", limit=2)
    assert len(first.items) == 2 and first.metadata._continue
    rest = core.list_namespaced_config_map("default", limit=10, _continue=first.metadata._continue)
    assert [i.metadata.name for i in first.items + rest.items] == [f"p{i}" for i in range(5)]
    core.delete_collection_namespaced_config_map("default", label_selector="app=demo")
    assert core.list_namespaced_config_map("default").items == []


@pytest.mark.parametrize("content_type, body, expected", [
    ("application/merge-patch+json", {"data": {"b": "2"}}, {"a": "1", "b": "2"}),
    ("application/strategic-merge-patch+json", {"data": {"b": "2"}}, {"a": "1", "b": "2"}),
    ("application/json-patch+json", [{"op": "replace", "path": "/data/a", "value": "9"}], {"a": "9"}),
])
def test_patch_types(core, content_type, body, expected):
    core.create_namespaced_config_map("default", _cm("c1", a="1"))
    patched = core.patch_namespaced_config_map("c1", "default", body, _content_type=content_type)
    assert patched.data == expected


def test_server_side_apply_creates_then_updates(api_client, kube_server):
    core = client.CoreV1Api(api_client)
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {"a": "1"}}
    created = core.patch_namespaced_config_map("ssa", "default", manifest, field_manager="tester",
                                               _content_type="application/apply-patch+yaml")
    assert created.data == {"a": "1"}
    assert kube_server.store.audit.filter(verb="patch", name="ssa")[-1].code == 201
    manifest["data"]["a"] = "2"
    updated = core.patch_namespaced_config_map("ssa", "default", manifest, field_manager="tester",
                                               _content_type="application/apply-patch+yaml")
    assert updated.data == {"a": "2"}
    dyn = dynamic.DynamicClient(api_client)
    cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
    manifest["data"]["a"] = "3"
    applied = dyn.server_side_apply(cms, body=manifest, namespace="default", field_manager="tester")
    assert applied.data.a == "3"


def test_json_patch_test_failure_is_422(core):
    core.create_namespaced_config_map("default", _cm("c1", a="1"))
    with pytest.raises(ApiException) as failed:
        core.patch_namespaced_config_map("c1", "default", [{"op": "test", "path": "/data/a", "value": "x"}])
    assert failed.value.status == 422


def test_status_subresource_of_custom_resource(custom, widgets):
    body = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"},
            "spec": {"size": 1}, "status": {"ignored": True}}
    created = custom.create_namespaced_custom_object("example.com", "v1", "default", "widgets", body)
    assert "status" not in created  # main-resource writes drop status
    assert created["metadata"]["generation"] == 1
    patched = custom.patch_namespaced_custom_object_status("example.com", "v1", "default", "widgets", "w1",
                                                           {"status": {"ready": True}})
    assert patched["status"] == {"ready": True}
    assert patched["metadata"]["generation"] == 1  # status writes do not bump generation
    current = custom.get_namespaced_custom_object_status("example.com", "v1", "default", "widgets", "w1")
    current["status"]["phase"] = "Done"
    replaced = custom.replace_namespaced_custom_object_status("example.com", "v1", "default", "widgets", "w1",
                                                              current)
    assert replaced["status"] == {"ready": True, "phase": "Done"}
    with pytest.raises(ApiException) as smp:
        custom.patch_namespaced_custom_object("example.com", "v1", "default", "widgets", "w1",
                                              {"spec": {"size": 2}},
                                              _content_type="application/strategic-merge-patch+json")
    assert smp.value.status == 415
    custom.delete_namespaced_custom_object("example.com", "v1", "default", "widgets", "w1")
    assert widgets.store.objects("widgets") == []


def test_watch_resumes_from_resource_version(core, kube_server):
    first = core.create_namespaced_config_map("default", _cm("w0"))
    core.create_namespaced_config_map("default", _cm("w1"))
    core.patch_namespaced_config_map("w0", "default", {"data": {"x": "1"}})
    seen = []
    w = watch.Watch()
    for event in w.stream(core.list_namespaced_config_map, "default", timeout_seconds=5,
                          resource_version=first.metadata.resource_version):
        seen.append((event["type"], event["object"].metadata.name))
        if len(seen) == 2:
            w.stop()
    assert seen == [("ADDED", "w1"), ("MODIFIED", "w0")]


def test_watch_delivers_live_events_and_bookmarks(core, kube_server):
    listed = core.list_namespaced_config_map("default")

    def writer():
        kube_server.store.create("configmaps", {"metadata": {"name": "live"}}, "default")
        kube_server.store.delete("configmaps", "live", "default")

    seen = []
    w = watch.Watch()
    timer = threading.Timer(0.2, writer)
    timer.start()
    try:
        for event in w.stream(core.list_namespaced_config_map, "default", timeout_seconds=5,
                              resource_version=listed.metadata.resource_version, allow_watch_bookmarks=True):
            seen.append(event["type"])
            if event["type"] == "DELETED":
                w.stop()
    finally:
        timer.join()
    assert seen == ["ADDED", "DELETED"]


def test_watch_too_old_resource_version_raises_410(core, kube_server):
    old = core.create_namespaced_config_map("default", _cm("a")).metadata.resource_version
    core.create_namespaced_config_map("default", _cm("b"))
    kube_server.store.compact()
    w = watch.Watch()
    with pytest.raises(ApiException) as expired:
        for _ in w.stream(core.list_namespaced_config_map, "default", resource_version=old, timeout_seconds=5):
            pass
    assert expired.value.status == 410


def test_a_race_and_a_scripted_answer_reach_the_client_unchanged(core, kube_server):
    store = kube_server.store
    core.create_namespaced_config_map("default", _cm("raced", n="1"))
    seen = core.read_namespaced_config_map("raced", "default")
    store.faults.race(lambda kube: kube.patch("configmaps", "raced", {"data": {"n": "other"}}, "default",
                                              actor="other-writer"), verb="update", name="raced")
    seen.data = {"n": "mine"}
    with pytest.raises(ApiException) as info:
        core.replace_namespaced_config_map("raced", "default", seen)
    assert info.value.status == 409 and "the object has been modified" in info.value.body
    with store.faults.respond({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 503,
                               "reason": "ServiceUnavailable", "message": "scripted"}, verb="get", name="raced"):
        with pytest.raises(ApiException) as info:
            core.read_namespaced_config_map("raced", "default")
        assert info.value.status == 503 and '"message":"scripted"' in info.value.body.replace(" ", "")
    assert core.read_namespaced_config_map("raced", "default").data == {"n": "other"}

"""kubernetes_asyncio, kr8s and lightkube against ``kube_server``: CRUD and watch with each."""

from __future__ import annotations

import asyncio
import threading

import pytest


@pytest.fixture
def kube_server(either_front):
    """Every test here runs over HTTP and in process (tests/server/conftest.py, ``either_front``)."""
    return either_front


def _create_later(store, name, delay=0.3):
    timer = threading.Timer(delay, lambda: store.create("configmaps", {"metadata": {"name": name}}, "default"))
    timer.start()
    return timer


# -- kubernetes_asyncio ----------------------------------------------------------------------------------------


def test_kubernetes_asyncio_crud_and_watch(kube_server):
    pytest.importorskip("kubernetes_asyncio")
    from kubernetes_asyncio import client, config, watch

    async def main():
        api_client = await config.new_client_from_config(config_file=str(kube_server.kubeconfig))
        async with api_client:
            core = client.CoreV1Api(api_client)
            body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="a1"), data={"k": "v"})
            created = await core.create_namespaced_config_map("default", body)
            assert created.data == {"k": "v"}
            patched = await core.patch_namespaced_config_map("a1", "default", {"data": {"k": "w"}})
            assert patched.data == {"k": "w"}
            listed = await core.list_namespaced_config_map("default")
            assert [i.metadata.name for i in listed.items] == ["a1"]
            timer = _create_later(kube_server.store, "a2")
            names = []
            w = watch.Watch()
            # kubernetes_asyncio sends watch=True (capital T): the server parses bools like Go, any case.
            async for event in w.stream(core.list_namespaced_config_map, "default", timeout_seconds=5,
                                        resource_version=listed.metadata.resource_version):
                names.append((event["type"], event["object"].metadata.name))
                w.stop()
            timer.join()
            assert names == [("ADDED", "a2")]
            await core.delete_namespaced_config_map("a1", "default")
            assert [i.metadata.name for i in (await core.list_namespaced_config_map("default")).items] == ["a2"]

    asyncio.run(main())


# -- kr8s ------------------------------------------------------------------------------------------------------


def test_kr8s_crud_and_watch(kube_server):
    pytest.importorskip("kr8s")
    import kr8s
    from kr8s.objects import ConfigMap

    api = kr8s.api(kubeconfig=str(kube_server.kubeconfig))
    cm = ConfigMap({"metadata": {"name": "k1", "namespace": "default"}, "data": {"a": "1"}}, api=api)
    cm.create()
    assert cm.raw["metadata"]["resourceVersion"]
    cm.patch({"data": {"a": "2"}})
    assert ConfigMap.get("k1", namespace="default", api=api).raw["data"] == {"a": "2"}
    # kr8s discovers resources (with trailing slashes on /api/ and /apis/) to resolve "configmaps".
    assert [o.name for o in api.get("configmaps", namespace="default")] == ["k1"]
    since = cm.raw["metadata"]["resourceVersion"]
    timer = _create_later(kube_server.store, "k2")
    for event_type, obj in api.watch("configmaps", namespace="default", since=since):
        assert (event_type, obj.name) == ("ADDED", "k2")
        break
    timer.join()
    cm.delete()
    assert [o.name for o in api.get("configmaps", namespace="default")] == ["k2"]
    assert {e.actor for e in kube_server.store.audit if e.is_write and e.actor != "fakekube"} == {"kr8s"}


# -- lightkube -------------------------------------------------------------------------------------------------


def test_lightkube_crud_apply_and_watch(kube_server):
    pytest.importorskip("lightkube")
    from lightkube import Client, KubeConfig
    from lightkube.core.exceptions import ApiError
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import ConfigMap
    from lightkube.types import PatchType

    client = Client(config=KubeConfig.from_file(str(kube_server.kubeconfig)), field_manager="lightkube-test")
    created = client.create(ConfigMap(metadata=ObjectMeta(name="l1"), data={"a": "1"}), namespace="default")
    assert created.metadata.resourceVersion
    client.patch(ConfigMap, "l1", {"data": {"b": "2"}}, namespace="default")  # strategic by default
    client.patch(ConfigMap, "l1", {"data": {"c": "3"}}, namespace="default", patch_type=PatchType.MERGE)
    assert client.get(ConfigMap, "l1", namespace="default").data == {"a": "1", "b": "2", "c": "3"}
    applied = client.apply(ConfigMap(metadata=ObjectMeta(name="l2", namespace="default"), data={"x": "y"}))
    assert applied.data == {"x": "y"}
    assert sorted(c.metadata.name for c in client.list(ConfigMap, namespace="*")) == ["l1", "l2"]
    with pytest.raises(ApiError) as missing:
        client.get(ConfigMap, "nope", namespace="default")
    assert missing.value.status.code == 404
    timer = _create_later(kube_server.store, "l3")
    for event_type, obj in client.watch(ConfigMap, namespace="default",
                                        resource_version=applied.metadata.resourceVersion):
        assert (event_type, obj.metadata.name) == ("ADDED", "l3")
        break
    timer.join()
    client.delete(ConfigMap, "l1", namespace="default")
    assert sorted(c.metadata.name for c in client.list(ConfigMap, namespace="default")) == ["l2", "l3"]


def test_lightkube_async_watch_all_namespaces(kube_server):
    pytest.importorskip("lightkube")
    from lightkube import AsyncClient, KubeConfig
    from lightkube.resources.core_v1 import ConfigMap

    kube_server.store.create("namespaces", {"metadata": {"name": "other"}})

    async def main():
        client = AsyncClient(config=KubeConfig.from_file(str(kube_server.kubeconfig)))
        timer = _create_later(kube_server.store, "x1")
        kube_server.store.create("configmaps", {"metadata": {"name": "o1"}}, "other")
        seen = []
        async for event_type, obj in client.watch(ConfigMap, namespace="*"):
            seen.append((event_type, obj.metadata.namespace, obj.metadata.name))
            if len(seen) == 2:
                break
        timer.join()
        await client.close()
        return seen

    assert asyncio.run(main()) == [("ADDED", "other", "o1"), ("ADDED", "default", "x1")]

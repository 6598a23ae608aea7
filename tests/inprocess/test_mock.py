"""mock_kubernetes: each client's own config discovery reaches the fake in process, and no socket opens."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import warnings
from typing import Any

import pytest

import fakekube
from fakekube.inprocess import current_cluster, mock_kubernetes
from fakekube.inprocess.guard import NetworkBlocked

kubernetes = pytest.importorskip("kubernetes")
from kubernetes import client, config, dynamic, watch  # noqa: E402


def _cm(name: str) -> client.V1ConfigMap:
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data={"k": "v"})


def test_the_official_client_from_load_kube_config(inet_sockets: list[int]) -> None:
    with fakekube.mock_kubernetes() as cluster:
        config.load_kube_config()
        core = client.CoreV1Api()
        core.create_namespaced_config_map("default", _cm("a"))
        assert cluster.store.get("configmaps", "a", "default")["data"] == {"k": "v"}
        raw = core.list_namespaced_config_map("default", _preload_content=False)
        assert [i["metadata"]["name"] for i in json.loads(raw.data)["items"]] == ["a"]
        events = []
        w = watch.Watch()
        for event in w.stream(core.list_namespaced_config_map, "default", timeout_seconds=5):
            events.append((event["type"], event["object"].metadata.name))
            w.stop()
        assert events == [("ADDED", "a")]
        configmaps = dynamic.DynamicClient(client.ApiClient()).resources.get(api_version="v1", kind="ConfigMap")
        assert [i.metadata.name for i in configmaps.get(namespace="default").items] == ["a"]
    assert inet_sockets == []


def test_load_incluster_config_authenticates_as_the_service_account_token(inet_sockets: list[int]) -> None:
    with mock_kubernetes():
        config.load_incluster_config()
        review = client.AuthenticationV1Api().create_self_subject_review(client.V1SelfSubjectReview())
        assert review.status.user_info.username == "admin"
        assert "system:masters" in review.status.user_info.groups
    assert inet_sockets == []


def test_a_socket_cannot_connect_inside() -> None:
    with mock_kubernetes(), pytest.raises(NetworkBlocked):
        socket.create_connection(("127.0.0.1", 9))
    with mock_kubernetes(block_network=False), pytest.raises(ConnectionRefusedError) as refused:
        socket.create_connection(("127.0.0.1", 9))
    assert not isinstance(refused.value, NetworkBlocked)


@mock_kubernetes()
def test_the_decorator_form() -> None:
    config.load_kube_config()
    client.CoreV1Api().create_namespaced_config_map("default", _cm("d"))
    assert current_cluster().store.get("configmaps", "d", "default")["metadata"]["name"] == "d"


def test_kr8s_and_lightkube_from_their_config_discovery(inet_sockets: list[int]) -> None:
    kr8s = pytest.importorskip("kr8s")
    lightkube = pytest.importorskip("lightkube")
    from kr8s.objects import ConfigMap as Kr8sConfigMap
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import ConfigMap

    warnings.simplefilter("ignore")  # kr8s: "not tested with Kubernetes v1.37"
    with mock_kubernetes() as cluster:
        Kr8sConfigMap({"metadata": {"name": "k", "namespace": "default"}}, api=kr8s.api()).create()
        light = lightkube.Client()
        light.create(ConfigMap(metadata=ObjectMeta(name="l", namespace="default")))
        assert [c.metadata.name for c in light.list(ConfigMap, namespace="default")] == ["k", "l"]
        for _, obj in light.watch(ConfigMap, namespace="default"):
            assert obj.metadata.name == "k"
            break

        async def main() -> list[str]:
            seen = []
            async_light = lightkube.AsyncClient()
            async for _, obj in async_light.watch(ConfigMap, namespace="default"):
                seen.append(obj.metadata.name)
                break
            await async_light.close()
            api = await kr8s.asyncio.api()
            seen += [c.name async for c in api.async_get("configmaps", namespace="default")]
            return seen

        assert asyncio.run(main()) == ["k", "k", "l"]
        assert {e.actor for e in cluster.store.audit if e.is_write} >= {"kr8s"}
    assert inet_sockets == []


def test_the_front_is_left_as_found() -> None:
    import httpx
    import urllib3

    before = (urllib3.PoolManager.urlopen, httpx.HTTPTransport.handle_request, socket.socket.connect)
    with mock_kubernetes(), mock_kubernetes():
        pass
    assert (urllib3.PoolManager.urlopen, httpx.HTTPTransport.handle_request, socket.socket.connect) == before


def test_kubernetes_asyncio_crud_and_watch_without_a_socket(inet_sockets: list[int]) -> None:
    pytest.importorskip("kubernetes_asyncio")
    from kubernetes_asyncio import client as aclient
    from kubernetes_asyncio import config as aconfig
    from kubernetes_asyncio import watch as awatch

    async def main(store: fakekube.Store) -> list[tuple[str, str]]:
        await aconfig.load_kube_config()
        async with aclient.ApiClient() as api:
            core = aclient.CoreV1Api(api)
            await core.create_namespaced_config_map("default", {"metadata": {"name": "a1"}})
            listed = await core.list_namespaced_config_map("default")
            asyncio.get_running_loop().call_later(
                0.05, lambda: store.create("configmaps", {"metadata": {"name": "a2"}}, "default"))
            seen = []
            w = awatch.Watch()
            async for event in w.stream(core.list_namespaced_config_map, "default", timeout_seconds=5,
                                        resource_version=listed.metadata.resource_version):
                seen.append((event["type"], event["object"].metadata.name))
                w.stop()
            # the connection the watch used is usable again
            seen += [("LISTED", c.metadata.name) for c in (await core.list_namespaced_config_map("default")).items]
            return seen

    with mock_kubernetes() as cluster:
        assert asyncio.run(main(cluster.store)) == [("ADDED", "a2"), ("LISTED", "a1"), ("LISTED", "a2")]
    assert inet_sockets == []


def test_watch_stop_from_another_thread_ends_a_blocked_read(inet_sockets: list[int]) -> None:
    """The official client's ``Watch.stop()`` shuts ``response.connection.sock`` down to wake a thread blocked on
    the stream (its SharedInformer's ``stop()`` joins that thread): in process it must wake it too."""
    import threading

    with mock_kubernetes():
        config.load_kube_config()
        core = client.CoreV1Api()
        w = watch.Watch()
        seen: list[str] = []

        def consume() -> None:
            for event in w.stream(core.list_namespaced_config_map, "default"):  # no timeout: blocks until stopped
                seen.append(event["type"])

        thread = threading.Thread(target=consume, daemon=True)
        thread.start()
        core.create_namespaced_config_map("default", {"metadata": {"name": "a"}})
        for _ in range(200):
            if seen:
                break
            threading.Event().wait(0.01)
        w.stop()
        thread.join(timeout=5)
        assert not thread.is_alive() and seen == ["ADDED"]


def test_a_block_leaves_no_files_and_the_environment_as_it_found_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.setenv("FAKEKUBE_TEST_KEPT", "outside")
    before = dict(os.environ)
    with mock_kubernetes() as cluster:
        directory = cluster.kubeconfig.parent
        assert sorted(p.name for p in directory.iterdir()) == ["ca.crt", "kubeconfig", "namespace", "token"]
        assert os.environ["KUBECONFIG"] == str(cluster.kubeconfig)
        os.environ["FAKEKUBE_TEST_NEW"] = "inside"  # changes inside the block are undone, as patch.dict did
        os.environ["FAKEKUBE_TEST_KEPT"] = "changed"
    assert dict(os.environ) == before
    assert not any(directory.iterdir())  # emptied (the directory itself is reused, and removed at exit)
    with mock_kubernetes() as again:  # the next block writes its files afresh into the emptied directory
        assert again.kubeconfig.parent == directory and again.kubeconfig.exists()


def _running_pod(store: Any, name: str) -> None:
    store.create("nodes", {"metadata": {"name": "n1"}})
    node = store.get("nodes", "n1")
    node["status"] = {"addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}  # what exec connects to
    store.update("nodes", node, subresource="status")
    store.create("pods", {"metadata": {"name": name}, "spec": {"nodeName": "n1", "containers": [
        {"name": "c", "image": "busybox"}]}}, "default")
    pod = store.get("pods", name, "default")
    pod["status"] = {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "True"}, {"type": "ContainersReady", "status": "True"}], "containerStatuses": [
        {"name": "c", "ready": True, "restartCount": 0, "image": "busybox", "imageID": "",
         "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}
    store.update("pods", pod, "default", subresource="status")


def test_kr8s_exec_over_an_in_process_websocket(inet_sockets: list[int]) -> None:
    import kr8s

    with mock_kubernetes() as cluster:
        _running_pod(cluster.store, "p1")
        pod = kr8s.objects.Pod.get("p1", namespace="default")
        assert pod.exec(["echo", "in", "process"]).stdout == b"in process\n"

        async def run_async() -> bytes:
            api = await kr8s.asyncio.api()
            apod = await kr8s.asyncio.objects.Pod.get("p1", namespace="default", api=api)
            return (await apod.exec(["echo", "async"])).stdout

        assert asyncio.run(run_async()) == b"async\n"
    assert inet_sockets == []


def test_kubernetes_asyncio_exec_over_an_in_process_websocket(inet_sockets: list[int]) -> None:
    pytest.importorskip("kubernetes_asyncio")
    from kubernetes_asyncio import client as aclient
    from kubernetes_asyncio import config as aconfig
    from kubernetes_asyncio.stream import WsApiClient

    async def run() -> tuple[str, str]:
        await aconfig.load_kube_config()
        async with WsApiClient() as ws:
            core = aclient.CoreV1Api(api_client=ws)
            out = await core.connect_get_namespaced_pod_exec(
                "p1", "default", command=["sh", "-c", "echo in process"], stdout=True, stderr=True)
            failed = await core.connect_get_namespaced_pod_exec(
                "p1", "default", command=["sh", "-c", "echo oops >&2; exit 3"], stdout=True, stderr=True)
            return out, failed

    with mock_kubernetes() as cluster:
        _running_pod(cluster.store, "p1")
        out, failed = asyncio.run(run())
    assert out == "in process\n"
    assert failed == "oops\n"  # WsApiClient keeps stdout and stderr, not the error channel's exit status
    assert inet_sockets == []
    deadline = time.monotonic() + 5  # the upgrades' threads end once the client closed
    while any(t.name == "fakekube-inprocess-upgrade" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(t.name == "fakekube-inprocess-upgrade" for t in threading.enumerate())


def test_kubernetes_asyncio_stdin_larger_than_a_socket_buffer_arrives_whole(inet_sockets: list[int]) -> None:
    pytest.importorskip("kubernetes_asyncio")
    from kubernetes_asyncio import client as aclient
    from kubernetes_asyncio import config as aconfig
    from kubernetes_asyncio.stream import WsApiClient

    size = 4 * 1024 * 1024  # far beyond a Unix socket's buffer: the transport must wait for room, not drop it

    def count(proc: Any) -> int:
        got = 0
        while got < size and (chunk := proc.stdin.read(65536)):
            got += len(chunk)
        proc.stdout(f"{got}\n")
        return 0

    async def run() -> str:
        await aconfig.load_kube_config()
        async with WsApiClient() as ws_api:
            core = aclient.CoreV1Api(api_client=ws_api)
            ws = await core.connect_get_namespaced_pod_exec(
                "p1", "default", command=["count"], stdin=True, stdout=True, _preload_content=False)
            async with ws as conn:
                await conn.send_bytes(b"\x00" + b"x" * size)  # channel 0: stdin
                async for message in conn:
                    if message.data[:1] == b"\x01" and message.data[1:]:
                        return message.data[1:].decode()
        return ""

    with mock_kubernetes() as cluster:
        _running_pod(cluster.store, "p1")
        cluster.store.on_exec(count)
        assert asyncio.run(asyncio.wait_for(run(), 30)) == f"{size}\n"  # bytes dropped would leave it waiting
    assert inet_sockets == []


def test_an_answer_slower_than_the_read_timeout_times_out() -> None:
    import httpx

    with mock_kubernetes() as cluster:
        with httpx.Client(base_url=cluster.url, timeout=1e-9) as http, pytest.raises(httpx.ReadTimeout):
            http.get("/version")
        with httpx.Client(base_url=cluster.url, timeout=5) as http:
            assert http.get("/version").status_code == 200

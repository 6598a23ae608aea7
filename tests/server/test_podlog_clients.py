"""The clients' own logs APIs against pods/log, over HTTP and in process (``either_front``): the official
client's ``read_namespaced_pod_log`` (whole and followed with ``_preload_content=False``), kubernetes_asyncio's,
lightkube's ``Client.log`` and kr8s's ``Pod.logs``. A follow ends when the container instance ends."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from fakekube.pods.logs import pod_logs
from fakekube.store import Store
from tests.server.test_podlog_http import CID, running_pod


@pytest.fixture
def kube_server(either_front: Any) -> Any:
    return either_front


def _log(store: Store) -> Any:
    pod = running_pod(store)
    log = pod_logs(store).instance(pod["metadata"]["uid"], "app", CID)
    log.append("one\ntwo\nthree\n")
    return log


def _end_later(log: Any, delay: float = 0.05) -> threading.Timer:
    def finish() -> None:
        log.append("four\n")
        log.terminate()
    timer = threading.Timer(delay, finish)
    timer.start()
    return timer


def test_official_client(kube_server: Any) -> None:
    kubernetes = pytest.importorskip("kubernetes")
    log = _log(kube_server.store)
    api = kubernetes.client.CoreV1Api(kubernetes.config.new_client_from_config(str(kube_server.kubeconfig)))
    assert api.read_namespaced_pod_log("web", "default") == "one\ntwo\nthree\n"
    assert api.read_namespaced_pod_log("web", "default", tail_lines=1, container="app") == "three\n"
    assert api.read_namespaced_pod_log("web", "default", limit_bytes=6) == "one\ntw"
    with pytest.raises(kubernetes.client.ApiException) as refused:
        api.read_namespaced_pod_log("web", "default", container="nope")
    assert refused.value.status == 400
    with pytest.raises(kubernetes.client.ApiException) as invalid:
        api.read_namespaced_pod_log("web", "default", tail_lines=-1)
    assert invalid.value.status == 422
    timer = _end_later(log)
    resp = api.read_namespaced_pod_log("web", "default", follow=True, _preload_content=False)
    try:
        lines = [line.decode() for line in resp.stream(decode_content=False)]
    finally:
        resp.release_conn()
    timer.join()
    assert "".join(lines) == "one\ntwo\nthree\nfour\n"


def test_kubernetes_asyncio(kube_server: Any) -> None:
    pytest.importorskip("kubernetes_asyncio")
    from kubernetes_asyncio import client, config

    log = _log(kube_server.store)

    async def main() -> tuple[str, str, bytes]:
        api_client = await config.new_client_from_config(config_file=str(kube_server.kubeconfig))
        async with api_client:
            core = client.CoreV1Api(api_client)
            whole = await core.read_namespaced_pod_log("web", "default")
            tail = await core.read_namespaced_pod_log("web", "default", tail_lines=2)
            timer = _end_later(log)
            resp = await core.read_namespaced_pod_log("web", "default", follow=True, _preload_content=False)
            followed = b""
            async for chunk in resp.content.iter_any():
                followed += chunk
            resp.release()
            timer.join()
            return whole, tail, followed

    assert asyncio.run(main()) == ("one\ntwo\nthree\n", "two\nthree\n", b"one\ntwo\nthree\nfour\n")


def test_lightkube(kube_server: Any) -> None:
    pytest.importorskip("lightkube")
    from lightkube import Client, KubeConfig

    log = _log(kube_server.store)
    client = Client(KubeConfig.from_file(str(kube_server.kubeconfig)), namespace="default")
    assert list(client.log("web")) == ["one\n", "two\n", "three\n"]
    assert list(client.log("web", tail_lines=1, container="app", timestamps=False)) == ["three\n"]
    timer = _end_later(log)
    assert list(client.log("web", follow=True)) == ["one\n", "two\n", "three\n", "four\n"]
    timer.join()


def test_kr8s(kube_server: Any) -> None:
    pytest.importorskip("kr8s")
    import kr8s
    from kr8s.objects import Pod

    log = _log(kube_server.store)
    api = kr8s.api(kubeconfig=str(kube_server.kubeconfig))
    pod = Pod.get("web", namespace="default", api=api)
    assert list(pod.logs()) == ["one", "two", "three"]
    assert list(pod.logs(tail_lines=1, container="app")) == ["three"]
    timer = _end_later(log)
    assert list(pod.logs(follow=True)) == ["one", "two", "three", "four"]
    timer.join()

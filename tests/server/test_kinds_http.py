"""Per-kind behaviour as real clients see it through ``fakekube serve`` (issue 10 items 2, 6 and 7): the official
``kubernetes`` client's typed DELETE answers, a 422 for a container without a name, the default tolerations a
JSON patch appends to, ``status: {}`` on a new Deployment for clients that read ``status`` without a default, and
Service allocation. One server for the module."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

kubernetes = pytest.importorskip("kubernetes")
from kubernetes import client, config, dynamic  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

from fakekube.server.app import ApiServer  # noqa: E402
from fakekube.store import Store  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    store = Store(seed=1)
    served = ApiServer(store).start()
    served.write_kubeconfig(Path(tmp_path_factory.mktemp("kinds-http")) / "kubeconfig")
    yield served
    served.stop()


@pytest.fixture(scope="module")
def api(server: ApiServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[client.ApiClient]:
    path = server.write_kubeconfig(Path(tmp_path_factory.mktemp("kinds-http-client")) / "kubeconfig")
    api_client = config.new_client_from_config(config_file=str(path))
    yield api_client
    api_client.close()


def _pod(name: str, **container: object) -> client.V1Pod:
    return client.V1Pod(metadata=client.V1ObjectMeta(name=name),
                        spec=client.V1PodSpec(containers=[client.V1Container(**{"name": "app", "image": "nginx:1.27",
                                                                                 **container})]))


def test_deleting_a_pod_answers_the_pod(api: client.ApiClient, server: ApiServer) -> None:
    core = client.CoreV1Api(api)
    created = core.create_namespaced_pod("default", _pod("del-me"))
    deleted = core.delete_namespaced_pod("del-me", "default")
    assert isinstance(deleted, client.V1Pod)
    assert deleted.metadata.uid == created.metadata.uid and deleted.metadata.name == "del-me"


def test_a_graceful_delete_answers_the_pod_with_its_deletion_timestamp(api: client.ApiClient,
                                                                       server: ApiServer) -> None:
    core = client.CoreV1Api(api)
    core.create_namespaced_pod("default", _pod("graceful"))
    server.store.bind("graceful", {"target": {"name": "node-1"}}, "default")
    deleted = core.delete_namespaced_pod("graceful", "default")
    assert isinstance(deleted, client.V1Pod)
    assert deleted.metadata.deletion_timestamp is not None and deleted.metadata.deletion_grace_period_seconds == 30


def test_deleting_services_and_service_accounts_answers_them_and_a_configmap_a_status(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    core.create_namespaced_service("default", client.V1Service(
        metadata=client.V1ObjectMeta(name="gone"), spec=client.V1ServiceSpec(ports=[client.V1ServicePort(port=80)])))
    assert isinstance(core.delete_namespaced_service("gone", "default"), client.V1Service)
    core.create_namespaced_service_account("default", client.V1ServiceAccount(metadata=client.V1ObjectMeta(name="sa")))
    assert core.delete_namespaced_service_account("sa", "default").metadata.name == "sa"
    core.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm")))
    answer = core.delete_namespaced_config_map("cm", "default")
    assert answer["kind"] == "Status" and answer["status"] == "Success"


def test_a_container_without_a_name_is_422(api: client.ApiClient) -> None:
    # The typed client refuses such a body itself; the dynamic client sends it as it is, as kubectl would.
    pods = dynamic.DynamicClient(api).resources.get(api_version="v1", kind="Pod")
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nameless"},
            "spec": {"containers": [{"image": "nginx"}]}}
    with pytest.raises(ApiException) as caught:
        pods.create(body=body, namespace="default")
    assert caught.value.status == 422
    status = json.loads(caught.value.body)
    assert status["message"] == 'Pod "nameless" is invalid: spec.containers[0].name: Required value'
    assert status["details"]["causes"] == [{"reason": "FieldValueRequired", "message": "Required value",
                                            "field": "spec.containers[0].name"}]


def test_a_json_patch_can_append_to_the_default_tolerations(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    created = core.create_namespaced_pod("default", _pod("tolerant"))
    assert [(t.key, t.toleration_seconds) for t in created.spec.tolerations] == [
        ("node.kubernetes.io/not-ready", 300), ("node.kubernetes.io/unreachable", 300)]
    patched = core.patch_namespaced_pod("tolerant", "default", [{"op": "add", "path": "/spec/tolerations/-", "value": {
        "key": "gpu", "operator": "Exists", "effect": "NoSchedule"}}])
    assert [t.key for t in patched.spec.tolerations][-1] == "gpu" and len(patched.spec.tolerations) == 3


def test_a_new_deployment_has_an_empty_status_object(api: client.ApiClient) -> None:
    apps = client.AppsV1Api(api)
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}},
                     "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}}}
    created = apps.create_namespaced_deployment("default", body)
    assert created.status is not None and created.status.replicas is None  # status: {}
    assert created.metadata.generation == 1
    assert created.spec.strategy.rolling_update.max_surge == "25%" and created.spec.progress_deadline_seconds == 600
    raw = apps.api_client.call_api(*apps.api_client.param_serialize(
        "GET", "/apis/apps/v1/namespaces/default/deployments/web", auth_settings=["BearerToken"]))
    raw.read()
    assert b'"status":{}' in raw.data.replace(b" ", b"")


def test_lightkube_reads_the_new_deployments_status_without_a_default(server: ApiServer,
                                                                       tmp_path_factory: pytest.TempPathFactory) -> None:
    pytest.importorskip("lightkube")
    from lightkube import Client, KubeConfig
    from lightkube.resources.apps_v1 import Deployment

    path = server.write_kubeconfig(Path(tmp_path_factory.mktemp("lightkube")) / "kubeconfig")
    lk = Client(KubeConfig.from_file(str(path)))
    created = lk.create(Deployment.from_dict({"metadata": {"name": "lk-web", "namespace": "default"}, "spec": {
        "selector": {"matchLabels": {"app": "lk"}},
        "template": {"metadata": {"labels": {"app": "lk"}}, "spec": {"containers": [{"name": "a", "image": "b"}]}}}}))
    assert created.status is not None and (created.status.readyReplicas or 0) == 0


def test_services_get_a_cluster_ip_and_node_ports(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    created = core.create_namespaced_service("default", client.V1Service(
        metadata=client.V1ObjectMeta(name="np"),
        spec=client.V1ServiceSpec(type="NodePort", selector={"app": "web"}, ports=[client.V1ServicePort(port=80)])))
    assert created.spec.cluster_ip.startswith("10.") and created.spec.cluster_ips == [created.spec.cluster_ip]
    assert 30000 <= created.spec.ports[0].node_port <= 32767
    assert created.spec.ports[0].target_port == 80 and created.spec.ip_families == ["IPv4"]

"""metrics.k8s.io over HTTP, as metrics-server answers: discovery while its APIService exists, NodeMetrics and
PodMetrics from the usage model, selectors, the not-found answers, tables — no cluster: nodes and pod statuses
are written here as a kubelet would."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from fakekube.pods.usage import metrics_apiservice, pod_usage
from fakekube.store import Store

BASE = "/apis/metrics.k8s.io/v1beta1"


def node(store: Store, name: str, ready: bool = True) -> None:
    store.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"zone": name}}})
    store.patch("nodes", name, {"status": {"conditions": [{"type": "Ready", "status": str(ready)}],
                                           "capacity": {"cpu": "4", "memory": "8Gi"},
                                           "allocatable": {"cpu": "4", "memory": "8Gi"}}},
                patch_type="application/merge-patch+json", subresource="status")


def pod(store: Store, name: str, node_name: str, phase: str = "Running", ns: str = "default",
        cpu: str = "250m", memory: str = "64Mi") -> None:
    store.ensure_namespace(ns)
    store.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": name}},
                          "spec": {"nodeName": node_name, "containers": [
                              {"name": "app", "image": "x", "resources": {"requests": {"cpu": cpu, "memory": memory}}},
                              {"name": "side", "image": "y"}]}}, ns)
    state = {"running": {}} if phase == "Running" else {"waiting": {"reason": "ContainerCreating"}}
    store.patch("pods", name, {"status": {"phase": phase, "containerStatuses": [
        {"name": c, "image": "x", "imageID": "", "ready": True, "restartCount": 0, "state": state}
        for c in ("app", "side")]}}, ns, patch_type="application/merge-patch+json", subresource="status")


def get(server: Any, path: str, accept: str | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(server.url + path, headers={"Accept": accept} if accept else {})
    try:
        with urllib.request.urlopen(request) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, (json.loads(exc.read()) if exc.headers.get_content_type() == "application/json" else None)


@pytest.fixture
def cluster(kube: Store) -> Store:
    kube.create("apiservices", metrics_apiservice())
    node(kube, "n1")
    node(kube, "n2")
    node(kube, "sick", ready=False)
    pod(kube, "web", "n1")
    pod(kube, "db", "n2", cpu="1", memory="1Gi")
    pod(kube, "pending", "n1", phase="Pending")
    pod(kube, "lost", "sick")
    pod(kube, "other", "n1", ns="team")
    return kube


def test_discovery_follows_the_apiservice(kube: Store, kube_server: Any) -> None:
    groups = lambda: [g["name"] for g in get(kube_server, "/apis")[1]["groups"]]  # noqa: E731
    assert "metrics.k8s.io" not in groups()
    assert get(kube_server, BASE)[0] == 404
    kube.create("apiservices", metrics_apiservice())
    assert groups()[-1] == "metrics.k8s.io"
    code, resources = get(kube_server, BASE)
    assert code == 200 and resources["resources"] == [
        {"name": "nodes", "singularName": "", "namespaced": False, "kind": "NodeMetrics", "verbs": ["get", "list"]},
        {"name": "pods", "singularName": "", "namespaced": True, "kind": "PodMetrics", "verbs": ["get", "list"]}]
    aggregated = get(kube_server, "/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")[1]
    metrics = next(i for i in aggregated["items"] if i["metadata"]["name"] == "metrics.k8s.io")
    assert [r["resource"] for r in metrics["versions"][0]["resources"]] == ["nodes", "pods"]
    kube.delete("apiservices", "v1beta1.metrics.k8s.io")
    assert "metrics.k8s.io" not in groups()


def test_node_and_pod_metrics_from_the_usage_model(cluster: Store, kube_server: Any) -> None:
    code, nodes = get(kube_server, f"{BASE}/nodes")
    assert code == 200 and nodes["kind"] == "NodeMetricsList"
    assert [(n["metadata"]["name"], n["usage"]) for n in nodes["items"]] == [
        ("n1", {"cpu": "502m", "memory": "130Mi"}),  # web and other, 250m+1m and 64Mi+1Mi each; not pending
        ("n2", {"cpu": "1001m", "memory": "1025Mi"})]
    item = nodes["items"][0]
    assert item["window"] == "15s" and item["metadata"]["labels"] == {"zone": "n1"}
    assert item["timestamp"].endswith(("00Z", "15Z", "30Z", "45Z"))
    code, pods = get(kube_server, f"{BASE}/namespaces/default/pods")
    assert [p["metadata"]["name"] for p in pods["items"]] == ["db", "web"]
    assert pods["items"][1]["containers"] == [{"name": "app", "usage": {"cpu": "250m", "memory": "64Mi"}},
                                              {"name": "side", "usage": {"cpu": "1m", "memory": "1Mi"}}]
    everywhere = get(kube_server, f"{BASE}/pods")[1]["items"]
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in everywhere] == [
        ("default", "db"), ("default", "web"), ("team", "other")]
    pod_usage(cluster).set(cpu="1234567n", memory="123456Ki", pod="web", container="app")
    web = get(kube_server, f"{BASE}/namespaces/default/pods/web")[1]
    assert web["kind"] == "PodMetrics" and web["containers"][0]["usage"] == {"cpu": "1234567n", "memory": "123456Ki"}


def test_selectors(cluster: Store, kube_server: Any) -> None:
    names = lambda path: [i["metadata"]["name"] for i in get(kube_server, path)[1]["items"]]  # noqa: E731
    assert names(f"{BASE}/pods?labelSelector=app%3Dweb") == ["web"]
    assert names(f"{BASE}/pods?fieldSelector=metadata.namespace%3Dteam") == ["other"]
    assert names(f"{BASE}/nodes?labelSelector=zone%20in%20(n2,sick)") == ["n2"]
    assert names(f"{BASE}/nodes?fieldSelector=metadata.name%3Dn1") == ["n1"]
    code, status = get(kube_server, f"{BASE}/pods?labelSelector=a%20in")
    assert code == 400 and status["reason"] == "BadRequest"


@pytest.mark.parametrize(("path", "code", "message"), [
    (f"{BASE}/nodes/sick", 404, 'nodemetrics.metrics.k8s.io "sick" not found'),
    (f"{BASE}/nodes/nope", 404, 'node "nope" not found'),
    (f"{BASE}/namespaces/default/pods/pending", 404, 'podmetrics.metrics.k8s.io "default/pending" not found'),
    (f"{BASE}/namespaces/default/pods/lost", 404, 'podmetrics.metrics.k8s.io "default/lost" not found'),
    (f"{BASE}/namespaces/default/pods/nope", 404, 'pods "nope" not found'),
    (f"{BASE}/namespaces/default/pods?watch=true", 405,
     'watch is not supported on resources of kind "pods.metrics.k8s.io"'),
    (f"{BASE}/widgets", 404, "the server could not find the requested resource"),
])
def test_what_has_no_metrics(cluster: Store, kube_server: Any, path: str, code: int, message: str) -> None:
    got, status = get(kube_server, path)
    assert (got, status["message"]) == (code, message)


def test_tables_as_kubectl_get_asks(cluster: Store, kube_server: Any) -> None:
    accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
    table = get(kube_server, f"{BASE}/namespaces/default/pods", accept)[1]
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "cpu", "memory", "Window"]
    assert [r["cells"] for r in table["rows"]] == [["db", "1001m", "1025Mi", "15s"], ["web", "251m", "65Mi", "15s"]]
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    empty = get(kube_server, f"{BASE}/namespaces/nowhere/pods", accept)[1]
    assert empty["columnDefinitions"] is None and empty["rows"] is None

"""``kopf_cluster``: a real kopf operator (KopfRunner) whose handler creates a Deployment with the official
client's ``load_kube_config()`` reaches the fake cluster — and only it — although HOME holds a decoy
``~/.kube/config`` naming a non-loopback server; the cluster's controllers then roll the Deployment out."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from fakekube.server.kubeconfig import write_kubeconfig

pytest.importorskip("kopf")
from kopf.testing import KopfRunner  # noqa: E402

OPERATOR = '''
import kopf
import kubernetes


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_):
    settings.peering.standalone = True
    settings.scanning.disabled = True
    settings.posting.enabled = False
    settings.watching.server_timeout = 5


@kopf.on.create("configmaps", labels={"app": "web"})
def make_deployment(name, namespace, patch, **_):
    kubernetes.config.load_kube_config()            # the operator's own client, as operators write it
    apps = kubernetes.client.AppsV1Api()
    labels = {"app": name}
    apps.create_namespaced_deployment(namespace, {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
        "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": {
            "metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    patch.metadata.annotations["example.com/api-host"] = apps.api_client.configuration.host
'''


@pytest.fixture(autouse=True)
def decoy_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    write_kubeconfig(home / ".kube" / "config", "https://203.0.113.7:6443")   # TEST-NET-3, never routable
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("KUBECONFIG", raising=False)


@pytest.mark.slow
def test_kopf_operator_creates_a_deployment_on_the_fake_only(kopf_cluster, tmp_path: Path) -> None:
    store = kopf_cluster.store
    (tmp_path / "op.py").write_text(OPERATOR)
    with KopfRunner(["run", "-A", "--standalone", str(tmp_path / "op.py")], timeout=30) as runner:
        store.create("configmaps", {"metadata": {"name": "web", "labels": {"app": "web"}}}, "default")
        deadline = time.monotonic() + 30
        while not _available(store):
            assert time.monotonic() < deadline, "the Deployment never became Available"
            time.sleep(0.1)
    assert runner.exit_code == 0, runner.output
    assert "203.0.113.7" not in runner.output
    annotations = store.get("configmaps", "web", "default")["metadata"]["annotations"]
    assert annotations["example.com/api-host"] == kopf_cluster.url
    creates = [e for e in store.audit if e.resource == "deployments" and e.verb == "create" and e.name == "web"]
    assert [e.actor for e in creates] == ["OpenAPI-Generator"]      # the official client's User-Agent


def _available(store) -> bool:
    try:
        deployment = store.get("deployments.apps", "web", "default")
    except Exception:                                          # not created yet
        return False
    conditions = (deployment.get("status") or {}).get("conditions") or []
    return any(c["type"] == "Available" and c["status"] == "True" for c in conditions)

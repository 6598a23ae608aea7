"""The real kubectl's ``top`` against a served store with a cluster: metrics-server's API from the usage model,
percentages of the nodes' allocatable and capacity as kubectl computes them."""

from __future__ import annotations

import shutil

import pytest

from fakekube import quantity
from fakekube.pods.usage import pod_usage

pytestmark = [pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed"), pytest.mark.slow]

POD = """
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers:
  - {name: app, image: nginx, resources: {requests: {cpu: 250m, memory: 100Mi}}}
  - {name: side, image: busybox}
"""


def _table(out: str) -> list[list[str]]:
    return [line.split() for line in out.strip().splitlines()]


def test_top_pods_containers_and_nodes(served):
    kubectl, store = served.kubectl, served.store
    kubectl("apply", "-f", "-", stdin=POD)
    kubectl("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    assert _table(kubectl("top", "pods")) == [["NAME", "CPU(cores)", "MEMORY(bytes)"], ["web", "251m", "101Mi"]]
    assert _table(kubectl("top", "pods", "--containers", "-l", "app=web")) == [
        ["POD", "NAME", "CPU(cores)", "MEMORY(bytes)"], ["web", "app", "250m", "100Mi"], ["web", "side", "1m", "1Mi"]]
    remove = pod_usage(store).set(cpu="1234567n", memory="123456Ki", pod="web", container="app")
    try:
        # kubectl rounds millicores up and prints memory in whole Mi (MilliValue, Value/2^20)
        assert _table(kubectl("top", "pod", "web", "--containers"))[1] == ["web", "app", "2m", "120Mi"]
    finally:
        remove()
    assert "kube-system" in kubectl("top", "pods", "-A")
    assert 'pods "nope" not found' in kubectl("top", "pod", "nope", check=False)

    rows = _table(kubectl("top", "nodes"))
    assert rows[0] == ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]
    by_name = {r[0]: r for r in rows[1:]}
    assert sorted(by_name) == ["node-1", "node-2"]
    for show_capacity in (False, True):
        out = kubectl("top", "nodes", *(["--show-capacity"] if show_capacity else []))
        for row in _table(out)[1:]:
            node = store.get("nodes", row[0])
            total = node["status"]["capacity" if show_capacity else "allocatable"]
            pods = [p for p in store.objects("pods") if p["spec"].get("nodeName") == row[0]
                    and p["status"].get("phase") == "Running"]
            cpu = sum(quantity.value_of(c.get("resources", {}).get("requests", {}).get("cpu", "1m"))
                      for p in pods for c in p["spec"]["containers"])
            memory = sum(quantity.value_of(c.get("resources", {}).get("requests", {}).get("memory", "1Mi"))
                         for p in pods for c in p["spec"]["containers"])
            milli = int(cpu * 1000)
            assert row[1] == f"{milli}m"
            assert row[2] == f"{milli * 100 // int(quantity.value_of(total['cpu']) * 1000)}%"
            assert row[3] == f"{int(memory) // 2**20}Mi"
            assert row[4] == f"{int(memory) * 100 // int(quantity.value_of(total['memory']))}%"
    assert _table(kubectl("top", "node", "node-1"))[1][0] == "node-1"
    assert _table(kubectl("get", "podmetrics", "web")) == [["NAME", "CPU", "MEMORY", "WINDOW"],
                                                           ["web", "251m", "101Mi", "15s"]]

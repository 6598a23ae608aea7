"""``kubectl get`` prints the server's Table: the real columns for built-ins and CRD printer columns."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from .conftest import WIDGET_CRD

POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-0", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "app", "image": "nginx"}, {"name": "side", "image": "envoy"}],
             "nodeName": "node-1", "readinessGates": [{"conditionType": "example.com/gate"}]},
}
POD_STATUS = {"status": {
    "phase": "Running", "podIP": "10.1.2.3", "podIPs": [{"ip": "10.1.2.3"}],
    "conditions": [{"type": "example.com/gate", "status": "True"}],
    "containerStatuses": [
        {"name": "app", "ready": True, "restartCount": 0, "state": {"running": {}}, "image": "nginx", "imageID": ""},
        {"name": "side", "ready": False, "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}},
         "image": "envoy", "imageID": ""},
    ],
}}


def _table(text: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of kubectl's table output, split on its two-or-more-space column gaps."""
    lines = [line for line in text.splitlines() if line.strip()]
    split = [[cell for cell in line.split("  ") if cell.strip()] for line in lines]
    return [c.strip() for c in split[0]], [[c.strip() for c in row] for row in split[1:]]


@pytest.fixture
def pod(kube_server):
    store = kube_server.store
    store.create("pods", POD, "default")
    store.patch("pods", "web-0", POD_STATUS, "default", subresource="status")
    return kube_server


def test_get_pods_prints_the_pod_columns(kubectl, pod):
    header, rows = _table(kubectl("get", "pods").stdout)
    assert header == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert rows[0][:4] == ["web-0", "1/2", "ContainerCreating", "0"]
    assert rows[0][4].endswith("s")  # an age like "0s"


def test_get_pods_wide_adds_the_priority_columns(kubectl, pod):
    header, rows = _table(kubectl("get", "pods", "-o", "wide").stdout)
    assert header == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE",
                      "READINESS GATES"]
    assert rows[0][:4] == ["web-0", "1/2", "ContainerCreating", "0"]
    assert rows[0][5:] == ["10.1.2.3", "node-1", "<none>", "1/1"]


def test_get_pods_all_namespaces_and_labels_use_the_row_metadata(kubectl, pod):
    header, rows = _table(kubectl("get", "pods", "-A", "--show-labels").stdout)
    assert header[:2] == ["NAMESPACE", "NAME"] and header[-1] == "LABELS"
    assert rows[0][:2] == ["default", "web-0"] and rows[0][-1] == "app=web"
    # --sort-by asks for whole objects in the rows (includeObject=Object).
    _, rows = _table(kubectl("get", "pods", "--sort-by=.spec.nodeName").stdout)
    assert rows[0][0] == "web-0"


def test_get_configmaps_prints_data_counts(kubectl, kube_server):
    kube_server.store.create("configmaps", {"metadata": {"name": "cm1"}, "data": {"a": "1", "b": "2"},
                                            "binaryData": {"c": "AA=="}}, "default")
    header, rows = _table(kubectl("get", "cm").stdout)
    assert header == ["NAME", "DATA", "AGE"]
    assert rows[0][:2] == ["cm1", "3"]
    header, rows = _table(kubectl("get", "cm", "cm1").stdout)  # one object: a one-row Table
    assert header == ["NAME", "DATA", "AGE"] and rows[0][:2] == ["cm1", "3"]


def test_get_builtins_with_printers(kubectl, kube_server):
    store = kube_server.store
    store.create("secrets", {"metadata": {"name": "s1"}, "type": "Opaque", "data": {"k": "dg=="}}, "default")
    store.create("services", {"metadata": {"name": "svc"}, "spec": {
        "type": "ClusterIP", "clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"],
        "ports": [{"port": 80, "protocol": "TCP"}]}}, "default")
    header, rows = _table(kubectl("get", "secrets").stdout)
    assert header == ["NAME", "TYPE", "DATA", "AGE"] and rows[0][:3] == ["s1", "Opaque", "1"]
    header, rows = _table(kubectl("get", "ns").stdout)
    assert header == ["NAME", "STATUS", "AGE"] and ["default", "Active"] in [r[:2] for r in rows]
    header, rows = _table(kubectl("get", "svc", "svc").stdout)
    assert header == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]
    assert rows[0][:5] == ["svc", "ClusterIP", "10.96.0.10", "<none>", "80/TCP"]


def test_get_custom_resource_uses_additional_printer_columns(kubectl, kube_server):
    crd = json.loads(json.dumps(WIDGET_CRD))
    crd["spec"]["versions"][0]["additionalPrinterColumns"] = [
        {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
        {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
        {"name": "First", "type": "string", "jsonPath": ".spec.parts[0]"},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
        {"name": "Color", "type": "string", "jsonPath": ".spec.color", "priority": 1},
    ]
    kubectl("apply", "-f", "-", input=json.dumps(crd))  # a CRD applied through kubectl, printed at once
    store = kube_server.store
    store.create("widgets", {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"},
                             "spec": {"size": 3, "parts": ["gear", "bolt"], "color": "red"}}, "default")
    store.patch("widgets", "w1", {"status": {"conditions": [{"type": "Synced", "status": "False"},
                                                            {"type": "Ready", "status": "True"}]}},
                "default", subresource="status")
    header, rows = _table(kubectl("get", "widgets").stdout)
    assert header == ["NAME", "SIZE", "READY", "FIRST", "AGE"]
    assert rows[0][:4] == ["w1", "3", "True", "gear"]
    header, rows = _table(kubectl("get", "wd", "w1", "-o", "wide").stdout)
    assert header == ["NAME", "SIZE", "READY", "FIRST", "AGE", "COLOR"]
    assert rows[0][-1] == "red"


def test_get_custom_resource_without_columns_prints_name_and_age(kubectl, widgets):
    widgets.store.create("widgets", {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"},
                                     "spec": {"size": 1}}, "default")
    header, rows = _table(kubectl("get", "widgets").stdout)
    assert header == ["NAME", "AGE"] and rows[0][0] == "w1"


def test_get_watch_prints_table_rows(kube_server):
    store = kube_server.store
    store.create("configmaps", {"metadata": {"name": "cm1"}, "data": {"a": "1"}}, "default")
    proc = subprocess.Popen(["kubectl", "get", "cm", "-w"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=kube_server.env)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().split() == ["NAME", "DATA", "AGE"]
        assert proc.stdout.readline().split()[:2] == ["cm1", "1"]  # from the list
        deadline = time.monotonic() + 10
        while store.hub.watcher_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        store.create("configmaps", {"metadata": {"name": "cm2"}, "data": {"a": "1", "b": "2"}}, "default")
        assert proc.stdout.readline().split()[:2] == ["cm2", "2"]  # a watch event, same columns, no new header
        store.patch("configmaps", "cm1", {"data": {"c": "3"}}, "default")
        assert proc.stdout.readline().split()[:2] == ["cm1", "2"]
    finally:
        proc.kill()
        proc.wait(5)

"""End to end with the real kubectl on this machine, pointed at the ``kube_server`` fixture's kubeconfig."""

from __future__ import annotations

import json
import subprocess
import time

import pytest
import yaml

CM = """apiVersion: v1
kind: ConfigMap
metadata:
  name: cm1
  labels: {env: dev}
data:
  a: "1"
"""

WIDGET = """apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
spec:
  size: 1
"""


def test_create_get_yaml_and_list(kubectl, kube_server):
    assert "configmap/cm1 created" in kubectl("create", "-f", "-", input=CM).stdout
    listing = kubectl("get", "cm").stdout
    assert listing.splitlines()[0].split() == ["NAME", "DATA", "AGE"]  # server-side printing
    assert "cm1" in listing
    obj = yaml.safe_load(kubectl("get", "cm", "cm1", "-o", "yaml").stdout)
    assert obj["data"] == {"a": "1"}
    assert obj["metadata"]["resourceVersion"] == kube_server.store.get("configmaps", "cm1", "default")[
        "metadata"]["resourceVersion"]
    assert "cm1" in kubectl("get", "cm", "-l", "env=dev").stdout
    assert "No resources found" in kubectl("get", "cm", "-l", "env=prod").stderr
    assert "cm1" in kubectl("get", "cm", "--field-selector", "metadata.name=cm1", "-A").stdout
    dup = kubectl("create", "-f", "-", input=CM, check=False)
    assert dup.code != 0 and "AlreadyExists" in dup.stderr and 'configmaps "cm1" already exists' in dup.stderr


def test_apply_client_side_then_server_side(kubectl, kube_server):
    assert "created" in kubectl("apply", "-f", "-", input=CM).stdout
    assert "configured" in kubectl("apply", "-f", "-", input=CM.replace('"1"', '"2"')).stdout
    live = kube_server.store.get("configmaps", "cm1", "default")
    assert live["data"] == {"a": "2"}
    assert "kubectl.kubernetes.io/last-applied-configuration" in live["metadata"]["annotations"]
    cm3 = CM.replace("cm1", "cm3")
    assert "serverside-applied" in kubectl("apply", "--server-side", "-f", "-", input=cm3).stdout
    assert kube_server.store.get("configmaps", "cm3", "default")["data"] == {"a": "1"}
    kubectl("apply", "--server-side", "-f", "-", input=cm3.replace('"1"', '"3"'))
    assert kube_server.store.get("configmaps", "cm3", "default")["data"] == {"a": "3"}
    # The audit log names the client.
    actors = {e.actor for e in kube_server.store.audit if e.resource == "configmaps" and e.is_write}
    assert actors == {"kubectl"}


def test_patch_types_label_and_delete(kubectl, kube_server):
    kubectl("create", "-f", "-", input=CM)
    kubectl("patch", "cm", "cm1", "--type", "merge", "-p", '{"data":{"b":"x"}}')
    kubectl("patch", "cm", "cm1", "--type", "json", "-p", '[{"op":"add","path":"/data/c","value":"y"}]')
    kubectl("patch", "cm", "cm1", "--type", "strategic", "-p", '{"data":{"d":"z"}}')
    kubectl("label", "cm", "cm1", "team=blue")
    live = kube_server.store.get("configmaps", "cm1", "default")
    assert live["data"] == {"a": "1", "b": "x", "c": "y", "d": "z"}
    assert live["metadata"]["labels"] == {"env": "dev", "team": "blue"}
    failed = kubectl("patch", "cm", "cm1", "--type", "json", "-p",
                     '[{"op":"test","path":"/data/a","value":"nope"}]', check=False)
    assert failed.code != 0 and "The request is invalid" in failed.stderr
    assert 'configmap "cm1" deleted' in kubectl("delete", "cm", "cm1").stdout
    assert kube_server.store.objects("configmaps", "default") == []


def test_replace_with_stale_resource_version_conflicts(kubectl, kube_server):
    kubectl("create", "-f", "-", input=CM)
    stale = json.loads(kubectl("get", "cm", "cm1", "-o", "json").stdout)
    kubectl("patch", "cm", "cm1", "--type", "merge", "-p", '{"data":{"a":"fresh"}}')
    stale["data"]["a"] = "stale"
    result = kubectl("replace", "-f", "-", input=json.dumps(stale), check=False)
    assert result.code != 0
    assert "Operation cannot be fulfilled" in result.stderr
    assert kube_server.store.get("configmaps", "cm1", "default")["data"]["a"] == "fresh"


def test_get_watch_streams_changes(kubectl, kube_server):
    kubectl("create", "-f", "-", input=CM)
    proc = subprocess.Popen(["kubectl", "get", "cm", "-w", "-o", "name"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=kube_server.env)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "configmap/cm1"  # the list
        deadline = time.monotonic() + 10
        while not _watching(kube_server) and time.monotonic() < deadline:
            time.sleep(0.02)
        kube_server.store.create("configmaps", {"metadata": {"name": "cm2"}}, "default")
        assert proc.stdout.readline().strip() == "configmap/cm2"  # the watch event
    finally:
        proc.kill()
        proc.wait(5)
    # The server notices the vanished client and frees the stream's thread.
    deadline = time.monotonic() + 5
    while _watching(kube_server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _watching(kube_server)


def _watching(kube_server) -> bool:
    return kube_server.store.hub.watcher_count() > 0


def test_get_watch_ends_with_request_timeout(kubectl, kube_server):
    kubectl("create", "-f", "-", input=CM)
    started = time.monotonic()
    result = kubectl("get", "cm", "cm1", "-w", "--request-timeout=1s", check=False, timeout=20)
    assert time.monotonic() - started < 15
    assert "cm1" in result.stdout


def test_custom_resources_status_and_415(kubectl, widgets, widget_crd):
    assert kubectl("get", "crd", "-o", "name").stdout.strip() == (
        "customresourcedefinition.apiextensions.k8s.io/widgets.example.com")
    kubectl("apply", "-f", "-", input=WIDGET)
    assert "w1" in kubectl("get", "wd").stdout
    kubectl("apply", "-f", "-", input=WIDGET.replace("size: 1", "size: 2"))  # client-side apply: merge patch
    assert widgets.store.get("widgets", "w1", "default")["spec"]["size"] == 2
    kubectl("patch", "widget", "w1", "--subresource=status", "--type=merge", "-p", '{"status":{"ready":true}}')
    assert widgets.store.get("widgets", "w1", "default")["status"] == {"ready": True}
    smp = kubectl("patch", "widget", "w1", "-p", '{"spec":{"size":3}}', check=False)
    assert smp.code != 0 and "application/strategic-merge-patch+json is not supported" in smp.stderr
    kubectl("delete", "widget", "w1")
    assert widgets.store.objects("widgets") == []


def test_crd_created_through_kubectl_serves_at_once(kubectl, kube_server, widget_crd):
    kubectl("apply", "-f", "-", input=json.dumps(widget_crd))
    kubectl("apply", "-f", "-", input=WIDGET)
    assert json.loads(kubectl("get", "widgets", "w1", "-o", "json").stdout)["spec"] == {"size": 1}
    resources = kubectl("api-resources", "--api-group=example.com").stdout
    assert "widgets" in resources and "wd" in resources


def test_delete_dry_run_and_generators(kubectl, kube_server):
    kubectl("create", "-f", "-", input=CM)
    kubectl("delete", "cm", "cm1", "--dry-run=server")
    assert kube_server.store.get("configmaps", "cm1", "default")
    # Imperative generators send protobuf bodies (tests/server/test_kubectl_commands.py covers each of them).
    assert "configmap/gen created" in kubectl("create", "configmap", "gen", "--from-literal=a=1").stdout
    assert kube_server.store.get("configmaps", "gen", "default")["data"] == {"a": "1"}


@pytest.mark.parametrize("cascade", ["background", "foreground", "orphan"])
def test_delete_cascade_options_in_body(kubectl, kube_server, cascade):
    kubectl("create", "-f", "-", input=CM)
    kubectl("delete", "cm", "cm1", f"--cascade={cascade}", "--wait=true", timeout=30)
    assert kube_server.store.objects("configmaps", "default") == []

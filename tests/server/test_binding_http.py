"""The HTTP front routes ``POST .../pods/<name>/binding`` to the store's binding verb."""

from __future__ import annotations

import json
import urllib.request


def test_post_binding_over_http(kube_server):
    store = kube_server.store
    store.create("pods", {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}, "default")
    body = json.dumps({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"},
                       "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}}).encode()
    request = urllib.request.Request(f"{kube_server.url}/api/v1/namespaces/default/pods/p/binding", data=body,
                                     method="POST", headers={"Content-Type": "application/json",
                                                             "User-Agent": "kube-scheduler/v1.32.0"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 201
        assert json.loads(response.read())["status"] == "Success"
    assert store.get("pods", "p", "default")["spec"]["nodeName"] == "node-1"
    request = urllib.request.Request(f"{kube_server.url}/api/v1/namespaces/default/pods/p/status", data=body,
                                     method="POST", headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request)
        raise AssertionError("POST on pods/status must be refused")
    except urllib.error.HTTPError as exc:
        assert exc.code == 405

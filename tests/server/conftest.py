"""Shared helpers for the HTTP front's tests: a Widget CRD, a kubectl runner, raw HTTP requests, and
``either_front`` (the ``kube`` store over HTTP, then in process) for the clients' tests that run on both."""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest

from fakekube.inprocess import Cluster, mock_kubernetes
from fakekube.server.fixtures import KubeServer
from fakekube.store import Store

FRONTS = ("http", "in-process")


@pytest.fixture(params=FRONTS)
def either_front(request: pytest.FixtureRequest, kube: Store,
                 kube_server_factory: Callable[..., KubeServer]) -> Any:
    """The test's ``kube`` store behind each front in turn: a ``KubeServer`` over HTTP, then a ``Cluster`` of
    ``mock_kubernetes`` (no socket may connect). A module runs its client tests on both by overriding
    ``kube_server`` with it; both give ``.kubeconfig`` and ``.store``."""
    if request.param == "http":
        yield kube_server_factory(kube)
        return
    with mock_kubernetes(kube) as cluster:
        yield cluster


def in_process(front: KubeServer | Cluster) -> bool:
    return isinstance(front, Cluster)


WIDGET_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                },
            }},
        }],
    },
}


@pytest.fixture
def widgets(kube_server: KubeServer) -> KubeServer:
    """``kube_server`` with the Widget CRD (example.com/v1, namespaced, status subresource) registered."""
    kube_server.store.load_crds(WIDGET_CRD)
    return kube_server


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


@pytest.fixture
def kubectl(kube_server: KubeServer) -> Callable[..., Result]:
    """Run the real kubectl against ``kube_server``: ``kubectl("get", "cm", input=..., timeout=...)``."""
    binary = shutil.which("kubectl")
    if binary is None:
        pytest.skip("kubectl is not installed")

    def run(*args: str, input: str | None = None, timeout: float = 30, check: bool = True) -> Result:
        proc = subprocess.run([binary, *args], input=input, capture_output=True, text=True, timeout=timeout,
                              env=kube_server.env)
        result = Result(proc.returncode, proc.stdout, proc.stderr)
        if check and proc.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
        return result

    return run


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def request(url: str, method: str, path: str, body: bytes | str | dict | list | None = None,
            headers: dict[str, str] | None = None) -> Response:
    """One raw HTTP request on a fresh connection (no client library in between)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)  # generous: CI machines are shared
    try:
        data = json.dumps(body).encode() if isinstance(body, dict | list) else body
        if isinstance(data, str):
            data = data.encode()
        all_headers = {"Content-Type": "application/json"} if isinstance(body, dict | list) else {}
        all_headers.update(headers or {})
        conn.request(method, path, body=data, headers=all_headers)
        resp = conn.getresponse()
        return Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
    finally:
        conn.close()


@pytest.fixture
def api(kube_server: KubeServer) -> Callable[..., Response]:
    """``api("GET", "/api/v1/namespaces/default/configmaps")``: a raw request to ``kube_server``."""
    return lambda method, path, body=None, headers=None: request(kube_server.url, method, path, body, headers)


@pytest.fixture
def widget_crd() -> dict[str, Any]:
    return json.loads(json.dumps(WIDGET_CRD))


@pytest.fixture
def http_request() -> Callable[..., Response]:
    """``http_request(url, method, path, body=None, headers=None)`` for servers made by the factory."""
    return request

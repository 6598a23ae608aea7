"""``fakekube serve --audit-log``: the real kubectl against the server; the log it writes is read by the readers
and passes the audit.k8s.io/v1 schema (which real kube-apiserver logs pass too — tests/audit/test_event_schema.py).
One server for the module: kubectl runs are the slow part."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from fakekube.audit.reader import read_log
from tests.audit.event_schema import check
from tests.server.conftest import request

POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/version", "/openapi*"]
  - level: RequestResponse
    resources: [{group: "", resources: ["configmaps"]}]
  - level: Metadata
    omitStages: ["RequestReceived"]
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  a: '1'\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    root = tmp_path_factory.mktemp("audit-serve")
    (root / "policy.yaml").write_text(POLICY)
    log, kubeconfig = root / "audit.log", root / "kubeconfig"
    proc = subprocess.Popen([sys.executable, "-m", "fakekube.cli", "serve", "--port", "0", "--kubeconfig",
                             str(kubeconfig), "--audit-log", str(log), "--audit-policy", str(root / "policy.yaml")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        env = {"KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(root / "cache"), "PATH": "/usr/bin:/bin"}

        def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
            return subprocess.run([kubectl, *args], input=stdin, capture_output=True, text=True, timeout=60, env=env)

        assert run("create", "-f", "-", stdin=CM).returncode == 0
        assert run("create", "-f", "-", stdin=CM).returncode != 0                       # 409 AlreadyExists
        assert run("apply", "--server-side", "--force-conflicts", "-f", "-",
                   stdin=CM.replace("'1'", "'2'")).returncode == 0
        assert run("get", "cm", "nope").returncode != 0                                # 404
        pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: web-\nspec:\n  containers: [{name: c, image: i}]\n"
        assert run("create", "-f", "-", stdin=pod).returncode == 0
        run("get", "cm", "--watch", "--request-timeout=2s")                            # a watch that ends
        assert run("delete", "cm", "cm1").returncode == 0
        request(url, "GET", "/apis/nope.example.com/v1/things")                        # never reaches the store
        replies = {"given": request(url, "GET", "/api/v1/namespaces/default/configmaps/nope",
                                    headers={"Audit-ID": "req-from-the-client-1"}),
                   "chosen": request(url, "GET", "/api/v1/namespaces/default/configmaps")}
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0
        lines = log.read_text().splitlines()
        yield {"lines": lines, "events": [json.loads(line) for line in lines], "log": log, "replies": replies}
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_every_line_passes_the_schema(served: dict[str, Any]) -> None:
    assert served["events"]
    for event in served["events"]:
        check(event)


def test_the_readers_take_the_log(served: dict[str, Any]) -> None:
    entries, report = read_log(served["log"])
    assert report.problems == [] and report.events == len(served["lines"])
    # fakekube serve runs a cluster too: its actors' requests are in the log, each under its own name.
    writes = [(e.verb, e.resource, e.code, e.reason) for e in entries if e.is_write and e.actor == "kubectl"]
    assert writes == [("create", "configmaps", 201, ""), ("create", "configmaps", 409, "AlreadyExists"),
                      ("patch", "configmaps", 200, ""), ("create", "pods", 201, ""), ("delete", "configmaps", 200, "")]
    assert all(e.request.user_agent.startswith("kubectl/") for e in entries if e.actor == "kubectl")
    pod = next(e for e in entries if e.resource == "pods" and e.verb == "create" and e.actor == "kubectl")
    assert pod.generate_name == "web-" and pod.name.startswith("web-")        # the name, from our annotation


def test_what_kube_apiserver_would_have_recorded(served: dict[str, Any]) -> None:
    events = [e for e in served["events"] if e.get("userAgent", "").startswith("kubectl")]  # not the cluster's
    cm = [e for e in events if (e.get("objectRef") or {}).get("resource") == "configmaps"]
    first = next(e for e in cm if e["verb"] == "create" and e["stage"] == "ResponseComplete")
    assert first["level"] == "RequestResponse" and first["userAgent"].startswith("kubectl/")
    assert first["sourceIPs"] == ["127.0.0.1"] and first["user"] == {"username": "system:anonymous",
                                                                     "groups": ["system:unauthenticated"]}
    assert first["requestURI"].startswith("/api/v1/namespaces/default/configmaps?")
    assert first["requestObject"]["data"] == {"a": "1"} and first["responseObject"]["metadata"]["name"] == "cm1"
    clash = next(e for e in cm if e["stage"] == "ResponseComplete" and e["responseStatus"]["code"] == 409)
    assert clash["responseStatus"]["message"] == 'configmaps "cm1" already exists'
    assert clash["responseObject"]["reason"] == "AlreadyExists"
    # The policy logs every stage of configmap requests: RequestReceived before each ResponseComplete.
    for stage_pair in ({e["stage"] for e in cm if e["auditID"] == x["auditID"]} for x in cm):
        assert "RequestReceived" in stage_pair
    watch = [e["stage"] for e in cm if e["verb"] == "watch"]
    assert watch == ["RequestReceived", "ResponseStarted", "ResponseComplete"]
    pod = next(e for e in events if (e.get("objectRef") or {}).get("resource") == "pods" and e["verb"] == "create")
    assert "name" not in pod["objectRef"] and pod["level"] == "Metadata"       # generateName: no name, as upstream
    assert not any(e["requestURI"].startswith(("/version", "/openapi")) for e in events)  # level None
    missing = next(e for e in served["events"] if e["requestURI"] == "/apis/nope.example.com/v1/things")
    assert missing["responseStatus"]["code"] == 404 and missing["objectRef"]["resource"] == "things"
    assert any(e["requestURI"].split("?")[0] == "/api" and "objectRef" not in e for e in events)  # discovery


def test_every_reply_names_its_audit_id(served: dict[str, Any]) -> None:
    """WithAuditInit: the client's Audit-ID is kept, else the server picks a UUID; the reply's Audit-Id header and
    the logged event's auditID are the same."""
    given, chosen = served["replies"]["given"], served["replies"]["chosen"]
    assert given.status == 404 and given.headers["audit-id"] == "req-from-the-client-1"
    assert uuid.UUID(chosen.headers["audit-id"]).version == 4
    logged = {e["auditID"]: e for e in served["events"]}
    assert logged["req-from-the-client-1"]["responseStatus"]["code"] == 404
    assert logged[chosen.headers["audit-id"]]["requestURI"] == "/api/v1/namespaces/default/configmaps"

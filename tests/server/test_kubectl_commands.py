"""The kubectl commands people type in scripts and tests, each end to end with the real kubectl against one
``fakekube`` server for the module (kubectl v1.32; default ``--validate=strict``, never ``--validate=false``).

A command that needs what fakekube does not serve yet is guarded by a look at the server's own documents that
names exactly what is missing (today only ``explain``: the OpenAPI v3 schemas); every other command must pass. Names are unique per test: the server and its store are shared by the whole module.
"""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from fakekube.server.fixtures import KubeServer, _start
from fakekube.server.protobuf import MEDIA_TYPE, WATCH_MEDIA_TYPE, default_codec, read_frames
from fakekube.server.tls import make_certificates
from fakekube.store import Store

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
CODEC = default_codec()


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str


class Cluster:
    def __init__(self, server: KubeServer, files: Path) -> None:
        self.server = server
        self.store = server.store
        self.files = files

    def kubectl(self, *args: str, input: str | None = None, check: bool = True, timeout: float = 60,
                env: dict[str, str] | None = None) -> Run:
        assert KUBECTL is not None
        proc = subprocess.run([KUBECTL, *args], input=input, capture_output=True, text=True, timeout=timeout,
                              env={**self.server.env, **(env or {})})
        run = Run(proc.returncode, proc.stdout, proc.stderr)
        if check and proc.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
        return run

    def get(self, path: str, accept: str = "application/json") -> tuple[int, str, bytes]:
        parts = urlsplit(self.server.url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            conn.request("GET", path, headers={"Accept": accept})
            resp = conn.getresponse()
            return resp.status, resp.getheader("Content-Type") or "", resp.read()
        finally:
            conn.close()

    def require_schema(self, group_version: str, definition: str) -> None:
        """Skip unless the server's OpenAPI v3 document for the group version has the schema."""
        path = f"/openapi/v3/api/{group_version}" if "/" not in group_version else f"/openapi/v3/apis/{group_version}"
        status, _, body = self.get(path)
        schemas = json.loads(body).get("components", {}).get("schemas", {}) if status == 200 else {}
        if definition not in schemas:
            pytest.skip(f"not served yet: the OpenAPI v3 schema {definition} (GET {path} has "
                        f"{len(schemas)} schemas)")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    directory = tmp_path_factory.mktemp("kubectl-commands")
    server = _start(Store(), directory / "server")
    files = directory / "files"
    files.mkdir()
    (files / "app.properties").write_text("color=blue\n")
    (files / "vars.env").write_text("MODE=prod\n# comment\nLEVEL=3\n")
    certs = make_certificates(("web.example.com",))
    (files / "tls.crt").write_bytes(certs.cert_pem)
    (files / "tls.key").write_bytes(certs.key_pem)
    try:
        yield Cluster(server, files)
    finally:
        server.server.stop()


# -- create: the generators (protobuf bodies) ----------------------------------------------------------------


def test_create_namespace(cluster):
    assert cluster.kubectl("create", "namespace", "demo").stdout.strip() == "namespace/demo created"
    ns = cluster.store.get("namespaces", "demo")
    assert ns["metadata"]["name"] == "demo" and ns["status"]["phase"] == "Active"
    assert "demo" in cluster.kubectl("get", "namespaces").stdout


def test_create_configmap_from_literal_file_and_env_file(cluster):
    files = cluster.files
    cluster.kubectl("create", "configmap", "literal", "--from-literal=a=1", "--from-literal=b=two")
    cluster.kubectl("create", "configmap", "fromfile", f"--from-file={files / 'app.properties'}")
    cluster.kubectl("create", "configmap", "fromenv", f"--from-env-file={files / 'vars.env'}")
    assert cluster.store.get("configmaps", "literal", "default")["data"] == {"a": "1", "b": "two"}
    assert cluster.store.get("configmaps", "fromfile", "default")["data"] == {"app.properties": "color=blue\n"}
    assert cluster.store.get("configmaps", "fromenv", "default")["data"] == {"MODE": "prod", "LEVEL": "3"}


def test_create_secrets(cluster):
    files = cluster.files
    cluster.kubectl("create", "secret", "generic", "creds", "--from-literal=user=admin")
    cluster.kubectl("create", "secret", "tls", "web-tls", f"--cert={files / 'tls.crt'}", f"--key={files / 'tls.key'}")
    cluster.kubectl("create", "secret", "docker-registry", "pull", "--docker-server=registry.example.com",
                    "--docker-username=u", "--docker-password=p")
    generic = cluster.store.get("secrets", "creds", "default")
    assert generic["data"] == {"user": "YWRtaW4="}  # no type sent: "Opaque" is the server's default
    tls = cluster.store.get("secrets", "web-tls", "default")
    assert tls["type"] == "kubernetes.io/tls" and set(tls["data"]) == {"tls.crt", "tls.key"}
    pull = cluster.store.get("secrets", "pull", "default")
    assert pull["type"] == "kubernetes.io/dockerconfigjson"
    shown = json.loads(cluster.kubectl("get", "secret", "pull", "-o", "json").stdout)
    assert shown["data"][".dockerconfigjson"] == pull["data"][".dockerconfigjson"]


def test_create_serviceaccount(cluster):
    cluster.kubectl("create", "serviceaccount", "robot")
    assert cluster.store.get("serviceaccounts", "robot", "default")["metadata"]["name"] == "robot"


def test_create_deployment(cluster):
    cluster.kubectl("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "--port=80")
    deploy = cluster.store.get("deployments", "web", "default")
    assert deploy["spec"]["replicas"] == 2
    container = deploy["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "nginx:1.27" and container["ports"] == [{"containerPort": 80, "protocol": "TCP"}]  # defaulted
    assert "web" in cluster.kubectl("get", "deploy").stdout


def test_create_job_and_cronjob(cluster):
    cluster.kubectl("create", "job", "once", "--image=busybox", "--", "echo", "hi")
    cluster.kubectl("create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *", "--", "date")
    assert cluster.store.get("jobs", "once", "default")["spec"]["template"]["spec"]["containers"][0]["command"] == [
        "echo", "hi"]
    assert cluster.store.get("cronjobs", "tick", "default")["spec"]["schedule"] == "*/5 * * * *"
    cluster.kubectl("create", "job", "from-cron", "--from=cronjob/tick")
    assert cluster.store.get("jobs", "from-cron", "default")["metadata"]["annotations"][
        "cronjob.kubernetes.io/instantiate"] == "manual"


def test_create_rbac(cluster):
    cluster.kubectl("create", "role", "reader", "--verb=get,list", "--resource=pods,configmaps")
    cluster.kubectl("create", "rolebinding", "read", "--role=reader", "--user=alice")
    cluster.kubectl("create", "clusterrole", "node-reader", "--verb=get", "--resource=nodes")
    cluster.kubectl("create", "clusterrolebinding", "node-read", "--clusterrole=node-reader", "--group=ops")
    role = cluster.store.get("roles", "reader", "default")
    assert role["rules"] == [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods", "configmaps"]}]
    binding = cluster.store.get("clusterrolebindings", "node-read")
    assert binding["subjects"] == [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "ops"}]


def test_create_poddisruptionbudget_priorityclass_and_quota(cluster):
    cluster.kubectl("create", "poddisruptionbudget", "pdb", "--selector=app=web", "--min-available=1")
    cluster.kubectl("create", "priorityclass", "zero", "--value=0")
    cluster.kubectl("create", "quota", "q", "--hard=cpu=1,pods=10")
    assert cluster.store.get("poddisruptionbudgets", "pdb", "default")["spec"]["minAvailable"] == 1
    assert cluster.store.get("priorityclasses", "zero")["value"] == 0
    assert cluster.store.get("resourcequotas", "q", "default")["spec"]["hard"] == {"cpu": "1", "pods": "10"}


def test_create_ingress(cluster):
    cluster.kubectl("create", "ingress", "ing", "--rule=web.example.com/=web:80")
    rule = cluster.store.get("ingresses", "ing", "default")["spec"]["rules"][0]
    assert rule["host"] == "web.example.com"
    assert rule["http"]["paths"][0]["backend"]["service"] == {"name": "web", "port": {"number": 80}}


def test_create_services(cluster):
    cluster.kubectl("create", "service", "clusterip", "api", "--tcp=80:8080")
    cluster.kubectl("create", "service", "nodeport", "edge", "--tcp=80:8080", "--node-port=30080")
    api = cluster.store.get("services", "api", "default")
    assert api["spec"]["type"] == "ClusterIP" and api["spec"]["ports"][0]["targetPort"] == 8080
    edge = cluster.store.get("services", "edge", "default")
    assert edge["spec"]["type"] == "NodePort" and edge["spec"]["ports"][0]["nodePort"] == 30080


# -- run, expose, scale, set ----------------------------------------------------------------------------------


def test_run_and_expose(cluster):
    cluster.kubectl("run", "solo", "--image=nginx", "--labels=app=solo", "--port=80")
    pod = cluster.store.get("pods", "solo", "default")
    assert pod["spec"]["containers"][0]["image"] == "nginx" and pod["metadata"]["labels"] == {"app": "solo"}
    cluster.kubectl("expose", "pod", "solo", "--port=8080", "--target-port=80")
    svc = cluster.store.get("services", "solo", "default")
    assert svc["spec"]["selector"] == {"app": "solo"}
    assert svc["spec"]["ports"] == [{"port": 8080, "protocol": "TCP", "targetPort": 80}]


def test_scale_and_set(cluster):
    cluster.kubectl("create", "deployment", "api-server", "--image=nginx:1.26")
    cluster.kubectl("scale", "deployment", "api-server", "--replicas=4")
    assert cluster.store.get("deployments", "api-server", "default")["spec"]["replicas"] == 4
    cluster.kubectl("set", "image", "deployment/api-server", "nginx=nginx:1.27")
    cluster.kubectl("set", "env", "deployment/api-server", "MODE=prod")
    cluster.kubectl("set", "resources", "deployment/api-server", "--limits=cpu=200m,memory=256Mi")
    container = cluster.store.get("deployments", "api-server", "default")["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "nginx:1.27"
    assert container["env"] == [{"name": "MODE", "value": "prod"}]
    assert container["resources"]["limits"] == {"cpu": "200m", "memory": "256Mi"}


# -- label, annotate, patch, edit, diff ----------------------------------------------------------------------


def test_label_and_annotate_overwrite(cluster):
    cluster.kubectl("create", "configmap", "tagged", "--from-literal=a=1")
    cluster.kubectl("label", "configmap", "tagged", "tier=back")
    failed = cluster.kubectl("label", "configmap", "tagged", "tier=front", check=False)
    assert failed.code != 0 and "already has a value" in failed.stderr
    cluster.kubectl("label", "configmap", "tagged", "tier=front", "--overwrite")
    cluster.kubectl("annotate", "configmap", "tagged", "note=one")
    cluster.kubectl("annotate", "configmap", "tagged", "note=two", "--overwrite")
    meta = cluster.store.get("configmaps", "tagged", "default")["metadata"]
    assert meta["labels"] == {"tier": "front"} and meta["annotations"]["note"] == "two"


def test_patch_status_subresource(cluster):
    cluster.kubectl("create", "deployment", "patched", "--image=nginx")
    cluster.kubectl("patch", "deployment", "patched", "--subresource=status", "--type=merge",
                    "-p", '{"status":{"observedGeneration":1,"readyReplicas":1}}')
    assert cluster.store.get("deployments", "patched", "default")["status"]["readyReplicas"] == 1
    cluster.kubectl("patch", "deployment", "patched", "--subresource=scale", "--type=merge",
                    "-p", '{"spec":{"replicas":3}}')
    assert cluster.store.get("deployments", "patched", "default")["spec"]["replicas"] == 3


def test_edit_with_a_scripted_editor(cluster):
    cluster.kubectl("create", "configmap", "edited", "--from-literal=a=1")
    editor = cluster.files / "editor.py"
    editor.write_text("import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
                      "p.write_text(p.read_text().replace('a: \"1\"', 'a: \"2\"'))\n")
    result = cluster.kubectl("edit", "configmap", "edited", env={"KUBE_EDITOR": f"{sys.executable} {editor}"})
    assert "configmap/edited edited" in result.stdout
    assert cluster.store.get("configmaps", "edited", "default")["data"] == {"a": "2"}


def test_diff_is_a_server_side_dry_run(cluster):
    manifest = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: diffed\n  namespace: default\n"
                "data:\n  a: \"1\"\n")
    cluster.kubectl("apply", "-f", "-", input=manifest)
    same = cluster.kubectl("diff", "-f", "-", input=manifest, check=False)
    assert same.code == 0 and same.stdout == "", same.stderr
    before = cluster.store.get("configmaps", "diffed", "default")["metadata"]["resourceVersion"]
    changed = cluster.kubectl("diff", "-f", "-", input=manifest.replace('"1"', '"2"'), check=False)
    assert changed.code == 1, changed.stderr
    assert '-  a: "1"' in changed.stdout and '+  a: "2"' in changed.stdout
    after = cluster.store.get("configmaps", "diffed", "default")
    assert after["data"] == {"a": "1"} and after["metadata"]["resourceVersion"] == before


# -- wait -----------------------------------------------------------------------------------------------------


def test_wait_for_condition_jsonpath_and_delete(cluster):
    cluster.kubectl("run", "waited", "--image=nginx")

    def kubelet() -> None:
        time.sleep(1)
        cluster.store.patch("pods", "waited", {"status": {"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True"}]}}, "default", subresource="status")

    thread = threading.Thread(target=kubelet)
    thread.start()
    ready = cluster.kubectl("wait", "--for=condition=Ready", "pod/waited", "--timeout=30s")
    thread.join()
    assert "pod/waited condition met" in ready.stdout
    phase = cluster.kubectl("wait", "--for=jsonpath={.status.phase}=Running", "pod/waited", "--timeout=30s")
    assert "pod/waited condition met" in phase.stdout
    deleter = threading.Thread(target=lambda: (time.sleep(1), cluster.store.delete("pods", "waited", "default")))
    deleter.start()
    gone = cluster.kubectl("wait", "--for=delete", "pod/waited", "--timeout=30s")
    deleter.join()
    assert "pod/waited condition met" in gone.stdout or "deleted" in gone.stdout
    # Its own Deployment (nobody makes it Ready): xdist may run this test on a worker that never created "web".
    cluster.kubectl("create", "deployment", "never-ready", "--image=nginx")
    timed_out = cluster.kubectl("wait", "--for=condition=Ready", "deployment/never-ready", "--timeout=1s",
                                check=False)
    assert timed_out.code != 0 and "timed out" in timed_out.stderr


# -- auth, explain, discovery, raw ---------------------------------------------------------------------------


def test_auth_can_i(cluster):
    assert cluster.kubectl("auth", "can-i", "create", "pods").stdout.strip() == "yes"


def test_auth_whoami(cluster):
    assert "Username" in cluster.kubectl("auth", "whoami").stdout


def test_explain(cluster):
    cluster.require_schema("v1", "io.k8s.api.core.v1.ConfigMap")
    out = cluster.kubectl("explain", "configmap.data").stdout
    assert "KIND:       ConfigMap" in out and "FIELD: data" in out


def test_api_versions_and_cluster_info(cluster):
    versions = cluster.kubectl("api-versions").stdout.split()
    assert {"v1", "apps/v1"} <= set(versions)
    assert f"Kubernetes control plane is running at {cluster.server.url}" in cluster.kubectl("cluster-info").stdout


def test_get_raw(cluster):
    cluster.kubectl("create", "configmap", "raw", "--from-literal=a=1")
    listing = json.loads(cluster.kubectl("get", "--raw", "/api/v1/namespaces/default/configmaps/raw").stdout)
    assert listing["data"] == {"a": "1"}
    assert json.loads(cluster.kubectl("get", "--raw", "/version").stdout)["major"] == "1"


# -- delete ---------------------------------------------------------------------------------------------------


def test_delete_by_label_and_all(cluster):
    cluster.kubectl("create", "namespace", "sweep")
    for name, label in (("keep", "tier=db"), ("drop1", "tier=web"), ("drop2", "tier=web")):
        cluster.kubectl("create", "configmap", name, "-n", "sweep", "--from-literal=a=1")
        cluster.kubectl("label", "configmap", name, "-n", "sweep", label)
    cluster.kubectl("delete", "configmap", "-n", "sweep", "-l", "tier=web")
    assert [o["metadata"]["name"] for o in cluster.store.objects("configmaps", "sweep")] == ["keep"]
    cluster.kubectl("delete", "configmap", "-n", "sweep", "--all")
    assert cluster.store.objects("configmaps", "sweep") == []


# -- watch ----------------------------------------------------------------------------------------------------


def _wait_for_watchers(cluster, count: int) -> None:
    deadline = time.monotonic() + 20
    while cluster.store.hub.watcher_count() < count and time.monotonic() < deadline:
        time.sleep(0.05)


def test_get_watch_and_a_protobuf_watch(cluster):
    """kubectl's own watches ask for JSON Tables; Go clients configured for protobuf (client-go's
    ``ContentType``) watch in protobuf: both streams see the same change."""
    cluster.kubectl("create", "namespace", "watched")
    proc = subprocess.Popen([KUBECTL, "get", "configmaps", "-n", "watched", "-w", "-o", "name"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cluster.server.env)
    # The raw watch's few seconds start once kubectl is watching (it can take seconds to start on a busy host),
    # so the change lands inside them.
    _wait_for_watchers(cluster, 1)
    parts = urlsplit(cluster.server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    rv = cluster.store.resource_version
    conn.request("GET", f"/api/v1/namespaces/watched/configmaps?watch=true&resourceVersion={rv}&timeoutSeconds=5",
                 headers={"Accept": f"{MEDIA_TYPE}, application/json"})
    resp = conn.getresponse()
    try:
        assert resp.getheader("Content-Type") == WATCH_MEDIA_TYPE
        _wait_for_watchers(cluster, 2)
        cluster.kubectl("create", "configmap", "seen", "-n", "watched", "--from-literal=a=1")
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "configmap/seen"
        events = [CODEC.decode_event(frame) for frame in read_frames(resp.read())]
        assert [(t, o["metadata"]["name"], o["data"]) for t, o in events] == [("ADDED", "seen", {"a": "1"})]
    finally:
        proc.kill()
        proc.wait(5)
        conn.close()

"""The review APIs over HTTP: the official client, kubectl's JSON paths (``create -f``) and kubectl's own
commands (``auth can-i``, ``auth whoami``, which send protobuf bodies)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from fakekube.server import RequestAttributes

SSAR = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": "create", "resource": "pods", "namespace": "default"}}}
SSR = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
needs_protobuf = pytest.mark.skipif(
    importlib.util.find_spec("fakekube.server.protobuf") is None,
    reason="kubectl's typed clients send protobuf bodies, decoded once fakekube.server.protobuf is in")


def _client(served):
    pytest.importorskip("kubernetes")
    from kubernetes import config

    return config.new_client_from_config(config_file=str(served.kubeconfig))


def test_official_client_reviews_on_an_open_server(kube_server):
    from kubernetes import client

    api = _client(kube_server)
    try:
        authz = client.AuthorizationV1Api(api)
        body = client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(
            resource_attributes=client.V1ResourceAttributes(verb="create", resource="pods", namespace="default")))
        assert authz.create_self_subject_access_review(body).status.allowed is True
        sar = client.V1SubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(
            user="alice", non_resource_attributes=client.V1NonResourceAttributes(verb="get", path="/healthz")))
        assert authz.create_subject_access_review(sar).status.allowed is True
        local = client.V1LocalSubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(
            user="alice", resource_attributes=client.V1ResourceAttributes(verb="get", resource="pods",
                                                                          namespace="default")))
        out = authz.create_namespaced_local_subject_access_review("default", local)
        assert (out.metadata.namespace, out.status.allowed) == ("default", True)
        rules = authz.create_self_subject_rules_review(client.V1SelfSubjectRulesReview(
            spec=client.V1SelfSubjectRulesReviewSpec(namespace="default")))
        assert [r.verbs for r in rules.status.resource_rules] == [["*"]]
        me = client.AuthenticationV1Api(api).create_self_subject_review(client.V1SelfSubjectReview())
        assert (me.status.user_info.username, me.status.user_info.groups) == (
            "system:anonymous", ["system:unauthenticated"])
    finally:
        api.close()
    assert kube_server.store.count("selfsubjectaccessreviews") == 0


def test_reviews_are_create_only(kube_server, api):
    path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
    created = api("POST", path, SSAR)
    assert created.status == 201 and created.json()["status"] == {"allowed": True}
    for method in ("GET", "DELETE"):
        resp = api(method, path)
        assert resp.status == 405 and resp.json()["reason"] == "MethodNotAllowed"
    resources = api("GET", "/apis/authorization.k8s.io/v1").json()["resources"]
    assert {r["name"]: r["verbs"] for r in resources}["selfsubjectaccessreviews"] == ["create"]


def _viewer_may_only_read(attrs: RequestAttributes) -> bool:
    return attrs.user == "admin" or attrs.verb in ("get", "list", "watch")


def test_kubectl_create_review_answers_for_the_token_user(kube_server_factory, tmp_path):
    pytest.importorskip("cryptography")
    import shutil
    import subprocess

    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed")
    served = kube_server_factory(tls=True, tokens={"t-admin": "admin", "t-view": "viewer"},
                                 authorizer=_viewer_may_only_read)

    def create(token, document):
        proc = subprocess.run(["kubectl", "--token", token, "create", "-f", "-", "-o", "json"],
                              input=json.dumps(document), capture_output=True, text=True, timeout=60, env=served.env)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    assert create("t-admin", SSAR)["status"] == {"allowed": True}
    assert create("t-view", SSAR)["status"] == {"allowed": False}
    assert create("t-view", SSR)["status"]["userInfo"] == {"username": "viewer", "groups": ["system:authenticated"]}


@needs_protobuf
def test_kubectl_auth_can_i_and_whoami(kube_server_factory):
    pytest.importorskip("cryptography")
    import shutil
    import subprocess

    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed")
    served = kube_server_factory(tls=True, tokens={"t-admin": "admin", "t-view": "viewer"},
                                 authorizer=_viewer_may_only_read)

    def kubectl(*args):
        return subprocess.run(["kubectl", *args], capture_output=True, text=True, timeout=60, env=served.env)

    assert kubectl("--token", "t-admin", "auth", "can-i", "create", "pods").stdout.strip() == "yes"
    denied = kubectl("--token", "t-view", "auth", "can-i", "create", "pods")
    assert (denied.returncode, denied.stdout.strip()) == (1, "no")
    whoami = kubectl("--token", "t-view", "auth", "whoami", "-o", "json")
    assert json.loads(whoami.stdout)["status"]["userInfo"]["username"] == "viewer"

"""Service-account tokens over HTTP: TokenRequest (``serviceaccounts/<name>/token``), the tokens as bearer
credentials, TokenReview — with the official client, raw requests and kubectl."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from datetime import UTC, datetime

import pytest

from fakekube.clock import VirtualClock
from fakekube.store import Store

TOKEN_PATH = "/api/v1/namespaces/default/serviceaccounts/builder/token"
SSR_PATH = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
needs_protobuf = pytest.mark.skipif(
    importlib.util.find_spec("fakekube.server.protobuf") is None,
    reason="kubectl create token and auth whoami send protobuf bodies, decoded once fakekube.server.protobuf is in")


@pytest.fixture
def served(kube_server_factory):
    store = Store(clock=VirtualClock(datetime(2026, 3, 1, tzinfo=UTC)))
    store.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    return kube_server_factory(store, token="s3cret")


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_requested_token_authenticates_as_its_service_account(served, http_request):
    created = http_request(served.url, "POST", TOKEN_PATH, {"spec": {"expirationSeconds": 600}}, _bearer("s3cret"))
    assert created.status == 201
    token = created.json()["status"]["token"]
    me = http_request(served.url, "POST", SSR_PATH, {}, _bearer(token)).json()["status"]["userInfo"]
    assert me["username"] == "system:serviceaccount:default:builder"
    assert me["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]
    assert http_request(served.url, "GET", "/api/v1/namespaces/default/configmaps", headers=_bearer(token)).status == 200
    # Expired (past the minute of leeway): the real 401.
    served.store.clock.advance(600 + 61)
    expired = http_request(served.url, "GET", "/api/v1/namespaces/default/configmaps", headers=_bearer(token))
    assert (expired.status, expired.json()["reason"]) == (401, "Unauthorized")


def test_tokens_of_a_deleted_or_recreated_service_account_are_refused(served, http_request):
    token = http_request(served.url, "POST", TOKEN_PATH, {}, _bearer("s3cret")).json()["status"]["token"]
    served.store.delete("serviceaccounts", "builder", "default")
    assert http_request(served.url, "POST", SSR_PATH, {}, _bearer(token)).status == 401
    served.store.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    assert http_request(served.url, "POST", SSR_PATH, {}, _bearer(token)).status == 401
    review = http_request(served.url, "POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                          {"spec": {"token": token}}, _bearer("s3cret")).json()["status"]
    assert review["user"] == {} and review["error"].startswith("service account UID (")


def test_official_client_token_request_and_token_review(served):
    pytest.importorskip("kubernetes")
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException

    api = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        core = client.CoreV1Api(api)
        pod = core.create_namespaced_pod("default", client.V1Pod(
            metadata=client.V1ObjectMeta(name="p"),
            spec=client.V1PodSpec(service_account_name="builder", containers=[client.V1Container(name="c",
                                                                                                 image="x")])))
        request = client.AuthenticationV1TokenRequest(spec=client.V1TokenRequestSpec(
            audiences=["vault"], expiration_seconds=1200,
            bound_object_ref=client.V1BoundObjectReference(api_version="v1", kind="Pod", name="p",
                                                           uid=pod.metadata.uid)))
        issued = core.create_namespaced_service_account_token("builder", "default", request)
        assert issued.spec.audiences == ["vault"] and issued.spec.expiration_seconds == 1200
        reviews = client.AuthenticationV1Api(api)
        status = reviews.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(
            token=issued.status.token, audiences=["vault"]))).status
        assert status.authenticated is True and status.audiences == ["vault"]
        assert status.user.extra["authentication.kubernetes.io/pod-name"] == ["p"]
        # The static token is reviewed too; a token for another audience is not authenticated.
        assert reviews.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(
            token="s3cret"))).status.user.username == "admin"
        wrong = reviews.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(
            token=issued.status.token))).status
        assert not wrong.authenticated and "is invalid for the target audiences" in wrong.error
        with pytest.raises(ApiException) as short:
            core.create_namespaced_service_account_token(
                "builder", "default", client.AuthenticationV1TokenRequest(
                    spec=client.V1TokenRequestSpec(audiences=[], expiration_seconds=60)))
        assert short.value.status == 422
        assert json.loads(short.value.body)["message"] == (
            'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: '
            "may not specify a duration less than 10 minutes")
    finally:
        api.close()


def _kubectl(served, *args, input: str | None = None):
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed")
    return subprocess.run(["kubectl", *args], capture_output=True, text=True, timeout=60, env=served.env,
                          input=input)


@pytest.fixture
def served_tls(kube_server_factory):
    pytest.importorskip("cryptography")
    store = Store()
    store.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    return kube_server_factory(store, tls=True, token="s3cret")


def test_kubectl_requests_a_token_and_authenticates_with_it(served_tls):
    body = json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}})
    created = _kubectl(served_tls, "create", "--raw", TOKEN_PATH, "-f", "-", input=body)
    assert created.returncode == 0, created.stderr
    token = json.loads(created.stdout)["status"]["token"]
    me = _kubectl(served_tls, "--token", token, "create", "-f", "-", "-o", "json",
                  input=json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}))
    assert me.returncode == 0, me.stderr
    assert json.loads(me.stdout)["status"]["userInfo"]["username"] == "system:serviceaccount:default:builder"
    assert _kubectl(served_tls, "--token", token, "get", "cm").returncode == 0
    assert _kubectl(served_tls, "--token", token + "x", "get", "cm").returncode != 0


@needs_protobuf
def test_kubectl_create_token_end_to_end(served_tls):
    created = _kubectl(served_tls, "create", "token", "builder", "--duration", "20m")
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip()
    whoami = _kubectl(served_tls, "--token", token, "auth", "whoami", "-o", "json")
    assert whoami.returncode == 0, whoami.stderr
    assert json.loads(whoami.stdout)["status"]["userInfo"]["username"] == "system:serviceaccount:default:builder"
    short = _kubectl(served_tls, "create", "token", "builder", "--duration", "1m")
    assert "may not specify a duration less than 10 minutes" in short.stderr

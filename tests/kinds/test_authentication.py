"""authentication.k8s.io/v1 through the in-process Store: TokenRequest, TokenReview, SelfSubjectReview."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

import pytest

from fakekube import errors
from fakekube.clock import VirtualClock
from fakekube.identity import UserInfo
from fakekube.store import Store

ISSUER = "https://kubernetes.default.svc.cluster.local"
START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def kube() -> Store:
    store = Store(clock=VirtualClock(START), seed=7)
    store.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    return store


def token_request(kube: Store, spec: dict | None = None, name: str = "builder") -> dict:
    return kube.create("serviceaccounts", {"spec": spec or {}}, "default", name=name, subresource="token")


def claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def review(kube: Store, token: str, audiences: list[str] | None = None) -> dict:
    spec = {"token": token, **({"audiences": audiences} if audiences else {})}
    return kube.create("tokenreviews", {"spec": spec})["status"]


def test_token_request_defaults_and_claims(kube):
    rv = kube.resource_version
    out = token_request(kube)
    sa = kube.get("serviceaccounts", "builder", "default")
    assert out["apiVersion"] == "authentication.k8s.io/v1" and out["kind"] == "TokenRequest"
    # observed on kube-apiserver v1.37.2: the answer is named after the service account, uid included, and
    # carries the requester's managedFields entry (the create handler's field manager, subresource "token").
    assert out["metadata"] == {
        "name": "builder", "namespace": "default", "uid": sa["metadata"]["uid"],
        "creationTimestamp": "2026-03-01T12:00:00Z",
        "managedFields": [{"manager": "fakekube", "operation": "Update", "apiVersion": "authentication.k8s.io/v1",
                           "time": "2026-03-01T12:00:00Z", "fieldsType": "FieldsV1",
                           "fieldsV1": {"f:spec": {"f:expirationSeconds": {}}}, "subresource": "token"}],
    }
    assert out["spec"] == {"audiences": [ISSUER], "expirationSeconds": 3600, "boundObjectRef": None}
    assert out["status"]["expirationTimestamp"] == "2026-03-01T13:00:00Z"
    got = claims(out["status"]["token"])
    issued = int(START.timestamp())
    assert {k: v for k, v in got.items() if k != "jti"} == {
        "aud": [ISSUER], "exp": issued + 3600, "iat": issued, "nbf": issued, "iss": ISSUER,
        "sub": "system:serviceaccount:default:builder",
        "kubernetes.io": {"namespace": "default",
                          "serviceaccount": {"name": "builder", "uid": sa["metadata"]["uid"]}},
    }
    assert len(got["jti"]) == 36
    assert kube.resource_version == rv  # a token is not an object


def test_a_seeded_store_issues_the_same_tokens():
    def first_token() -> str:
        store = Store(clock=VirtualClock(START), seed=3)
        store.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
        return token_request(store)["status"]["token"]

    assert first_token() == first_token()


def test_token_review_names_the_service_account(kube):
    token = token_request(kube, {"audiences": ["vault", ISSUER]})["status"]["token"]
    sa_uid = kube.get("serviceaccounts", "builder", "default")["metadata"]["uid"]
    status = review(kube, token)
    jti = claims(token)["jti"]
    assert status == {
        "authenticated": True,
        "user": {"username": "system:serviceaccount:default:builder", "uid": sa_uid,
                 "groups": ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
                 "extra": {"authentication.kubernetes.io/credential-id": [f"JTI={jti}"]}},
        "audiences": [ISSUER],
    }
    assert review(kube, token, ["vault"])["audiences"] == ["vault"]
    assert review(kube, token, ["other"]) == {
        "user": {}, "error": f'token audiences ["vault" "{ISSUER}"] is invalid for the target audiences ["other"]'}
    assert review(kube, "not-a-token") == {"user": {}, "error": "invalid bearer token"}


def test_expiry_with_a_minute_of_leeway(kube):
    token = token_request(kube, {"expirationSeconds": 600})["status"]["token"]
    kube.clock.advance(600 + 60)
    assert review(kube, token)["authenticated"] is True
    kube.clock.advance(1)
    assert review(kube, token) == {"user": {}, "error": "service account token has expired"}


def test_expiration_validation(kube):
    with pytest.raises(errors.Invalid) as info:
        token_request(kube, {"expirationSeconds": 60})
    # The message kubectl create token --duration=1m prints on a real cluster.
    assert info.value.message == ('TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: '
                                  "Invalid value: 60: may not specify a duration less than 10 minutes")
    with pytest.raises(errors.Invalid, match="larger than 2\\^32 seconds"):
        token_request(kube, {"expirationSeconds": (1 << 32) + 1})


def test_a_deleted_or_recreated_service_account_invalidates_its_tokens(kube):
    token = token_request(kube)["status"]["token"]
    kube.delete("serviceaccounts", "builder", "default")
    assert review(kube, token) == {"user": {}, "error": 'serviceaccounts "builder" not found'}
    kube.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    assert review(kube, token)["error"].startswith("service account UID (")
    with pytest.raises(errors.NotFound):
        token_request(kube, name="nobody")


def test_pod_bound_tokens(kube):
    pod = kube.create("pods", {"metadata": {"name": "p"},
                               "spec": {"serviceAccountName": "builder", "nodeName": "node-1",
                                        "containers": [{"name": "c", "image": "x"}]}}, "default")
    ref = {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": pod["metadata"]["uid"]}
    token = token_request(kube, {"boundObjectRef": ref})["status"]["token"]
    assert claims(token)["kubernetes.io"]["pod"] == {"name": "p", "uid": pod["metadata"]["uid"]}
    assert claims(token)["kubernetes.io"]["node"] == {"name": "node-1"}  # no Node object: the name only
    extra = review(kube, token)["user"]["extra"]
    assert extra["authentication.kubernetes.io/pod-name"] == ["p"]
    assert extra["authentication.kubernetes.io/node-name"] == ["node-1"]
    with pytest.raises(errors.Conflict, match="does not match the UID in record"):
        token_request(kube, {"boundObjectRef": {**ref, "uid": "other"}})
    with pytest.raises(errors.BadRequest, match="to pod running with different serviceaccount name"):
        kube.create("serviceaccounts", {"metadata": {"name": "other"}}, "default")
        token_request(kube, {"boundObjectRef": ref}, name="other")
    with pytest.raises(errors.BadRequest, match="cannot bind token to object of type apps/v1, Kind=Deployment"):
        token_request(kube, {"boundObjectRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}})
    # kubelet's 3607 s projected token: valid a year, warns after 3607 s.
    extended = token_request(kube, {"boundObjectRef": ref, "expirationSeconds": 3607})
    issued = int(START.timestamp())
    assert claims(extended["status"]["token"])["exp"] == issued + 365 * 24 * 3600
    assert claims(extended["status"]["token"])["kubernetes.io"]["warnafter"] == issued + 3607
    assert extended["status"]["expirationTimestamp"] == "2026-03-01T13:00:07Z"
    kube.delete("pods", "p", "default", grace_period_seconds=0)
    assert review(kube, token) == {"user": {}, "error": "service account token has been invalidated"}


def test_secret_bound_tokens(kube):
    secret = kube.create("secrets", {"metadata": {"name": "s"}}, "default")
    ref = {"apiVersion": "v1", "kind": "Secret", "name": "s"}
    token = token_request(kube, {"boundObjectRef": ref})["status"]["token"]
    assert claims(token)["kubernetes.io"]["secret"] == {"name": "s", "uid": secret["metadata"]["uid"]}
    assert review(kube, token)["authenticated"] is True
    kube.delete("secrets", "s", "default")
    assert review(kube, token)["error"] == "service account token has been invalidated"


def test_static_tokens_are_reviewed_too(kube):
    kube.tokens.static["s3cret"] = UserInfo("admin")
    assert review(kube, "s3cret") == {"authenticated": True, "user": {"username": "admin",
                                                                      "groups": ["system:authenticated"]},
                                      "audiences": [ISSUER]}
    with pytest.raises(errors.BadRequest, match="token is required for TokenReview in authentication"):
        kube.create("tokenreviews", {"spec": {}})


def test_self_subject_review_is_the_requesting_user(kube):
    alice = UserInfo("alice", "u-1", ("dev", "system:authenticated"), {"k": ("v",)})
    out = kube.create("selfsubjectreviews", {}, user=alice)
    assert out == {"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1",
                   "metadata": {"creationTimestamp": "2026-03-01T12:00:00Z"},
                   "status": {"userInfo": {"username": "alice", "uid": "u-1",
                                           "groups": ["dev", "system:authenticated"], "extra": {"k": ["v"]}}}}
    assert kube.create("selfsubjectreviews", {})["status"]["userInfo"] == {
        "username": "system:anonymous", "groups": ["system:unauthenticated"]}

"""authorization.k8s.io/v1 reviews through the in-process Store: answers, validation, nothing stored."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.identity import RequestAttributes, UserInfo
from fakekube.store import Store

ALICE = UserInfo("alice", "u-1", ("dev",))
CREATE_PODS = {"resourceAttributes": {"verb": "create", "resource": "pods", "namespace": "default"}}
RESOURCE_ATTRIBUTES_ENTRY = {
    "manager": "fakekube", "operation": "Update", "apiVersion": "authorization.k8s.io/v1", "fieldsType": "FieldsV1",
    "fieldsV1": {"f:spec": {"f:resourceAttributes": {".": {}, "f:namespace": {}, "f:resource": {}, "f:verb": {}}}},
}


def _without_times(entries: list[dict]) -> list[dict]:
    return [{k: v for k, v in entry.items() if k != "time"} for entry in entries]


def test_self_subject_access_review_is_allowed_without_an_authorizer():
    kube = Store()
    rv = kube.resource_version
    out = kube.create("selfsubjectaccessreviews", {"spec": CREATE_PODS}, user=ALICE)
    # observed on kube-apiserver v1.37.2: the create handler's field manager runs before the review is
    # answered, so the echoed request carries the requester's entry (resourceAttributes added: ".").
    assert _without_times(out["metadata"].pop("managedFields")) == [RESOURCE_ATTRIBUTES_ENTRY]
    # AlwaysAllow: allowed, no reason; the request is echoed, with ObjectMeta's zero creationTimestamp.
    assert out == {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
                   "metadata": {}, "spec": CREATE_PODS, "status": {"allowed": True}}
    assert kube.resource_version == rv  # nothing stored
    assert kube.audit.entries[-1].code == 201


def test_the_store_authorizer_answers_for_the_requesting_user():
    kube = Store()
    seen: list[RequestAttributes] = []

    def only_dev_creates(attrs: RequestAttributes) -> bool:
        seen.append(attrs)
        return "dev" in attrs.groups and attrs.verb == "create"

    kube.authorizer = only_dev_creates
    assert kube.create("selfsubjectaccessreviews", {"spec": CREATE_PODS}, user=ALICE)["status"] == {"allowed": True}
    bob = UserInfo("bob", groups=("ops",))
    assert kube.create("selfsubjectaccessreviews", {"spec": CREATE_PODS}, user=bob)["status"] == {"allowed": False}
    attrs = seen[-1]
    assert (attrs.user, attrs.groups, attrs.verb, attrs.resource, attrs.namespace, attrs.version) == (
        "bob", ("ops",), "create", "pods", "default", "*")
    # A SubjectAccessReview asks about the user it names, not the one asking.
    sar = kube.create("subjectaccessreviews", {"spec": {**CREATE_PODS, "user": "carol", "groups": ["dev"]}},
                      user=bob)
    assert sar["status"] == {"allowed": True}
    assert (seen[-1].user, seen[-1].groups) == ("carol", ("dev",))
    non_resource = kube.create("selfsubjectaccessreviews",
                               {"spec": {"nonResourceAttributes": {"verb": "get", "path": "/healthz"}}}, user=ALICE)
    assert non_resource["status"] == {"allowed": False}
    assert (seen[-1].resource_request, seen[-1].path) == (False, "/healthz")


@pytest.mark.parametrize(("resource", "body", "message"), [
    ("subjectaccessreviews", {"spec": {"user": "u"}},
     # observed on kube-apiserver v1.37.2: one union error on spec (validation.ValidateSubjectAccessReviewSpec)
     '.authorization.k8s.io "" is invalid: spec: Invalid value: null: exactly one of '
     "nonResourceAttributes or resourceAttributes must be specified"),
    ("subjectaccessreviews", {"spec": CREATE_PODS},
     '.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be '
     "specified"),
])
def test_review_validation(resource, body, message):
    # The kind is empty, as upstream's: the REST storage names the decoded internal object's (empty) TypeMeta.
    with pytest.raises(errors.Invalid) as info:
        Store().create(resource, body, user=ALICE)
    assert info.value.message == message


def test_review_metadata_must_be_empty():
    with pytest.raises(errors.Invalid) as info:
        Store().create("selfsubjectaccessreviews", {"metadata": {"name": "x"}, "spec": CREATE_PODS})
    assert info.value.field_errors[0].field == "metadata" and info.value.message.endswith(": must be empty")


def test_local_subject_access_review_is_confined_to_its_namespace():
    kube = Store()
    body = {"spec": {**CREATE_PODS, "user": "alice"}}
    out = kube.create("localsubjectaccessreviews", body, "default")
    assert _without_times(out["metadata"].pop("managedFields")) == [
        {**RESOURCE_ATTRIBUTES_ENTRY, "fieldsV1": {"f:spec": {**RESOURCE_ATTRIBUTES_ENTRY["fieldsV1"]["f:spec"],
                                                              "f:user": {}}}}]
    assert out["metadata"] == {"namespace": "default"}  # no zero creationTimestamp (omitzero)
    assert out["status"] == {"allowed": True}
    with pytest.raises(errors.Invalid) as info:
        kube.create("localsubjectaccessreviews", body, "kube-system")
    assert "spec.resourceAttributes.namespace: Invalid value: \"default\": must match metadata.namespace" in (
        info.value.message)
    with pytest.raises(errors.BadRequest):
        kube.create("localsubjectaccessreviews", {"metadata": {"namespace": "a"}, "spec": body["spec"]}, "default")


def test_self_subject_rules_review_lists_everything_under_always_allow():
    kube = Store()
    out = kube.create("selfsubjectrulesreviews", {"spec": {"namespace": "default"}}, user=ALICE)
    assert out["spec"] == {} and out["status"] == {
        "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
        "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
        "incomplete": False,
    }
    kube.authorizer = lambda attrs: True
    assert kube.create("selfsubjectrulesreviews", {"spec": {"namespace": "default"}})["status"]["incomplete"] is True
    with pytest.raises(errors.BadRequest, match="no namespace on request"):
        kube.create("selfsubjectrulesreviews", {"spec": {}})


def test_reviews_are_create_only_and_never_listed():
    kube = Store()
    kube.create("selfsubjectaccessreviews", {"spec": CREATE_PODS})
    assert kube.count("selfsubjectaccessreviews") == 0
    assert kube.resolve("selfsubjectaccessreviews").verbs == ("create",)

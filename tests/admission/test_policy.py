"""ValidatingAdmissionPolicy through the store: the decisions, texts and codes the real server gives
(the differential cases vap/* hold the real server's answers; these are the quick checks of the same rules)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store

V1 = "admissionregistration.k8s.io/v1"
CM_RULES = [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"],
             "operations": ["CREATE", "UPDATE", "DELETE"]}]


def policy(kube: Store, name: str, **spec: Any) -> None:
    spec.setdefault("matchConstraints", {"resourceRules": CM_RULES})
    kube.create("validatingadmissionpolicies", {"apiVersion": V1, "kind": "ValidatingAdmissionPolicy",
                                                "metadata": {"name": name}, "spec": spec})


def binding(kube: Store, name: str, policy_name: str, actions: tuple[str, ...] = ("Deny",), **spec: Any) -> None:
    kube.create("validatingadmissionpolicybindings", {
        "apiVersion": V1, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
        "spec": {"policyName": policy_name, "validationActions": list(actions), **spec}})


def cm(name: str, data: dict[str, str] | None = None, **meta: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}}
    if data is not None:
        body["data"] = data
    return body


def refusal(kube: Store, body: dict[str, Any]) -> errors.ApiError:
    with pytest.raises(errors.ApiError) as caught:
        kube.create("configmaps", body, "default")
    return caught.value


def test_deny_status_as_upstream(kube: Store) -> None:
    policy(kube, "p", validations=[{"expression": "object.metadata.name != 'bad'"},
                                   {"expression": "object.metadata.name != 'worse'", "message": "no", "reason": "Forbidden"}])
    binding(kube, "b", "p")
    status = refusal(kube, cm("bad")).status
    message = "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object.metadata.name != 'bad'"
    assert status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "message": f'configmaps "bad" is forbidden: {message}', "reason": "Invalid",
                      "details": {"name": "bad", "kind": "configmaps", "causes": [{"message": message}]}, "code": 422}
    assert refusal(kube, cm("worse")).code == 403
    assert not [o for o in kube.objects("configmaps", "default") if o["metadata"]["name"] in ("bad", "worse")]


def test_no_binding_or_no_policy_does_nothing(kube: Store) -> None:
    policy(kube, "lonely", validations=[{"expression": "false"}])
    binding(kube, "orphan", "missing")
    kube.create("configmaps", cm("x"), "default")


def test_warn_and_audit(kube: Store) -> None:
    policy(kube, "p", validations=[{"expression": "false", "message": "tut"}],
           auditAnnotations=[{"key": "seen", "valueExpression": "'saw ' + object.metadata.name"}])
    binding(kube, "b", "p", ("Warn", "Audit"))
    kube.create("configmaps", cm("x"), "default")
    entry = kube.last_request()
    assert entry is not None and entry.code == 201
    assert entry.warnings == ["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': tut"]
    assert entry.request is not None
    assert entry.request.annotations == {
        "p/seen": "saw x",
        "validation.policy.admission.k8s.io/validation_failure":
            '[{"message":"tut","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Warn","Audit"]}]'}


def test_params_and_not_found_actions(kube: Store) -> None:
    kube.create("configmaps", cm("limits", {"max": "1"}), "default")
    policy(kube, "p", paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
           validations=[{"expression": "size(object.data) <= int(params.data.max)",
                         "messageExpression": "'at most ' + params.data.max"}])
    checked = {"objectSelector": {"matchLabels": {"checked": "yes"}}}
    binding(kube, "b", "p", paramRef={"name": "limits", "parameterNotFoundAction": "Deny"}, matchResources=checked)
    assert "denied request: at most 1" in refusal(kube, cm("big", {"a": "1", "b": "2"}, labels={"checked": "yes"})).message
    kube.create("configmaps", cm("small", {"a": "1"}, labels={"checked": "yes"}), "default")
    kube.delete("configmaps", "limits", "default")
    assert refusal(kube, cm("any", {"a": "1"}, labels={"checked": "yes"})).message.endswith(
        "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction")


def test_failure_policy_and_errors(kube: Store) -> None:
    policy(kube, "p", failurePolicy="Ignore", validations=[{"expression": "object.data.x == 'y'"}])
    binding(kube, "b", "p")
    kube.create("configmaps", cm("ignored", {"a": "1"}), "default")
    kube.update("validatingadmissionpolicies", {**kube.get("validatingadmissionpolicies", "p"),
                                                "spec": {**kube.get("validatingadmissionpolicies", "p")["spec"],
                                                         "failurePolicy": "Fail"}})
    assert refusal(kube, cm("failed", {"a": "1"})).message.endswith(
        "denied request: expression 'object.data.x == 'y'' resulted in error: no such key: x")


def test_variables_and_delete(kube: Store) -> None:
    policy(kube, "p", variables=[{"name": "name", "expression": "(object == null ? oldObject : object).metadata.name"},
                                 {"name": "bad", "expression": "object.nope"}],
           validations=[{"expression": "request.operation != 'DELETE' || variables.name != 'keep'",
                         "messageExpression": "'keep ' + request.operation"},
                        {"expression": "variables.name != 'boom' || variables.bad"}])
    binding(kube, "b", "p")
    kube.create("configmaps", cm("keep"), "default")
    with pytest.raises(errors.ApiError, match="denied request: keep DELETE") as caught:
        kube.delete("configmaps", "keep", "default")
    assert caught.value.code == 422
    assert 'composited variable "bad" fails to evaluate: no such key: nope' in refusal(kube, cm("boom")).message


def test_policy_expressions_compiled_on_write(kube: Store) -> None:
    with pytest.raises(errors.Invalid, match=r"spec.validations\[0\].expression: Invalid value: \"'s'\": "
                                             "must evaluate to bool but got string"):
        policy(kube, "p", validations=[{"expression": "'s'"}])


def test_policies_do_not_judge_policies(kube: Store) -> None:
    policy(kube, "p", matchConstraints={"resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"],
                                                           "resources": ["*"], "operations": ["*"]}]},
           validations=[{"expression": "false"}])
    binding(kube, "b", "p")
    binding(kube, "b2", "p")  # a binding's create is not judged by the policy it binds
    with pytest.raises(errors.ApiError):
        kube.create("configmaps", cm("x"), "default")


def test_authorizer_asks_the_store_authorizer_for_the_requests_user(kube: Store) -> None:
    policy(kube, "p", validations=[{
        "expression": "authorizer.group('apps').resource('deployments').namespace('default').check('delete')"
                      ".allowed() && authorizer.requestResource.check('create').allowed()",
        "message": "not allowed"}])
    binding(kube, "b", "p")
    kube.create("configmaps", cm("a"), "default")  # no authorizer: everything is allowed
    asked: list[tuple[str, str, str, str | None]] = []

    def authorizer(attrs: Any) -> bool:
        asked.append((attrs.user, attrs.verb, attrs.resource, attrs.namespace))
        return attrs.resource != "deployments"

    kube.authorizer = authorizer
    with pytest.raises(errors.ApiError, match="denied request: not allowed"):
        kube.create("configmaps", cm("b"), "default", actor="alice")
    assert asked == [("alice", "delete", "deployments", "default")]


def test_kubernetes_libraries_and_macros_in_policies(kube: Store) -> None:
    # The base environment's format and semver libraries, sortBy and the two-variable comprehensions
    # (k8s.io/apiserver pkg/cel/environment/base.go, v0.37.2) in a policy's expressions and messages.
    policy(kube, "libs", validations=[
        {"expression": "!has(object.data) || object.data.all(k, v, !format.dns1123Label().validate(k).hasValue())",
         "messageExpression": "'keys must be DNS labels'"},
        {"expression": "!has(object.data) || !('v' in object.data) || isSemver(object.data.v, true)",
         "message": "v must be a version"},
        {"expression": "!has(object.data) || object.data.transformList(k, v, k).sortBy(k, k)[0] != 'zzz'"},
    ])
    binding(kube, "libs", "libs")
    kube.create("configmaps", cm("ok", {"a": "1", "v": "v1.2"}), "default")
    assert "keys must be DNS labels" in refusal(kube, cm("k", {"A_B": "1"})).status["message"]
    assert "v must be a version" in refusal(kube, cm("v", {"v": "one"})).status["message"]
    assert "failed expression: !has(object.data) || object.data.transformList" in refusal(
        kube, cm("z", {"zzz": "1"})).status["message"]

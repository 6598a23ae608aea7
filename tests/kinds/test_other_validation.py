"""Validation of the other kinds operators trip on, with cases restated from upstream's validation tests:
kubernetes ``pkg/apis/core/validation/validation_test.go`` (TestValidateConfigMapUpdate, TestValidateSecretUpdate,
TestValidateSecret, TestValidatePersistentVolumeClaimUpdate), ``pkg/apis/rbac/validation/validation_test.go``
(TestValidateRoleBindingUpdate, TestValidatePolicyRule...), ``pkg/apis/autoscaling/validation/validation_test.go``
(TestValidateHorizontalPodAutoscaler), ``pkg/apis/policy/validation/validation_test.go``
(TestValidateMinAvailablePodDisruptionBudgetSpec), ``pkg/apis/networking/validation/validation_test.go``
(TestValidateIngress...), ``pkg/apis/storage/validation/validation_test.go`` (TestValidateStorageClassUpdate),
``pkg/apis/scheduling/validation/validation_test.go`` (TestValidatePriorityClassUpdate)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store


def _causes(err: errors.ApiError) -> list[str]:
    return [f"{c['field']}: {c['message']}" for c in err.status["details"]["causes"]]


def _update_fails(kube: Store, resource: str, body: dict[str, Any], namespace: str | None = "default") -> list[str]:
    with pytest.raises(errors.Invalid) as caught:
        kube.update(resource, body, namespace)
    return _causes(caught.value)


@pytest.mark.parametrize("resource", ["configmaps", "secrets"])
def test_immutable_data(kube: Store, resource: str) -> None:
    live = kube.create(resource, {"metadata": {"name": "c"}, "data": {"k": "djE="}, "immutable": True}, "default")
    live["data"] = {"k": "djI="}
    assert _update_fails(kube, resource, dict(live)) == ["data: Forbidden: field is immutable when `immutable` is set"]
    live["data"], live["immutable"] = {"k": "djE="}, False
    assert _update_fails(kube, resource, dict(live)) == [
        "immutable: Forbidden: field is immutable when `immutable` is set"]
    live["immutable"] = True
    live["metadata"]["labels"] = {"still": "editable"}
    assert kube.update(resource, live, "default")["metadata"]["labels"] == {"still": "editable"}


def test_secret_type_and_keys(kube: Store) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("secrets", {"metadata": {"name": "tls"}, "type": "kubernetes.io/tls", "data": {}}, "default")
    assert _causes(caught.value) == ["data[tls.crt]: Required value", "data[tls.key]: Required value"]
    live = kube.create("secrets", {"metadata": {"name": "s"}}, "default")
    live["type"] = "kubernetes.io/basic-auth"
    assert _update_fails(kube, "secrets", live) == ['type: Invalid value: "kubernetes.io/basic-auth": field is immutable']
    with pytest.raises(errors.Invalid) as caught:
        kube.create("configmaps", {"metadata": {"name": "c"}, "data": {"bad key": "v"}}, "default")
    assert _causes(caught.value) == [
        "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', "
        "'_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]


def test_remembered_config_keys_still_reject_bad_ones(kube: Store) -> None:
    # Valid keys are remembered across writes; an update that adds a bad key or a duplicate is still a 422.
    live = kube.create("configmaps", {"metadata": {"name": "c"}, "data": {"good": "v"}}, "default")
    live["data"]["bad key"] = "v"
    live["binaryData"] = {"good": "djE="}
    assert _update_fails(kube, "configmaps", live) == [
        "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, "
        "'-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
        "'[-._a-zA-Z0-9]+')",
        "binaryData[good]: Invalid value: \"good\": duplicate of key present in data"]


def test_string_data_folds_into_data(kube: Store) -> None:
    secret = kube.create("secrets", {"metadata": {"name": "s"}, "stringData": {"password": "hunter2"}}, "default")
    assert secret["data"] == {"password": "aHVudGVyMg=="} and "stringData" not in secret


def _pvc(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                   "resources": {"requests": {"storage": "1Gi"}}, **spec}}


def test_pvc_spec_is_immutable_but_a_bound_claim_may_grow(kube: Store) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("persistentvolumeclaims", {"metadata": {"name": "x"}, "spec": {}}, "default")
    assert _causes(caught.value) == ["spec.accessModes: Required value: at least 1 access mode is required",
                                     "spec.resources[storage]: Required value"]
    live = kube.create("persistentvolumeclaims", _pvc(), "default")
    live["spec"]["accessModes"] = ["ReadWriteMany"]
    assert _update_fails(kube, "persistentvolumeclaims", live) == [
        "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName "
        "for bound claims"]
    # The PV controller binds it (volumeName once, then status), and then the request may grow but not shrink.
    bound = kube.patch("persistentvolumeclaims", "data", {"spec": {"volumeName": "pv-1"}}, "default")
    assert bound["spec"]["volumeName"] == "pv-1"
    kube.patch("persistentvolumeclaims", "data", {"status": {"phase": "Bound", "capacity": {"storage": "1Gi"}}},
               "default", subresource="status")
    grown = kube.patch("persistentvolumeclaims", "data", {"spec": {"resources": {"requests": {"storage": "2Gi"}}}},
                       "default")
    assert grown["spec"]["resources"]["requests"]["storage"] == "2Gi"
    with pytest.raises(errors.Invalid) as caught:
        kube.patch("persistentvolumeclaims", "data", {"spec": {"resources": {"requests": {"storage": "512Mi"}}}},
                   "default")
    assert _causes(caught.value) == [
        "spec.resources.requests.storage: Forbidden: field can not be less than status.capacity"]


def test_rbac(kube: Store) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("roles", {"metadata": {"name": "r"}, "rules": [{"apiGroups": [""], "resources": ["pods"]},
                                                                   {"verbs": ["get"], "nonResourceURLs": ["/x"]}]},
                    "default")
    assert _causes(caught.value) == [
        "rules[0].verbs: Required value: verbs must contain at least one value",
        'rules[1].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs']
    binding = kube.create("rolebindings", {"metadata": {"name": "b"}, "roleRef": {"kind": "Role", "name": "r"},
                                           "subjects": [{"kind": "ServiceAccount", "name": "default"}]}, "default")
    binding["roleRef"]["name"] = "other"
    assert _update_fails(kube, "rolebindings", binding) == [
        'roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"other"}: '
        "cannot change roleRef"]
    with pytest.raises(errors.Invalid) as caught:
        kube.create("clusterrolebindings", {"metadata": {"name": "c"}, "roleRef": {"kind": "Role", "name": "r"},
                                            "subjects": [{"kind": "ServiceAccount", "name": "sa"}]})
    assert _causes(caught.value) == [
        'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
        "subjects[0].namespace: Required value"]


@pytest.mark.parametrize(("spec", "expected"), [
    ({"minReplicas": 0, "maxReplicas": 5}, ["spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"]),
    ({"minReplicas": 3, "maxReplicas": 2}, ["spec.maxReplicas: Invalid value: 2: must be greater than or equal to "
                                            "`minReplicas`"]),
    # minReplicas defaults to 1; the declarative required error comes last (observed on kube-apiserver v1.37.2)
    ({"maxReplicas": 0}, ["spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
                          "spec.maxReplicas: Required value"]),
])
def test_hpa(kube: Store, spec: dict[str, Any], expected: list[str]) -> None:
    body = {"metadata": {"name": "h"}, "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, **spec}}
    with pytest.raises(errors.Invalid) as caught:
        kube.create("horizontalpodautoscalers", body, "default")
    assert _causes(caught.value) == expected


def test_pdb(kube: Store) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("poddisruptionbudgets", {"metadata": {"name": "p"}, "spec": {
            "minAvailable": 1, "maxUnavailable": 1}}, "default")
    # observed on kube-apiserver v1.37.2: an internal type's bad value is json.Marshal'd under its Go field names
    assert _causes(caught.value) == ['spec: Invalid value: {"MinAvailable":1,"Selector":null,"MaxUnavailable":1,'
                                     '"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be '
                                     "both set"]
    live = kube.create("poddisruptionbudgets", {"metadata": {"name": "q"}, "spec": {"minAvailable": "50%"}}, "default")
    del live["metadata"]["resourceVersion"]
    with pytest.raises(errors.Invalid) as caught:
        kube.update("poddisruptionbudgets", live, "default")  # AllowUnconditionalUpdate is false
    assert _causes(caught.value) == ["metadata.resourceVersion: Invalid value: 0: must be specified for an update"]


def test_ingress(kube: Store) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("ingresses", {"metadata": {"name": "i"}, "spec": {}}, "default")
    assert _causes(caught.value) == ["spec: Invalid value: null: either `defaultBackend` or "
                                     "`rules` must be specified"]
    rules = [{"http": {"paths": [{"path": "/", "backend": {"service": {"name": "web", "port": {"number": 80}}}},
                                 {"path": "api", "pathType": "Prefix", "backend": {"service": {
                                     "name": "web", "port": {"number": 80}}}}]}}]
    with pytest.raises(errors.Invalid) as caught:
        kube.create("ingresses", {"metadata": {"name": "i"}, "spec": {"rules": rules}}, "default")
    assert _causes(caught.value) == [
        "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified",
        'spec.rules[0].http.paths[1].path: Invalid value: "api": must be an absolute path']


def test_storage_class_and_priority_class_updates(kube: Store) -> None:
    sc = kube.create("storageclasses", {"metadata": {"name": "s"}, "provisioner": "p", "parameters": {"a": "b"}})
    sc["parameters"] = {"a": "c"}
    assert _update_fails(kube, "storageclasses", sc, None) == [
        "parameters: Forbidden: updates to parameters are forbidden."]
    pc = kube.create("priorityclasses", {"metadata": {"name": "high"}, "value": 10})
    pc["value"] = 20
    assert _update_fails(kube, "priorityclasses", pc, None) == ["value: Forbidden: may not be changed in an update."]
    with pytest.raises(errors.Invalid) as caught:
        kube.create("priorityclasses", {"metadata": {"name": "huge"}, "value": 2_000_000_000})
    assert _causes(caught.value) == [
        "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]


def test_a_configmap_over_one_mebibyte_is_refused_as_a_whole(kube: Store) -> None:
    # observed on kube-apiserver v1.37.2 (ValidateConfigMap: core.MaxSecretSize over data and binaryData)
    limit = 1024 * 1024
    with pytest.raises(errors.Invalid) as caught:
        kube.create("configmaps", {"metadata": {"name": "big"}, "data": {"a": "x" * (limit - 2)},
                                   "binaryData": {"b": "eHh4"}}, "default")  # 3 decoded bytes
    assert caught.value.status["message"] == (
        'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes')
    kube.create("configmaps", {"metadata": {"name": "fits"}, "data": {"a": "é" * (limit // 2)}}, "default")


def test_a_pvcs_first_update_after_create_is_never_a_no_op(kube: Store) -> None:
    # observed on kube-apiserver v1.37.2: the create stores no status.phase (PrepareForCreate clears the status,
    # the v1 defaulting fills Pending on read), so the first update writes it: a new resourceVersion
    body = {"metadata": {"name": "c"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                               "resources": {"requests": {"storage": "1Gi"}}}}
    created = kube.create("persistentvolumeclaims", body, "default")
    first = kube.update("persistentvolumeclaims", body, "default")
    assert first["metadata"]["resourceVersion"] != created["metadata"]["resourceVersion"]
    second = kube.update("persistentvolumeclaims", body, "default")
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    kube.delete("persistentvolumeclaims", "c", "default")
    assert not kube.unwritten_defaults

"""Typed decoding of built-in kinds and fieldValidation (Ignore / Warn / Strict) in the store's verbs.

Expected messages are the real server's: apiserver pkg/endpoints/handlers/{create,update,patch}.go with
sigs.k8s.io/json's UnmarshalTypeError and strict errors (see fakekube/decoding.py for the sources).
"""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.decoding import json_body
from fakekube.store import Store

from .conftest import widget


def deployment(name: str = "web", **spec: object) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "app", "image": "nginx"}]}}, **spec}}


@pytest.mark.parametrize(("body", "message"), [
    ({"spec": {"containers": "x"}},
     "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container"),
    ({"spec": {"containers": [{"name": 5}]}},
     "json: cannot unmarshal number into Go struct field Container.spec.containers.name of type string"),
    ({"spec": {"containers": [{"name": "a", "ports": [{"containerPort": "80"}]}]}},
     "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort "
     "of type int32"),
    ({"spec": {"containers": [{"name": "a", "ports": [{"containerPort": 1.5}]}]}},
     "json: cannot unmarshal number 1.5 into Go struct field ContainerPort.spec.containers.ports.containerPort "
     "of type int32"),
    ({"metadata": {"name": "p", "labels": {"a": 1}}},
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
    ({"spec": []}, "json: cannot unmarshal array into Go struct field Pod.spec of type v1.PodSpec"),
    ({"spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": "lots"}}}]}},
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    # IntOrString and Time decode inside their own UnmarshalJSON; the outer decoder adds the struct field
    ({"spec": {"containers": [{"name": "a", "livenessProbe": {"httpGet": {"port": True}}}]}},
     "json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.containers.livenessProbe.ProbeHandler."
     "httpGet.port of type int32"),
    ({"spec": {"volumes": [{"name": "v", "configMap": {"name": 1}}]}},
     "json: cannot unmarshal number into Go struct field ConfigMapVolumeSource.spec.volumes.VolumeSource.configMap."
     "LocalObjectReference.name of type string"),
    ({"metadata": {"name": "p", "creationTimestamp": 5}},
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"),
    # a time string is parsed as RFC 3339: Go's *time.ParseError, without a field
    ({"metadata": {"name": "p", "creationTimestamp": "not a time"}},
     'parsing time "not a time" as "2006-01-02T15:04:05Z07:00": cannot parse "not a time" as "2006"'),
    ({"metadata": {"name": "p", "deletionTimestamp": "2020-13-01T00:00:00Z"}},
     'parsing time "2020-13-01T00:00:00Z": month out of range'),
    # Go's named types print by name (go_field_types.json): types.UID, v1.RestartPolicy, []v1.Capability
    ({"metadata": {"name": "p", "uid": 5}},
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID"),
    ({"spec": {"restartPolicy": 1}},
     "json: cannot unmarshal number into Go struct field PodSpec.spec.restartPolicy of type v1.RestartPolicy"),
    ({"spec": {"containers": [{"name": "a", "securityContext": {"capabilities": {"add": [1]}}}]}},
     "json: cannot unmarshal number into Go struct field Capabilities.spec.containers.securityContext."
     "capabilities.add of type v1.Capability"),
    ({"spec": {"containers": [{"name": "a", "securityContext": {"capabilities": {"add": "x"}}}]}},
     "json: cannot unmarshal string into Go struct field Capabilities.spec.containers.securityContext."
     "capabilities.add of type []v1.Capability"),
    ({"spec": {"containers": [{"name": "a", "resources": {"limits": []}}]}},
     "json: cannot unmarshal array into Go struct field ResourceRequirements.spec.containers.resources.limits "
     "of type v1.ResourceList"),
])
def test_wrong_json_types_are_the_decoders_400(kube: Store, body: dict, message: str) -> None:
    full = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, **body}
    with pytest.raises(errors.BadRequest) as caught:
        kube.create("pods", full, "default")
    assert caught.value.message == f'Pod in version "v1" cannot be handled as a Pod: {message}'
    assert kube.objects("pods") == []


def test_secret_data_must_be_base64(kube: Store) -> None:
    with pytest.raises(errors.BadRequest, match="illegal base64 data at input byte 5"):
        kube.create("secrets", {"metadata": {"name": "s"}, "data": {"k": "hello world"}}, "default")
    kube.create("secrets", {"metadata": {"name": "s"}, "data": {"k": "aGVsbG8="}}, "default")


def test_unknown_fields_are_dropped_and_warned_by_default(kube: Store) -> None:
    body = deployment(replica=3)
    body["spec"]["template"]["spec"]["containers"][0]["imagee"] = "typo"
    body["metadata"]["bogus"] = True
    created = kube.create("deployments", body, "default")
    assert "replica" not in created["spec"] and "bogus" not in created["metadata"]
    assert "imagee" not in created["spec"]["template"]["spec"]["containers"][0]
    assert kube.last_request().warnings == [
        'unknown field "metadata.bogus"', 'unknown field "spec.template.spec.containers[0].imagee"',
        'unknown field "spec.replica"']


def test_ignore_drops_silently(kube: Store) -> None:
    created = kube.create("configmaps", {"metadata": {"name": "c"}, "datta": {}}, "default", field_validation="Ignore")
    assert "datta" not in created and kube.last_request().warnings == []


def test_strict_create_and_update_fail_with_every_unknown_field(kube: Store) -> None:
    with pytest.raises(errors.BadRequest) as caught:
        kube.create("deployments", deployment(replica=3, paused2=True), "default", field_validation="Strict")
    assert caught.value.message == ('Deployment in version "v1" cannot be handled as a Deployment: strict decoding '
                                    'error: unknown field "spec.replica", unknown field "spec.paused2"')
    assert kube.objects("deployments") == []
    live = kube.create("deployments", deployment(), "default", field_validation="Strict")
    with pytest.raises(errors.BadRequest, match='strict decoding error: unknown field "spec.foo"'):
        kube.update("deployments", {**live, "spec": {**live["spec"], "foo": 1}}, "default", field_validation="Strict")


def test_an_unsupported_directive_is_invalid(kube: Store) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("configmaps", {"metadata": {"name": "c"}}, "default", field_validation="strict")
    assert caught.value.message == ('CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: '
                                    '"strict": supported values: "", "Ignore", "Strict", "Warn"')
    with pytest.raises(errors.Invalid, match="PatchOptions.meta.k8s.io"):
        kube.patch("namespaces", "default", {}, field_validation="nope")


def test_patches_report_unknown_fields_on_the_patch(kube: Store) -> None:
    kube.create("deployments", deployment(), "default")
    kube.patch("deployments", "web", {"spec": {"minReadySecond": 5}}, "default")
    assert kube.last_request().warnings == ['unknown field "spec.minReadySecond"']
    assert "minReadySecond" not in kube.get("deployments", "web", "default")["spec"]
    with pytest.raises(errors.Invalid) as caught:
        kube.patch("deployments", "web", {"spec": {"minReadySecond": 5}}, "default", field_validation="Strict")
    cause = caught.value.status["details"]["causes"][0]
    assert cause["field"] == "patch" and cause["message"].endswith(
        'strict decoding error: unknown field "spec.minReadySecond"')
    assert '\\"minReadySecond\\":5' in cause["message"]  # the patched document, as the server shows it
    # A strategic merge patch shows the patch itself, as Go prints a map.
    with pytest.raises(errors.Invalid) as caught:
        kube.patch("deployments", "web", {"spec": {"x": 1}}, "default",
                   patch_type="application/strategic-merge-patch+json", field_validation="Strict")
    assert 'Invalid value: "map[spec:map[x:1]]": strict decoding error: unknown field "spec.x"' in caught.value.message


def test_a_patch_that_breaks_a_type_is_a_422_on_patch(kube: Store) -> None:
    kube.create("deployments", deployment(), "default")
    with pytest.raises(errors.Invalid) as caught:
        kube.patch("deployments", "web", {"spec": {"replicas": "three"}}, "default")
    assert caught.value.status["details"]["causes"][0]["message"].endswith(
        "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32")
    with pytest.raises(errors.Invalid, match="cannot unmarshal string into Go struct field DeploymentSpec"):
        kube.patch("deployments", "web", [{"op": "add", "path": "/spec/replicas", "value": "3"}], "default",
                   patch_type="application/json-patch+json")


def test_json_patch_operations_with_unknown_fields(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
    ops = b'[{"op":"add","path":"/data","value":{"a":"1"},"valu":2}]'
    kube.patch("configmaps", "c", ops, "default", patch_type="application/json-patch+json")
    assert kube.last_request().warnings == ['json patch unknown field "[0].valu"']


def test_duplicate_fields_in_a_patch(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
    kube.patch("configmaps", "c", b'{"data":{"a":"1","a":"2"}}', "default")
    assert kube.last_request().warnings == ['duplicate field "data.a"']
    assert kube.get("configmaps", "c", "default")["data"] == {"a": "2"}  # the last one wins, as in Go
    with pytest.raises(errors.Invalid, match='strict decoding error: duplicate field "data.a"'):
        kube.patch("configmaps", "c", b'{"data":{"a":"1","a":"2"}}', "default", field_validation="Strict")


def test_duplicate_fields_of_a_decoded_body(kube: Store) -> None:
    body = json_body('{"metadata":{"name":"c","name":"d"},"data":{"k":"v"}}')
    assert body.duplicate_fields == ["metadata.name"] and body["metadata"] == {"name": "d"}
    with pytest.raises(errors.BadRequest, match='strict decoding error: duplicate field "metadata.name"'):
        kube.create("configmaps", body, "default", field_validation="Strict")


def test_server_side_apply_refuses_fields_the_schema_does_not_declare(kube: Store) -> None:
    config = deployment()
    config["spec"]["template"]["spec"]["containers"][0]["imagee"] = "x"
    with pytest.raises(errors.ApiError) as caught:
        kube.patch("deployments", "web", config, "default", patch_type="application/apply-patch+yaml",
                   field_manager="me")
    assert caught.value.code == 500
    assert caught.value.message == ('failed to create typed patch object (/web; apps/v1, Kind=Deployment): '
                                    '.spec.template.spec.containers[name="app"].imagee: field not declared in schema')


# What events.k8s.io/v1 validation requires besides reason (pkg/apis/core/validation/events.go).
VALID_EVENT = {"eventTime": "2026-01-01T00:00:00.000000Z", "type": "Normal", "action": "Started",
               "reportingController": "kubelet", "reportingInstance": "n1"}


def test_events_k8s_io_bodies_decode_with_their_own_schema(kube: Store) -> None:
    kube.create("events.events.k8s.io", {"metadata": {"name": "e"}, "note": "hi", "regarding": {"kind": "Pod"},
                                         "reason": "R", "bogus": 1, **VALID_EVENT}, "default")
    assert kube.last_request().warnings == ['unknown field "bogus"']
    assert kube.get("events", "e", "default")["message"] == "hi"


def test_custom_resources_prune_and_report_like_upstream(crd_kube: Store) -> None:
    crd_kube.create("widgets", {**widget(bogus=1), "metadata": {"name": "w1", "nope": 1}}, "default")
    assert crd_kube.last_request().warnings == ['unknown field "metadata.nope"', 'unknown field "spec.bogus"']
    with pytest.raises(errors.BadRequest) as caught:
        crd_kube.create("widgets", widget("w2", bogus=1), "default", field_validation="Strict")
    assert caught.value.message == ('Widget in version "v1" cannot be handled as a Widget: strict decoding error: '
                                    'unknown field "spec.bogus"')
    crd_kube.patch("widgets", "w1", {"status": {"phase": "Up", "phaze": "x"}}, "default", subresource="status")
    assert crd_kube.last_request().warnings == ['unknown field "status.phaze"']
    assert crd_kube.get("widgets", "w1", "default")["status"] == {"phase": "Up"}
    crd_kube.patch("widgets", "w1", {"spec": {"extra": {"anything": 1}}}, "default")
    assert crd_kube.last_request().warnings == []  # preserve-unknown-fields keeps it

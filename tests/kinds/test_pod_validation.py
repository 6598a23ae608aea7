"""Pod validation: the 422 causes and messages, with cases restated from kubernetes
``pkg/apis/core/validation/validation_test.go`` (TestValidateContainers, TestValidateInitContainers,
TestValidateRestartPolicy, TestValidateDNSPolicy, TestValidateTolerations, TestValidatePodCreate,
TestValidatePodUpdate, TestValidateResourceRequirements, TestValidatePorts)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store
from tests.kinds.conftest import pod


def _invalid(kube: Store, body: dict[str, Any]) -> errors.Invalid:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("pods", body, "default")
    return caught.value


def _causes(err: errors.Invalid) -> list[str]:
    return [f"{c['field']}: {c['message']}" for c in err.status["details"]["causes"]]


def test_a_container_without_a_name_is_422_with_upstreams_message(kube: Store) -> None:
    err = _invalid(kube, pod(containers=[{"image": "nginx"}]))
    assert err.code == 422
    assert err.message == 'Pod "p" is invalid: spec.containers[0].name: Required value'
    assert err.status["details"] == {"name": "p", "kind": "Pod", "causes": [
        {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.containers[0].name"}]}
    assert kube.count("pods") == 0


@pytest.mark.parametrize(("containers", "expected"), [
    # TestValidateContainers error cases.
    ([{"image": "image"}], ["spec.containers[0].name: Required value"]),
    ([{"name": "abc"}], ["spec.containers[0].image: Required value"]),
    ([{"name": "a" * 64, "image": "image"}], ["spec.containers[0].name: Invalid value: \"" + "a" * 64 +
                                              "\": must be no more than 63 characters"]),
    ([{"name": "a.b.c", "image": "image"}],
     ['spec.containers[0].name: Invalid value: "a.b.c": must not contain dots']),
    ([{"name": "abc", "image": "image"}, {"name": "abc", "image": "image"}],
     ['spec.containers[1].name: Duplicate value: "abc"']),
    ([{"name": "abc", "image": "image", "terminationMessagePolicy": "Unknown"}],
     ['spec.containers[0].terminationMessagePolicy: Unsupported value: "Unknown": supported values: "File", '
      '"FallbackToLogsOnError"']),
    ([{"name": "abc", "image": "image", "imagePullPolicy": "Sometimes"}],
     ['spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", '
      '"IfNotPresent", "Never"']),
    ([{"name": "abc", "image": " image "}],
     ['spec.containers[0].image: Invalid value: " image ": must not have leading or trailing whitespace']),
])
def test_container_errors(kube: Store, containers: list[dict[str, Any]], expected: list[str]) -> None:
    assert _causes(_invalid(kube, pod(containers=containers))) == expected


def test_no_containers(kube: Store) -> None:
    assert _causes(_invalid(kube, pod(containers=[]))) == ["spec.containers: Required value"]


def test_init_container_names_must_differ_from_containers(kube: Store) -> None:
    body = pod(initContainers=[{"name": "app", "image": "busybox"}])
    assert _causes(_invalid(kube, body)) == ['spec.initContainers[0].name: Duplicate value: "app"']


@pytest.mark.parametrize(("port", "expected"), [
    # TestValidatePorts error cases.
    ({"containerPort": 0}, ["spec.containers[0].ports[0].containerPort: Required value"]),
    ({"containerPort": 65536}, ["spec.containers[0].ports[0].containerPort: Invalid value: 65536: must be between "
                                "1 and 65535, inclusive"]),
    ({"containerPort": 80, "hostPort": 65536}, ["spec.containers[0].ports[0].hostPort: Invalid value: 65536: "
                                                "must be between 1 and 65535, inclusive"]),
    ({"containerPort": 80, "protocol": "BAD"}, ['spec.containers[0].ports[0].protocol: Unsupported value: "BAD": '
                                                'supported values: "SCTP", "TCP", "UDP"']),
    ({"containerPort": 80, "name": "Http"}, ['spec.containers[0].ports[0].name: Invalid value: "Http": must '
                                             "contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"]),
    ({"containerPort": 80, "name": "1234"}, ['spec.containers[0].ports[0].name: Invalid value: "1234": must '
                                             "contain at least one letter (a-z)"]),
])
def test_port_errors(kube: Store, port: dict[str, Any], expected: list[str]) -> None:
    assert _causes(_invalid(kube, pod(containers=[{"name": "a", "image": "i", "ports": [port]}]))) == expected


def test_duplicate_port_names(kube: Store) -> None:
    ports = [{"name": "web", "containerPort": 80}, {"name": "web", "containerPort": 81}]
    assert _causes(_invalid(kube, pod(containers=[{"name": "a", "image": "i", "ports": ports}]))) == [
        'spec.containers[0].ports[1].name: Duplicate value: "web"']


@pytest.mark.parametrize(("field", "value", "expected"), [
    ("restartPolicy", "Sometimes", 'spec.restartPolicy: Unsupported value: "Sometimes": supported values: '
                                   '"Always", "OnFailure", "Never"'),
    ("dnsPolicy", "Bogus", 'spec.dnsPolicy: Unsupported value: "Bogus": supported values: '
                           '"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"'),
])
def test_restart_and_dns_policies(kube: Store, field: str, value: str, expected: str) -> None:
    assert _causes(_invalid(kube, pod(**{field: value}))) == [expected]


def test_volume_mounts_must_name_a_volume(kube: Store) -> None:
    body = pod(containers=[{"name": "a", "image": "i", "volumeMounts": [{"name": "data", "mountPath": "/d"}]}])
    assert _causes(_invalid(kube, body)) == ['spec.containers[0].volumeMounts[0].name: Not found: "data"']


def test_requests_above_limits(kube: Store) -> None:
    # TestValidateResourceRequirements: requests may not exceed limits.
    body = pod(containers=[{"name": "a", "image": "i", "resources": {"limits": {"cpu": "1"},
                                                                      "requests": {"cpu": "2"}}}])
    assert _causes(_invalid(kube, body)) == [
        'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1']


@pytest.mark.parametrize(("toleration", "expected"), [
    # TestValidateTolerations error cases.
    ({"operator": "Equal", "value": "bar"},
     ['spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which '
      'means "match all values and all keys"']),
    ({"key": "foo", "operator": "Exists", "value": "bar"},
     ['spec.tolerations[0].operator: Invalid value: "bar": value must be empty when `operator` is \'Exists\'']),
    ({"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule", "tolerationSeconds": 20},
     ["spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
      "`tolerationSeconds` is set"]),
])
def test_toleration_errors(kube: Store, toleration: dict[str, Any], expected: list[str]) -> None:
    assert _causes(_invalid(kube, pod(tolerations=[toleration]))) == expected


def test_ephemeral_containers_cannot_be_set_on_create(kube: Store) -> None:
    body = pod(ephemeralContainers=[{"name": "debug", "image": "busybox"}])
    assert "spec.ephemeralContainers: Forbidden: cannot be set on create" in _causes(_invalid(kube, body))


# ------------------------------------------------------------------------------------------- updates

def _stored(kube: Store) -> dict[str, Any]:
    return kube.create("pods", pod(), "default")


def test_an_image_may_change(kube: Store) -> None:
    live = _stored(kube)
    live["spec"]["containers"][0]["image"] = "nginx:1.28"
    assert kube.update("pods", live, "default")["spec"]["containers"][0]["image"] == "nginx:1.28"


def test_other_spec_fields_may_not_change(kube: Store) -> None:
    live = _stored(kube)
    live["spec"]["restartPolicy"] = "Never"
    with pytest.raises(errors.Invalid) as caught:
        kube.update("pods", live, "default")
    (cause,) = caught.value.status["details"]["causes"]
    assert cause["field"] == "spec" and cause["reason"] == "FieldValueForbidden"
    assert cause["message"].startswith(
        "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
        "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n")
    assert "restartPolicy" in cause["message"]


def test_containers_may_not_be_added(kube: Store) -> None:
    live = _stored(kube)
    live["spec"]["containers"].append({"name": "sidecar", "image": "busybox"})
    with pytest.raises(errors.Invalid) as caught:
        kube.update("pods", live, "default")
    assert _causes(caught.value) == ["spec.containers: Forbidden: pod updates may not add or remove containers"]


def test_an_added_toleration_is_validated_on_update(kube: Store) -> None:
    # Unchanged tolerations are not checked again (the stored ones passed); added ones are.
    live = _stored(kube)
    live["spec"]["containers"][0]["image"] = "nginx:1.28"
    live = kube.update("pods", live, "default")
    live["spec"]["tolerations"].append({"operator": "Equal", "value": "x", "effect": "NoSchedule"})
    with pytest.raises(errors.Invalid) as caught:
        kube.update("pods", live, "default")
    assert _causes(caught.value) == [
        'spec.tolerations[2].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which '
        'means "match all values and all keys"']


def test_tolerations_may_only_be_added(kube: Store) -> None:
    live = _stored(kube)
    live["spec"]["tolerations"].append({"key": "gpu", "operator": "Exists", "effect": "NoSchedule"})
    assert len(kube.update("pods", live, "default")["spec"]["tolerations"]) == 3
    live = kube.get("pods", "p", "default")
    live["spec"]["tolerations"][2]["key"] = "tpu"
    with pytest.raises(errors.Invalid) as caught:
        kube.update("pods", live, "default")
    assert _causes(caught.value)[0] == ("spec.tolerations: Forbidden: existing toleration can not be modified except "
                                        "its tolerationSeconds")


@pytest.mark.parametrize(("old", "new", "expected"), [
    (None, 10, None),
    (10, 5, None),
    (10, 20, "spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value"),
])
def test_active_deadline_seconds_may_only_shrink(kube: Store, old: int | None, new: int,
                                                 expected: str | None) -> None:
    live = kube.create("pods", pod(**({"activeDeadlineSeconds": old} if old else {})), "default")
    live["spec"]["activeDeadlineSeconds"] = new
    if expected is None:
        assert kube.update("pods", live, "default")["spec"]["activeDeadlineSeconds"] == new
    else:
        with pytest.raises(errors.Invalid) as caught:
            kube.update("pods", live, "default")
        assert _causes(caught.value) == [expected]


def test_node_name_changes_only_through_binding(kube: Store) -> None:
    live = _stored(kube)
    with pytest.raises(errors.Invalid):
        kube.patch("pods", "p", {"spec": {"nodeName": "node-1"}}, "default")
    answer = kube.bind("p", {"target": {"name": "node-1"}}, "default", actor="default-scheduler")
    assert answer["status"] == "Success"
    bound = kube.get("pods", "p", "default")
    assert bound["spec"]["nodeName"] == "node-1"
    assert [(c["type"], c["status"]) for c in bound["status"]["conditions"]] == [("PodScheduled", "True")]
    assert bound["metadata"]["generation"] == live["metadata"]["generation"]
    with pytest.raises(errors.Conflict) as caught:
        kube.bind("p", {"target": {"name": "node-2"}}, "default")
    assert caught.value.message == ('Operation cannot be fulfilled on pods/binding "p": pod p is already assigned '
                                    'to node "node-1"')
    entry = kube.audit.entries[-1]
    assert (entry.verb, entry.subresource, entry.code) == ("create", "binding", 409)


def test_a_remembered_container_is_checked_again_where_the_pod_or_its_use_differs(kube: Store) -> None:
    # Valid containers are remembered (podvalidation._VALID_CONTAINERS): what depends on the pod still counts.
    container = {"name": "abc", "image": " image ", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}
    volumes = [{"name": "data", "emptyDir": {}}]
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [container], "volumes": volumes}}
    kube.create("deployments", {"metadata": {"name": "web"}, "spec": {"selector": {"matchLabels": {"app": "web"}},
                                                                      "template": template}}, "default")
    # A template's image may have whitespace, a pod's may not.
    assert _causes(_invalid(kube, pod(containers=[container], volumes=volumes))) == [
        'spec.containers[0].image: Invalid value: " image ": must not have leading or trailing whitespace']
    fine = {**container, "image": "image"}
    kube.create("pods", pod("ok", containers=[fine], volumes=volumes), "default")
    # The same container in a pod without its volume.
    assert _causes(_invalid(kube, pod("other", containers=[fine]))) == [
        'spec.containers[0].volumeMounts[0].name: Not found: "data"']
    assert _causes(_invalid(kube, pod("third", containers=[{**fine, "imagePullPolicy": "Sometimes"}],
                                      volumes=volumes))) == [
        'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", '
        '"IfNotPresent", "Never"']


def test_the_qos_class_follows_each_pods_resources(kube: Store) -> None:
    def qos(name: str, resources: dict[str, Any]) -> str:
        answer = kube.create("pods", pod(name, containers=[{"name": "c", "image": "i", "resources": resources}]),
                             "default")
        return answer["status"]["qosClass"]

    both = {"cpu": "1", "memory": "1Gi"}
    assert [qos("a", {}), qos("b", {"limits": both}), qos("c", {"requests": both}), qos("d", {}),
            qos("e", {"limits": both})] == ["BestEffort", "Guaranteed", "Burstable", "BestEffort", "Guaranteed"]

"""The mutating admission plugins every cluster runs, with cases restated from upstream's plugin tests:
``plugin/pkg/admission/defaulttolerationseconds/admission_test.go`` (TestForgivenessAdmission),
``plugin/pkg/admission/serviceaccount/admission_test.go`` (TestAssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens,
TestRejectsMirrorPodWithServiceAccount, TestAutomountsAPIToken, TestRespectsExistingMount,
TestDoNotAddImagePullSecrets, TestAddImagePullSecrets, TestMissingServiceAccount...),
``plugin/pkg/admission/priority/admission_test.go`` (TestPodAdmission, TestPriorityClassAdmission) and
``plugin/pkg/admission/storage/storageclass/setdefault/admission_test.go`` (TestAdmission)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store
from tests.kinds.conftest import pod

NOT_READY = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300}
UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
               "tolerationSeconds": 300}


# --------------------------------------------------------------------------- DefaultTolerationSeconds

@pytest.mark.parametrize(("given", "expected"), [
    ([], [NOT_READY, UNREACHABLE]),
    ([{"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}],
     [{"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}, NOT_READY, UNREACHABLE]),
    ([{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 700}],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 700},
      UNREACHABLE]),
    ([{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 700, "effect": "NoExecute"}],
     [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 700, "effect": "NoExecute"},
      NOT_READY]),
    # An empty key with Exists tolerates every taint: nothing is added.
    ([{"operator": "Exists"}], [{"operator": "Exists"}]),
])
def test_default_toleration_seconds(kube: Store, given: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    assert kube.create("pods", pod(tolerations=given), "default")["spec"]["tolerations"] == expected


# --------------------------------------------------------------------------- ServiceAccount

def test_a_pod_gets_the_default_service_account_and_a_projected_token(kube: Store) -> None:
    spec = kube.create("pods", pod(initContainers=[{"name": "init", "image": "busybox"}]), "default")["spec"]
    assert (spec["serviceAccountName"], spec["serviceAccount"]) == ("default", "default")
    (volume,) = spec["volumes"]
    assert volume["name"].startswith("kube-api-access-") and len(volume["name"]) == len("kube-api-access-") + 5
    assert volume["projected"] == {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1",
                                                                       "fieldPath": "metadata.namespace"}}]}}]}
    mount = {"name": volume["name"], "readOnly": True, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
    assert spec["containers"][0]["volumeMounts"] == [mount]
    assert spec["initContainers"][0]["volumeMounts"] == [mount]


def test_the_volume_name_is_deterministic_per_seed() -> None:
    names = [Store(seed=3).create("pods", pod(), "default")["spec"]["volumes"][0]["name"] for _ in range(2)]
    assert names[0] == names[1]


def test_automount_can_be_turned_off_by_the_pod_or_the_service_account(kube: Store) -> None:
    assert "volumes" not in kube.create("pods", pod("a", automountServiceAccountToken=False), "default")["spec"]
    kube.create("serviceaccounts", {"metadata": {"name": "quiet"}, "automountServiceAccountToken": False}, "default")
    assert "volumes" not in kube.create("pods", pod("b", serviceAccountName="quiet"), "default")["spec"]
    # The pod's preference wins over the account's.
    spec = kube.create("pods", pod("c", serviceAccountName="quiet", automountServiceAccountToken=True), "default")["spec"]
    assert spec["volumes"][0]["name"].startswith("kube-api-access-")


def test_an_existing_mount_at_the_token_path_is_respected(kube: Store) -> None:
    mount = {"name": "mine", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
    body = pod(containers=[{"name": "a", "image": "i", "volumeMounts": [mount]}], volumes=[{"name": "mine"}])
    spec = kube.create("pods", body, "default")["spec"]
    assert [v["name"] for v in spec["volumes"]] == ["mine"]


def test_image_pull_secrets_come_from_the_service_account(kube: Store) -> None:
    kube.create("serviceaccounts", {"metadata": {"name": "puller"}, "imagePullSecrets": [{"name": "regcred"}]},
                "default")
    assert kube.create("pods", pod("a", serviceAccountName="puller"), "default")["spec"]["imagePullSecrets"] == [
        {"name": "regcred"}]
    own = kube.create("pods", pod("b", serviceAccountName="puller", imagePullSecrets=[{"name": "mine"}]), "default")
    assert own["spec"]["imagePullSecrets"] == [{"name": "mine"}]


def test_a_missing_service_account_is_403(kube: Store) -> None:
    with pytest.raises(errors.Forbidden) as caught:
        kube.create("pods", pod(serviceAccountName="ghost"), "default")
    assert caught.value.message == ('pods "p" is forbidden: error looking up service account default/ghost: '
                                    'serviceaccount "ghost" not found')
    assert caught.value.status["details"] == {"name": "p", "kind": "pods"}
    generated = {"metadata": {"generateName": "web-"}, "spec": {"serviceAccountName": "ghost",
                                                                "containers": [{"name": "a", "image": "b"}]}}
    with pytest.raises(errors.Forbidden) as caught:
        kube.create("pods", generated, "default")
    assert caught.value.message.startswith('pods "web-" is forbidden')  # the name is not generated yet


def test_mirror_pods_may_not_name_a_service_account(kube: Store) -> None:
    body = pod(serviceAccountName="default", nodeName="n")
    body["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "x"}
    with pytest.raises(errors.Forbidden) as caught:
        kube.create("pods", body, "default")
    assert caught.value.message.endswith("a mirror pod may not reference service accounts")


# --------------------------------------------------------------------------- Priority

def test_pods_get_priority_zero_without_a_default_class(kube: Store) -> None:
    spec = kube.create("pods", pod(), "default")["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (0, "PreemptLowerPriority")
    assert "priorityClassName" not in spec


def test_priority_from_a_class_and_the_global_default(kube: Store) -> None:
    kube.create("priorityclasses", {"metadata": {"name": "high"}, "value": 1000, "preemptionPolicy": "Never"})
    spec = kube.create("pods", pod("a", priorityClassName="high"), "default")["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (1000, "Never")
    kube.create("priorityclasses", {"metadata": {"name": "base"}, "value": 10, "globalDefault": True})
    spec = kube.create("pods", pod("b"), "default")["spec"]
    assert (spec["priorityClassName"], spec["priority"]) == ("base", 10)
    with pytest.raises(errors.Forbidden) as caught:
        kube.create("priorityclasses", {"metadata": {"name": "other"}, "value": 5, "globalDefault": True})
    assert caught.value.message == ('priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass base is '
                                    "already marked as default. Only one default can exist")


def test_system_priority_classes_resolve_without_objects(kube: Store) -> None:
    spec = kube.create("pods", pod(priorityClassName="system-node-critical"), "kube-system")["spec"]
    assert spec["priority"] == 2000001000


@pytest.mark.parametrize(("spec", "message"), [
    ({"priorityClassName": "nope"}, 'pods "p" is forbidden: no PriorityClass with name nope was found'),
    ({"priority": 7}, 'pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; '
                      "priority admission controller computed 0 from the given PriorityClass name"),
])
def test_priority_errors(kube: Store, spec: dict[str, Any], message: str) -> None:
    with pytest.raises(errors.Forbidden) as caught:
        kube.create("pods", pod(**spec), "default")
    assert caught.value.message == message


def test_priority_survives_an_update_that_leaves_it_out(kube: Store) -> None:
    live = kube.create("pods", pod(), "default")
    del live["spec"]["priority"], live["spec"]["preemptionPolicy"]
    assert kube.update("pods", live, "default")["spec"]["priority"] == 0


# --------------------------------------------------------------------------- DefaultStorageClass, DefaultIngressClass

def _pvc(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                 "resources": {"requests": {"storage": "1Gi"}}, **spec}}


def test_default_storage_class(kube: Store) -> None:
    assert "storageClassName" not in kube.create("persistentvolumeclaims", _pvc("none"), "default")["spec"]
    default = {"storageclass.kubernetes.io/is-default-class": "true"}
    kube.create("storageclasses", {"metadata": {"name": "standard", "annotations": default}, "provisioner": "p"})
    kube.create("storageclasses", {"metadata": {"name": "slow"}, "provisioner": "p"})
    assert kube.create("persistentvolumeclaims", _pvc("a"), "default")["spec"]["storageClassName"] == "standard"
    explicit = kube.create("persistentvolumeclaims", _pvc("b", storageClassName=""), "default")["spec"]
    assert explicit["storageClassName"] == ""  # "" means no class, on purpose


def test_default_ingress_class(kube: Store) -> None:
    kube.create("ingressclasses", {"metadata": {"name": "nginx", "annotations": {
        "ingressclass.kubernetes.io/is-default-class": "true"}}, "spec": {"controller": "k8s.io/ingress-nginx"}})
    ingress = kube.create("ingresses", {"metadata": {"name": "i"}, "spec": {"defaultBackend": {
        "service": {"name": "web", "port": {"number": 80}}}}}, "default")
    assert ingress["spec"]["ingressClassName"] == "nginx"

"""What the server fills in on create, kind by kind, through the store. Cases restated from upstream's
defaulting tests: kubernetes ``pkg/apis/apps/v1/defaults_test.go`` (TestSetDefaultDeployment,
TestSetDefaultDaemonSetSpec, TestSetDefaultStatefulSet), ``pkg/apis/batch/v1/defaults_test.go``
(TestSetDefaultJob, TestSetDefaultCronJob), ``pkg/apis/core/v1/defaults_test.go`` (TestSetDefaultService*,
TestSetDefaultSecret, TestSetDefaultNamespace*, TestSetDefaultPersistentVolume*, TestSetDefaultEndpointsProtocol,
TestSetDefaultNodeStatusAllocatable, TestSetDefaultReplicationController*), ``pkg/apis/autoscaling/v2/
defaults_test.go`` (TestGenerateScaleUpRules, TestGenerateScaleDownRules)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.store import Store
from tests.kinds.conftest import deployment, pod_template

TEMPLATE_DEFAULTS = {"dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "securityContext": {},
                     "terminationGracePeriodSeconds": 30, "schedulerName": "default-scheduler"}


def _has(obj: dict[str, Any], expected: dict[str, Any]) -> None:
    for key, value in expected.items():
        assert obj.get(key) == value, key


# ----------------------------------------------------------------------------------------------- apps

def test_deployment_defaults(kube: Store) -> None:
    spec = kube.create("deployments", deployment(), "default")["spec"]
    _has(spec, {"replicas": 1, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600,
                "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}})
    _has(spec["template"]["spec"], TEMPLATE_DEFAULTS)


@pytest.mark.parametrize(("strategy", "expected"), [
    ({"type": "Recreate"}, {"type": "Recreate"}),
    ({"rollingUpdate": {"maxSurge": 3}}, {"type": "RollingUpdate",
                                         "rollingUpdate": {"maxSurge": 3, "maxUnavailable": "25%"}}),
])
def test_deployment_strategy_defaults_fill_only_what_is_missing(kube: Store, strategy: dict[str, Any],
                                                                expected: dict[str, Any]) -> None:
    created = kube.create("deployments", deployment(strategy=strategy, replicas=5, revisionHistoryLimit=2),
                          "default")
    assert created["spec"]["strategy"] == expected
    assert (created["spec"]["replicas"], created["spec"]["revisionHistoryLimit"]) == (5, 2)


def test_daemonset_defaults(kube: Store) -> None:
    ds = kube.create("daemonsets", {"metadata": {"name": "agent"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}}, "template": pod_template()}}, "default")
    assert ds["spec"]["updateStrategy"] == {"type": "RollingUpdate",
                                            "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
    assert ds["spec"]["revisionHistoryLimit"] == 10
    assert ds["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    on_delete = kube.create("daemonsets", {"metadata": {"name": "od"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}}, "template": pod_template(),
        "updateStrategy": {"type": "OnDelete"}}}, "default")
    assert on_delete["spec"]["updateStrategy"] == {"type": "OnDelete"}


def test_statefulset_max_unavailable_follows_the_emulated_release(kube_factory) -> None:
    body = {"metadata": {"name": "db"}, "spec": {"selector": {"matchLabels": {"app": "web"}},
                                                 "template": pod_template()}}
    older = kube_factory(kubernetes_version="1.36").create("statefulsets", body, "default")
    assert older["spec"]["updateStrategy"]["rollingUpdate"] == {"partition": 0}


def test_statefulset_defaults(kube: Store) -> None:
    sts = kube.create("statefulsets", {"metadata": {"name": "db"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}}, "template": pod_template(), "serviceName": "db",
        "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}}, "default")
    spec = sts["spec"]
    _has(spec, {"replicas": 1, "revisionHistoryLimit": 10, "podManagementPolicy": "OrderedReady",
                # maxUnavailable: MaxUnavailableStatefulSet, on by default in 1.37 (observed on v1.37.2)
                "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}},
                "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"}})
    claim = spec["volumeClaimTemplates"][0]
    assert claim["spec"]["volumeMode"] == "Filesystem" and claim["status"] == {"phase": "Pending"}
    parallel = kube.create("statefulsets", {"metadata": {"name": "p"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}}, "template": pod_template(),
        "podManagementPolicy": "Parallel", "updateStrategy": {"type": "OnDelete"}}}, "default")["spec"]
    assert parallel["podManagementPolicy"] == "Parallel" and parallel["updateStrategy"] == {"type": "OnDelete"}


def test_replicaset_defaults(kube: Store) -> None:
    rs = kube.create("replicasets", {"metadata": {"name": "rs"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}}, "template": pod_template()}}, "default")
    assert rs["spec"]["replicas"] == 1
    _has(rs["spec"]["template"]["spec"], TEMPLATE_DEFAULTS)


# ----------------------------------------------------------------------------------------------- batch

def _job(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "pi"}, "spec": {"template": pod_template(restartPolicy="Never"), **spec}}


@pytest.mark.parametrize(("given", "expected"), [
    # TestSetDefaultJob: nothing set → both 1; one set → parallelism 1, the other left alone.
    ({}, {"completions": 1, "parallelism": 1}),
    ({"completions": 3}, {"completions": 3, "parallelism": 1}),
    ({"parallelism": 4}, {"completions": None, "parallelism": 4}),
])
def test_job_completions_and_parallelism(kube: Store, given: dict[str, Any], expected: dict[str, Any]) -> None:
    spec = kube.create("jobs", _job(**given), "default")["spec"]
    assert {k: spec.get(k) for k in expected} == expected


def test_job_defaults_and_generated_selector(kube: Store) -> None:
    job = kube.create("jobs", _job(), "default")
    spec, uid = job["spec"], job["metadata"]["uid"]
    _has(spec, {"backoffLimit": 6, "completionMode": "NonIndexed", "suspend": False, "manualSelector": False,
                "podReplacementPolicy": "TerminatingOrFailed"})
    assert spec["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert spec["template"]["metadata"]["labels"] == {
        "app": "web", "controller-uid": uid, "batch.kubernetes.io/controller-uid": uid,
        "job-name": "pi", "batch.kubernetes.io/job-name": "pi"}
    # Observed on kube-apiserver v1.37.2: SetDefaults_Job hands the Job its template's label map itself, so the
    # labels generateSelector adds to the template show in the Job's own labels (pkg/apis/batch/v1/defaults.go,
    # pkg/registry/batch/job/strategy.go generateSelector).
    assert job["metadata"]["labels"] == spec["template"]["metadata"]["labels"]
    # A generated name is drawn on a deep copy (apiserver store.go createWithGenerateNameRetry): nothing shared,
    # the Job keeps the template's labels as the request had them; its pods' job-name is the drawn name.
    body = _job()
    body["metadata"] = {"generateName": "pi-"}
    generated = kube.create("jobs", body, "default")
    assert generated["metadata"]["labels"] == {"app": "web"}
    assert generated["spec"]["template"]["metadata"]["labels"]["job-name"] == generated["metadata"]["name"]


def test_job_pod_replacement_policy_with_a_pod_failure_policy(kube: Store) -> None:
    spec = kube.create("jobs", _job(podFailurePolicy={"rules": [{"action": "Ignore", "onPodConditions": [
        {"type": "DisruptionTarget"}]}]}), "default")["spec"]
    assert spec["podReplacementPolicy"] == "Failed"
    assert spec["podFailurePolicy"]["rules"][0]["onPodConditions"][0]["status"] == "True"


def test_cronjob_defaults(kube: Store) -> None:
    cron = kube.create("cronjobs", {"metadata": {"name": "nightly"}, "spec": {
        "schedule": "0 3 * * *", "jobTemplate": {"spec": {"template": pod_template(restartPolicy="OnFailure")}}}},
        "default")
    _has(cron["spec"], {"concurrencyPolicy": "Allow", "suspend": False, "successfulJobsHistoryLimit": 3,
                        "failedJobsHistoryLimit": 1})
    job_spec = cron["spec"]["jobTemplate"]["spec"]
    assert "backoffLimit" not in job_spec  # a JobTemplateSpec is not a Job: SetDefaults_Job does not run
    _has(job_spec["template"]["spec"], {**TEMPLATE_DEFAULTS, "restartPolicy": "OnFailure"})


# ----------------------------------------------------------------------------------------------- core

def test_service_defaults(kube: Store) -> None:
    spec = kube.create("services", {"metadata": {"name": "web"}, "spec": {
        "selector": {"app": "web"}, "ports": [{"port": 80}]}}, "default")["spec"]
    _has(spec, {"type": "ClusterIP", "sessionAffinity": "None", "internalTrafficPolicy": "Cluster",
                "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack"})
    assert spec["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    assert "externalTrafficPolicy" not in spec  # TestSetDefaultServiceExternalTraffic: only when reachable


def test_service_ports_keep_what_is_set(kube: Store) -> None:
    # TestSetDefaultServicePort: set values stay; "" and 0 target ports become the port.
    spec = kube.create("services", {"metadata": {"name": "web"}, "spec": {"ports": [
        {"name": "a", "protocol": "UDP", "port": 9376, "targetPort": "p"},
        {"name": "b", "protocol": "UDP", "port": 8675, "targetPort": 309},
        {"name": "c", "port": 9377, "targetPort": ""},
        {"name": "d", "port": 8676, "targetPort": 0}]}}, "default")["spec"]
    assert [(p["protocol"], p["targetPort"]) for p in spec["ports"]] == [
        ("UDP", "p"), ("UDP", 309), ("TCP", 9377), ("TCP", 8676)]


@pytest.mark.parametrize(("spec", "policy"), [
    ({"type": "NodePort"}, "Cluster"), ({"type": "LoadBalancer"}, "Cluster"),
    ({"externalIPs": ["1.2.3.4"]}, "Cluster"), ({}, None),
])
def test_external_traffic_policy_defaults_for_externally_reachable_services(kube: Store, spec: dict[str, Any],
                                                                            policy: str | None) -> None:
    created = kube.create("services", {"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}], **spec}},
                          "default")["spec"]
    assert created.get("externalTrafficPolicy") == policy


def test_client_ip_affinity_gets_its_timeout(kube: Store) -> None:
    spec = kube.create("services", {"metadata": {"name": "s"}, "spec": {
        "ports": [{"port": 80}], "sessionAffinity": "ClientIP"}}, "default")["spec"]
    assert spec["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 10800}}


def test_secret_namespace_and_configmap_defaults(kube: Store) -> None:
    assert kube.create("secrets", {"metadata": {"name": "s"}}, "default")["type"] == "Opaque"
    ns = kube.create("namespaces", {"metadata": {"name": "default-ns-labels-are-great"}})
    assert ns["metadata"]["labels"]["kubernetes.io/metadata.name"] == "default-ns-labels-are-great"
    assert ns["status"] == {"phase": "Active"}
    assert "data" not in kube.create("configmaps", {"metadata": {"name": "c"}}, "default")  # {} is omitted


@pytest.mark.parametrize("mode", [None, "Filesystem", "Block"])
def test_pv_and_pvc_volume_mode(kube: Store, mode: str | None) -> None:
    extra = {"volumeMode": mode} if mode else {}
    pv = kube.create("persistentvolumes", {"metadata": {"name": f"pv-{mode}".lower()}, "spec": {
        "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/d"}, **extra}})
    assert pv["spec"]["volumeMode"] == (mode or "Filesystem")
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert pv["status"]["phase"] == "Pending" and pv["spec"]["hostPath"]["type"] == ""
    pvc = kube.create("persistentvolumeclaims", {"metadata": {"name": f"c-{mode}".lower()}, "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **extra}}, "default")
    assert pvc["spec"]["volumeMode"] == (mode or "Filesystem") and pvc["status"] == {"phase": "Pending"}


def test_endpoints_ports_default_to_tcp(kube: Store) -> None:
    ep = kube.create("endpoints", {"metadata": {"name": "e"}, "subsets": [{"ports": [
        {"port": 1}, {"port": 2, "protocol": "UDP"}, {"port": 3}]}]}, "default")
    assert [p["protocol"] for p in ep["subsets"][0]["ports"]] == ["TCP", "UDP", "TCP"]


@pytest.mark.parametrize(("capacity", "allocatable", "expected"), [
    ({"cpu": "1000m", "memory": "10G"}, {"cpu": "500m", "memory": "5G"}, {"cpu": "500m", "memory": "5G"}),
    (None, {"cpu": "500m", "memory": "5G"}, {"cpu": "500m", "memory": "5G"}),
    ({"cpu": "1000m", "memory": "10G"}, None, {"cpu": "1", "memory": "10G"}),
    (None, None, None),
])
def test_node_allocatable_defaults_to_capacity(kube: Store, capacity: Any, allocatable: Any, expected: Any) -> None:
    status = {k: v for k, v in (("capacity", capacity), ("allocatable", allocatable)) if v is not None}
    node = kube.create("nodes", {"metadata": {"name": "n"}, "status": status})
    assert node["status"].get("allocatable") == expected


@pytest.mark.parametrize(("labels", "selector", "expect_labels", "expect_selector"), [
    # TestSetDefaultReplicationController
    (None, None, {"foo": "bar"}, {"foo": "bar"}),
    ({"bar": "foo"}, None, {"bar": "foo"}, {"foo": "bar"}),
    ({"bar": "foo"}, {"some": "other"}, {"bar": "foo"}, {"some": "other"}),
    (None, {"some": "other"}, {"foo": "bar"}, {"some": "other"}),
])
def test_replication_controller_labels_and_selector(labels: Any, selector: Any, expect_labels: Any,
                                                    expect_selector: Any) -> None:
    from fakekube.kinds.core import ReplicationControllerStrategy

    rc = {"metadata": {"labels": labels} if labels else {}, "spec": {
        **({"selector": selector} if selector else {}), "template": {"metadata": {"labels": {"foo": "bar"}}}}}
    ReplicationControllerStrategy().default(rc)
    assert (rc["metadata"].get("labels"), rc["spec"]["selector"], rc["spec"]["replicas"]) == (
        expect_labels, expect_selector, 1)


# ----------------------------------------------------------------------------------------------- the rest

def test_hpa_v2_defaults(kube: Store) -> None:
    ref = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    plain = kube.create("horizontalpodautoscalers", {"metadata": {"name": "a"}, "spec": {
        "scaleTargetRef": ref, "maxReplicas": 5}}, "default")["spec"]
    assert plain["minReplicas"] == 1 and "behavior" not in plain
    assert plain["metrics"] == [{"type": "Resource", "resource": {
        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
    tuned = kube.create("horizontalpodautoscalers", {"metadata": {"name": "b"}, "spec": {
        "scaleTargetRef": ref, "maxReplicas": 5, "behavior": {
            "scaleDown": {"selectPolicy": "Min", "policies": [{"type": "Percent", "value": 1, "periodSeconds": 2}]},
        }}}, "default")["spec"]["behavior"]
    # TestGenerateScaleUpRules "Default values"; TestGenerateScaleDownRules "Percent policy is specified".
    assert tuned["scaleUp"] == {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]}
    assert tuned["scaleDown"] == {"selectPolicy": "Min",
                                  "policies": [{"type": "Percent", "value": 1, "periodSeconds": 2}]}


def test_network_policy_defaults(kube: Store) -> None:
    ingress_only = kube.create("networkpolicies", {"metadata": {"name": "a"}, "spec": {
        "ingress": [{"ports": [{"port": 80}]}]}}, "default")["spec"]
    assert ingress_only == {"podSelector": {}, "ingress": [{"ports": [{"port": 80, "protocol": "TCP"}]}],
                            "policyTypes": ["Ingress"]}
    both = kube.create("networkpolicies", {"metadata": {"name": "b"}, "spec": {
        "podSelector": {}, "egress": [{}]}}, "default")["spec"]
    assert both["policyTypes"] == ["Ingress", "Egress"]


def test_rbac_api_groups(kube: Store) -> None:
    binding = kube.create("rolebindings", {"metadata": {"name": "b"},
                                           "roleRef": {"kind": "Role", "name": "r"},
                                           "subjects": [{"kind": "User", "name": "u"},
                                                        {"kind": "ServiceAccount", "name": "sa"}]}, "default")
    assert binding["roleRef"]["apiGroup"] == "rbac.authorization.k8s.io"
    # A ServiceAccount subject's apiGroup stays "", which Go does not write (omitempty; observed on
    # kube-apiserver v1.37.2, rolebinding/create/basic).
    assert [s.get("apiGroup") for s in binding["subjects"]] == ["rbac.authorization.k8s.io", None]


def test_storage_and_scheduling_defaults(kube: Store) -> None:
    sc = kube.create("storageclasses", {"metadata": {"name": "fast"}, "provisioner": "example.com/disk"})
    assert (sc["reclaimPolicy"], sc["volumeBindingMode"]) == ("Delete", "Immediate")
    driver = kube.create("csidrivers", {"metadata": {"name": "d.example.com"}, "spec": {}})["spec"]
    assert driver == {"attachRequired": True, "podInfoOnMount": False, "storageCapacity": False,
                      "fsGroupPolicy": "ReadWriteOnceWithFSType", "requiresRepublish": False, "seLinuxMount": False,
                      "volumeLifecycleModes": ["Persistent"],
                      "preventPodSchedulingIfMissing": False}  # VolumeLimitScaling, on from 1.37 (v1.37.2)
    pc = kube.create("priorityclasses", {"metadata": {"name": "high"}, "value": 1000})
    assert pc["preemptionPolicy"] == "PreemptLowerPriority"


def test_webhook_and_endpoint_slice_defaults(kube: Store) -> None:
    hook = kube.create("validatingwebhookconfigurations", {"metadata": {"name": "v"}, "webhooks": [{
        "name": "v.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
        "clientConfig": {"service": {"namespace": "default", "name": "hook"}},
        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]}]})
    webhook = hook["webhooks"][0]
    _has(webhook, {"failurePolicy": "Fail", "matchPolicy": "Equivalent", "namespaceSelector": {},
                   "objectSelector": {}, "timeoutSeconds": 10})
    assert webhook["rules"][0]["scope"] == "*" and webhook["clientConfig"]["service"]["port"] == 443
    slice_ = kube.create("endpointslices", {"metadata": {"name": "s"}, "addressType": "IPv4",
                                            "endpoints": [], "ports": [{"port": 80}]}, "default")
    assert slice_["ports"] == [{"port": 80, "name": "", "protocol": "TCP"}]


def test_pod_templates_and_hpas_track_generation(kube_factory) -> None:
    """Observed on kube-apiserver v1.37.2: PodTemplate (podtemplate/strategy.go) and, from 1.37 (HPAGeneration),
    HorizontalPodAutoscaler start at generation 1."""
    kube = kube_factory()
    template = kube.create("podtemplates", {"metadata": {"name": "t"}, "template": pod_template()}, "default")
    assert template["metadata"]["generation"] == 1
    changed = kube.patch("podtemplates", "t", {"template": {"metadata": {"labels": {"a": "b"}}}}, "default")
    assert changed["metadata"]["generation"] == 2
    hpa = {"metadata": {"name": "h"}, "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                                               "maxReplicas": 3}}
    assert kube.create("horizontalpodautoscalers", hpa, "default")["metadata"]["generation"] == 1
    older = kube_factory(kubernetes_version="1.36").create("horizontalpodautoscalers", hpa, "default")
    assert "generation" not in older["metadata"]


def test_admission_policy_rules_default_their_scope(kube: Store) -> None:
    """pkg/apis/admissionregistration/v1/zz_generated.defaults.go: SetDefaults_Rule on a policy's (and a
    binding's) resource rules and exclusions; observed on kube-apiserver v1.37.2."""
    rule = {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}
    policy = kube.create("validatingadmissionpolicies", {"metadata": {"name": "p"}, "spec": {
        "matchConstraints": {"resourceRules": [dict(rule)], "excludeResourceRules": [dict(rule, scope="Namespaced")]},
        "validations": [{"expression": "true"}]}})
    match = policy["spec"]["matchConstraints"]
    assert [r["scope"] for r in match["resourceRules"] + match["excludeResourceRules"]] == ["*", "Namespaced"]
    binding = kube.create("validatingadmissionpolicybindings", {"metadata": {"name": "b"}, "spec": {
        "policyName": "p", "validationActions": ["Deny"], "matchResources": {"resourceRules": [dict(rule)]}}})
    assert binding["spec"]["matchResources"]["resourceRules"][0]["scope"] == "*"


def test_flowcontrol_defaults(kube: Store) -> None:
    """pkg/apis/flowcontrol/v1/defaults.go, observed on kube-apiserver v1.37.2."""
    schema = kube.create("flowschemas", {"metadata": {"name": "f"}, "spec": {
        "priorityLevelConfiguration": {"name": "global-default"}}})
    assert schema["spec"]["matchingPrecedence"] == 1000
    level = kube.create("prioritylevelconfigurations", {"metadata": {"name": "l"}, "spec": {
        "type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {"queues": 16}}}}})
    assert level["spec"]["limited"] == {"nominalConcurrencyShares": 30, "lendablePercent": 0, "limitResponse": {
        "type": "Queue", "queuing": {"queues": 16, "handSize": 8, "queueLengthLimit": 50}}}
    exempt = kube.create("prioritylevelconfigurations", {"metadata": {"name": "exempt"}, "spec": {
        "type": "Exempt", "exempt": {}}})
    assert exempt["spec"]["exempt"] == {"nominalConcurrencyShares": 0, "lendablePercent": 0}


def test_hpa_v1_reads_back_the_default_cpu_target(kube: Store) -> None:
    """pkg/apis/autoscaling/v1/conversion.go gives a v1 HPA with no target the default CPU metric, which reads
    back as targetCPUUtilizationPercentage 80 (observed on kube-apiserver v1.37.2)."""
    body = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 3}}
    created = kube.create("horizontalpodautoscalers.v1.autoscaling", body, "default")
    assert created["spec"]["targetCPUUtilizationPercentage"] == 80

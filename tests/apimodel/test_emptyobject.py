"""The empty object a watch's BOOKMARK carries (fakekube/apimodel/emptyobject.py).

Observed on kube-apiserver v1.37.2 with a watch asking for sendInitialEvents and bookmarks on each kind: the
object is the registry's NewFunc() (the internal type) converted and written as the version asked for
(apiserver v0.37.2 pkg/storage/cacher/cacher.go; kubernetes v1.37.2 pkg/apis/apps/v1 conversions).
"""

from __future__ import annotations

import pytest

from fakekube.apimodel.emptyobject import empty_object

OBSERVED = [
    ("io.k8s.api.core.v1.Pod", "v1", "Pod", {"spec": {"containers": None}, "status": {}}),
    ("io.k8s.api.core.v1.Service", "v1", "Service", {"spec": {}, "status": {"loadBalancer": {}}}),
    ("io.k8s.api.core.v1.ConfigMap", "v1", "ConfigMap", {}),
    ("io.k8s.api.core.v1.Node", "v1", "Node", {"spec": {}, "status": {
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 0}},
        "nodeInfo": {"machineID": "", "systemUUID": "", "bootID": "", "kernelVersion": "", "osImage": "",
                     "containerRuntimeVersion": "", "kubeletVersion": "", "kubeProxyVersion": "",
                     "operatingSystem": "", "architecture": ""}}}),
    ("io.k8s.api.rbac.v1.ClusterRole", "rbac.authorization.k8s.io/v1", "ClusterRole", {"rules": None}),
    ("io.k8s.api.apps.v1.StatefulSet", "apps/v1", "StatefulSet", {
        "spec": {"replicas": 0, "selector": None, "serviceName": "", "updateStrategy": {},
                 "template": {"metadata": {}, "spec": {"containers": None}}},
        "status": {"availableReplicas": 0, "replicas": 0}}),
    ("io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler", "autoscaling/v2", "HorizontalPodAutoscaler", {
        "spec": {"scaleTargetRef": {"kind": "", "name": ""}, "maxReplicas": 0},
        "status": {"desiredReplicas": 0, "currentMetrics": None}}),
    ("io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService", "apiregistration.k8s.io/v1", "APIService",
     {"spec": {"groupPriorityMinimum": 0, "versionPriority": 0}, "status": {}}),
]


@pytest.mark.parametrize(("definition", "api_version", "kind", "fields"), OBSERVED, ids=[o[2] for o in OBSERVED])
def test_the_empty_object_is_the_zero_internal_object_as_written(definition, api_version, kind, fields):
    assert empty_object(definition, api_version, kind) == {"apiVersion": api_version, "kind": kind,
                                                           "metadata": {}, **fields}


def test_a_daemonset_carries_its_converted_template_generation():
    obj = empty_object("io.k8s.api.apps.v1.DaemonSet", "apps/v1", "DaemonSet")
    assert obj["metadata"] == {"annotations": {"deprecated.daemonset.template.generation": "0"}}


def test_a_custom_resource_is_an_empty_unstructured():
    assert empty_object(None, "example.com/v1", "Widget") == {"apiVersion": "example.com/v1", "kind": "Widget",
                                                              "metadata": {}}


def test_each_call_is_a_fresh_object():
    first = empty_object("io.k8s.api.core.v1.Pod", "v1", "Pod")
    first["spec"]["containers"] = []
    first["metadata"]["resourceVersion"] = "5"
    assert empty_object("io.k8s.api.core.v1.Pod", "v1", "Pod")["spec"] == {"containers": None}
    daemonset = empty_object("io.k8s.api.apps.v1.DaemonSet", "apps/v1", "DaemonSet")
    daemonset["metadata"]["annotations"]["x"] = "y"
    assert "x" not in empty_object("io.k8s.api.apps.v1.DaemonSet", "apps/v1", "DaemonSet")["metadata"]["annotations"]

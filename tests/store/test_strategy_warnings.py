"""Warnings from strategies (WarningsOnCreate/WarningsOnUpdate) and REST storages, as observed on kube-apiserver
v1.37.2 (kubernetes v1.37.2 pkg/registry/core/pod/strategy.go, pkg/registry/apps/deployment/strategy.go,
pkg/registry/batch/job/storage/storage.go; apiextensions-apiserver v0.37.2 pkg/registry/customresource)."""

from __future__ import annotations

import json

import pytest

from fakekube import errors
from fakekube.store import Store
from fakekube.strategywarnings import custom_finalizer_warnings
from tests.store.conftest import WIDGET_CRD

JOB_WARNING = ("child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove "
               "them or set propagationPolicy=Orphan to suppress this warning")
POD_SPEC = {"containers": [{"name": "c", "image": "nginx"}]}


@pytest.fixture
def kube() -> Store:
    return Store(seed=1)


def test_a_pod_name_that_is_not_a_dns_label_warns(kube: Store) -> None:
    kube.create("pods", {"metadata": {"name": "a.b"}, "spec": POD_SPEC}, "default")
    assert kube.last_request().warnings == [
        "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is "
        "recommended: [must not contain dots]"]


def test_a_deployment_name_warns_with_every_problem(kube: Store) -> None:
    name = "a." + "b" * 70
    kube.create("deployments", {"metadata": {"name": name}, "spec": {
        "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": POD_SPEC}}}, "default")
    assert kube.last_request().warnings == [
        "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label "
        "is recommended: [must be no more than 63 characters must not contain dots]"]


def test_no_warning_for_a_dns_label_or_a_failed_create(kube: Store) -> None:
    kube.create("pods", {"metadata": {"name": "fine"}, "spec": POD_SPEC}, "default")
    assert kube.last_request().warnings == []
    with pytest.raises(errors.Invalid):
        kube.create("pods", {"metadata": {"name": "a.b"}, "spec": {}}, "default")
    assert kube.last_request().warnings == []


def test_a_job_delete_without_a_policy_warns_even_when_missing(kube: Store) -> None:
    with pytest.raises(errors.NotFound):
        kube.delete("jobs", "gone", "default")
    assert kube.last_request().warnings == [JOB_WARNING]
    with pytest.raises(errors.NotFound):
        kube.delete("jobs", "gone", "default", propagation_policy="Background")
    assert kube.last_request().warnings == []
    kube.delete_collection("jobs", "default")
    assert kube.last_request().warnings == [JOB_WARNING]


def test_a_custom_resource_warns_of_each_added_unqualified_finalizer(kube: Store) -> None:
    kube.create("customresourcedefinitions", json.loads(json.dumps(WIDGET_CRD)))
    kube.create("widgets.example.com", {"apiVersion": "example.com/v1", "kind": "Widget",
                                        "metadata": {"name": "w", "finalizers": ["hold", "example.com/ok"]}}, "default")
    assert kube.last_request().warnings == [
        'metadata.finalizers: "hold": prefer a domain-qualified finalizer name to avoid accidental conflicts with '
        "other finalizer writers"]
    kube.patch("widgets.example.com", "w", {"metadata": {"finalizers": ["hold", "a.b"]}}, "default",
               patch_type="application/merge-patch+json")
    assert kube.last_request().warnings == [
        'metadata.finalizers: "a.b": prefer a domain-qualified finalizer name including a path (/) to avoid '
        "accidental conflicts with other finalizer writers"]


def test_standard_finalizers_do_not_warn() -> None:
    assert custom_finalizer_warnings({"metadata": {"finalizers": ["orphan", "foregroundDeletion", "kubernetes"]}},
                                     None) == []

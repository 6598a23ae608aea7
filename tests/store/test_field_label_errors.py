"""Which field labels a list or watch accepts, and the 400 for the others, kind by kind.

The messages are kube-apiserver v1.37.2's answers (the oracle, GET ...?fieldSelector=bogus.field=x): each kind
whose API version registers a field-label conversion function answers with that function's error
(kubernetes ``pkg/apis/<group>/<version>/conversion.go``), every other built-in kind with apimachinery's
``DefaultMetaV1FieldSelectorConversion`` — which also accepts ``metadata.namespace`` on cluster-scoped kinds —
and custom resources with apiextensions-apiserver's ``ConvertFieldLabel``.
"""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store

from .conftest import pod

DEFAULT = '"bogus.field" is not a known field selector: only "metadata.name", "metadata.namespace"'


@pytest.mark.parametrize(
    ("resource", "message"),
    [
        ("configmaps", DEFAULT),
        ("deployments", DEFAULT),
        ("clusterroles", DEFAULT),
        ("leases", DEFAULT),
        ("customresourcedefinitions", DEFAULT),
        ("cronjobs", DEFAULT),  # batch/v1 registers a function for Job only
        ("pods", "field label not supported: bogus.field"),
        ("secrets", "field label not supported: bogus.field"),
        ("nodes", "field label not supported: bogus.field"),
        ("events", "field label not supported: bogus.field"),
        ("events.events.k8s.io", "field label not supported: bogus.field"),
        ("certificatesigningrequests", "field label not supported: bogus.field"),
        ("jobs", 'field label "bogus.field" not supported for Job'),
        ("resourceslices", "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: bogus.field"),
        ("widgets", "field label not supported: bogus.field"),
    ],
)
def test_an_unsupported_label_gets_its_kinds_message(crd_kube: Store, resource: str, message: str) -> None:
    with pytest.raises(errors.BadRequest) as caught:
        crd_kube.list(resource, field_selector="bogus.field=x")
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("resource", "selector", "accepted"),
    [
        # DefaultMetaV1FieldSelectorConversion takes metadata.namespace even where there is none ("").
        ("clusterroles", "metadata.namespace=", True),
        ("persistentvolumes", "metadata.namespace=x", True),
        # A kind's own function decides: Node and Namespace leave it out, as PodCertificateRequest does
        # although it is namespaced.
        ("nodes", "metadata.namespace=", False),
        ("namespaces", "metadata.namespace=", False),
        ("podcertificaterequests", "metadata.namespace=", False),
        ("events.events.k8s.io", "regarding.name=x,reason=y,reportingController=z,type=Normal", True),
        ("events", "involvedObject.name=x,source=y", True),
        ("events.events.k8s.io", "involvedObject.name=x", False),
        ("pods", "spec.host=n,status.podIPs=", True),
    ],
)
def test_what_each_kind_accepts(kube: Store, resource: str, selector: str, accepted: bool) -> None:
    if accepted:
        kube.list(resource, field_selector=selector)
    else:
        with pytest.raises(errors.BadRequest, match="field label not supported"):
            kube.list(resource, field_selector=selector)


def test_cluster_scoped_objects_have_an_empty_namespace_field(kube: Store) -> None:
    for name in ("a", "b"):
        kube.create("clusterroles", {"metadata": {"name": name}, "rules": []})
    every = kube.list("clusterroles")["items"]
    assert len(every) == 2
    assert len(kube.list("clusterroles", field_selector="metadata.namespace=")["items"]) == len(every)
    assert kube.list("clusterroles", field_selector="metadata.namespace=default")["items"] == []


def test_pod_spec_host_is_spec_node_name_and_status_pod_ips_is_always_empty(kube: Store) -> None:
    placed = pod("placed")
    placed["spec"]["nodeName"] = "node-1"
    kube.create("pods", placed, "default")
    kube.create("pods", pod("pending"), "default")
    assert [p["metadata"]["name"] for p in kube.list("pods", "default", field_selector="spec.host=node-1")["items"]] == ["placed"]
    assert len(kube.list("pods", "default", field_selector="status.podIPs=")["items"]) == 2
    assert kube.list("pods", "default", field_selector="status.podIPs=10.0.0.1")["items"] == []


def test_events_k8s_io_selects_on_its_own_field_names(kube: Store) -> None:
    kube.create("events", {"metadata": {"name": "e1"}, "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
                           "reason": "Started", "type": "Normal", "reportingComponent": "kubelet"}, "default")
    kube.create("events", {"metadata": {"name": "e2"}, "involvedObject": {"kind": "Pod", "name": "q", "namespace": "default"},
                           "reason": "Killing", "type": "Warning"}, "default")
    found = kube.list("events.events.k8s.io", "default", field_selector="regarding.name=p,reportingController=kubelet")
    assert [e["metadata"]["name"] for e in found["items"]] == ["e1"]
    found = kube.list("events.events.k8s.io", "default", field_selector="type=Warning")
    assert [e["metadata"]["name"] for e in found["items"]] == ["e2"]

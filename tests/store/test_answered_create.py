"""The store's answered creates (``Strategy.answers_create``): decoded and checked like any create, answered
with 201, never stored."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store

SSAR = {"spec": {"resourceAttributes": {"verb": "get", "resource": "pods"}}}


def test_an_answered_create_stores_nothing_and_emits_no_event():
    kube = Store()
    watch = kube.watch("selfsubjectaccessreviews")
    rv = kube.resource_version
    out = kube.create("selfsubjectaccessreviews", SSAR, actor="kubectl")
    assert out["status"] == {"allowed": True}
    assert kube.resource_version == rv and kube.count("selfsubjectaccessreviews") == 0
    assert watch.next(timeout=0.05) is None
    entry = kube.audit.entries[-1]
    assert (entry.verb, entry.resource, entry.group, entry.code, entry.actor, entry.rv_after) == (
        "create", "selfsubjectaccessreviews", "authorization.k8s.io", 201, "kubectl", None)
    watch.stop()


def test_the_body_type_is_checked():
    kube = Store()
    with pytest.raises(errors.BadRequest, match=r"the kind in the data \(Pod\) does not match the expected kind"):
        kube.create("selfsubjectaccessreviews", {"kind": "Pod", **SSAR})
    with pytest.raises(errors.BadRequest, match="the API version in the data"):
        kube.create("tokenreviews", {"apiVersion": "authentication.k8s.io/v1beta1", "spec": {"token": "x"}})
    with pytest.raises(errors.BadRequest, match="cannot unmarshal number into Go struct field TypeMeta.kind"):
        kube.create("selfsubjectaccessreviews", {"kind": 3, **SSAR})


def test_subresource_creates():
    kube = Store()
    kube.create("serviceaccounts", {"metadata": {"name": "sa"}}, "default")
    out = kube.create("serviceaccounts", {"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1"},
                      "default", name="sa", subresource="token")
    assert out["kind"] == "TokenRequest" and out["status"]["token"]
    entry = kube.audit.entries[-1]
    assert (entry.resource, entry.name, entry.subresource, entry.code) == ("serviceaccounts", "sa", "token", 201)
    with pytest.raises(errors.NotFound) as missing:
        kube.create("serviceaccounts", {}, "default", name="nobody", subresource="token")
    assert missing.value.message == 'serviceaccounts "nobody" not found'
    with pytest.raises(errors.BadRequest, match=r"the kind in the data \(ServiceAccount\)"):
        kube.create("serviceaccounts", {"kind": "ServiceAccount"}, "default", name="sa", subresource="token")
    with pytest.raises(errors.MethodNotSupported):
        kube.create("pods", {}, "default", name="p", subresource="status")

"""Go's write form of a built-in object, as the typed decoder leaves it (fakekube/apimodel/goform.py).

Observed on kube-apiserver v1.37.2 (tests/differential: rolebinding, event, cronjob, endpointslice,
mutatingwebhookconfiguration, the review kinds): the server writes the Go struct back with encoding/json, so
omitempty zero values vanish and fields without omitempty appear. Tags: k8s.io/api@v0.37.2 (rbac/v1,
core/v1, batch/v1, apps/v1 types.go), apimachinery@v0.37.2 pkg/apis/meta/v1/types.go (creationTimestamp
omitzero).
"""

from __future__ import annotations

from typing import Any

from fakekube.apimodel.decoder import decoder
from fakekube.apimodel.versions import kubernetes_version

VERSION = kubernetes_version(None)


def _copy(definition: str, obj: Any) -> Any:
    return decoder(VERSION, "io.k8s.api." + definition).copy(obj).value


def _in_place(definition: str, obj: Any) -> Any:
    decoded = decoder(VERSION, "io.k8s.api." + definition).in_place(obj)
    assert decoded.zeroed
    return obj


def test_an_omitempty_zero_value_is_not_written():
    binding = {"metadata": {"name": "b", "labels": {}}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
               "kind": "Role", "name": "r"}, "subjects": [{"kind": "ServiceAccount", "name": "s", "apiGroup": ""}]}
    for walk in (_copy, _in_place):
        out = walk("rbac.v1.RoleBinding", {**binding, "subjects": [dict(binding["subjects"][0])],
                                           "metadata": dict(binding["metadata"])})
        assert out["subjects"] == [{"kind": "ServiceAccount", "name": "s"}]
        assert out["metadata"] == {"name": "b"}
    hooks = _copy("admissionregistration.v1.ValidatingWebhookConfiguration", {"metadata": {"name": "w"}, "webhooks": []})
    assert "webhooks" not in hooks


def test_a_zero_held_by_a_pointer_is_written_and_managed_fields_kept_empty():
    spec = {"selector": {}, "template": {"metadata": {}, "spec": {"containers": []}}, "replicas": 0,
            "paused": False}
    out = _copy("apps.v1.Deployment", {"metadata": {"name": "d", "managedFields": []}, "spec": spec})
    assert out["spec"]["replicas"] == 0 and "paused" not in out["spec"]  # *int32 vs bool, both omitempty
    assert out["spec"]["selector"] == {}  # a pointer to a struct: written when set
    assert out["metadata"]["managedFields"] == []  # an empty list resets the entries (the field manager)


def test_an_absent_field_without_omitempty_is_written():
    event = _copy("core.v1.Event", {"metadata": {"name": "e"}, "involvedObject": {"kind": "Pod"}, "reason": "R"})
    assert {k: event[k] for k in ("eventTime", "firstTimestamp", "lastTimestamp", "reportingComponent",
                                  "reportingInstance", "source")} == {
        "eventTime": None, "firstTimestamp": None, "lastTimestamp": None, "reportingComponent": "",
        "reportingInstance": "", "source": {}}
    cron = _copy("batch.v1.CronJob", {"metadata": {"name": "c"}, "spec": {"schedule": "* * * * *", "jobTemplate": {
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}}})
    assert cron["spec"]["jobTemplate"]["metadata"] == {}
    assert cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["resources"] == {}
    slice_ = _copy("discovery.v1.EndpointSlice", {"addressType": "IPv4", "endpoints": [{"addresses": ["10.0.0.1"]}]})
    assert slice_["endpoints"][0]["conditions"] == {}


def test_a_zero_creation_timestamp_is_not_written():
    """omitzero (apimachinery v0.37): a null creationTimestamp is left out, not written as null."""
    out = _copy("batch.v1.CronJob", {"metadata": {"name": "c", "creationTimestamp": None},
                                     "spec": {"jobTemplate": {"metadata": {"creationTimestamp": None}}}})
    assert "creationTimestamp" not in out["metadata"]
    assert out["spec"]["jobTemplate"]["metadata"] == {}

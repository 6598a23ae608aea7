"""Event create validation through both of its APIs, as observed on kube-apiserver v1.37.2 (the differential
corpus' ``event*/create/*`` cases), following kubernetes ``pkg/apis/core/validation/events.go`` at v1.37.2."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store


def _v1_event(**drop: Any) -> dict[str, Any]:
    body = {"metadata": {"name": "demo"}, "eventTime": "2026-01-01T00:00:00.000000Z", "type": "Normal",
            "action": "Started", "reason": "Started", "reportingController": "example.com/c",
            "reportingInstance": "i-1", "regarding": {"kind": "Pod", "name": "p", "namespace": "default"}}
    for key in drop:
        body.pop(key)
    return body


def _causes(kube: Store, resource: str, body: dict[str, Any]) -> list[str]:
    with pytest.raises(errors.Invalid) as caught:
        kube.create(resource, body, "default")
    return [f"{c['field']}: {c['message']}" for c in caught.value.status["details"]["causes"]]


@pytest.mark.parametrize("missing", ["action", "reason", "reportingInstance"])
def test_events_v1_requires_the_new_fields(kube: Store, missing: str) -> None:
    assert _causes(kube, "events.events.k8s.io", _v1_event(**{missing: 1})) == [f"{missing}: Required value"]


def test_events_v1_reporting_controller_keeps_its_events_name(kube: Store) -> None:
    assert _causes(kube, "events.events.k8s.io", _v1_event(reportingController=1))[0] == (
        "reportingController: Required value")


def test_events_v1_without_event_time_is_checked_as_old_then_strict(kube: Store) -> None:
    kube.ensure_namespace("other")
    body = _v1_event(eventTime=1)
    with pytest.raises(errors.Invalid) as caught:
        kube.create("events.events.k8s.io", body, "other")
    assert [f"{c['field']}: {c['message']}" for c in caught.value.status["details"]["causes"]] == [
        'involvedObject.namespace: Invalid value: "default": does not match event.namespace',
        "eventTime: Required value"]


def test_events_v1_type_must_be_normal_or_warning(kube: Store) -> None:
    assert _causes(kube, "events.events.k8s.io", _v1_event(type=1)) == ['type: Invalid value: "": has invalid value: ']


def test_core_event_names_are_not_validated_but_namespaces_must_agree(kube: Store) -> None:
    kube.ensure_namespace("other")
    event = {"metadata": {"name": "Invalid_Name"}, "message": "started",
             "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "p", "namespace": "other"}}
    assert kube.create("events", event, "other")["metadata"]["name"] == "Invalid_Name"
    with pytest.raises(errors.Invalid) as caught:
        kube.create("events", {"metadata": {"name": "demo"}}, "other")
    assert caught.value.status["message"] == (
        'Event "demo" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace')


def test_events_v1_refusals_name_the_requested_resource_or_the_core_kind(kube: Store) -> None:
    # observed on kube-apiserver v1.37.2: the AlreadyExists names the request's resource
    # (apiserver registry/generic/registry/store.go qualifiedResourceFromContext), a delete precondition's
    # Conflict the internal object's kind, a core Event (apiserver registry/rest/delete.go BeforeDelete)
    created = kube.create("events.events.k8s.io", _v1_event(), "default")
    with pytest.raises(errors.AlreadyExists) as exists:
        kube.create("events.events.k8s.io", _v1_event(), "default")
    assert exists.value.status["message"] == 'events.events.k8s.io "demo" already exists'
    assert exists.value.status["details"]["group"] == "events.k8s.io"
    with pytest.raises(errors.Conflict) as conflict:
        kube.delete("events.events.k8s.io", "demo", "default", preconditions={"resourceVersion": "1"})
    assert conflict.value.status["message"].startswith('Operation cannot be fulfilled on Event "demo": the Resource')
    assert "group" not in conflict.value.status["details"]
    with pytest.raises(errors.Conflict) as conflict:
        kube.delete("events.events.k8s.io", "demo", "default", preconditions={"uid": "x"})
    assert conflict.value.status["message"].startswith('Operation cannot be fulfilled on Event "demo": the UID')
    assert created["metadata"]["name"] == "demo"

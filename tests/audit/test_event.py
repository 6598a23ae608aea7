"""The Event codec's edges: times as logs spell them, URIs of in-process requests, v1beta1 events."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fakekube.audit import AuditEntry
from fakekube.audit.event import EventError, decode, micro_time, parse_time, request_uri


@pytest.mark.parametrize(("text", "micro"), [
    ("2023-06-12T13:30:26.155054Z", "2023-06-12T13:30:26.155054Z"),     # kube-apiserver: MicroTime
    ("2017-09-11T19:55:05Z", "2017-09-11T19:55:05.000000Z"),            # v1beta1's timestamp: seconds
    ("2021-04-23T14:47:07.535383123Z", "2021-04-23T14:47:07.535383Z"),  # GKE receiveTimestamp: nanoseconds
    ("2024-11-13 23:50:32.672347000", "2024-11-13T23:50:32.672347Z"),   # Panther's EKS copies
    ("2020-05-01T10:00:00.5+02:00", "2020-05-01T08:00:00.500000Z"),
])
def test_times(text: str, micro: str) -> None:
    assert micro_time(parse_time(text)) == micro


@pytest.mark.parametrize("text", ["", "yesterday", "2024-02-30T00:00:00Z", 1700000000, None])
def test_not_times(text: object) -> None:
    assert parse_time(text) is None


def test_a_yaml_timestamp_is_a_time() -> None:
    assert micro_time(parse_time(datetime(2024, 1, 1, 1, tzinfo=UTC))) == "2024-01-01T01:00:00.000000Z"


def test_uris_of_in_process_requests() -> None:
    def entry(**kw: object) -> AuditEntry:
        base = {"seq": 1, "time": 0.0, "actor": "a", "verb": "get", "group": "", "resource": "pods",
                "namespace": "d", "name": "p", "version": "v1"}
        return AuditEntry(**{**base, **kw})  # type: ignore[arg-type]

    assert request_uri(entry()) == "/api/v1/namespaces/d/pods/p"
    assert request_uri(entry(verb="create", generate_name="p-")) == "/api/v1/namespaces/d/pods"
    assert request_uri(entry(verb="patch", subresource="status", dry_run=True)) == \
        "/api/v1/namespaces/d/pods/p/status?dryRun=All"
    assert request_uri(entry(verb="watch", name=None, group="apps", resource="deployments")) == \
        "/apis/apps/v1/namespaces/d/deployments?watch=true"
    assert request_uri(entry(resource="namespaces", namespace="d", name="d")) == "/api/v1/namespaces/d"


def test_v1beta1_events_and_wrong_types() -> None:
    legacy = {"kind": "Event", "apiVersion": "audit.k8s.io/v1beta1", "metadata": {"creationTimestamp": "x"},
              "level": "Metadata", "timestamp": "2017-09-11T19:55:05Z", "auditID": "a", "stage": "RequestReceived",
              "requestURI": "/api/v1/namespaces", "verb": "list", "user": {"username": "bob"},
              "objectRef": {"resource": "namespaces", "apiVersion": "v1"}}
    entry = decode(legacy)
    assert (entry.time, entry.actor, entry.verb, entry.code, entry.request.stages) == (
        1505159705.0, "bob", "list", 0, ("RequestReceived",))
    for field, value, message in (("objectRef", [], "objectRef: expected an object"),
                                  ("user", {"username": 3}, "user.username: expected a string"),
                                  ("responseStatus", {"code": "409"}, "responseStatus.code: expected a number"),
                                  ("annotations", {"a": 1}, "annotations: expected an object of strings")):
        with pytest.raises(EventError, match=message):
            decode({**legacy, field: value})

"""A fuzzed log never makes the reader raise: truncated lines, wrong types, missing fields, garbage."""

from __future__ import annotations

import io
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakekube.audit.reader import read_log

EVENT = {
    "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "RequestResponse", "auditID": "a1",
    "stage": "ResponseComplete", "requestURI": "/api/v1/namespaces/d/pods", "verb": "create",
    "user": {"username": "u", "groups": ["g"], "extra": {"k": ["v"]}}, "sourceIPs": ["10.0.0.1"],
    "userAgent": "kubectl/v1.32", "objectRef": {"resource": "pods", "namespace": "d", "apiVersion": "v1"},
    "responseStatus": {"metadata": {}, "status": "Failure", "reason": "AlreadyExists", "code": 409,
                       "details": {"name": "p", "kind": "pods"}},
    "requestObject": {"metadata": {"generateName": "p-"}}, "responseObject": {"metadata": {"name": "p-x"}},
    "requestReceivedTimestamp": "2026-01-01T00:00:00.000001Z", "stageTimestamp": "2026-01-01T00:00:00.000002Z",
    "annotations": {"fakekube.dev/notes": "[\"n\"]", "fakekube.dev/seq": "3"},
}
GKE = {"insertId": "i", "timestamp": "2026-01-01T00:00:00Z", "labels": {"a": "b"}, "operation": {"id": "i"},
       "protoPayload": {"@type": "type.googleapis.com/google.cloud.audit.AuditLog", "serviceName": "k8s.io",
                        "methodName": "io.k8s.core.v1.pods.status.patch",
                        "resourceName": "core/v1/namespaces/d/pods/p/status", "status": {"code": 10},
                        "authenticationInfo": {"principalEmail": "e"}, "requestMetadata": {"callerIp": "1.2.3.4"},
                        "request": {"@type": "k8s.io/Patch", "status": {}}, "response": {"metadata": {}}}}
AKS = {"category": "kube-audit", "properties": {"log": json.dumps(EVENT), "pod": "apiserver"}}

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                       max_size=3), max_leaves=6)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    return out


@st.composite
def mutated(draw: st.DrawFn) -> str:
    doc = json.loads(json.dumps(draw(st.sampled_from([EVENT, GKE, AKS]))))
    for _ in range(draw(st.integers(0, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(json_values)
    text = json.dumps(doc)
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutated() | st.text(max_size=30), min_size=1, max_size=6), st.booleans())
def test_the_reader_never_raises(lines: list[str], as_array: bool) -> None:
    text = ("[" + ",\n".join(lines) + "]") if as_array else "\n".join(lines)
    entries, report = read_log(io.StringIO(text))
    assert report.events >= len(entries) or report.requests == len(entries)
    assert all(isinstance(p.line, int) and p.message for p in report.problems)
    # Each bad field is named by the checks, not caught as an exception nobody expected.
    assert not [p for p in report.problems if p.message.startswith("unreadable entry")], report.problems
    for entry in entries:  # what the reader yields is usable downstream
        assert isinstance(entry.verb, str) and isinstance(entry.code, int) and isinstance(entry.time, float)
        assert entry.name is None or isinstance(entry.name, str)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes(data: bytes) -> None:
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")
    entries, report = read_log(stream)
    assert isinstance(entries, list)

"""The audit.k8s.io/v1 schema of tests/audit/event_schema.py, held against logs kube-apiserver wrote (unedited
samples, INDEX.md's "real cluster" provenance), then against fakekube's writer."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from fakekube import Store, errors
from tests.audit.event_schema import check

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "audit-samples"
KUBE_APISERVER_LINES = [
    "openshift+cluster-logging-operator/test_functional_filters_apiaudit_vrl_testdata_audit_in.log",  # OCP 4.12
    "openshift+cluster-logging-operator/DERIVED_forward_to_syslog_test.go.events.jsonl",            # OCP 4.6
]
KUBE_APISERVER_DOCS = ["afcollins+kube-audit-log-tool/single-event.json",
                       "sysdiglabs+aks-audit-log/samples_sample_KubeAuditLog_event.json"]


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared is absent")
def test_the_schema_accepts_what_kube_apiserver_wrote() -> None:
    events = [json.loads(line) for name in KUBE_APISERVER_LINES for line in (SAMPLES / name).read_text().splitlines()]
    events += [json.loads((SAMPLES / name).read_text(encoding="utf-8-sig")) for name in KUBE_APISERVER_DOCS]
    records = json.loads((SAMPLES / "sysdiglabs+aks-audit-log/samples_event.json").read_text(encoding="utf-8-sig"))
    events += [json.loads(r["properties"]["log"]) for r in records["records"]]  # AKS 1.15
    assert len(events) == 100 + 28 + 2 + 22
    for event in events:
        check(event)


def test_the_schema_refuses_what_kube_apiserver_would_not_write() -> None:
    good = {"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata", "auditID": "a",
            "stage": "ResponseComplete", "requestURI": "/api", "verb": "get", "user": {},
            "requestReceivedTimestamp": "2026-01-01T00:00:00.000000Z", "stageTimestamp": "2026-01-01T00:00:00.000000Z"}
    check(good)
    for bad in ({"stageTimestamp": "2026-01-01T00:00:00Z"}, {"level": "None"}, {"objectRef": {"resource": 1}},
                {"responseStatus": {"code": 200}}, {"surprise": True}, {"user": {"name": "x"}}):
        with pytest.raises(ValidationError):
            check({**good, **bad})
    with pytest.raises(AssertionError):
        check({**good, "requestObject": {}})  # a body at Metadata level


def test_fakekube_writes_what_the_schema_accepts() -> None:
    store = Store(seed=1)
    out = io.StringIO()
    store.audit.write_events(out, level="RequestResponse")
    cm = store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    store.patch("configmaps", "c", {"data": {"a": "b"}}, "default")
    with pytest.raises(errors.Conflict):
        store.update("configmaps", cm, "default")
    with pytest.raises(errors.Invalid):
        store.create("configmaps", {"metadata": {"name": "Not_Valid"}}, "default")
    store.delete("configmaps", "c", "default")
    store.audit.close_writers()
    lines = out.getvalue().splitlines()
    assert len(lines) == 5
    for line in lines:
        check(json.loads(line))

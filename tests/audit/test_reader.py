"""Reading real audit logs: every public sample in ../shared/audit-samples, counted against figures nobody
here computed (the samples' INDEX.md, written when they were collected, and grep-level counts of the files)."""

from __future__ import annotations

import gzip
import io
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from fakekube.audit import jsonstream
from fakekube.audit.reader import AuditLogReader, read_log

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "audit-samples"
needs_samples = pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared is absent")


def _index() -> dict[str, tuple[int, dict[str, int]]]:
    """INDEX.md's table rows: file → (events, 409s by reason)."""
    rows: dict[str, tuple[int, dict[str, int]]] = {}
    section = None
    for line in (SAMPLES / "INDEX.md").read_text().splitlines():
        heading = re.match(r"^### (\S+)", line)
        if heading:
            section = heading.group(1)
        elif section and line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            conflicts = {} if cells[5] == "no" else {k: int(v) for k, v in re.findall(r"(\w+):(\d+)", cells[5])}
            rows[f"{section}/{cells[0].strip('`')}"] = (int(cells[3]), conflicts)
    return rows


def _samples() -> list[str]:
    if not SAMPLES.is_dir():
        return []
    return sorted(str(p.relative_to(SAMPLES)) for p in SAMPLES.rglob("*") if p.is_file() and p.name != "INDEX.md")


@needs_samples
def test_the_index_lists_every_sample() -> None:
    assert sorted(_index()) == _samples()


@needs_samples
@pytest.mark.parametrize("name", _samples())
def test_every_sample_reads_without_problems_with_the_indexed_counts(name: str) -> None:
    events, conflicts = _index()[name]
    entries, report = read_log(SAMPLES / name)
    assert report.problems == []
    # INDEX counts every entry of a Cloud Logging export; those of other Google services are skipped here.
    assert report.events + sum(report.skipped.values()) == events
    assert dict(Counter(e.reason for e in entries if e.code == 409)) == conflicts


def _lines(name: str) -> list[str]:
    return [line for line in (SAMPLES / name).read_text(encoding="utf-8-sig").splitlines() if line.strip()]


@needs_samples
def test_json_lines_logs_by_grep() -> None:
    clo = "openshift+cluster-logging-operator/test_functional_filters_apiaudit_vrl_testdata_audit_in.log"
    entries, report = read_log(SAMPLES / clo)
    lines = _lines(clo)
    assert report.events == len(lines) == 100
    assert sum('"code":409' in line for line in lines) == sum(e.code == 409 for e in entries) == 4
    watches = [event for event in map(json.loads, lines) if event["verb"] == "watch"]
    assert sum(e.verb == "watch" for e in entries) == len({w["auditID"] for w in watches}) == len(watches)
    # Stages merged per auditID: the 2017 log has RequestReceived and ResponseComplete events.
    demo = "liggitt+audit2rbac/demo.log@501d132-original-v1beta1.log"
    entries, report = read_log(SAMPLES / demo)
    lines = _lines(demo)
    complete = sum('"stage":"ResponseComplete"' in line for line in lines)
    received_ids = {json.loads(line)["auditID"] for line in lines if '"stage":"RequestReceived"' in line}
    completed_ids = {json.loads(line)["auditID"] for line in lines if '"stage":"ResponseComplete"' in line}
    assert report.events == len(lines) == 757
    assert report.requests == complete + len(received_ids - completed_ids)
    assert sum(e.request.stages == ("RequestReceived", "ResponseComplete") for e in entries) == len(
        received_ids & completed_ids)


@needs_samples
def test_gke_entries_become_requests() -> None:
    beats = "elastic+beats/x-pack_filebeat_module_gcp_audit_test_audit-log-entries.json.log"
    entries, report = read_log(SAMPLES / beats)
    k8s = [json.loads(line) for line in _lines(beats) if '"serviceName":"k8s.io"' in line]
    assert len(entries) == len(k8s) == 5 and sum(report.skipped.values()) == len(_lines(beats)) - 5
    assert [e.verb for e in entries] == [d["protoPayload"]["methodName"].rsplit(".", 1)[1] for d in k8s]
    assert [e.request.user for e in entries] == [d["protoPayload"]["authenticationInfo"]["principalEmail"]
                                                 for d in k8s]
    assert [e.request.uri for e in entries if e.request.non_resource] == ["/readyz", "/api/v1"]
    (forbidden,), _ = read_log(SAMPLES / "elastic+integrations/packages_gcp_data_stream_audit__dev_test_pipeline_"
                                         "test-k8s-nonmatching-resourcename.log")
    assert (forbidden.code, forbidden.reason, forbidden.request.uri) == (403, "Forbidden", "/HNAP1")
    assert "code inferred from google.rpc status 7" in forbidden.notes
    # KHI's create: the generated name is in resourceName, unlike a native event's objectRef.
    (create,), _ = read_log(SAMPLES / "GoogleCloudPlatform+khi/test_logs_k8s_audit_container_recorder_test_1_1.yaml")
    assert (create.verb, create.resource, create.namespace, create.name, create.code) == (
        "create", "pods", "1-2-deployment-update", "nginx-deployment-surge-8655b4b8c5-xf5f4", 201)
    assert create.actor == "kube-controller-manager" and create.request_object is not None


@needs_samples
def test_aks_records_and_native_details() -> None:
    entries, _ = read_log(SAMPLES / "sysdiglabs+aks-audit-log/samples_event.json", merge_stages=False)
    records = json.loads((SAMPLES / "sysdiglabs+aks-audit-log/samples_event.json").read_text(encoding="utf-8-sig"))
    inner = [json.loads(r["properties"]["log"]) for r in records["records"]]
    assert [e.request.audit_id for e in entries] == [i["auditID"] for i in inner]
    clash = next(e for e in entries if e.code == 409)
    assert (clash.reason, clash.message) == ("AlreadyExists", "")  # AKS 1.15: before Message came back (1.24)
    # A generateName create at RequestResponse: no name in objectRef, the name from the response.
    (pod,), _ = read_log(SAMPLES / "falcosecurity+falco/k8s_audit__create_nginx_pod_privileged.json")
    assert (pod.name, pod.generate_name, pod.actor) == (  # no User-Agent in Falco's traces: the user is the actor
        "nginx-deployment-5cdcc99dbf-rgw6z", "nginx-deployment-5cdcc99dbf-",
        "system:serviceaccount:kube-system:replicaset-controller")
    # An update's objectRef.resourceVersion is the one the client sent, older than the result.
    entries, _ = read_log(SAMPLES / "openshift+cluster-logging-operator/test_functional_filters_apiaudit_vrl_testdata_audit_in.log")
    status = [e for e in entries if e.verb == "update" and e.subresource == "status"]
    assert len(status) == 4 and all(int(e.request_rv) < int(e.rv_after) for e in status)


def test_bad_lines_are_reported_with_their_line_numbers_and_skipped() -> None:
    good = json.dumps({"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata", "auditID": "a",
                       "stage": "ResponseComplete", "verb": "get", "requestURI": "/api/v1/pods",
                       "responseStatus": {"code": 200}})
    text = "\n".join([good, "not json at all", good.replace('"auditID":"a"', '"auditID":"b"')[:-1] + ",",
                      json.dumps({"kind": "Event", "verb": "get", "objectRef": "pods"}), "[1, 2]",
                      good.replace('"a"', '"c"'), good[: len(good) // 2]])
    entries, report = read_log(io.StringIO(text))
    assert [e.request.audit_id for e in entries] == ["a", "c"]
    assert [(p.line, p.message.split(":")[0]) for p in report.problems] == [
        (2, "not JSON"), (3, "invalid JSON"), (4, "objectRef"), (5, "expected an audit event (an object), got int"),
        (5, "expected an audit event (an object), got int"), (7, "truncated JSON")]
    assert "objectRef: expected an object, got str" in str(report.problems[2])


def test_documents_arrays_wrappers_and_gzip(tmp_path: Path) -> None:
    event = {"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata", "stage": "ResponseComplete",
             "verb": "get", "requestURI": "/api/v1/namespaces/d/pods/p",
             "objectRef": {"resource": "pods", "namespace": "d", "name": "p", "apiVersion": "v1"},
             "responseStatus": {"metadata": {}, "code": 200}}
    events = [{**event, "auditID": str(i)} for i in range(5)]
    shapes = {
        "pretty.json": json.dumps(events[0], indent=2),
        "array.json": json.dumps(events, indent=1),
        "list.json": json.dumps({"kind": "EventList", "apiVersion": "audit.k8s.io/v1", "items": events}),
        "entries.json": json.dumps({"entries": [{"properties": {"log": json.dumps(e)}} for e in events]}),
    }
    for name, text in shapes.items():
        (tmp_path / name).write_text(text)
    with gzip.open(tmp_path / "lines.log.gz", "wt") as f:
        f.write("".join(json.dumps(e) + "\n" for e in events))
    counts = {p.name: len(read_log(p)[0]) for p in sorted(tmp_path.iterdir())}
    assert counts == {"array.json": 5, "entries.json": 5, "lines.log.gz": 5, "list.json": 5, "pretty.json": 1}


def test_a_wrapper_too_big_for_memory_is_streamed_key_by_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonstream, "_IN_MEMORY", 256)
    items = [{"kind": "Event", "apiVersion": "audit.k8s.io/v1", "auditID": str(i), "stage": "ResponseComplete",
              "verb": "list", "requestURI": "/api/v1/pods", "responseStatus": {"code": 200}} for i in range(50)]
    text = json.dumps({"kind": "EventList", "apiVersion": "audit.k8s.io/v1", "metadata": {}, "items": items},
                      indent=1)
    reader = AuditLogReader(io.StringIO(text))
    assert [e.request.audit_id for e in reader] == [str(i) for i in range(50)]
    assert reader.report.problems == []

"""Writing the store's requests as kube-apiserver writes audit.k8s.io/v1 Events, and reading them back."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import pytest

from fakekube import Store, errors
from fakekube.audit.policy import Policy
from fakekube.audit.reader import read_log
from fakekube.audit.writer import write_log
from fakekube.clock import VirtualClock
from tests.audit.event_schema import check

START = datetime(2026, 4, 2, 12, 0, 0, tzinfo=UTC)


def _store() -> Store:
    return Store(seed=1, clock=VirtualClock(START))


def _requests(store: Store) -> None:
    """A generateName create, a named create, a patch, a stale update (409), a 404, a watch."""
    clock = store.clock
    store.create("configmaps", {"metadata": {"generateName": "pool-"}}, "default", actor="pool")
    clock.advance(0.001234)
    cm = store.create("configmaps", {"metadata": {"name": "c"}, "data": {"html": "<a&b>"}}, "default", actor="ctrl")
    clock.advance(0.002)
    store.patch("configmaps", "c", {"data": {"k": "v"}}, "default", actor="kubectl")
    clock.advance(0.003)
    with pytest.raises(errors.Conflict):
        store.update("configmaps", cm, "default", actor="ctrl")
    with pytest.raises(errors.NotFound):
        store.get("configmaps", "gone", "default", actor="ctrl")
    store.watch("configmaps", "default", actor="informer")
    clock.advance(1)


def _events(level: str = "Metadata", policy: Policy | None = None) -> list[dict]:
    store = _store()
    out = io.StringIO()
    store.audit.write_events(out, level=level, policy=policy)
    _requests(store)
    store.audit.close_writers()
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_events_have_the_fields_kube_apiserver_writes() -> None:
    events = _events()
    for event in events:
        check(event)
    generated, named, patch, conflict, missing, started, complete = events
    assert [e["stage"] for e in events] == ["ResponseComplete"] * 5 + ["ResponseStarted", "ResponseComplete"]
    assert generated["objectRef"] == {"resource": "configmaps", "namespace": "default", "apiVersion": "v1"}
    assert generated["requestURI"] == "/api/v1/namespaces/default/configmaps"
    assert named["objectRef"]["name"] == "c" and named["responseStatus"] == {"metadata": {}, "code": 201}
    assert "resourceVersion" not in patch["objectRef"] and "uid" not in patch["objectRef"]
    assert conflict["objectRef"]["resourceVersion"] == named["annotations"]["fakekube.dev/rv-after"]  # as sent
    assert conflict["responseStatus"] == {
        "metadata": {}, "status": "Failure",
        "message": 'Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply '
                   "your changes to the latest version and try again",
        "reason": "Conflict", "details": {"name": "c", "kind": "configmaps"}, "code": 409}
    assert missing["responseStatus"]["reason"] == "NotFound"
    assert started["auditID"] == complete["auditID"] and started["requestURI"].endswith("?watch=true")
    assert (started["stageTimestamp"], complete["stageTimestamp"]) == ("2026-04-02T12:00:00.006234Z",
                                                                       "2026-04-02T12:00:00.006234Z")
    assert named["stageTimestamp"] == "2026-04-02T12:00:00.001234Z"
    assert all(e["level"] == "Metadata" and "requestObject" not in e for e in events)
    assert len({e["auditID"] for e in events}) == 6


def test_bodies_at_the_levels_that_log_them() -> None:
    request = _events("Request")
    assert request[1]["requestObject"] == {"metadata": {"name": "c"}, "data": {"html": "<a&b>"}}
    assert request[2]["requestObject"] == {"data": {"k": "v"}}          # a patch: the patch as sent
    assert not any("responseObject" in e for e in request)
    full = _events("RequestResponse")
    for event in full:
        check(event)
    assert full[0]["responseObject"]["metadata"]["name"].startswith("pool-")
    assert full[3]["responseObject"]["kind"] == "Status" and full[3]["responseObject"]["code"] == 409
    assert not any("responseObject" in e for e in full[5:])             # a watch's stream is not logged


def test_go_escaping_and_microseconds_in_the_written_line() -> None:
    store = _store()
    out = io.StringIO()
    store.audit.write_events(out, level="Request")
    store.create("configmaps", {"metadata": {"name": "c"}, "data": {"html": "<a&b> ü"}}, "default")
    store.audit.close_writers()
    line = out.getvalue()
    assert '"html":"\\u003ca\\u0026b\\u003e ü"' in line
    assert '"stageTimestamp":"2026-04-02T12:00:00.000000Z"' in line


def test_a_policy_chooses_levels_and_stages() -> None:
    policy = Policy.from_dict({"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "omitManagedFields": True,
                               "rules": [{"level": "None", "users": ["informer"]},
                                         {"level": "RequestResponse", "verbs": ["create"]},
                                         {"level": "Metadata"}]})
    events = _events(policy=policy)
    assert [e["stage"] for e in events][:2] == ["RequestReceived", "ResponseComplete"]  # nothing omitted
    assert not any(e["user"]["username"] == "informer" for e in events)
    created = [e for e in events if e["verb"] == "create" and e["stage"] == "ResponseComplete"]
    assert all(e["level"] == "RequestResponse" and "managedFields" not in e["responseObject"]["metadata"]
               for e in created)
    received = events[0]
    assert "responseStatus" not in received and received["stageTimestamp"] == received["requestReceivedTimestamp"]


def test_without_a_writer_the_store_copies_no_bodies() -> None:
    store = _store()
    _requests(store)
    assert store.audit.policy is None
    assert all(e.request_object is None and e.response_object is None and e.level == "" for e in store.audit)
    store.audit.write_events(io.StringIO(), level="Metadata")
    store.create("configmaps", {"metadata": {"name": "m"}}, "default")
    assert store.audit[-1].level == "Metadata" and store.audit[-1].request_object is None


FIELDS = ("seq", "actor", "verb", "group", "resource", "namespace", "name", "subresource", "code", "reason",
          "message", "rv_before", "rv_after", "patch_type", "dry_run", "based_on", "uid", "notes", "generate_name",
          "version", "request_rv")


@pytest.mark.parametrize("level", ["Metadata", "RequestResponse"])
def test_written_and_read_back_without_loss(level: str) -> None:
    store = _store()
    store.audit.write_events(live := io.StringIO(), level=level)
    _requests(store)
    store.create("configmaps", {"metadata": {"name": "d"}}, "default", dry_run=True, actor="kubectl")
    store.audit.close_writers()
    original = store.audit.entries
    live.seek(0)
    back, report = read_log(live)
    assert report.problems == [] and len(back) == len(original)
    back.sort(key=lambda e: e.seq)  # read in the order requests completed: the watch ends last
    for before, after in zip(original, back, strict=True):
        assert {f: getattr(after, f) for f in FIELDS} == {f: getattr(before, f) for f in FIELDS}
        assert round(after.time, 6) == round(before.time, 6)
        assert (after.request_object, after.response_object) == (before.request_object, before.response_object)
    # Written after the fact from the entries, the same lines (bodies only where captured).
    again = io.StringIO()
    write_log(original, again, level=level)
    assert again.getvalue() == live.getvalue()


def test_two_writers_each_at_its_level() -> None:
    store = _store()
    metadata, full = io.StringIO(), io.StringIO()
    store.audit.write_events(metadata, level="Metadata")
    store.audit.write_events(full, level="RequestResponse")
    store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    store.audit.close_writers()
    assert "responseObject" not in metadata.getvalue() and '"level":"Metadata"' in metadata.getvalue()
    assert json.loads(full.getvalue())["responseObject"]["metadata"]["name"] == "c"

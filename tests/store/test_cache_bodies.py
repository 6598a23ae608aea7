"""PUT bodies built over the stored objects themselves, as a controller builds them over its informer cache
(whose objects the simulation shares with the store): the identity short cuts of ``Record.same_text``,
``verbs.unchanged`` and the stale-PUT check answer as a body of copies does, and share nothing afterwards."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from fakekube import decoding, errors
from fakekube.clock import VirtualClock
from fakekube.jsonvalues import json_text
from fakekube.records import Record
from fakekube.store import Store
from fakekube.verbs.unchanged import check_update_body, decode_update_body

POD = {"metadata": {"name": "p", "labels": {"a": "1"}},
       "spec": {"containers": [{"name": "c", "image": "i:1"}], "terminationGracePeriodSeconds": 30}}


def _record(kube: Store) -> Record:
    kube.create("pods", copy.deepcopy(POD), "default")
    return kube._data["/pods"][("default", "p")]


def _over_stored(record: Record, **changes: Any) -> dict[str, Any]:
    """A body whose top-level values are the stored ones (by identity) but for a fresh metadata."""
    return {**record.obj, "metadata": dict(record.obj["metadata"]), **changes}


def test_same_text_with_shared_fields_is_the_whole_text_comparison(kube: Store) -> None:
    record = _record(kube)
    obj = record.obj
    variants = [
        _over_stored(record),
        _over_stored(record, metadata={**obj["metadata"], "generation": True}),  # 1 → true
        _over_stored(record, metadata=dict(reversed(obj["metadata"].items()))),  # another member order
        dict(reversed(_over_stored(record).items())),  # another key order, every value shared
        {**json.loads(json.dumps(obj)), "spec": obj["spec"]},  # only the spec shared
        {**_over_stored(record), "spec": {**obj["spec"], "terminationGracePeriodSeconds": 30.0}},
    ]
    for body in variants:
        assert body == obj
        assert record.same_text(body) == (json_text(body) == record.json()), body


@pytest.mark.parametrize("field_validation", ["Warn", "Strict"])
def test_a_put_over_the_stored_objects_answers_as_one_of_copies(field_validation: str) -> None:
    answers = []
    for shared in (True, False):
        kube = Store(seed=3, clock=VirtualClock())  # both stores stamp the same instant, whatever the wall clock
        record = _record(kube)
        body = _over_stored(record) if shared else json.loads(json.dumps(record.obj))
        body["metadata"]["labels"] = {"a": "2"}
        answers.append(kube.update("pods", body, "default", field_validation=field_validation))
        kube.update("pods", kube.get("pods", "p", "default"), "default")
        stored = kube._data["/pods"][("default", "p")]
        for _ in range(2):  # a no-op PUT back, the second one the memo's
            answers.append(kube.update("pods", _over_stored(stored), "default"))
        before = kube.get("pods", "p", "default")
        answers[-1]["spec"]["containers"][0]["image"] = "changed"  # the answer shares nothing
        assert kube.get("pods", "p", "default") == before
    assert answers[:3] == answers[3:]


def test_decoding_a_body_over_the_stored_fields_copies_them(kube: Store) -> None:
    record = _record(kube)
    rt = kube.resolve("pods")
    body = _over_stored(record)
    body["metadata"]["bogus"] = 1
    value, unknown = decode_update_body(rt, body, record)
    whole = decoding.decode_body(rt, json.loads(json.dumps(body)))
    assert (json.dumps(value), unknown) == (json.dumps(whole.value), whole.unknown)
    assert value["spec"] is not record.obj["spec"] and value["spec"] == record.obj["spec"]


def test_a_stale_put_over_an_older_versions_objects_is_checked_as_a_whole(kube: Store) -> None:
    record = _record(kube)
    rt = kube.resolve("pods")
    stale = _over_stored(record)  # built over the version it names
    stale["metadata"]["bogus"] = 1
    later = kube.get("pods", "p", "default")
    later["spec"]["activeDeadlineSeconds"] = 5
    kube.update("pods", later, "default")
    current = kube._data["/pods"][("default", "p")]
    based_on = kube.hub.stored_at(int(stale["metadata"]["resourceVersion"]), rt.storage)
    assert based_on is record.obj
    assert check_update_body(rt, stale, current, based_on) == decoding.check_body(rt, stale) == ["metadata.bogus"]
    with pytest.raises(errors.Conflict):
        kube.update("pods", stale, "default")
    assert kube.audit.entries[-1].warnings == ['unknown field "metadata.bogus"']

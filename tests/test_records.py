"""Record: the bytes a version keeps from its answer's copy are the ones ``Record.json`` would encode."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

from fakekube.jsonvalues import encode_json, json_copy
from fakekube.records import Record
from fakekube.store import Store


def _meta(**extra: Any) -> dict[str, Any]:
    return {"name": "x", "resourceVersion": "7", **extra}


VALUES = [
    {"metadata": _meta(labels={"a": "1"}), "spec": {"n": 1, "f": 1.5, "t": True, "z": None, "l": [1, "2", {}]}},
    {"metadata": _meta(), "spec": {"nan": math.nan}},  # written as null: no exact text
    {"metadata": _meta(), "spec": {"inf": -math.inf, "null": None}},
    {"metadata": _meta(), "spec": {"big": 2**70}},  # beyond 64 bits: orjson refuses it
    {"metadata": _meta(), "spec": {1: "a non-string key"}},
    {"metadata": _meta(), "spec": {"surrogate": "\ud800"}},
    {"metadata": _meta(), "spec": {"tuple": (1, 2)}},
    {"metadata": _meta(), "spec": {"sub": type("S", (str,), {})("a str subclass")}},
]


def _same_types(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same_types(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same_types(x, y) for x, y in zip(a, b, strict=True))
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_a_copy_keeps_the_bytes_json_encodes_and_copies_as_json_copy(value: dict[str, Any]) -> None:
    record = Record(copy.deepcopy(value))
    answer = record.copy()
    full = Record(copy.deepcopy(value))  # the full path: nothing kept, encoded when first asked for
    assert record.json() == full.json() == (encode_json(value) or b"")
    assert _same_types(answer, json_copy(value))
    assert answer is not record.obj and answer["metadata"] is not record.obj["metadata"]
    for again in (record.copy(), record.read()):  # from the kept bytes (or walked, as before)
        assert _same_types(again, answer)
        assert again is not answer and again["spec"] is not record.obj["spec"]


def test_a_mutated_answer_leaves_the_kept_bytes_and_the_next_copies_alone() -> None:
    record = Record({"metadata": _meta(labels={"a": "1"}), "data": {"k": "v"}})
    answer = record.copy()
    answer["metadata"]["labels"]["a"] = "2"
    answer["data"].clear()
    assert record.json() == encode_json({"metadata": _meta(labels={"a": "1"}), "data": {"k": "v"}})
    assert record.copy() == record.read() == record.obj


def test_every_stored_version_keeps_its_own_bytes(kube: Store) -> None:
    """Writes of every verb answer from their new record: whatever bytes a record holds are its object's."""
    kube.create("configmaps", {"metadata": {"name": "c"}, "data": {"a": "1"}}, "default")
    obj = kube.get("configmaps", "c", "default")
    obj["data"]["a"] = "2"
    obj = kube.update("configmaps", obj, "default")
    kube.update("configmaps", obj, "default")  # a no-op: the answer is the kept bytes
    kube.patch("configmaps", "c", {"data": {"b": "3"}}, "default")
    kube.patch("configmaps", "c", [{"op": "add", "path": "/data/c", "value": "4"}], "default",
               patch_type="application/json-patch+json")
    kube.create("pods", {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
                "default")
    kube.patch("pods", "p", {"status": {"phase": "Running"}}, "default", subresource="status")
    for bucket in kube._data.values():
        for record in bucket.values():
            kept = record._data
            assert kept is None or kept == (encode_json(record.obj) or b""), record.obj
    assert kube._data["/configmaps"][("default", "c")]._data is not None  # answered, so kept

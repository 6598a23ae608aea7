"""A write carries the stored managedFields list into the new version instead of copying it
(fakekube/verbs/shared_fields.py): answers are those of the copying path, and nothing is shared with callers."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from fakekube import errors
from fakekube.clock import VirtualClock
from fakekube.store import Store
from fakekube.verbs import shared_fields, unchanged, write
from fakekube.verbs.shared_fields import patch_leaves_managed_fields

POD = {"metadata": {"name": "p", "labels": {"a": "1"}},
       "spec": {"containers": [{"name": "c", "image": "i:1", "env": [{"name": "E", "value": "1"}]}]}}
JSON, MERGE, SMP = ("application/json-patch+json", "application/merge-patch+json",
                    "application/strategic-merge-patch+json")

PATCHES: list[tuple[Any, str]] = [
    ({"metadata": {"labels": {"b": "2"}}}, MERGE),
    ({"metadata": {"managedFields": None, "labels": {"b": "2"}}}, MERGE),
    ({"metadata": {"managedFields": [{"manager": "m", "operation": "Update", "fieldsType": "FieldsV1",
                                      "fieldsV1": {"f:metadata": {}}}]}}, MERGE),
    ({"metadata": {"managedFields": [{"operation": "Nope"}]}}, MERGE),
    ({"metadata": None}, MERGE),
    ({"metadata": {"labels": {"b": 5}}}, MERGE),
    ([{"op": "add", "path": "/metadata/labels/b", "value": "2"}], JSON),
    ([{"op": "test", "path": "/metadata", "value": {}}], JSON),
    ([{"op": "copy", "from": "/metadata", "path": "/metadata/annotations/x"}], JSON),
    ([{"op": "copy", "from": "/metadata/labels", "path": "/metadata/annotations"}], JSON),
    ([{"op": "remove", "path": "/metadata/managedFields/0"}], JSON),
    ([{"op": "replace", "path": "/metadata/managedFields", "value": []}], JSON),
    ([{"op": "add", "path": "/metadata/bogus", "value": 1}], JSON),
    ({"spec": {"containers": [{"name": "c", "image": "i:2"}]}}, SMP),
    ({"metadata": {"$retainKeys": ["name", "labels"], "labels": {"b": "2"}}}, SMP),
    ({"metadata": {"$setElementOrder/managedFields": [{"manager": "x"}]}}, SMP),
    ({"metadata": {"$patch": "replace", "name": "p", "labels": {"b": "2"}}}, SMP),
    ({"$deleteFromPrimitiveList/metadata": ["x"]}, SMP),
]


def _outcome(store: Store, fn: Any) -> Any:
    try:
        return ["ok", fn(), store.get("pods", "p", "default")]
    except errors.ApiError as exc:
        return ["error", exc.status]


def _fresh(managed_fields: bool) -> Store:
    store = Store(managed_fields=managed_fields, seed=7, clock=VirtualClock())
    store.create("pods", copy.deepcopy(POD), "default")
    return store


@pytest.mark.parametrize("managed_fields", [True, False])
@pytest.mark.parametrize(("patch", "patch_type"), PATCHES)
def test_a_patch_answers_as_the_copying_path_does(monkeypatch: pytest.MonkeyPatch, managed_fields: bool,
                                                  patch: Any, patch_type: str) -> None:
    def run() -> Any:
        store = _fresh(managed_fields)
        return _outcome(store, lambda: store.patch("pods", "p", copy.deepcopy(patch), "default",
                                                   patch_type=patch_type, field_validation="Strict"))

    shared = run()
    monkeypatch.setattr(write, "patch_leaves_managed_fields", lambda patch, kind: False)
    assert json.dumps(shared) == json.dumps(run())


PUT_CHANGES = [
    lambda meta: meta["labels"].__setitem__("b", "2"),
    lambda meta: meta["managedFields"][0].__setitem__("manager", "other"),
    lambda meta: meta.pop("managedFields"),
    lambda meta: meta["managedFields"].append({"operation": "X"}),
    lambda meta: meta["managedFields"][0].__setitem__("bogus", 1),
    lambda meta: meta.__setitem__("bogus", 1),
]


@pytest.mark.parametrize("managed_fields", [True, False])
@pytest.mark.parametrize("change", PUT_CHANGES)
def test_a_put_answers_as_the_copying_path_does(monkeypatch: pytest.MonkeyPatch, managed_fields: bool,
                                                change: Any) -> None:
    def run() -> Any:
        store = _fresh(managed_fields)
        if not managed_fields:  # give the stored object entries of its own
            body = store.get("pods", "p", "default")
            body["metadata"]["managedFields"] = [{"manager": "m", "operation": "Update", "apiVersion": "v1",
                                                  "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]
            store.update("pods", body, "default")
        body = store.get("pods", "p", "default")
        change(body["metadata"])
        return _outcome(store, lambda: store.update("pods", body, "default", field_validation="Strict"))

    shared = run()
    monkeypatch.setattr(unchanged, "body_sends_stored", lambda meta, entries: False)
    assert json.dumps(shared) == json.dumps(run())


def test_stored_versions_share_the_list_but_callers_get_copies(kube: Store) -> None:
    kube.create("pods", copy.deepcopy(POD), "default")
    rt = kube.resolve("pods")
    before = kube._data[rt.storage][("default", "p")].obj
    answer = kube.patch("pods", "p", {"spec": {"containers": [{"name": "c", "image": "i:2"}]}}, "default",
                        patch_type=SMP)
    after = kube._data[rt.storage][("default", "p")].obj
    put = kube.update("pods", kube.get("pods", "p", "default"), "default")  # a no-op: nothing written
    kept = json.dumps(after["metadata"]["managedFields"])
    for caller in (answer, put):
        assert caller["metadata"]["managedFields"] is not after["metadata"]["managedFields"]
        caller["metadata"]["managedFields"][0]["fieldsV1"].clear()
        caller["metadata"]["managedFields"].clear()
    assert json.dumps(after["metadata"]["managedFields"]) == kept
    assert before["metadata"]["managedFields"]  # the old version is intact too


def test_a_label_patch_carries_the_stored_list_over(monkeypatch: pytest.MonkeyPatch) -> None:
    store = _fresh(managed_fields=False)
    body = store.get("pods", "p", "default")
    body["metadata"]["managedFields"] = [{"manager": "m", "operation": "Update", "apiVersion": "v1",
                                          "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]
    store.update("pods", body, "default")
    rt = store.resolve("pods")
    stored = store._data[rt.storage][("default", "p")].obj["metadata"]["managedFields"]
    store.patch("pods", "p", {"metadata": {"labels": {"b": "2"}}}, "default")
    assert store._data[rt.storage][("default", "p")].obj["metadata"]["managedFields"] is stored


@pytest.mark.parametrize(("patch", "patch_type", "leaves"), [
    ({"metadata": {"labels": {}}}, MERGE, True),
    ({"metadata": None}, MERGE, True),  # the whole metadata goes: so does the placeholder
    ({"spec": {}}, SMP, True),
    ({"metadata": {"managedFields": []}}, MERGE, False),
    ({"metadata": {"$deleteFromPrimitiveList/managedFields": []}}, SMP, False),
    ({"$setElementOrder/metadata": []}, SMP, False),
    ([{"op": "add", "path": "/metadata/labels/a", "value": "1"}], JSON, True),
    ([{"op": "move", "from": "/metadata/managedFields/0", "path": "/metadata/x"}], JSON, False),
    ([{"op": "test", "path": "/metadata", "value": {}}], JSON, False),
    ([{"op": "replace", "path": "", "value": {}}], JSON, False),
    ([{"op": "add", "value": 1}], JSON, False),
    (["not an operation"], JSON, False),
    ({"metadata": {}}, "application/apply-patch+yaml", False),
])
def test_which_patches_leave_managed_fields_alone(patch: Any, patch_type: str, leaves: bool) -> None:
    assert patch_leaves_managed_fields(patch, patch_type) is leaves


def test_body_sends_stored_compares_json_bytes() -> None:
    entries = [{"manager": "m", "fieldsV1": {"f:a": {}}, "n": 1}]
    assert shared_fields.body_sends_stored({"managedFields": copy.deepcopy(entries)}, entries)
    assert not shared_fields.body_sends_stored({"managedFields": [{**entries[0], "n": 1.0}]}, entries)
    assert not shared_fields.body_sends_stored({"managedFields": [{"n": 1, **entries[0]}]}, entries)  # key order
    assert not shared_fields.body_sends_stored({"managedFields": []}, entries)
    assert not shared_fields.body_sends_stored({}, entries)

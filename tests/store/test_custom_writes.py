"""A custom resource's merge patch shares the stored object's unchanged subtrees (fakekube.verbs.custom_writes.py):
answers, stored objects, warnings, errors and audit entries are those of the copying path, defaults are still
applied, unknown fields still pruned, a status the schema refuses still refused, and no stored version ever
changes afterwards — not even when a changed CRD adds defaults or makes stored fields unknown."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from fakekube import errors
from fakekube.clock import VirtualClock
from fakekube.store import Store
from fakekube.strategies import CustomResourceStrategy
from fakekube.verbs import write

from .conftest import StoredVersions, outcome

MERGE = "application/merge-patch+json"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {
            "size": {"type": "string", "default": "medium"},
            "replicas": {"type": "integer", "minimum": 0},
            "nested": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
            "items": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "weight": {"type": "integer", "default": 1}}}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "maybe": {"type": "string", "nullable": True},
        }},
        "status": {"type": "object", "properties": {
            "phase": {"type": "string", "enum": ["Pending", "Ready"]},
            "replicas": {"type": "integer"},
            "conditions": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
                           "items": {"type": "object", "required": ["type", "status"], "properties": {
                               "type": {"type": "string"}, "status": {"type": "string", "enum": ["True", "False"]},
                               "message": {"type": "string", "maxLength": 8}}}},
            "detail": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}}},
        }},
    },
}
# A later version of the CRD: new defaults below subtrees the stored objects share, and `b` no longer declared.
SCHEMA_V2: dict[str, Any] = copy.deepcopy(SCHEMA)
SCHEMA_V2["properties"]["spec"]["properties"]["nested"]["properties"] = {
    "a": {"type": "string"}, "c": {"type": "string", "default": "new"}}
SCHEMA_V2["properties"]["status"]["properties"]["detail"]["properties"]["z"] = {"type": "string", "default": "z"}


def _crd(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                               "schema": {"openAPIV3Schema": copy.deepcopy(schema)}}]},
    }


GADGET: dict[str, Any] = {
    "apiVersion": "example.com/v1", "kind": "Gadget",
    "metadata": {"name": "g", "labels": {"a": "1"}, "annotations": {"n": "x"}},
    "spec": {"replicas": 1, "nested": {"a": "1", "b": "2"}, "items": [{"name": "i0"}, {"name": "i1", "weight": 3}],
             "free": {"deep": {"k": [1, 2]}}},
}
STATUS = {"status": {"phase": "Pending", "conditions": [{"type": "Ready", "status": "False"}],
                     "detail": {"x": "1"}}}

MAIN_PATCHES: list[Any] = [
    # Pruned at the top level: the walk also meets the untouched spec (after the CRD change, its `nested.b`).
    {"metadata": {"annotations": {"trace": "t0"}}, "bogus": 1},
    {"metadata": {"annotations": {"trace": "t1"}}},
    {"spec": {"size": None}},  # the default comes back
    {"spec": {"nested": {"a": "changed"}}},
    {"spec": {"items": [{"name": "only"}]}},  # the list is replaced; its item is defaulted
    {"spec": {"bogus": 1, "nested": {"bogus": {"x": None}}}},  # pruned (a Strict 422, or warnings)
    {"spec": {"replicas": -1}},  # a 422
    {"spec": {"replicas": "x"}},  # a 422
    {"spec": {"maybe": None, "free": {"deep": {"k": None}, "other": {"x": None}}}},
    {"status": {"phase": "Ready"}},  # the main resource keeps the stored status
    {"metadata": {"labels": None}, "spec": {"nested": None}},
    {"metadata": {"annotations": {"trace": "t1"}}},  # a no-op once applied
    {},
]
STATUS_PATCHES: list[Any] = [
    {"status": {"phase": "Ready", "conditions": [{"type": "Ready", "status": "True"}]}},
    {"status": {"phase": "Gone"}},  # a 422: not in the enum
    {"status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "Ready", "status": "False"}]}},  # dup
    {"status": {"conditions": [{"type": "Ready", "status": "True", "message": "far too long"}]}},  # a 422
    {"status": {"conditions": [{"type": "Ready"}]}},  # a 422: status is required
    {"status": {"detail": {"y": "2"}, "replicas": 2}},
    {"status": {"detail": {"x": None}, "bogus": True}},  # pruned
    {"status": {"replicas": 1.5}},  # a 422
    {"spec": {"size": "ignored"}, "metadata": {"labels": {"s": "1"}}, "status": {"replicas": 3}},
    {"status": {"replicas": 3}},  # a no-op once applied
    {"status": None},
]
CASES = ([[(p, None)] for p in MAIN_PATCHES] + [[(p, "status")] for p in STATUS_PATCHES]
         + [[pair for m, s in zip(MAIN_PATCHES, STATUS_PATCHES, strict=False) for pair in ((s, "status"), (m, None))]]
         + [[(p, "status") for p in STATUS_PATCHES] + [("v2", None)] + [(p, None) for p in MAIN_PATCHES]
            + [(p, "status") for p in STATUS_PATCHES]])


def _store(managed_fields: bool) -> Store:
    store = Store(managed_fields=managed_fields, seed=3, clock=VirtualClock())
    store.load_crds(_crd(SCHEMA))
    store.create("gadgets", copy.deepcopy(GADGET), "default")
    store.patch("gadgets", "g", copy.deepcopy(STATUS), "default", patch_type=MERGE, subresource="status")
    return store


def _step(store: Store, patch: Any, subresource: str | None, validation: str) -> Any:
    if patch == "v2":
        return store.load_crds(_crd(SCHEMA_V2)) and None
    return outcome(lambda: store.patch("gadgets", "g", copy.deepcopy(patch), "default", patch_type=MERGE,
                                        subresource=subresource, field_validation=validation))


def _run(managed_fields: bool, steps: list[tuple[Any, str | None]], validation: str) -> str:
    store = _store(managed_fields)
    seen = []
    for patch, subresource in steps:
        seen.append(_step(store, patch, subresource, validation))
        seen.append(store.get("gadgets", "g", "default"))
    seen.append([(e.verb, e.code, e.warnings, e.notes, e.rv_before, e.rv_after) for e in store.audit.entries])
    return json.dumps(seen)


@pytest.mark.parametrize("validation", ["Strict", "Warn"])
@pytest.mark.parametrize("managed_fields", [True, False])
@pytest.mark.parametrize("steps", CASES)
def test_a_shared_custom_patch_answers_as_the_copying_path_does(monkeypatch: pytest.MonkeyPatch,
                                                                managed_fields: bool, validation: str,
                                                                steps: list[tuple[Any, str | None]]) -> None:
    shared = _run(managed_fields, steps, validation)
    monkeypatch.setattr(CustomResourceStrategy, "patch_shares_stored", False)
    assert shared == _run(managed_fields, steps, validation)


def test_the_cases_do_what_they_say() -> None:
    """The shortcut is exercised where it could go wrong: a default applied under a shared parent, a field
    pruned, a status refused by the schema."""
    store = _store(False)
    store.patch("gadgets", "g", {"spec": {"size": None}}, "default", patch_type=MERGE)
    assert store.get("gadgets", "g", "default")["spec"]["size"] == "medium"
    with pytest.raises(errors.ApiError) as refused:
        store.patch("gadgets", "g", {"status": {"phase": "Gone"}}, "default", patch_type=MERGE, subresource="status")
    assert refused.value.code == 422
    store.patch("gadgets", "g", {"spec": {"bogus": 1}}, "default", patch_type=MERGE, field_validation="Warn")
    assert "bogus" not in store.get("gadgets", "g", "default")["spec"]
    store.load_crds(_crd(SCHEMA_V2))
    store.patch("gadgets", "g", {"metadata": {"annotations": {"v": "2"}}}, "default", patch_type=MERGE)
    assert store.get("gadgets", "g", "default")["spec"]["nested"] == {"a": "1", "b": "2", "c": "new"}


@pytest.mark.parametrize("managed_fields", [True, False])
def test_no_stored_version_changes_after_it_is_written(managed_fields: bool) -> None:
    """Every version the store held, checked against its JSON from when it was written, after every later write
    (merge patches main and status, PUTs, JSON patches, applies, a CRD change that adds defaults below shared
    subtrees and stops declaring a stored field)."""
    store = _store(managed_fields)
    versions = StoredVersions(store, "gadgets", "default", "g")
    remember = versions.remember

    def put() -> None:
        body = store.get("gadgets", "g", "default")
        body["metadata"].setdefault("labels", {})["put"] = str(len(versions))
        store.update("gadgets", body, "default")

    writes = [
        put,
        lambda: store.patch("gadgets", "g", [{"op": "replace", "path": "/spec/replicas", "value": 2}], "default",
                            patch_type="application/json-patch+json"),
        lambda: store.patch("gadgets", "g", {"apiVersion": "example.com/v1", "kind": "Gadget",
                                             "metadata": {"name": "g"}, "spec": {"replicas": 4}}, "default",
                            patch_type="application/apply-patch+yaml", field_manager="applier", force=True),
        lambda: store.update("gadgets", {**store.get("gadgets", "g", "default"), "status": {"phase": "Ready"}},
                             "default", subresource="status"),
    ]
    remember()
    for round_ in range(3):
        if round_ == 1:
            store.load_crds(_crd(SCHEMA_V2))
        for i, patch in enumerate(MAIN_PATCHES):
            _step(store, patch, None, "Warn")
            remember()
            _step(store, STATUS_PATCHES[(i + round_) % len(STATUS_PATCHES)], "status", "Warn")
            remember()
            outcome(writes[(i + round_) % len(writes)])
            remember()
    assert len(versions) > 30


STALE_PUTS: list[tuple[str, Any]] = [
    ("plain", lambda body: body),
    ("unknown field", lambda body: {**body, "spec": {**body["spec"], "bogus": 1}}),
    ("unknown status field", lambda body: {**body, "status": {"bogus": 1}}),
    ("resourceVersion 0", lambda body: {**body, "metadata": {**body["metadata"], "resourceVersion": "0"}}),
    ("other namespace", lambda body: {**body, "metadata": {**body["metadata"], "namespace": "kube-system"}}),
    ("other uid", lambda body: {**body, "metadata": {**body["metadata"], "uid": "x"}}),
    ("other kind", lambda body: {**body, "kind": "Widget"}),
    ("invalid too", lambda body: {**body, "spec": {"replicas": -1}}),
    ("unknown metadata field", lambda body: {**body, "metadata": {**body["metadata"], "bogus": 1}}),
]


def _stale_puts(validation: str, subresource: str | None) -> str:
    store = _store(False)
    stale = store.get("gadgets", "g", "default")
    store.patch("gadgets", "g", {"metadata": {"labels": {"moved": "on"}}}, "default", patch_type=MERGE)
    seen = []
    for _, make in STALE_PUTS:
        body = make(copy.deepcopy(stale))
        seen.append(outcome(lambda body=body: store.update("gadgets", body, "default", subresource=subresource,
                                                            field_validation=validation)))
    seen.append([(e.verb, e.code, e.warnings, e.notes, e.rv_before, e.rv_after, e.uid) for e in store.audit.entries])
    return json.dumps(seen)


@pytest.mark.parametrize("subresource", [None, "status"])
@pytest.mark.parametrize("validation", ["Strict", "Warn", "Ignore"])
def test_a_stale_custom_put_answers_as_the_full_path_does(monkeypatch: pytest.MonkeyPatch, validation: str,
                                                          subresource: str | None) -> None:
    """A stale PUT of a custom resource is answered 409 before its body is copied only when the full path would
    report nothing first: the same errors, warnings and audit entries either way."""
    short = _stale_puts(validation, subresource)
    assert '"code": 409' in short and '"code": 422' in short and '"code": 400' in short
    monkeypatch.setattr(write, "custom_stale_put_is_plain", lambda *args: False)
    assert short == _stale_puts(validation, subresource)

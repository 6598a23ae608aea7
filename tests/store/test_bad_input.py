"""Whatever a caller sends, the store answers with a Status error or a result — never a Python exception —
and a rejected request leaves the stored data as it was."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, given, settings

from fakekube import errors
from fakekube.store import Store

from .conftest import WIDGET_CRD

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=12,
)
METADATA = st.fixed_dictionaries({}, optional={
    "name": st.one_of(st.text(max_size=10), JSON),
    "generateName": st.one_of(st.text(max_size=6), JSON),
    "labels": st.one_of(st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=2), JSON),
    "annotations": JSON,
    "finalizers": st.one_of(st.lists(st.text(max_size=8), max_size=2), JSON),
    "ownerReferences": JSON,
    "resourceVersion": st.one_of(st.text(max_size=4), JSON),
    "uid": JSON,
})
BODIES = st.one_of(
    JSON,
    st.fixed_dictionaries({"metadata": METADATA}, optional={"spec": JSON, "status": JSON, "kind": JSON,
                                                            "apiVersion": JSON, "data": JSON}),
)
PATCH_TYPES = st.sampled_from(["application/json-patch+json", "application/merge-patch+json",
                               "application/strategic-merge-patch+json", "application/apply-patch+yaml",
                               "text/plain", "json", "merge"])


def _assert_clean_refusal(exc: errors.ApiError) -> None:
    """A Status error the real server would give — not the safety net that catches our own bugs."""
    assert exc.status["kind"] == "Status" and 400 <= exc.code < 600
    assert exc.reason != "InternalError", exc.message


def _snapshot(store: Store) -> dict[str, Any]:
    return {name: store.objects(name) for name in ("configmaps", "pods", "widgets")}


def _store() -> Store:
    store = Store(seed=0)
    store.load_crds(WIDGET_CRD)
    store.create("configmaps", {"metadata": {"name": "c"}, "data": {"k": "v"}}, "default")
    store.create("widgets", {"metadata": {"name": "w"}, "spec": {"replicas": 1}}, "default")
    return store


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(resource=st.sampled_from(["configmaps", "pods", "widgets"]), body=BODIES)
def test_create_and_update_with_any_body(resource: str, body: Any) -> None:
    store = _store()
    for call in (
        lambda: store.create(resource, body, "default"),
        lambda: store.update(resource, body, "default", name="c" if resource == "configmaps" else "w"),
        lambda: store.update(resource, body, "default", name="w", subresource="status"),
    ):
        before = _snapshot(store)
        try:
            call()
        except errors.ApiError as exc:
            _assert_clean_refusal(exc)
            assert _snapshot(store) == before


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(resource=st.sampled_from(["configmaps", "widgets"]), body=st.one_of(JSON, st.binary(max_size=20)),
       patch_type=PATCH_TYPES, field_manager=st.one_of(st.none(), st.text(max_size=5)))
def test_patch_with_any_body(resource: str, body: Any, patch_type: str, field_manager: str | None) -> None:
    store = _store()
    before = _snapshot(store)
    name = "c" if resource == "configmaps" else "w"
    try:
        store.patch(resource, name, body, "default", patch_type=patch_type, field_manager=field_manager)
    except errors.ApiError as exc:
        _assert_clean_refusal(exc)
        assert _snapshot(store) == before


@settings(max_examples=100, deadline=None)
@given(label=st.one_of(st.none(), st.text(max_size=12)), field=st.one_of(st.none(), st.text(max_size=12)),
       limit=st.one_of(st.none(), st.integers(-2, 3)), token=st.one_of(st.none(), st.text(max_size=8)),
       rv=st.one_of(st.none(), st.text(max_size=4)))
def test_list_and_watch_with_any_parameters(label: str | None, field: str | None, limit: int | None,
                                            token: str | None, rv: str | None) -> None:
    store = _store()
    for call in (
        lambda: store.list("configmaps", label_selector=label, field_selector=field, limit=limit,
                           continue_=token, resource_version=rv),
        lambda: store.watch("configmaps", label_selector=label, field_selector=field, resource_version=rv).stop(),
        lambda: store.delete_collection("configmaps", "default", label_selector=label, field_selector=field,
                                        dry_run=True),
    ):
        try:
            call()
        except errors.ApiError as exc:
            _assert_clean_refusal(exc)

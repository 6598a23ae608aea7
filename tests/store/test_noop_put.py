"""A PUT of the stored version back over it, again (fakekube.verbs.noop): the short cut answers and audits as
the full path does, and is not taken where anything but the request and the version could decide."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from fakekube import errors
from fakekube.clock import VirtualClock
from fakekube.kinds.context import WriteContext
from fakekube.resources import ResourceType
from fakekube.store import Store
from fakekube.strategies import StatusStrategy
from fakekube.verbs import noop
from fakekube.verbs.write import WriteVerbs

from .conftest import WIDGET_CRD, widget

POD = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "p", "labels": {"app": "a"}},
       "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "1"]}]}}


@pytest.fixture
def short_cuts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The resources whose PUTs took the short cut."""
    taken: list[str] = []
    full = WriteVerbs._repeat_noop

    def counted(self: Store, rt: ResourceType, record: Any, entry: Any) -> dict[str, Any]:
        taken.append(rt.plural)
        return full(self, rt, record, entry)

    monkeypatch.setattr(WriteVerbs, "_repeat_noop", counted)
    return taken


def _script(store: Store) -> list[Any]:
    """Writes and PUTs back, each answer or error recorded."""
    out: list[Any] = []

    def do(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        try:
            out.append(fn(*args, **kwargs))
        except errors.ApiError as exc:
            out.append((exc.code, exc.message))

    def put_back(resource: str, name: str, **kwargs: Any) -> None:
        do(store.update, resource, store.get(resource, name, "default"), "default", actor="ctl", **kwargs)

    store.load_crds(WIDGET_CRD)
    do(store.create, "pods", copy.deepcopy(POD), "default")
    do(store.create, "widgets", widget(color="red"), "default")
    do(store.create, "configmaps", {"metadata": {"name": "cm"}, "data": {"a": "1"}}, "default")
    for resource, name in (("pods", "p"), ("widgets", "w1"), ("configmaps", "cm")):
        for _ in range(3):
            put_back(resource, name)
        put_back(resource, name, field_manager="other")
        put_back(resource, name, dry_run=True)
        put_back(resource, name, field_validation="Strict")
        stale = store.get(resource, name, "default")
        changed = store.get(resource, name, "default")
        changed["metadata"].setdefault("labels", {})["x"] = "1"
        do(store.update, resource, changed, "default", actor="ctl")
        do(store.update, resource, stale, "default", actor="ctl")  # a 409 now
        for _ in range(2):
            put_back(resource, name)
        if resource != "configmaps":
            for _ in range(2):
                put_back(resource, name, subresource="status")
        tupled = store.get(resource, name, "default")
        tupled["metadata"]["finalizers"] = ()  # not the stored JSON: the full path decides
        do(store.update, resource, tupled, "default", actor="ctl")
        put_back(resource, name, field_validation="Bogus")
    do(store.list, "pods", "default")
    return out


def _audit(store: Store) -> list[dict[str, Any]]:
    return [dataclasses.asdict(e) for e in store.audit]


@pytest.mark.parametrize("managed_fields", [True, False])
def test_the_short_cut_answers_and_audits_as_the_full_path(monkeypatch: pytest.MonkeyPatch, short_cuts: list[str],
                                                          managed_fields: bool) -> None:
    fast = Store(seed=7, clock=VirtualClock(), managed_fields=managed_fields)
    fast_answers = _script(fast)
    monkeypatch.setattr(noop, "ENABLED", False)
    full = Store(seed=7, clock=VirtualClock(), managed_fields=managed_fields)
    taken = len(short_cuts)
    assert _script(full) == fast_answers
    assert len(short_cuts) == taken  # the full path's store never took it
    assert _audit(full) == _audit(fast)
    assert full.resource_version == fast.resource_version
    # Every kind took it: the repeated PUTs of each version, not the first of each, not a dry run.
    assert {"pods", "widgets", "configmaps"} <= set(short_cuts)
    assert fast.admission_rng.getstate() == full.admission_rng.getstate()


class Labelling(StatusStrategy):
    """Admission that copies a ConfigMap's value into a label on every write: a PUT's outcome depends on an
    object the request does not name."""

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        source = ctx.get("/configmaps", "source", "default")
        obj["metadata"].setdefault("labels", {})["copied"] = (source or {}).get("data", {}).get("v", "none")


def test_no_short_cut_when_admission_reads_other_objects(short_cuts: list[str]) -> None:
    store = Store(seed=1)
    store.registry.register(ResourceType("example.com", "v1", "Gadget", "gadgets", namespaced=True,
                                         strategy=Labelling(), subresources=frozenset({"status"})))
    store.create("configmaps", {"metadata": {"name": "source"}, "data": {"v": "one"}}, "default")
    store.create("gadgets", {"metadata": {"name": "g"}}, "default")
    for _ in range(2):
        gadget = store.update("gadgets", store.get("gadgets", "g", "default"), "default")
    assert store.audit[-1].notes == ["no-op"] and gadget["metadata"]["labels"]["copied"] == "one"
    source = store.get("configmaps", "source", "default")
    source["data"]["v"] = "two"
    store.update("configmaps", source, "default")
    gadget = store.update("gadgets", store.get("gadgets", "g", "default"), "default")
    assert gadget["metadata"]["labels"]["copied"] == "two"  # the same PUT of the same version is a write now
    assert store.audit[-1].notes == []
    assert "gadgets" not in short_cuts


def test_a_new_schema_decides_again(crd_kube: Store, short_cuts: list[str]) -> None:
    """A CRD update makes a new schema: a default it adds turns the same PUT of the same version into a write."""
    crd_kube.create("widgets", widget(color="red"), "default")
    for _ in range(2):
        crd_kube.update("widgets", crd_kube.get("widgets", "w1", "default"), "default")
    assert short_cuts == ["widgets"]
    stored = crd_kube.get("widgets", "w1", "default")
    defaulted = copy.deepcopy(WIDGET_CRD)
    spec = defaulted["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    spec["shade"] = {"type": "string", "default": "dark"}
    crd = crd_kube.get("customresourcedefinitions", "widgets.example.com")
    crd_kube.update("customresourcedefinitions", {**defaulted, "metadata": crd["metadata"]})
    answer = crd_kube.update("widgets", stored, "default")
    assert answer["spec"]["shade"] == "dark" and crd_kube.audit[-1].notes == []
    assert short_cuts == ["widgets"]


def test_turning_managed_fields_on_decides_again(short_cuts: list[str]) -> None:
    store = Store(seed=1, managed_fields=False)
    store.create("configmaps", {"metadata": {"name": "cm"}, "data": {"a": "1"}}, "default")
    for _ in range(2):
        store.update("configmaps", store.get("configmaps", "cm", "default"), "default")
    assert short_cuts == ["configmaps"]
    store.track_managed_fields = True
    store.update("configmaps", store.get("configmaps", "cm", "default"), "default")
    assert short_cuts == ["configmaps"]


def test_write_context_says_when_a_hook_reached_past_the_request() -> None:
    def fresh() -> WriteContext:
        return WriteContext(read=lambda *a: None, listing=lambda *a: [], allocators=None,  # type: ignore[arg-type]
                            rng=None, now=lambda: "", namespace="default", subresource=None)  # type: ignore[arg-type]

    ctx = fresh()
    assert (ctx.namespace, ctx.subresource, ctx.dry_run) == ("default", None, False) and not ctx.used
    for reach in (lambda c: c.get("/configmaps", "x"), lambda c: c.list("/configmaps"), lambda c: c.allocators,
                  lambda c: c.rng, lambda c: c.now, lambda c: c.on_failure(lambda: None),
                  lambda c: c.on_success(lambda: None)):
        ctx = fresh()
        reach(ctx)
        assert ctx.used


def test_the_body_must_be_the_stored_text(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "cm", "finalizers": ["example.com/f"]}, "data": {"n": "1"}},
                "default")
    rt = kube.resolve("configmaps")
    record = kube._bucket(rt)[("default", "cm")]
    body = kube.get("configmaps", "cm", "default")
    assert noop.sends_stored(body, record)
    assert not noop.sends_stored({**body, "data": {"n": "1", "m": "2"}}, record)
    reordered = {"metadata": body["metadata"], **{k: v for k, v in body.items() if k != "metadata"}}
    assert not noop.sends_stored(reordered, record)  # the same object, another text: the full path
    assert not noop.sends_stored({**body, "metadata": {**body["metadata"], "resourceVersion": "1"}}, record)
    assert not noop.sends_stored({**body, "metadata": {**body["metadata"], "finalizers": ("example.com/f",)}},
                                 record)  # the same text, a tuple: the full path
    assert not noop.sends_stored(dict(body, data=_Subclass(body["data"])), record)


class _Subclass(dict):  # type: ignore[type-arg]
    pass

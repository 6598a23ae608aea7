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
from fakekube.records import Record
from fakekube.resources import ResourceType
from fakekube.store import Store
from fakekube.strategies import BuiltinStrategy, StatusStrategy
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


def _status_script(store: Store) -> list[Any]:
    """A pod PUT back between kubelet-like status patches (its memo carried over), and between status writes
    that also change its labels or an annotation (a status write of a pod keeps those: no memo carried)."""
    out: list[Any] = []

    def put_back() -> None:
        out.append(store.update("pods", store.get("pods", "p", "default"), "default", actor="ctl"))

    def status_patch(patch: dict[str, Any]) -> None:
        out.append(store.patch("pods", "p", patch, "default", subresource="status", actor="kubelet",
                               patch_type="application/strategic-merge-patch+json"))

    out.append(store.create("pods", copy.deepcopy(POD), "default"))
    for _ in range(2):
        put_back()
    for phase in ("Running", "Succeeded"):
        status_patch({"status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True"}]}})
        put_back()
        put_back()
    status_patch({"metadata": {"labels": {"app": "b"}}, "status": {"phase": "Failed"}})
    put_back()
    status_patch({"metadata": {"annotations": {"a": "1"}}, "status": {"message": "m"}})
    put_back()
    status_patch({"status": {"startTime": None, "podIP": "10.0.0.1"}})
    put_back()
    out.append(store.update("pods", store.get("pods", "p", "default"), "default", actor="ctl",
                            subresource="status"))
    status_patch({"status": {"podIP": "10.0.0.2"}})
    out.append(store.update("pods", store.get("pods", "p", "default"), "default", actor="ctl",
                            subresource="status"))
    return out


@pytest.mark.parametrize("managed_fields", [True, False])
def test_a_pods_memo_outlives_a_status_write(monkeypatch: pytest.MonkeyPatch, short_cuts: list[str],
                                              managed_fields: bool) -> None:
    fast = Store(seed=7, clock=VirtualClock(), managed_fields=managed_fields)
    fast_answers = _status_script(fast)
    carried = len(short_cuts)
    monkeypatch.setattr(noop, "ENABLED", False)
    full = Store(seed=7, clock=VirtualClock(), managed_fields=managed_fields)
    assert _status_script(full) == fast_answers
    assert _audit(full) == _audit(fast)
    assert full.resource_version == fast.resource_version
    # The second PUT of the created version; with managedFields off, both PUTs after each of the three
    # status-only patches but the last; none after those that change a label or an annotation. With them on, a
    # status patch that sets fields the kubelet did not own yet changes its managedFields entry (the metadata
    # differs: nothing carried), and only the second phase patch leaves the entry as it was.
    assert carried == (1 + 2 + 2 + 1 if not managed_fields else 1 + 1 + 2)


class _Copying(BuiltinStrategy):
    """Ignores the status (and says so), but its admission copies an annotation into a label: a status
    write that changes the annotation (its status writes keep it, as a pod's do) turns the PUT back into a write."""

    initial_status: dict[str, Any] = {}
    main_update_ignores_status = True

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        if ctx.subresource is None:
            meta = obj["metadata"]
            meta.setdefault("labels", {})["copy"] = meta.get("annotations", {}).get("a", "none")


class _ReadingStatus(BuiltinStrategy):
    """Admission that reads the status, so the kind does not claim to ignore it."""

    initial_status: dict[str, Any] = {}

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        if ctx.subresource is None and old is not None:
            obj["metadata"].setdefault("labels", {})["phase"] = old.get("status", {}).get("phase", "none")


@pytest.mark.parametrize("strategy, status_patch", [
    (_Copying(), {"metadata": {"annotations": {"a": "two"}}, "status": {"phase": "Running"}}),
    (_ReadingStatus(), {"status": {"phase": "Running"}}),
])
def test_no_memo_carried_when_the_new_version_can_decide_otherwise(short_cuts: list[str], strategy: BuiltinStrategy,
                                                                  status_patch: dict[str, Any]) -> None:
    store = Store(seed=1, managed_fields=False)
    store.registry.register(ResourceType("example.com", "v1", "Gizmo", "gizmos", namespaced=True,
                                         strategy=strategy, subresources=frozenset({"status"})))
    store.create("gizmos", {"metadata": {"name": "g"}}, "default")
    for _ in range(3):
        store.update("gizmos", store.get("gizmos", "g", "default"), "default")
    taken = len(short_cuts)
    assert taken and store.audit[-1].notes == ["no-op"]
    store.patch("gizmos", "g", status_patch, "default", subresource="status")
    before = store.resource_version
    answer = store.update("gizmos", store.get("gizmos", "g", "default"), "default")
    assert store.resource_version != before and store.audit[-1].notes == []  # a write, not the memo's no-op
    assert answer["metadata"]["labels"] in ({"copy": "two"}, {"phase": "Running"})
    assert len(short_cuts) == taken


def test_carry_needs_the_same_text_outside_the_status() -> None:
    store = Store(seed=1, managed_fields=False)
    store.create("pods", copy.deepcopy(POD), "default")
    rt = store.resolve("pods")
    old = store._bucket(rt)[("default", "p")]
    old.noop = noop.key(rt, None, "Warn", False, False)

    def carried(change: Callable[[dict[str, Any]], None]) -> bool:
        obj = copy.deepcopy(old.obj)
        change(obj)
        new = Record(obj)
        noop.carry(rt, old, new)
        return new.noop is old.noop

    def set_status(obj: dict[str, Any]) -> None:
        obj["status"] = {"phase": "Running"}
        obj["metadata"]["resourceVersion"] = "999"

    assert carried(set_status)
    assert not carried(lambda obj: obj["spec"].__setitem__("terminationGracePeriodSeconds", 30.0))  # 30 → 30.0
    assert not carried(lambda obj: obj["metadata"].__setitem__("generation", True))  # 1 → true
    assert not carried(lambda obj: obj["metadata"]["labels"].__setitem__("app", "b"))
    assert not carried(lambda obj: obj.__setitem__("spec", dict(reversed(obj["spec"].items()))))
    assert not carried(lambda obj: obj.update(status=obj.pop("status"), kind=obj.pop("kind")))  # key order
    assert not carried(lambda obj: obj["metadata"].update(uid=obj["metadata"].pop("uid")))
    status_put = Record(copy.deepcopy(old.obj))
    old.noop = noop.key(rt, "status", "Warn", False, False)
    noop.carry(rt, old, status_put)
    assert status_put.noop is None  # a status PUT's outcome depends on the status

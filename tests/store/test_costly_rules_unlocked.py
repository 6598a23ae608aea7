"""CEL rules that count their runtime cost run without the store's lock: other clients go on meanwhile, and an
update whose object moved under them starts over (Store._costly_rule_errors)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from fakekube import Store, errors
from fakekube.cel import validator as celvalidator

# A long string matched against a long regex: estimated at about half the per-call limit, so counted.
RULE = "self.matches('^" + "b?" * 500 + "$')"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "costlies.cost.example.com"},
    "spec": {"group": "cost.example.com", "scope": "Namespaced",
             "names": {"plural": "costlies", "singular": "costly", "kind": "Costly", "listKind": "CostlyList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "properties": {"spec": {
                     "type": "object",
                     "properties": {"s": {"type": "string", "maxLength": 5000,
                                          "x-kubernetes-validations": [{"rule": RULE}]}}}}}}}]}}


@pytest.fixture
def store() -> Store:
    s = Store()
    s.load_crds(CRD)
    return s


def _held_rules(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """Rules that signal when they start and wait to be let go."""
    started, release = threading.Event(), threading.Event()
    real = celvalidator.validate_object

    def held(*args: Any, **kwargs: Any) -> Any:
        started.set()
        assert release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(celvalidator, "validate_object", held)
    return started, release


def _in_thread(fn: Any) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(fn())
        except Exception as exc:  # noqa: BLE001 - handed to the test
            out.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def test_the_rules_are_counted_so_run_unlocked(store: Store) -> None:
    assert store.registry.resolve("costlies").schema.rules_count_cost()


def test_other_clients_go_on_while_costly_rules_run(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    started, release = _held_rules(monkeypatch)
    writer, out = _in_thread(lambda: store.create(
        "costlies.cost.example.com", {"metadata": {"name": "a"}, "spec": {"s": "bb"}}, "default"))
    assert started.wait(10)
    store.create("configmaps", {"metadata": {"name": "meanwhile"}}, "default")  # would wait on the lock before
    release.set()
    writer.join(10)
    assert out and out[0]["metadata"]["name"] == "a"
    assert store.get("configmaps", "meanwhile", "default")


def test_an_update_whose_object_moved_meanwhile_starts_over(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    first = store.create("costlies.cost.example.com", {"metadata": {"name": "a"}, "spec": {"s": "b"}},
                         "default")
    started, release = _held_rules(monkeypatch)
    stale = {**first, "spec": {"s": "bbb"}}
    writer, out = _in_thread(lambda: store.update("costlies.cost.example.com", stale, "default"))
    assert started.wait(10)
    monkeypatch.setattr(celvalidator, "validate_object", lambda *a, **k: [])  # the other write's rules pass at once
    store.update("costlies.cost.example.com", {**first, "spec": {"s": ""}}, "default")
    release.set()
    writer.join(10)
    # Started over from the moved object: the stale resourceVersion is now a conflict, as upstream's
    # GuaranteedUpdate retry makes it.
    assert out and isinstance(out[0], errors.Conflict)
    assert store.get("costlies.cost.example.com", "a", "default")["spec"]["s"] == ""

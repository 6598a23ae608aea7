"""The order in which the store calls a kind's strategy hooks, and what their answers do."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.kinds.context import WriteContext
from fakekube.resources import ResourceType
from fakekube.store import Store
from fakekube.strategies import StatusStrategy


class Recording(StatusStrategy):
    returns_deleted_object = True

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def default(self, obj: dict[str, Any]) -> None:
        self.calls.append("default")
        obj.setdefault("spec", {}).setdefault("size", "medium")

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        self.calls.append("admit-create" if old is None else "admit-update")
        assert ctx.namespace == "default"

    def begin_create(self, obj: dict[str, Any], ctx: WriteContext) -> None:
        self.calls.append("begin")

    def begin_update(self, new: dict[str, Any], old: dict[str, Any], ctx: WriteContext) -> None:
        self.calls.append("begin")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self.calls.append("prepare")
        super().prepare_for_create(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        self.calls.append("prepare")
        super().prepare_for_update(new, old)

    def validate(self, obj: dict[str, Any]) -> list[errors.FieldError]:
        self.calls.append("validate")
        return [] if obj["spec"].get("size") != "huge" else [errors.invalid("spec.size", "huge", "too big")]

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[errors.FieldError]:
        self.calls.append(f"validate-update:{subresource}")
        if new["spec"].get("size") != old["spec"].get("size"):
            return [errors.invalid("spec.size", new["spec"]["size"], "field is immutable")]
        return []


@pytest.fixture
def store_and_strategy() -> tuple[Store, Recording]:
    store = Store(seed=1)
    strategy = Recording()
    store.registry.register(ResourceType("example.com", "v1", "Gadget", "gadgets", namespaced=True,
                                         strategy=strategy, subresources=frozenset({"status"})))
    return store, strategy


def test_create_defaults_then_admits_then_prepares_then_validates(store_and_strategy) -> None:
    store, strategy = store_and_strategy
    created = store.create("gadgets", {"metadata": {"name": "g"}}, "default")
    assert strategy.calls == ["default", "admit-create", "begin", "prepare", "validate"]
    assert created["spec"] == {"size": "medium"}


def test_validation_errors_are_one_invalid(store_and_strategy) -> None:
    store, _ = store_and_strategy
    with pytest.raises(errors.Invalid) as caught:
        store.create("gadgets", {"metadata": {"name": "g"}, "spec": {"size": "huge"}}, "default")
    assert caught.value.code == 422
    assert "spec.size: Invalid value: \"huge\": too big" in caught.value.message
    assert store.count("gadgets") == 0


def test_update_and_status_update_validate_against_the_stored_object(store_and_strategy) -> None:
    store, strategy = store_and_strategy
    store.create("gadgets", {"metadata": {"name": "g"}}, "default")
    strategy.calls.clear()
    with pytest.raises(errors.Invalid):
        store.patch("gadgets", "g", {"spec": {"size": "small"}}, "default")
    assert strategy.calls == ["default", "admit-update", "begin", "prepare", "validate-update:None"]
    strategy.calls.clear()
    store.patch("gadgets", "g", {"status": {"ready": True}}, "default", subresource="status")
    assert strategy.calls == ["default", "admit-update", "validate-update:status"]


def test_delete_answers_the_deleted_object_when_the_kind_says_so(store_and_strategy) -> None:
    store, _ = store_and_strategy
    created = store.create("gadgets", {"metadata": {"name": "g"}}, "default")
    answer = store.delete("gadgets", "g", "default")
    assert answer["kind"] == "Gadget"
    assert answer["metadata"]["uid"] == created["metadata"]["uid"]
    assert store.count("gadgets") == 0
    store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    assert store.delete("configmaps", "c", "default")["kind"] == "Status"

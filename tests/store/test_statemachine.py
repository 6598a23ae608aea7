"""Random operations from several writers: resourceVersions are never reused, no acknowledged write is lost,
and a PUT with a stale resourceVersion is always rejected."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from fakekube import errors
from fakekube.store import Store

NAMES = st.sampled_from(["a", "b", "c"])
WRITERS = st.sampled_from(["w1", "w2", "w3"])
VALUES = st.integers(0, 5)


class Writers(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.store = Store(seed=0)
        self.model: dict[str, dict[str, Any]] = {}  # name -> last acknowledged data
        self.seen_rvs: set[int] = set()
        self.views: dict[tuple[str, str], dict[str, Any]] = {}  # (writer, name) -> object as read

    def _ack(self, obj: dict[str, Any], previous_rv: str | None) -> None:
        rv = int(obj["metadata"]["resourceVersion"])
        if rv != (int(previous_rv) if previous_rv else -1):
            assert rv not in self.seen_rvs, "a resourceVersion was reused"
            self.seen_rvs.add(rv)
        self.model[obj["metadata"]["name"]] = obj.get("data") or {}

    @rule(name=NAMES, value=VALUES)
    def create(self, name: str, value: int) -> None:
        try:
            obj = self.store.create("configmaps", {"metadata": {"name": name}, "data": {"v": str(value)}}, "default")
        except errors.AlreadyExists:
            assert name in self.model
            return
        assert name not in self.model
        self._ack(obj, None)

    @rule(writer=WRITERS, name=NAMES)
    def read(self, writer: str, name: str) -> None:
        try:
            self.views[(writer, name)] = self.store.get("configmaps", name, "default")
        except errors.NotFound:
            assert name not in self.model

    @rule(writer=WRITERS, name=NAMES, value=VALUES)
    def put_from_view(self, writer: str, name: str, value: int) -> None:
        view = self.views.get((writer, name))
        if view is None:
            return
        current = self.store.objects("configmaps", "default")
        current_rv = next((o["metadata"]["resourceVersion"] for o in current if o["metadata"]["name"] == name), None)
        body = {**view, "data": {"v": str(value)}}
        try:
            obj = self.store.update("configmaps", body, "default", actor=writer)
        except errors.Conflict:
            assert current_rv != view["metadata"]["resourceVersion"], "a fresh PUT was rejected"
            return
        except errors.NotFound:
            assert name not in self.model
            return
        assert current_rv == view["metadata"]["resourceVersion"], "a stale PUT was accepted"
        self._ack(obj, current_rv)
        self.views[(writer, name)] = obj

    @rule(writer=WRITERS, name=NAMES, value=VALUES)
    def patch(self, writer: str, name: str, value: int) -> None:
        try:
            before = self.store.get("configmaps", name, "default")["metadata"]["resourceVersion"]
            obj = self.store.patch("configmaps", name, {"data": {"v": str(value)}}, "default", actor=writer)
        except errors.NotFound:
            assert name not in self.model
            return
        self._ack(obj, before)

    @precondition(lambda self: bool(self.model))
    @rule(name=NAMES)
    def delete(self, name: str) -> None:
        try:
            self.store.delete("configmaps", name, "default")
        except errors.NotFound:
            assert name not in self.model
            return
        self.seen_rvs.add(int(self.store.resource_version))
        del self.model[name]

    @invariant()
    def store_matches_acknowledged_writes(self) -> None:
        stored = {o["metadata"]["name"]: o.get("data") or {} for o in self.store.objects("configmaps", "default")}
        assert stored == self.model


TestWriters = Writers.TestCase
TestWriters.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)

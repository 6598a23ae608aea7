"""fakekube.pods.usage: requests by default, kwok's 1m/1Mi without them, annotations, rules (newest wins)."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

import pytest

from fakekube import quantity
from fakekube.pods.usage import PodUsage

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def pod(annotations: dict[str, str] | None = None, phase: str = "Running") -> dict:
    return {"metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"},
                         "annotations": annotations or {}},
            "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}},
                                    {"name": "side"}, {"name": "waiting"}]},
            "status": {"phase": phase, "containerStatuses": [
                {"name": "app", "state": {"running": {}}}, {"name": "side", "state": {"running": {}}},
                {"name": "waiting", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}}


def usage_of(model: PodUsage, obj: dict) -> dict[str, tuple[str, str]]:
    return {name: (quantity.canonical(u.cpu, quantity.DECIMAL_SI), quantity.canonical(u.memory, quantity.BINARY_SI))
            for name, u in model.pod(obj, NOW)}


def test_requests_by_default_and_kwoks_defaults_without_them() -> None:
    assert usage_of(PodUsage(), pod()) == {"app": ("250m", "64Mi"), "side": ("1m", "1Mi")}


def test_only_running_containers_of_running_pods() -> None:
    assert usage_of(PodUsage(), pod(phase="Pending")) == {}
    assert usage_of(PodUsage(), pod(phase="Succeeded")) == {}


def test_annotations_then_rules_newest_first_and_partial_rules_fall_through() -> None:
    model = PodUsage()
    annotated = pod({"sim.fakekube.io/usage-cpu": "2", "sim.fakekube.io/usage-memory": "1Gi"})
    assert usage_of(model, annotated) == {"app": ("2", "1Gi"), "side": ("2", "1Gi")}
    model.set(cpu="100m", labels="app=web")
    remove = model.set(cpu=lambda p, c, now: "7m" if c == "side" else "3m", container=["side", "app"])
    assert usage_of(model, annotated) == {"app": ("3m", "1Gi"), "side": ("7m", "1Gi")}
    remove()
    assert usage_of(model, annotated) == {"app": ("100m", "1Gi"), "side": ("100m", "1Gi")}
    model.set(memory="1234567", pod="web", container="app")
    assert model.container(annotated, annotated["spec"]["containers"][0], NOW).memory == Fraction(1234567)


def test_a_bad_quantity_fails_when_the_rule_is_set_and_a_bad_annotation_counts_as_none() -> None:
    with pytest.raises(quantity.QuantityError):
        PodUsage().set(cpu="lots")
    assert usage_of(PodUsage(), pod({"sim.fakekube.io/usage-cpu": "lots"}))["app"] == ("250m", "64Mi")

"""policy/v1 PodDisruptionBudget (kubernetes ``pkg/registry/policy/poddisruptionbudget/strategy.go``,
``pkg/apis/policy/validation/validation.go``; sources and commits in docs/semantics.md).

Status starts with its four required counters at 0; generation moves on spec changes; unlike most built-ins a
PUT needs the resourceVersion (``AllowUnconditionalUpdate`` is false)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, invalid, not_supported
from fakekube.kinds.checks import (
    go_struct,
    int_or_percent,
    int_or_string_json,
    label_selector_json,
    mapping,
    percent_at_most_100,
    validate_label_selector,
)
from fakekube.strategies import BuiltinStrategy, Strategy

EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"]


class PodDisruptionBudgetStrategy(BuiltinStrategy):
    initial_status = {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}
    generation_fields = ("spec",)
    allow_unconditional_update = False
    validates_own_metadata = False  # ValidatePodDisruptionBudget checks only the spec

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = mapping(obj.get("spec"))
        errs: list[FieldError] = []
        minimum, maximum = spec.get("minAvailable"), spec.get("maxUnavailable")
        if minimum is not None and maximum is not None:
            errs.append(invalid("spec", go_struct(
                ("MinAvailable", int_or_string_json(minimum)), ("Selector", label_selector_json(spec.get("selector"))),
                ("MaxUnavailable", int_or_string_json(maximum)),
                ("UnhealthyPodEvictionPolicy", spec.get("unhealthyPodEvictionPolicy"))),
                                "minAvailable and maxUnavailable cannot be both set"))
        for name, value in (("minAvailable", minimum), ("maxUnavailable", maximum)):
            if value is not None:
                errs += int_or_percent(value, f"spec.{name}") + percent_at_most_100(value, f"spec.{name}")
        errs += validate_label_selector(spec.get("selector"), "spec.selector")
        policy = spec.get("unhealthyPodEvictionPolicy")
        if policy is not None and policy not in EVICTION_POLICIES:
            errs.append(not_supported("spec.unhealthyPodEvictionPolicy", policy, EVICTION_POLICIES))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return [] if subresource == "status" else self.validate(new)


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "PodDisruptionBudget": PodDisruptionBudgetStrategy,
}

"""flowcontrol.apiserver.k8s.io/v1 kinds (kubernetes ``pkg/registry/flowcontrol/<resource>/strategy.go``;
sources and commits in docs/semantics.md). Status starts empty, generation moves on spec changes, status writes
keep the stored metadata (``ResetObjectMetaForStatus``). Defaults: ``pkg/apis/flowcontrol/v1/defaults.go`` through
``zz_generated.defaults.go`` (a part is defaulted only when the request has it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, invalid, not_supported, required
from fakekube.kinds.checks import go_struct, is_int, mapping
from fakekube.namerules import name_is_dns_subdomain
from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy

MATCHING_PRECEDENCE = 1000
NOMINAL_CONCURRENCY_SHARES = 30
QUEUING = (("handSize", 8), ("queues", 64), ("queueLengthLimit", 50))
MAX_MATCHING_PRECEDENCE = 10000  # FlowSchemaMaxMatchingPrecedence
MAX_QUEUES = 10_000_000  # priorityLevelConfigurationQueuingMaxQueues
DISTINGUISHER_METHODS = ["ByNamespace", "ByUser"]
LIMIT_RESPONSE_TYPES = ["Queue", "Reject"]


def validate_flow_schema(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidateFlowSchemaSpec`` (its rules' subjects and resources are not checked here)."""
    spec = mapping(obj.get("spec"))
    precedence = spec.get("matchingPrecedence")
    errs: list[FieldError] = []
    if is_int(precedence):
        if precedence <= 0:
            errs.append(invalid("spec.matchingPrecedence", precedence, "must be a positive value"))
        if precedence > MAX_MATCHING_PRECEDENCE:
            errs.append(invalid("spec.matchingPrecedence", precedence,
                                f"must not be greater than {MAX_MATCHING_PRECEDENCE}"))
        if precedence == 1 and mapping(obj.get("metadata")).get("name") != "exempt":
            errs.append(invalid("spec.matchingPrecedence", 1,
                                "only the schema named 'exempt' may have matchingPrecedence 1"))
    method = spec.get("distinguisherMethod")
    if isinstance(method, dict) and method.get("type") not in DISTINGUISHER_METHODS:
        errs.append(not_supported("spec.distinguisherMethod.type", go_struct(("Type", method.get("type") or "")),
                                  DISTINGUISHER_METHODS))
    level = mapping(spec.get("priorityLevelConfiguration")).get("name")
    if isinstance(level, str) and level:
        errs.extend(invalid("spec.priorityLevelConfiguration.name", level, m)
                    for m in name_is_dns_subdomain(level, False))
    else:
        errs.append(required("spec.priorityLevelConfiguration.name", "must reference a priority level"))
    return errs


def _limit_response(response: Any, path: str) -> list[FieldError]:
    """``ValidateLimitResponse``: handwritten checks, then the declarative mode rules (queuing, then type)."""
    response = mapping(response)
    kind, queuing = response.get("type"), response.get("queuing")
    errs: list[FieldError] = []
    if kind == "Queue" and isinstance(queuing, dict):
        errs.extend(_queuing(queuing, f"{path}.queuing"))
    elif kind and kind not in LIMIT_RESPONSE_TYPES:
        errs.append(not_supported(f"{path}.type", kind, LIMIT_RESPONSE_TYPES))
    if queuing is not None and kind != "Queue":
        errs.append(FieldError("FieldValueForbidden", f"{path}.queuing"))
    elif queuing is None and kind == "Queue":
        errs.append(required(f"{path}.queuing"))
    if not kind:
        errs.append(required(f"{path}.type"))
    return errs


def _queuing(queuing: dict[str, Any], path: str) -> list[FieldError]:
    """``ValidatePriorityLevelQueuingConfiguration`` (the shuffle-sharding entropy bound is not checked)."""
    errs: list[FieldError] = []
    limit, queues, hand = (queuing.get(k) for k in ("queueLengthLimit", "queues", "handSize"))
    if is_int(limit) and limit <= 0:
        errs.append(invalid(f"{path}.queueLengthLimit", limit, "must be positive"))
    if is_int(queues) and queues <= 0:
        errs.append(invalid(f"{path}.queues", queues, "must be positive"))
    elif is_int(queues) and queues > MAX_QUEUES:
        errs.append(invalid(f"{path}.queues", queues, f"must not be greater than {MAX_QUEUES}"))
    if is_int(hand) and hand <= 0:
        errs.append(invalid(f"{path}.handSize", hand, "must be positive"))
    elif is_int(hand) and is_int(queues) and hand > queues:
        errs.append(invalid(f"{path}.handSize", hand, f"should not be greater than queues ({queues})"))
    return errs


def _percent(part: dict[str, Any], path: str) -> list[FieldError]:
    value = part.get("lendablePercent")
    if is_int(value) and not 0 <= value <= 100:
        return [invalid(f"{path}.lendablePercent", value, "must be between 0 and 100, inclusive")]
    return []


def validate_priority_level(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidatePriorityLevelConfigurationSpec``: the handwritten checks, then the declarative ones of v1.37.2
    (``exempt`` and ``limited`` allowed only in their mode, ``limited`` required in its own, then ``type``
    required), whose errors carry no detail."""
    spec = mapping(obj.get("spec"))
    kind, limited, exempt = spec.get("type"), spec.get("limited"), spec.get("exempt")
    errs: list[FieldError] = []
    if (mapping(obj.get("metadata")).get("name") == "exempt") != (kind == "Exempt"):
        errs.append(invalid("spec.type", kind or "", "must be 'Exempt' if and only if `name` is 'exempt'"))
    if kind == "Exempt" and isinstance(exempt, dict):
        shares = exempt.get("nominalConcurrencyShares")
        if is_int(shares) and shares < 0:
            errs.append(invalid("spec.exempt.nominalConcurrencyShares", shares, "must be a non-negative integer"))
        errs.extend(_percent(exempt, "spec.exempt"))
    elif kind == "Limited" and isinstance(limited, dict):
        shares = limited.get("nominalConcurrencyShares")
        if is_int(shares) and shares < 0:
            errs.append(invalid("spec.limited.nominalConcurrencyShares", shares, "must be a non-negative integer"))
        errs.extend(_limit_response(limited.get("limitResponse"), "spec.limited.limitResponse"))
        errs.extend(_percent(limited, "spec.limited"))
        borrowing = limited.get("borrowingLimitPercent")
        if is_int(borrowing) and borrowing < 0:
            errs.append(invalid("spec.limited.borrowingLimitPercent", borrowing,
                                "if specified, must be a non-negative integer"))
    elif kind and kind not in ("Exempt", "Limited"):
        errs.append(not_supported("spec.type", kind, ["Exempt", "Limited"]))
    if exempt is not None and kind != "Exempt":
        errs.append(FieldError("FieldValueForbidden", "spec.exempt"))
    if limited is not None and kind != "Limited":
        errs.append(FieldError("FieldValueForbidden", "spec.limited"))
    elif limited is None and kind == "Limited":
        errs.append(required("spec.limited"))
    if not kind:
        errs.append(required("spec.type"))
    return errs


class FlowSchemaStrategy(BuiltinStrategy):
    initial_status = {}
    generation_fields = ("spec",)
    status_keeps = RESET_META_FOR_STATUS

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_flow_schema(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return [] if subresource == "status" else self.validate(new)

    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec")
        if spec is None:
            spec = obj["spec"] = {}  # a non-pointer struct, defaulted even when absent
        if isinstance(spec, dict) and not spec.get("matchingPrecedence"):
            spec["matchingPrecedence"] = MATCHING_PRECEDENCE


class PriorityLevelConfigurationStrategy(FlowSchemaStrategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_priority_level(obj)

    def default(self, obj: dict[str, Any]) -> None:
        spec = mapping(obj.get("spec"))
        limited, exempt = spec.get("limited"), spec.get("exempt")
        if isinstance(limited, dict):
            if limited.get("nominalConcurrencyShares") is None:
                limited["nominalConcurrencyShares"] = NOMINAL_CONCURRENCY_SHARES
            if limited.get("lendablePercent") is None:
                limited["lendablePercent"] = 0
            queuing = mapping(limited.get("limitResponse")).get("queuing")
            if isinstance(queuing, dict):
                for key, value in QUEUING:
                    if not queuing.get(key):
                        queuing[key] = value
        if isinstance(exempt, dict):
            for key in ("nominalConcurrencyShares", "lendablePercent"):
                if exempt.get(key) is None:
                    exempt[key] = 0


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "FlowSchema": FlowSchemaStrategy,
    "PriorityLevelConfiguration": PriorityLevelConfigurationStrategy,
}

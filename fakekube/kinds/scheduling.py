"""scheduling.k8s.io/v1 PriorityClass (kubernetes ``pkg/apis/scheduling/v1/defaults.go``,
``pkg/apis/scheduling/validation/validation.go``, ``plugin/pkg/admission/priority/admission.go``'s
``Validate``; sources and commits in docs/semantics.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, forbidden
from fakekube.kinds.admission import SYSTEM_PRIORITY_CLASSES
from fakekube.kinds.admission import forbidden as admission_forbidden
from fakekube.kinds.context import WriteContext
from fakekube.strategies import Strategy

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PREFIX = "system-"


class PriorityClassStrategy(Strategy):
    # PrepareForCreate sets generation 1 and PrepareForUpdate leaves it: it never moves (priorityclass/strategy.go).
    tracks_generation = True

    def default(self, obj: dict[str, Any]) -> None:
        if not obj.get("preemptionPolicy"):
            obj["preemptionPolicy"] = "PreemptLowerPriority"

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        # The Priority plugin's validation: only one class may be the global default.
        if not obj.get("globalDefault"):
            return
        name = obj["metadata"].get("name")
        for other in ctx.list("scheduling.k8s.io/priorityclasses"):
            if other.get("globalDefault") and (old is None or other["metadata"]["name"] != name):
                raise admission_forbidden("priorityclasses", "scheduling.k8s.io", obj,
                                          f"PriorityClass {other['metadata']['name']} is already marked as default. "
                                          "Only one default can exist")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        name = obj["metadata"].get("name") or ""
        value = obj.get("value")
        if name.startswith(SYSTEM_PREFIX):
            if SYSTEM_PRIORITY_CLASSES.get(name) != value:
                return [forbidden("metadata.name", f"priority class names with '{SYSTEM_PREFIX}' prefix are reserved "
                                                   "for system use only. error: name "
                                                   f"{name} is not a known system priority class")]
        elif isinstance(value, int) and value > HIGHEST_USER_DEFINABLE_PRIORITY:
            return [forbidden("value", "maximum allowed value of a user defined priority is "
                                       f"{HIGHEST_USER_DEFINABLE_PRIORITY}")]
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        errs: list[FieldError] = []
        if new.get("value") != old.get("value"):
            errs.append(forbidden("value", "may not be changed in an update."))
        if new.get("preemptionPolicy") != old.get("preemptionPolicy"):
            errs.append(forbidden("preemptionPolicy", "may not be changed in an update."))
        return errs


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "PriorityClass": PriorityClassStrategy,
}

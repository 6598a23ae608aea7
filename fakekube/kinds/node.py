"""node.k8s.io/v1 RuntimeClass (kubernetes ``pkg/registry/node/runtimeclass/strategy.go``,
``pkg/apis/node/validation/validation.go`` at v1.37.2; sources in docs/semantics.md).

The handler's checks (required, an RFC 1123 label, immutable) are covered by v1.37's declarative validation,
whose errors come after the handwritten ones (the scheduling checks) and show no value for the immutability
(observed on kube-apiserver v1.37.2). Not emulated: the checks of ``overhead.podFixed`` (resource quantities)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, GoLiteral, duplicate, required
from fakekube.kinds.checks import dns_label, go_struct, immutable, mapping, seq
from fakekube.kinds.podvalidation import validate_tolerations
from fakekube.strategies import Strategy
from fakekube.validation import validate_labels


def _toleration_struct(toleration: dict[str, Any]) -> GoLiteral:
    # The internal core.Toleration has no json tags: a Duplicate shows its Go field names, in order.
    fields = [(key.capitalize(), toleration.get(key) or "") for key in ("key", "operator", "value", "effect")]
    return go_struct(*fields, ("TolerationSeconds", toleration.get("tolerationSeconds")))


def _scheduling(scheduling: Any) -> list[FieldError]:
    if not isinstance(scheduling, dict):
        return []
    errs: list[FieldError] = []
    if scheduling.get("nodeSelector") is not None:
        errs.extend(validate_labels(scheduling["nodeSelector"], "scheduling.nodeSelector"))
    tolerations = seq(scheduling.get("tolerations"))
    errs.extend(validate_tolerations(tolerations, "scheduling.tolerations"))
    seen: set[tuple[Any, ...]] = set()
    for i, toleration in enumerate(tolerations):
        t = mapping(toleration)
        key = tuple(t.get(k) or "" for k in ("key", "operator", "value", "effect"))  # the list's keys
        if key in seen:
            errs.append(duplicate(f"scheduling.tolerations[{i}]", _toleration_struct(t)))
        seen.add(key)
    return errs


def _handler(obj: dict[str, Any]) -> list[FieldError]:
    handler = obj.get("handler")
    if not isinstance(handler, str) or not handler:
        return [required("handler", "")]
    return dns_label(handler, "handler")


class RuntimeClassStrategy(Strategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return [*_scheduling(obj.get("scheduling")), *_handler(obj)]

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return [*self.validate(new), *immutable(new.get("handler") or "", old.get("handler") or "", "handler",
                                                GoLiteral("null"))]


STRATEGIES: dict[str, Callable[[], Strategy]] = {"RuntimeClass": RuntimeClassStrategy}

"""Event validation, core/v1 and events.k8s.io/v1 (one stored resource; kubernetes
``pkg/apis/core/validation/events.go`` ``ValidateEventCreate``/``legacyValidateEvent``, v1.37.2).

Both are validated on the stored (core) shape, so the field paths are the core ones (``involvedObject``,
``message``). Which checks apply depends on the version the request came through: core/v1 gets only the
legacy checks (and names the reporting controller ``reportingComponent``); events.k8s.io/v1 gets the legacy
checks, then the strict ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, invalid, required
from fakekube.strategies import Strategy
from fakekube.validation import validate_qualified_name

REPORTING_INSTANCE_LIMIT = 128
ACTION_LIMIT = 128
REASON_LIMIT = 128
NOTE_LIMIT = 1024


def _text(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def legacy_errors(obj: dict[str, Any], controller_field: str) -> list[FieldError]:
    """``legacyValidateEvent``: an event without eventTime is an old one, checked for its namespace only."""
    errs: list[FieldError] = []
    namespace = _text(obj["metadata"], "namespace")
    involved_ns = _text(_mapping(obj.get("involvedObject")), "namespace")
    mismatch = invalid("involvedObject.namespace", involved_ns, "does not match event.namespace")
    if not obj.get("eventTime"):
        if (not involved_ns and namespace not in ("", "default")) or (involved_ns and namespace != involved_ns):
            errs.append(mismatch)
        return errs
    if not involved_ns and namespace not in ("default", "kube-system"):
        errs.append(mismatch)
    controller = _text(obj, "reportingComponent")
    if not controller:
        errs.append(required(controller_field))
    errs += validate_qualified_name(controller, controller_field)
    instance = _text(obj, "reportingInstance")
    if not instance:
        errs.append(required("reportingInstance"))
    if len(instance) > REPORTING_INSTANCE_LIMIT:
        errs.append(invalid("reportingInstance", "", f"can have at most {REPORTING_INSTANCE_LIMIT} characters"))
    action = _text(obj, "action")
    if not action:
        errs.append(required("action"))
    if len(action) > ACTION_LIMIT:
        errs.append(invalid("action", "", f"can have at most {ACTION_LIMIT} characters"))
    reason = _text(obj, "reason")
    if not reason:
        errs.append(required("reason"))
    if len(reason) > REASON_LIMIT:
        errs.append(invalid("reason", "", f"can have at most {REASON_LIMIT} characters"))
    if len(_text(obj, "message")) > NOTE_LIMIT:
        errs.append(invalid("message", "", f"can have at most {NOTE_LIMIT} characters"))
    return errs


def strict_errors(obj: dict[str, Any]) -> list[FieldError]:
    """What ``ValidateEventCreate`` adds for events.k8s.io/v1 (the metadata is the store's own check)."""
    errs: list[FieldError] = []
    series = obj.get("series")
    if isinstance(series, dict):
        count = series.get("count")
        if not isinstance(count, int) or count < 2:
            errs.append(invalid("series.count", "", "should be at least 2"))
        if not series.get("lastObservedTime"):
            errs.append(required("series.lastObservedTime"))
    if not obj.get("eventTime"):
        errs.append(required("eventTime"))
    kind = _text(obj, "type")
    if kind not in ("Normal", "Warning"):
        errs.append(invalid("type", "", f"has invalid value: {kind}"))
    for key in ("firstTimestamp", "lastTimestamp", "count"):
        if obj.get(key):
            errs.append(invalid(key, "", "needs to be unset"))
    source = _mapping(obj.get("source"))
    if source.get("component") or source.get("host"):
        errs.append(invalid("source", "", "needs to be unset"))
    return errs


class CoreEventStrategy(Strategy):
    """core/v1: legacy checks only, "for backwards compatibility" (and no ObjectMeta validation at all)."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return legacy_errors(obj, "reportingComponent")


class EventsV1EventStrategy(Strategy):
    """events.k8s.io/v1: the legacy checks, then the strict ones."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return legacy_errors(obj, "reportingController") + strict_errors(obj)


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "Event": EventsV1EventStrategy,
}

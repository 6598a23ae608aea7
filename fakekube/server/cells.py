"""Table cells as the real server formats them: ages, label maps and selectors, container lists, access
modes, and the typed cells of custom resource columns.

Sources: apimachinery ``pkg/util/duration`` (``HumanDuration``), kubernetes ``pkg/printers/internalversion/
printers.go`` (``translateTimestampSince``, ``layoutContainerCells``), ``pkg/apis/core/helper``
(``GetAccessModesAsString``), apiextensions-apiserver ``pkg/registry/customresource/tableconvertor``
(``cellForJSONValue``), client-go ``util/jsonpath`` (how a result prints). ``fakekube.server.printers`` builds
rows from these.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from fakekube.clock import parse_rfc3339


def human_duration(seconds: float) -> str:
    """apimachinery ``duration.HumanDuration``: coarser the older it gets (``90s``, ``5m3s``, ``3h``, ``12d``)."""
    secs = int(seconds)
    if secs < -1:
        return "<invalid>"  # clocks two or more seconds apart
    if secs < 0:
        return "0s"
    if secs < 120:
        return f"{secs}s"
    minutes = secs // 60
    if minutes < 10:
        return _two_units(minutes, "m", secs % 60, "s")
    if minutes < 180:
        return f"{minutes}m"
    hours = secs // 3600
    if hours < 8:
        return _two_units(hours, "h", minutes % 60, "m")
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if hours < 24 * 8:
        return _two_units(days, "d", hours % 24, "h")
    if hours < 24 * 365 * 2:
        return f"{days}d"
    years = days // 365
    if hours < 24 * 365 * 8:
        return _two_units(years, "y", days % 365, "d")
    return f"{years}y"


def _two_units(major: int, major_unit: str, minor: int, minor_unit: str) -> str:
    """``5m3s``, or ``5m`` when the smaller unit is zero."""
    return f"{major}{major_unit}{minor}{minor_unit}" if minor else f"{major}{major_unit}"


def elapsed(moment: datetime, now: datetime) -> str:
    return human_duration((now - moment).total_seconds())


def since(timestamp: Any, now: datetime) -> str:
    """``translateTimestampSince``: the age of an RFC3339 timestamp, ``<unknown>`` when unset or unreadable."""
    if not isinstance(timestamp, str) or not timestamp:
        return "<unknown>"
    moment = parse_moment(timestamp)
    return "<unknown>" if moment is None else elapsed(moment, now)


def parse_moment(text: str) -> datetime | None:
    try:
        moment = parse_rfc3339(text)
    except ValueError:
        return None
    # A timestamp without a zone would not subtract from the aware "now"; metav1.Time means UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def meta_of(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}


def name_of(obj: dict[str, Any]) -> str:
    return meta_of(obj).get("name", "")


def age_of(obj: dict[str, Any], now: datetime) -> str:
    return since(meta_of(obj).get("creationTimestamp"), now)


def dig(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def or_none(text: Any) -> str:
    return text if isinstance(text, str) and text else "<none>"


def format_labels(labels: Any) -> str:
    """``labels.FormatLabels``: ``a=1,b=2`` sorted by key, ``<none>`` when empty."""
    if not isinstance(labels, dict) or not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def format_label_selector(selector: Any) -> str:
    """``metav1.FormatLabelSelector``: matchLabels then expressions, ``<none>`` for an empty selector."""
    if not isinstance(selector, dict):
        return "<none>"
    parts = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in as_list(selector.get("matchExpressions")):
        key, op, values = expr.get("key", ""), expr.get("operator", ""), as_list(expr.get("values"))
        if op == "In":
            parts.append(f"{key} in ({','.join(values)})")
        elif op == "NotIn":
            parts.append(f"{key} notin ({','.join(values)})")
        elif op == "Exists":
            parts.append(key)
        elif op == "DoesNotExist":
            parts.append(f"!{key}")
    text = ",".join(parts)
    return text or "<none>"


def container_cells(containers: Any) -> tuple[str, str]:
    """``layoutContainerCells``: the names and the images of the containers, comma-separated."""
    items = as_list(containers)
    return ",".join(c.get("name", "") for c in items), ",".join(c.get("image", "") for c in items)


def access_modes(modes: Any) -> str:
    """``helper.GetAccessModesAsString``: RWO,ROX,RWX,RWOP in that order, each once."""
    present = set(as_list(modes))
    short = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
             ("ReadWriteOncePod", "RWOP"))
    return ",".join(abbrev for mode, abbrev in short if mode in present)


def typed_cell(type_: str, value: Any, now: datetime) -> Any:
    """``cellForJSONValue``: a value of the wrong type is an empty cell, never an error."""
    if value is None:
        return None
    is_bool = isinstance(value, bool)
    if type_ == "string":
        return print_value(value)
    if type_ == "integer" and not is_bool and isinstance(value, int | float):
        return int(value)
    if type_ == "number" and not is_bool and isinstance(value, int | float):
        return float(value)
    if type_ == "boolean" and is_bool:
        return value
    if type_ == "date" and isinstance(value, str):
        moment = parse_moment(value)
        return "<invalid>" if moment is None else elapsed(moment, now)
    return None


def print_value(value: Any) -> str:
    """How client-go's JSONPath prints one result: strings as they are, objects and arrays as JSON, scalars
    the way Go's fmt does."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)

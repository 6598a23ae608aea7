"""Field checks the built-in kinds' validation shares, with the real API server's texts.

kubernetes/apimachinery ``pkg/util/validation/validation.go`` (ports, ranges, C identifiers), ``pkg/apis/meta
/v1/validation/validation.go`` (label selectors), ``pkg/api/validation/generic.go`` (immutable fields) and
``pkg/util/validation/field/errors.go``, whose rendering of maps, slices and structs (``json.Marshal``:
``{"app":"web"}``; an internal type's fields under their Go names) the ``go_*`` helpers reproduce. Sources in
docs/semantics.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fakekube.errors import (
    FieldError,
    GoLiteral,
    duplicate,
    forbidden,
    go_json,
    invalid,
    not_supported,
    required,
)
from fakekube.namerules import is_dns1123_label, is_dns1123_subdomain, is_qualified_name, is_valid_label_value
from fakekube.selectors import LabelSelector
from fakekube.validation import FIELD_IMMUTABLE, IS_NEGATIVE, validate_labels

IS_NOT_POSITIVE = "must be greater than zero"
PORT_RANGE = "must be between 1 and 65535, inclusive"
_PORT_CHARSET = re.compile(r"[-a-z0-9]+")
_ONE_LETTER = re.compile(r"[a-z]")
_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")
_CONFIG_KEY_MSG = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
                   "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")


# ------------------------------------------------------------------------------------------- shapes

def mapping(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else ``{}``: hooks run before a body's types are checked."""
    return value if isinstance(value, dict) else {}


def seq(value: Any) -> list[Any]:
    """``value`` if it is a JSON array, else ``[]``."""
    return value if isinstance(value, list) else []


def dict_at(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]``, replaced by a new empty object there when it is not one (defaulting fills it in)."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = parent[key] = {}
    return value


def spec_of(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj["spec"]`` as an object to default into (``dict_at(obj, "spec")``)."""
    return dict_at(obj, "spec")


# ------------------------------------------------------------------------------------------- Go syntax


def go_string_map(value: Any) -> GoLiteral:
    """A ``map[string]string`` bad value: ``json.Marshal`` (keys sorted), ``null`` when nil."""
    if not isinstance(value, Mapping):
        return GoLiteral("null")
    return GoLiteral(go_json(dict(value)))


def go_string_slice(values: Any) -> GoLiteral:
    """A ``[]string`` bad value: ``json.Marshal``, ``null`` when nil."""
    if not isinstance(values, list):
        return GoLiteral("null")
    return GoLiteral(go_json(values))


def label_selector_json(selector: Any) -> Any:
    """A ``metav1.LabelSelector`` as ``json.Marshal`` shapes it (its fields are omitempty), or None when nil."""
    if not isinstance(selector, Mapping):
        return None
    out: dict[str, Any] = {}
    labels = selector.get("matchLabels")
    if isinstance(labels, Mapping) and labels:
        out["matchLabels"] = dict(sorted(labels.items()))
    exprs = selector.get("matchExpressions")
    if isinstance(exprs, list) and exprs:
        rendered = []
        for expr in exprs:
            expr = expr if isinstance(expr, Mapping) else {}
            item: dict[str, Any] = {"key": expr.get("key", ""), "operator": expr.get("operator", "")}
            if isinstance(expr.get("values"), list) and expr["values"]:
                item["values"] = expr["values"]
            rendered.append(item)
        out["matchExpressions"] = rendered
    return out


def go_label_selector(selector: Any) -> GoLiteral:
    """A ``*metav1.LabelSelector`` bad value: ``json.Marshal`` (``null`` when nil)."""
    return GoLiteral(go_json(label_selector_json(selector), sort_keys=False))


def int_or_string_json(value: Any) -> Any:
    """An ``intstr.IntOrString`` as its MarshalJSON writes it: the string, or the number (0 when not one)."""
    if isinstance(value, str):
        return value
    return value if is_int(value) else 0


def go_int_or_string(value: Any) -> GoLiteral:
    """An ``intstr.IntOrString`` bad value: its JSON, ``"25%"`` or ``3``."""
    return GoLiteral(go_json(int_or_string_json(value)))


def go_struct(*fields: tuple[str, Any]) -> GoLiteral:
    """A bad value of an internal Go type (no json tags): ``json.Marshal`` writes every field under its Go name,
    in declaration order; the values are given as JSON already (maps sorted)."""
    return GoLiteral(go_json(dict(fields), sort_keys=False))


# ------------------------------------------------------------------------------------------- numbers

def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def non_negative(value: Any, path: str) -> list[FieldError]:
    """``ValidateNonnegativeField``."""
    return [invalid(path, value, IS_NEGATIVE)] if is_int(value) and value < 0 else []


def positive(value: Any, path: str) -> list[FieldError]:
    return [invalid(path, value, IS_NOT_POSITIVE)] if is_int(value) and value <= 0 else []


def port_number(value: Any, path: str) -> list[FieldError]:
    """``IsValidPortNum``: 1-65535."""
    if is_int(value) and not 1 <= value <= 65535:
        return [invalid(path, value, PORT_RANGE)]
    return []


def port_name_errors(name: str) -> list[str]:
    """``IsValidPortName`` (an IANA_SVC_NAME)."""
    msgs = []
    if len(name) > 15:
        msgs.append("must be no more than 15 characters")
    if not _PORT_CHARSET.fullmatch(name):
        msgs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _ONE_LETTER.search(name):
        msgs.append("must contain at least one letter (a-z)")
    if "--" in name:
        msgs.append("must not contain consecutive hyphens")
    if name and (name[0] == "-" or name[-1] == "-"):
        msgs.append("must not begin or end with a hyphen")
    return msgs


def int_or_percent(value: Any, path: str) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent``: a non-negative integer or ``N%``."""
    if isinstance(value, str):
        if not re.fullmatch(r"[0-9]+%", value):
            return [invalid(path, go_int_or_string(value), "a valid percent string must be a numeric string "
                                                           "followed by an ending '%' (e.g. '1%',  or '93%', regex "
                                                           "used for validation is '[0-9]+%')")]
        return []
    return non_negative(value, path)


def percent_at_most_100(value: Any, path: str) -> list[FieldError]:
    """``IsNotMoreThan100Percent``."""
    if isinstance(value, str) and re.fullmatch(r"[0-9]+%", value) and int(value[:-1]) > 100:
        return [invalid(path, go_int_or_string(value), "must not be greater than 100%")]
    return []


def int_or_percent_value(value: Any) -> int:
    """``getIntOrPercentValue``: the integer, or the percentage's number."""
    if isinstance(value, str):
        return int(value[:-1]) if re.fullmatch(r"[0-9]+%", value) else 0
    return value if is_int(value) else 0


# ------------------------------------------------------------------------------------------- names

def dns_label(value: Any, path: str) -> list[FieldError]:
    return [invalid(path, value, m) for m in is_dns1123_label(str(value))]


def dns_subdomain(value: Any, path: str) -> list[FieldError]:
    return [invalid(path, value, m) for m in is_dns1123_subdomain(str(value))]


def config_key(key: str, path: str) -> list[FieldError]:
    """``IsConfigMapKey`` (ConfigMap and Secret data keys)."""
    msgs = []
    if len(key) > 253:
        msgs.append("must be no more than 253 characters")
    if not _CONFIG_KEY.fullmatch(key):
        msgs.append(_CONFIG_KEY_MSG)
    if key == ".":
        msgs.append("must not be '.'")
    elif key == "..":
        msgs.append("must not be '..'")
    elif key.startswith(".."):
        msgs.append("must not start with '..'")
    return [invalid(path, key, m) for m in msgs]


# ------------------------------------------------------------------------------------------- generic

def immutable(new: Any, old: Any, path: str, value: Any = None) -> list[FieldError]:
    """``ValidateImmutableField``: the new value is reported (``value`` overrides its rendering)."""
    if new == old:
        return []
    return [invalid(path, new if value is None else value, FIELD_IMMUTABLE)]


def one_of(value: Any, path: str, supported: list[str], *, required_if_empty: bool = True) -> list[FieldError]:
    if value in (None, ""):
        return [required(path, "")] if required_if_empty else []
    if value not in supported:
        return [not_supported(path, value, supported)]
    return []


def unique(values: list[Any], path_of: Any) -> list[FieldError]:
    seen: set[Any] = set()
    errs = []
    for i, value in enumerate(values):
        if value in seen:
            errs.append(duplicate(path_of(i), value))
        seen.add(value)
    return errs


# ------------------------------------------------------------------------------------------- selectors

def validate_label_selector(selector: Any, path: str) -> list[FieldError]:
    """``metav1validation.ValidateLabelSelector``."""
    if not isinstance(selector, Mapping):
        return []
    errs = validate_labels(selector.get("matchLabels"), f"{path}.matchLabels")
    for i, expr in enumerate(seq(selector.get("matchExpressions"))):
        here = f"{path}.matchExpressions[{i}]"
        expr = expr if isinstance(expr, Mapping) else {}
        operator, values = expr.get("operator"), seq(expr.get("values"))
        if operator in ("In", "NotIn"):
            if not values:
                errs.append(required(f"{here}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                errs.append(forbidden(f"{here}.values",
                                      "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        else:
            errs.append(invalid(f"{here}.operator", operator, "not a valid selector operator"))
        key = expr.get("key", "")
        errs.extend(invalid(f"{here}.key", key, m) for m in is_qualified_name(str(key)))
        for j, value in enumerate(values if isinstance(values, list) else []):
            errs.extend(invalid(f"{here}.values[{j}]", value, m) for m in is_valid_label_value(str(value)))
    return errs


def selector_is_empty(selector: Any) -> bool:
    return not isinstance(selector, Mapping) or (not selector.get("matchLabels")
                                                   and not selector.get("matchExpressions"))


def selector_matches(selector: Any, labels: Any) -> bool:
    """``LabelSelectorAsSelector(selector).Matches(labels)``; an invalid selector matches nothing."""
    try:
        return LabelSelector.from_dict(selector).matches(labels if isinstance(labels, Mapping) else {})
    except Exception:  # the selector's own errors are reported by validate_label_selector
        return False


def child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name

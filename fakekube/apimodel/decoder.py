"""What kube-apiserver's typed JSON decoder does to a built-in object: refuse wrong JSON types, drop unknown
fields and name them.

kube-apiserver decodes a built-in object into its Go struct (sigs.k8s.io/json, case-sensitive) before
anything else runs:

- a value of the wrong JSON type is an ``UnmarshalTypeError``: ``json: cannot unmarshal string into Go
  struct field PodSpec.spec.containers of type []v1.Container`` — the innermost struct, the path of struct
  field names from the root (no map keys, no list indices), the Go type of the field. The first one in
  document order wins. Types with their own ``UnmarshalJSON`` answer in their own words (Quantity's regular
  expression, IntOrString's ``int32``, Time's ``string``);
- a field the struct does not have is dropped; with ``fieldValidation`` Warn or Strict it is also reported
  as ``unknown field "spec.template.spec.containers[0].imagee"`` (the strict decoder's path has map keys and
  list indices).

The decoder of a kind is compiled from its OpenAPI definition on first use (``decoder(version,
definition)``); Go type names come from the definition names (``io.k8s.api.core.v1.PodSpec`` →
``v1.PodSpec``). Go's named non-struct types (``types.UID``, ``v1.PodPhase``, ``v1.ResourceList``) are not in
the definitions: they come from ``go_field_types.json``, generated from the Go types.

Sources: kubernetes-sigs/json ``internal/golang/encoding/json/decode.go`` (``UnmarshalTypeError``,
``errorContext``) and ``kubernetes_patch.go`` (strict errors); apimachinery ``pkg/api/resource/quantity.go``,
``pkg/util/intstr/intstr.go``, ``pkg/apis/meta/v1/time.go`` (``UnmarshalJSON``).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from fakekube import gotime
from fakekube.apimodel.decode_errors import (
    DecodeError,
    MapKey,
    TypeMismatch,
    base64_error,
    strict_path,
    unknown_locations,
)
from fakekube.apimodel.definitions import Definitions, PerDefinition, definitions, schema_types
from fakekube.apimodel.goform import DROP, fresh, struct_form
from fakekube.apimodel.versions import KubernetesVersion
from fakekube.gojson import BigNumber
from fakekube.jsonvalues import json_copy
from fakekube.quantity import QUANTITY_RE
from fakekube.quantity import REGEX_ERROR as QUANTITY_REGEX_ERROR

_SCALARS = frozenset((str, int, float, bool, type(None)))
_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


class _Walk:
    """What one decode found besides values: the unknown fields, as (the object holding one, its key), and the
    known fields set to null (Go leaves the zero value: the same as no field at all)."""

    __slots__ = ("unknown", "nulls", "fills")

    def __init__(self) -> None:
        self.unknown: list[tuple[dict[str, Any], str]] = []
        # (object, key, what Go writes there: DROP or a value): nulls and empty omitempty values; absent fields
        # without omitempty (fills)
        self.nulls: list[tuple[dict[str, Any], str, Any]] = []
        self.fills: list[tuple[dict[str, Any], str, Any]] = []


class _Node:
    """One Go type. ``check`` walks a value in place; ``copy`` returns a copy without the unknown fields.
    Both record unknown fields in the walk, raise ``TypeMismatch`` for a wrong JSON type and DecodeError for a
    value a custom ``UnmarshalJSON`` refuses."""

    __slots__ = ("go_type",)
    go_type: str

    def check(self, value: Any, w: _Walk) -> None:
        self.copy(value, w)

    def copy(self, value: Any, w: _Walk) -> Any:  # pragma: no cover - every node overrides it
        raise NotImplementedError


class _Any(_Node):
    """RawExtension, apiextensions JSON, FieldsV1: any JSON."""

    def __init__(self, go_type: str) -> None:
        self.go_type = go_type

    def check(self, value: Any, w: _Walk) -> None:
        return None

    def copy(self, value: Any, w: _Walk) -> Any:
        return value if type(value) in _SCALARS else json_copy(value)


class _Scalar(_Node):
    __slots__ = ("types", "bounds", "base64", "base")

    def __init__(self, go_type: str, types: tuple[type, ...], bounds: tuple[int, int] | None = None,
                 base64: bool = False, base: str | None = None) -> None:
        self.go_type = go_type  # as Go prints it: v1.ServiceType for a named string type
        self.base = base or go_type
        self.types = types
        self.bounds = bounds
        self.base64 = base64

    @property
    def plain(self) -> bool:
        """Decided by the JSON type alone."""
        return self.bounds is None and not self.base64

    def copy(self, value: Any, w: _Walk) -> Any:
        t = type(value)
        if t not in self.types:
            if value is None:
                return None
            if t is BigNumber:
                # A number Go reads as it is written: a float64 field takes what a float64 holds; an integer
                # field, or a float beyond float64, quotes the number's text.
                if float in self.types and value.finite:
                    return float(value)
                raise TypeMismatch(value, self.go_type, number_text=self.bounds is not None or float in self.types,
                                   base=self.base)
            raise TypeMismatch(value, self.go_type, number_text=self.bounds is not None and t is float,
                               base=self.base)
        if self.bounds is not None and not self.bounds[0] <= value <= self.bounds[1]:
            raise TypeMismatch(value, self.go_type, number_text=True, base=self.base)
        if self.base64:
            bad = base64_error(value)
            if bad is not None:
                raise DecodeError(f"illegal base64 data at input byte {bad}")
        return value


class _Quantity(_Node):
    go_type = "resource.Quantity"
    _valid: dict[Any, bool] = {}  # the few quantities a cluster uses ("100m", "128Mi") are checked once

    def copy(self, value: Any, w: _Walk) -> Any:
        if value is None or (type(value) is str and value in self._valid):
            return value
        text = value if isinstance(value, str) else repr(value) if type(value) in (int, float) else None
        if text is None or QUANTITY_RE.match(text.strip()) is None:
            raise DecodeError(QUANTITY_REGEX_ERROR)
        if len(self._valid) < 4096 and type(value) is str:
            self._valid[value] = True
        return value


class _IntOrString(_Node):
    go_type = "intstr.IntOrString"

    def copy(self, value: Any, w: _Walk) -> Any:
        t = type(value)
        if t is str or value is None:
            return value
        if t is int and _INT_RANGES["int32"][0] <= value <= _INT_RANGES["int32"][1]:
            return value
        # UnmarshalJSON decodes into an int32; the outer decoder adds its struct field to that error
        raise TypeMismatch(value, "int32", number_text=t in (int, float, BigNumber), own=True)


class _Time(_Node):
    """metav1.Time (MicroTime) decodes a JSON string with time.Parse(RFC 3339 (to the microsecond)); a string
    it refuses is Go's ``*time.ParseError`` text, without a field (apimachinery pkg/apis/meta/v1/time.go)."""

    __slots__ = ("layout", "_valid")

    def __init__(self, go_type: str, layout: str) -> None:
        self.go_type = go_type
        self.layout = layout
        self._valid: dict[str, bool] = {}  # the times a cluster writes are checked once

    def copy(self, value: Any, w: _Walk) -> Any:
        if value is None:
            return None
        if type(value) is not str:
            # UnmarshalJSON decodes into a string; the outer decoder adds its struct field to that error
            raise TypeMismatch(value, "string", own=True)
        if value not in self._valid:
            try:
                gotime.check(value, self.layout)
            except gotime.TimeParseError as exc:
                raise DecodeError(str(exc)) from None
            if len(self._valid) < 4096:
                self._valid[value] = True
        return value


class _List(_Node):
    __slots__ = ("item",)

    def __init__(self, go_type: str, item: _Node) -> None:
        self.go_type = go_type
        self.item = item

    check: Any  # both set below from one definition (_list_walker), so the hot path is one call per list
    copy: Any


def _zero(node: _Node) -> Any:
    """The JSON of a Go type's zero value where it is not null."""
    if isinstance(node, _Scalar):
        if node.base64:
            return None
        types = node.types
        return "" if str in types else False if bool in types else 0 if int in types or float in types else None
    if isinstance(node, _Struct):
        return {}
    if isinstance(node, _IntOrString):
        return 0
    return None


def _list_walker(copying: bool) -> Any:
    def walk(self: _List, value: Any, w: _Walk) -> Any:
        if type(value) is not list and not isinstance(value, list):
            if value is None:
                return None
            raise TypeMismatch(value, self.go_type, base="[]")
        item = self.item
        if None in value:
            # Go decodes a null element of a slice of values as the zero value: [null] of []string is [""],
            # of []OwnerReference [{}] (observed on kube-apiserver v1.37.2; nulls of maps and slices stay nil).
            zero = _zero(item)
            if zero is not None:
                for i, element in enumerate(value):
                    if element is None:
                        value[i] = {} if zero == {} else zero
        if isinstance(item, _Scalar) and item.plain:
            types = item.types
            for element in value:
                if type(element) not in types:
                    item.copy(element, w)
            return list(value) if copying else None
        step = item.copy if copying else item.check
        out = []
        i = 0
        try:
            for i, element in enumerate(value):  # noqa: B007 - i names the element that failed
                out.append(step(element, w))
        except TypeMismatch as mismatch:
            mismatch.location.append(i)
            raise
        return out if copying else None

    return walk


_List.check = _list_walker(False)
_List.copy = _list_walker(True)


class _Map(_Node):
    __slots__ = ("value",)

    def __init__(self, go_type: str, value: _Node) -> None:
        self.go_type = go_type
        self.value = value

    def check(self, value: Any, w: _Walk) -> None:
        self._walk(value, w, None)

    def copy(self, value: Any, w: _Walk) -> Any:
        out: dict[str, Any] = {}
        return out if self._walk(value, w, out) else None

    def _walk(self, value: Any, w: _Walk, out: dict[str, Any] | None) -> bool:
        if type(value) is not dict and not isinstance(value, dict):
            if value is None:
                return False
            raise TypeMismatch(value, self.go_type, base="map[")
        node = self.value
        if isinstance(node, _Scalar) and node.plain:
            types = node.types
            nulls = None
            for key, element in value.items():
                if type(element) not in types:
                    if element is None:
                        nulls = [*(nulls or ()), key]
                    node.copy(element, w)  # raises: no location below a map of scalars is printed
            if nulls and str in types:
                # Go decodes a null into a map of strings as the zero value: {"a": null} is {"a": ""}.
                for key in nulls:
                    value[key] = ""
            if out is not None:
                out.update(value)
            return True
        if isinstance(node, _Quantity):  # resource lists: requests, limits, capacity
            valid = node._valid
            for element in value.values():
                if type(element) is not str or element not in valid:
                    node.copy(element, w)
            if out is not None:
                out.update(value)
            return True
        key = ""
        try:
            for key, element in value.items():
                if out is None:
                    node.check(element, w)
                else:
                    out[key] = node.copy(element, w)
        except TypeMismatch as mismatch:
            mismatch.location.append(MapKey(key))
            raise
        return True


class _Struct(_Node):
    __slots__ = ("name", "fields", "embedded", "plain", "ints", "copiers", "checkers", "nulls", "empty", "absent")

    def __init__(self, go_type: str) -> None:
        self.go_type = go_type
        self.name = go_type.rsplit(".", 1)[-1]
        self.fields: dict[str, _Node] = {}
        # the fields of inline embedded structs, with the Go names they are reached through (error paths)
        self.embedded: dict[str, str] = {}
        # The hot path: fields whose value is decided by its JSON type alone (null included), integer fields
        # with their range, and the bound methods of every other field's node.
        self.plain: dict[str, tuple[type, ...]] = {}
        self.ints: dict[str, tuple[int, int]] = {}
        self.copiers: dict[str, Any] = {}
        self.checkers: dict[str, Any] = {}
        # Go's write form (fakekube.apimodel.goform): what a null becomes, by field (absent: kept null); the
        # fields whose empty value is not written; the fields written when absent, with their zero.
        self.nulls: dict[str, Any] = {}
        self.empty: frozenset[str] = frozenset()
        self.absent: tuple[tuple[str, Any], ...] = ()

    def set_fields(self, fields: dict[str, _Node]) -> None:
        self.fields = fields
        none = type(None)
        for key, node in fields.items():
            self.copiers[key] = node.copy
            self.checkers[key] = node.check
            if isinstance(node, _Scalar) and node.plain:
                self.plain[key] = (*node.types, none)
            elif isinstance(node, _Scalar) and node.bounds is not None:
                self.plain[key] = (none,)
                self.ints[key] = node.bounds
            elif isinstance(node, _IntOrString):
                self.plain[key] = (str, none)
                self.ints[key] = _INT_RANGES["int32"]

    check: Any  # both set below from one definition (_struct_walker), so the hot path is one call per object
    copy: Any


def _struct_walker(copying: bool) -> Any:
    def walk(self: _Struct, value: Any, w: _Walk) -> Any:
        """Walk the fields of ``value``; when copying, return a copy of what is kept."""
        if type(value) is not dict and not isinstance(value, dict):
            if value is None:
                return None
            raise TypeMismatch(value, self.go_type)
        plain = self.plain
        ints = self.ints
        nulls = self.nulls
        empty = self.empty
        steps = self.copiers if copying else self.checkers
        out: dict[str, Any] = {}
        key = ""
        try:
            for key, element in value.items():
                if element is None and key in nulls:
                    # encoding/json leaves a field it reads null at its zero value, which the server then
                    # writes as Go does: an omitempty field not at all, a string as "", a struct as {}
                    # (observed on kube-apiserver v1.37.2: "labels": null is not served)
                    action = nulls[key]
                    if not copying:
                        w.nulls.append((value, key, action))
                    elif action is not _DROP:
                        out[key] = fresh(action)
                    continue
                accepted = plain.get(key)
                if accepted is not None and type(element) in accepted:
                    pass
                else:
                    bounds = ints.get(key)
                    if not (bounds is not None and type(element) is int and bounds[0] <= element <= bounds[1]):
                        step = steps.get(key)
                        if step is None:
                            w.unknown.append((value, key))
                            continue
                        if copying:
                            element = step(element, w)
                        else:
                            step(element, w)
                if not element and key in empty:
                    # omitempty: Go does not write an empty slice or map, "", 0 or false held by value
                    if not copying:
                        w.nulls.append((value, key, _DROP))
                    continue
                if copying:
                    out[key] = element
        except TypeMismatch as mismatch:
            mismatch.location.append(key)
            raise
        if self.absent:
            # a field without omitempty is written when absent: "", 0, null, a struct with its own such fields
            for key, zero in self.absent:
                if key not in value:
                    if copying:
                        out[key] = fresh(zero)
                    else:
                        w.fills.append((value, key, zero))
        return out if copying else None

    return walk


_Struct.check = _struct_walker(False)
_Struct.copy = _struct_walker(True)


# -- compiling definitions --------------------------------------------------------------------------------

_STRING = (str,)
_SPECIAL: dict[str, _Node] = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": _Quantity(),
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": _IntOrString(),
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": _Time("v1.Time", gotime.RFC3339),
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": _Time("v1.MicroTime", gotime.RFC3339_MICRO),
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": _Any("v1.FieldsV1"),
    "io.k8s.apimachinery.pkg.runtime.RawExtension": _Any("runtime.RawExtension"),
}


_DROP = DROP


def go_type_name(definition: str) -> str:
    """``io.k8s.api.core.v1.PodSpec`` → ``v1.PodSpec`` (package name, type name)."""
    parts = definition.split(".")
    return f"{parts[-2]}.{parts[-1]}"


class _Compiler(PerDefinition[_Node]):
    def _build(self, name: str) -> _Node:
        special = _SPECIAL.get(name)
        if special is not None:
            self.nodes[name] = special
            return special
        schema = self.defs[name]
        props = schema.get("properties")
        if isinstance(props, dict):
            struct = _Struct(go_type_name(name))
            self.nodes[name] = struct  # before its fields: recursive types refer back to it
            shown = _go_field_types()["fields"].get(name, {})
            struct.embedded = _go_field_types()["embedded"].get(name, {})
            struct.set_fields({key: self.schema(value, shown.get(key)) for key, value in props.items()
                               if isinstance(value, dict)})
            form = struct_form(name)
            struct.nulls, struct.empty, struct.absent = form.nulls, form.empty, form.absent
            return struct
        node = self.schema(schema, go_type_name(name))
        self.nodes[name] = node
        return node

    def schema(self, schema: dict[str, Any], named: str | None = None) -> _Node:
        """The node of a schema; ``named``: the Go type as Go prints it, where the schema does not say it
        (go_field_types.json: ``v1.ServiceType``, ``[]v1.Capability``, ``v1.ResourceList``)."""
        ref = Definitions.ref_name(schema)
        if ref is not None:
            return self.definition(ref)
        types = schema_types(schema)
        if "array" in types:
            items = schema.get("items")
            item = self.schema(items, _element_type(named)) if isinstance(items, dict) else _Any("interface {}")
            return _List(named or f"[]{item.go_type}", item)
        if "object" in types:
            additional = schema.get("additionalProperties")
            if isinstance(additional, dict):
                value = self.schema(additional, _element_type(named))
                return _Map(named or f"map[string]{value.go_type}", value)
            return _Any(named or "map[string]interface {}")
        if types == {"string"}:
            if schema.get("format") == "byte":
                return _Scalar("[]uint8", _STRING, base64=True)
            return _Scalar(named or "string", _STRING, base="string")
        if types == {"integer"}:
            go_type = schema.get("format") if schema.get("format") in _INT_RANGES else "int64"
            return _Scalar(named or go_type, (int,), _INT_RANGES[go_type], base=go_type)
        if types == {"number"}:
            return _Scalar(named or "float64", (int, float), base="float64")
        if types == {"boolean"}:
            return _Scalar(named or "bool", (bool,), base="bool")
        return _Any(named or "interface {}")  # JSON, JSONSchemaPropsOr*: decoded by their own UnmarshalJSON


_GO_FIELD_TYPES = Path(__file__).with_name("go_field_types.json")


@cache
def _go_field_types() -> dict[str, Any]:
    """The Go types of struct fields that the OpenAPI definitions do not name (generated by
    scripts/generate_go_field_order.py from the Go types)."""
    with _GO_FIELD_TYPES.open() as f:
        return json.load(f)


def _element_type(named: str | None) -> str | None:
    """The Go type of the elements of a slice or map type as Go prints it (``[]v1.Capability`` →
    ``v1.Capability``; a named one by its underlying type); None when there is nothing to say."""
    if named is None:
        return None
    named = _go_field_types()["named"].get(named, named)
    if named.startswith("[]"):
        return named[2:]
    if named.startswith("map["):
        depth = 0
        for i, char in enumerate(named):
            depth += 1 if char == "[" else -1 if char == "]" else 0
            if depth == 0 and char == "]":
                return named[i + 1:]
    return None


@cache
def _compiler(version: KubernetesVersion) -> _Compiler:
    return _Compiler(definitions(version))


class Decoded:
    """The outcome of decoding one object: the value (a copy, for ``decode_copy``) and the unknown fields
    it had, in document order: ``unknown`` as the strict decoder names them, ``locations`` as paths of
    keys and list indices."""

    __slots__ = ("value", "locations", "zeroed", "filled")

    def __init__(self, value: Any, locations: list[tuple[Any, ...]], zeroed: bool = False,
                 filled: bool = False) -> None:
        self.value = value
        self.locations = locations
        self.zeroed = zeroed  # (in_place) some field is null or empty: Go writes it otherwise, or not at all
        self.filled = filled  # (in_place) some field without omitempty is absent: Go writes its zero value

    @property
    def unknown(self) -> list[str]:
        return [strict_path(location) for location in self.locations]


class Decoder:
    """The typed decoder of one definition (``decoder(version, definition)``), compiled once."""

    __slots__ = ("root",)

    def __init__(self, root: _Node) -> None:
        self.root = root

    def copy(self, obj: Any) -> Decoded:
        """A copy of ``obj`` as the typed decoder leaves it: unknown fields dropped (and named). Raises
        DecodeError with Go's message for a value of the wrong type."""
        walk = _Walk()
        try:
            value = self.root.copy(obj, walk)
        except TypeMismatch as mismatch:
            raise mismatch.error(self.root) from None
        return Decoded(value, unknown_locations(obj, walk.unknown) if walk.unknown else [])

    def in_place(self, obj: Any, *, prune: bool = True, converter: bool = False) -> Decoded:
        """Like ``copy``, but checks ``obj`` itself and (``prune``) drops its unknown fields in place, for
        documents the caller owns such as a patch's result. ``converter``: decode as the unstructured
        converter does (a strategic merge patch's result): its words for a wrong type, and a whole float
        taken for an integer (set to the integer in ``obj``)."""
        walk = _Walk()
        converted: set[tuple[Any, ...]] = set()
        while True:
            try:
                self.root.check(obj, walk)
                break
            except TypeMismatch as mismatch:
                if not converter:
                    raise mismatch.error(self.root) from None
                refused = mismatch.converter_error()
                if refused is not None:
                    raise refused from None
                where = tuple(mismatch.location)
                if where in converted:  # converted once and still refused: never loop on it
                    raise mismatch.error(self.root) from None
                converted.add(where)
                _set_at(obj, mismatch.location, converter_integer(mismatch.value, mismatch.base))
                walk = _Walk()
            except DecodeError as exc:
                if converter and str(exc).startswith("illegal base64"):
                    # []byte goes through encoding/json inside the converter (sliceFromUnstructured)
                    raise DecodeError(f"error decoding from json: {exc}") from None
                raise
        zeroed, filled = bool(walk.nulls), bool(walk.fills)
        if prune:
            for container, key, action in walk.nulls:
                if action is _DROP:
                    container.pop(key, None)
                else:
                    container[key] = fresh(action)
            for container, key, action in walk.fills:
                container[key] = fresh(action)
        if not walk.unknown:
            return Decoded(obj, [], zeroed, filled)
        locations = unknown_locations(obj, walk.unknown)
        if prune:
            for container, key in walk.unknown:
                container.pop(key, None)
        return Decoded(obj, locations, zeroed, filled)


_INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "int": 64,
             "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64, "uint": 64}


def converter_integer(value: int | float, go_type: str) -> int | float:
    """What the unstructured converter stores for a number in an integer field: reflect's SetInt truncates to
    the field's width, as Go's conversions do (int32 field, 2147483648 -> -2147483648; 4294967376 -> 80), and a
    float goes through int64 first (amd64: a float past int64's range becomes -2**63, so 1e300 -> 0 in an
    int32) — runtime/converter.go fromUnstructured, v0.37.2; the answers the oracle gives to such a port in a
    strategic merge patch. A float field keeps the value."""
    bits = _INT_BITS.get(go_type)
    if bits is None:
        return value
    if isinstance(value, float):
        value = int(value) if -(2**63) <= value < 2**63 else -(2**63)
    value &= (1 << bits) - 1
    if not go_type.startswith("uint") and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _set_at(doc: Any, location: list[Any], value: Any) -> None:
    """Set the value at a mismatch's location (innermost step first)."""
    steps = list(reversed(location))
    node = doc
    for step in steps[:-1]:
        node = node[step]
    node[steps[-1]] = value


def decoder(version: KubernetesVersion, definition: str) -> Decoder:
    return Decoder(_compiler(version).definition(definition))


def decode_copy(version: KubernetesVersion, definition: str, obj: Any) -> Decoded:
    """``decoder(version, definition).copy(obj)``."""
    return decoder(version, definition).copy(obj)


def decode_in_place(version: KubernetesVersion, definition: str, obj: Any, *, prune: bool = True) -> Decoded:
    """``decoder(version, definition).in_place(obj, prune=prune)``."""
    return decoder(version, definition).in_place(obj, prune=prune)

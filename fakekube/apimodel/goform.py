"""How Go writes a built-in object back: the JSON of its decoded struct, per struct field.

kube-apiserver decodes a built-in request body into the Go struct of its kind and writes that struct with
encoding/json, so what it stores and serves is not the JSON the client sent but the struct's JSON form:

- a field tagged ``omitempty`` is not written when it holds ``false``, ``0``, ``""``, a nil pointer, or an
  empty slice or map (``subjects[].apiGroup: ""`` of a RoleBinding, ``webhooks: []``); a pointer holding a
  zero (``replicas: 0`` in a ``*int32``) is written, and omitempty never leaves out a struct held by value;
- a field without ``omitempty`` is always written: an absent string as ``""``, a number as ``0``, a nil slice,
  map or pointer as ``null`` (an Event's ``reportingComponent: ""``, an HPA's ``currentMetrics: null``);
- a struct held by value is always written, with its own always-written fields (``jobTemplate.metadata:
  {}``, an EndpointSlice endpoint's ``conditions: {}``); a zero ``metav1.Time`` or ``MicroTime`` writes
  itself as ``null`` (``firstTimestamp: null``), a zero ``Quantity`` ``"0"``, ``Duration`` ``"0s"``,
  ``IntOrString`` ``0``, an empty ``RawExtension`` ``null``;
- ``omitzero`` leaves out a zero struct: ObjectMeta's ``creationTimestamp`` is the only such field
  (apimachinery v0.37.2 ``pkg/apis/meta/v1/types.go``), which is why a review's answer has none.

A null the client sends is decoded as the zero value (encoding/json leaves the field alone), so it is written
as an absent field is. The Go facts (omitempty, pointer, slice, map, inlined struct) come from the protobuf
schema table (``fakekube/server/protobuf/schema.json``, generated from the Go structs' tags); a type the table
lacks is written as sent.

Sources: Go ``encoding/json`` ``Marshal`` (``omitempty``: "false, 0, a nil pointer, a nil interface value, and
any array, slice, map, or string of length zero"; ``omitzero``), the struct tags of k8s.io/api v0.37.2 and
apimachinery v0.37.2 (``Time.MarshalJSON``, ``RawExtension.MarshalJSON``, ``Quantity``, ``Duration``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fakekube.jsonvalues import json_copy

DROP = object()  # a field Go does not write (omitempty, or omitzero)
_MESSAGE_PREFIXES = ("io.k8s.api.", "io.k8s.apimachinery.pkg.")
# Fields tagged omitzero (and so left out when zero although they are structs held by value).
_OMIT_ZERO = frozenset({("apis.meta.v1.ObjectMeta", "creationTimestamp")})
# What a zero value of a type that writes its own JSON is written as.
_SPECIAL_ZERO = {"time": None, "microtime": None, "rawextension": None, "fieldsv1": None,
                 "quantity": "0", "duration": "0s", "intorstring": 0}
# Fields whose empty value means something to the server before it writes the object: ``managedFields: []``
# resets the entries, where an absent list keeps them (apiserver pkg/endpoints/handlers/fieldmanager).
_KEEP_EMPTY = frozenset({("apis.meta.v1.ObjectMeta", "managedFields")})


class StructForm:
    """The write facts of one struct: what a null in a field becomes (``nulls``: DROP or the zero value
    written), the fields whose empty or zero value is not written (``empty``), and the fields written when
    absent, with the value written (``absent``)."""

    __slots__ = ("nulls", "empty", "absent")

    def __init__(self, nulls: dict[str, Any], empty: frozenset[str], absent: tuple[tuple[str, Any], ...]) -> None:
        self.nulls = nulls
        self.empty = empty
        self.absent = absent


NO_FORM = StructForm({}, frozenset(), ())


def fresh(value: Any) -> Any:
    """A value to put into an object from a shared zero (a dict or list is copied)."""
    return json_copy(value) if type(value) in (dict, list) else value


def _message(definition: str) -> Any:
    """The protobuf schema table's message of a definition (its Go facts), or None for a type it lacks."""
    from fakekube.server.protobuf.schema import default_schema

    name = next((definition[len(p):] for p in _MESSAGE_PREFIXES if definition.startswith(p)), None)
    return default_schema().messages.get(name) if name else None


def _fields(message: Any) -> list[tuple[str, Any]]:
    """The JSON fields of a message's Go struct, (owner message name, field): an inlined struct's fields are
    its parent's."""
    out: list[tuple[str, Any]] = []
    for f in message.fields:
        if f.inline and f.message is not None:
            out.extend(_fields(f.message))
        else:
            out.append((message.name, f))
    return out


def _is_slice(f: Any) -> bool:
    return (f.repeated or f.map_key is not None or f.type == "bytes"
            or (f.message is not None and f.message.list_wrapper))


def _zero(f: Any) -> Any:
    """What Go writes for a field at its zero value (DROP: nothing)."""
    if _is_slice(f) or f.pointer:
        return DROP if f.omit_empty else None
    if f.message is not None:
        special = f.message.special
        if special is not None:
            return _SPECIAL_ZERO.get(special)
        return struct_zero(f.message.name)
    if f.omit_empty:
        return DROP
    return "" if f.type == "string" else False if f.type == "bool" else 0


@cache
def struct_zero(name: str) -> dict[str, Any]:
    """The JSON Go writes for a zero struct of a message (shared: copy it with ``fresh``)."""
    from fakekube.server.protobuf.schema import default_schema

    message = default_schema().messages[name]
    out: dict[str, Any] = {}
    for owner, f in _fields(message):
        if (owner, f.name) in _OMIT_ZERO:
            continue
        zero = _zero(f)
        if zero is not DROP:
            out[f.name] = zero
    return out


def definition_zero(definition: str) -> dict[str, Any]:
    """A fresh copy of the JSON Go writes for a zero struct of a definition (``{}`` for a type the table
    lacks)."""
    message = _message(definition)
    return json_copy(struct_zero(message.name)) if message is not None else {}


def struct_form(definition: str) -> StructForm:
    """The write facts of a definition's struct (NO_FORM for a type the table lacks)."""
    message = _message(definition)
    if message is None:
        return NO_FORM
    nulls: dict[str, Any] = {}
    empty: list[str] = []
    absent: list[tuple[str, Any]] = []
    for owner, f in _fields(message):
        zero = DROP if (owner, f.name) in _OMIT_ZERO else _zero(f)
        if zero is not None:  # a null the server writes as null needs nothing
            nulls[f.name] = zero
        if zero is not DROP:
            absent.append((f.name, zero))
        elif (not f.pointer and (f.message is None or _is_slice(f)) and (owner, f.name) not in _KEEP_EMPTY
              and (owner, f.name) not in _OMIT_ZERO):
            empty.append(f.name)  # omitempty on a value: its empty or zero value is not written either
    return StructForm(nulls, frozenset(empty), tuple(absent))

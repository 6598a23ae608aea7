"""The schema table (``schema.json``, made by scripts/generate_protobuf_schema.py) compiled for the codec.

Each message becomes a ``Message`` with its fields by number (for decoding) and in number order (for
encoding). A field knows its wire type, its JSON name, and the Go facts that decide how the JSON the server
stores looks: ``omit_zero`` (a non-pointer ``omitempty`` scalar, absent from JSON when zero), ``pointer``,
``inline`` (an embedded struct whose fields are the parent's in JSON).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from fakekube.server.protobuf.wire import FIXED32, FIXED64, LENGTH, VARINT, varint

# Messages whose Go types marshal JSON themselves (apimachinery): the codec gives each its own conversion.
SPECIAL = {
    "apis.meta.v1.Time": "time",
    "apis.meta.v1.MicroTime": "microtime",
    "apis.meta.v1.Duration": "duration",
    "apis.meta.v1.FieldsV1": "fieldsv1",
    "api.resource.Quantity": "quantity",
    "util.intstr.IntOrString": "intorstring",
    "runtime.RawExtension": "rawextension",
}

# Kinds of meta/v1 that every group version registers (metav1.AddToGroupVersion) or that the server sends.
META_KINDS = {
    "Status": "apis.meta.v1.Status",
    "DeleteOptions": "apis.meta.v1.DeleteOptions",
    "WatchEvent": "apis.meta.v1.WatchEvent",
    "APIVersions": "apis.meta.v1.APIVersions",
    "APIGroupList": "apis.meta.v1.APIGroupList",
    "APIGroup": "apis.meta.v1.APIGroup",
    "APIResourceList": "apis.meta.v1.APIResourceList",
}

_WIRE = {"string": LENGTH, "bytes": LENGTH, "bool": VARINT, "int32": VARINT, "int64": VARINT, "uint32": VARINT,
         "uint64": VARINT, "sint32": VARINT, "sint64": VARINT, "fixed32": FIXED32, "sfixed32": FIXED32,
         "float": FIXED32, "fixed64": FIXED64, "sfixed64": FIXED64, "double": FIXED64}


@dataclass(eq=False)
class Field:
    number: int
    name: str
    type: str  # a scalar name or a message name
    repeated: bool
    map_key: str | None  # the key's scalar type for a map field
    omit_empty: bool
    pointer: bool
    inline: bool
    message: Message | None = None  # the value's message (map values included)
    wire: int = LENGTH
    tag: bytes = b""

    omit_zero: bool = False  # Go's encoding/json drops this scalar when zero (omitempty, not a pointer)
    packable: bool = False  # a repeated number, which a writer may pack
    string_map: bool = False  # map<string, string>: the decoder's fast path


@dataclass(eq=False)
class Message:
    name: str
    fields: list[Field] = field(default_factory=list)
    by_number: dict[int, Field] = field(default_factory=dict)
    by_name: dict[str, Field] = field(default_factory=dict)
    special: str | None = None
    list_wrapper: bool = False  # a Go named slice (ExtraValue, Verbs): JSON shows the items array itself
    has_inline: bool = False
    # Compiled on first use by the decoder and the encoder (decode.py, encode.py): their per-field tables.
    decode_plan: Any = None
    encode_plan: Any = None


@dataclass(eq=False)
class Schema:
    messages: dict[str, Message]
    kinds: dict[str, dict[str, str]]  # apiVersion → Kind → message name

    def message(self, name: str) -> Message:
        return self.messages[name]

    def kind(self, api_version: str, kind: str) -> Message | None:
        """The message of a top-level kind, or None when the kind is not in the table."""
        name = self.kinds.get(api_version, {}).get(kind) or META_KINDS.get(kind)
        return self.messages.get(name) if name else None

    def has_kind(self, api_version: str, kind: str) -> bool:
        return kind in self.kinds.get(api_version, {})


def compile_table(table: dict[str, Any]) -> Schema:
    messages = {name: Message(name, special=SPECIAL.get(name)) for name in table["messages"]}
    for name in table.get("lists", []):
        messages[name].list_wrapper = True
    for name, rows in table["messages"].items():
        message = messages[name]
        for number, json_name, typ, card, flags in rows:
            f = Field(number, json_name, typ, repeated=card == "r", map_key=card[2:] if card.startswith("m:") else None,
                      omit_empty="o" in flags, pointer="p" in flags, inline="i" in flags)
            f.message = messages.get(typ)
            f.wire = LENGTH if (f.message is not None or f.map_key is not None) else _WIRE[typ]
            f.tag = varint(number << 3 | f.wire)
            scalar = f.message is None and f.map_key is None
            f.omit_zero = f.omit_empty and not f.pointer and scalar and not f.repeated
            f.packable = f.repeated and scalar and f.wire != LENGTH
            f.string_map = f.map_key == "string" and f.type == "string"
            message.fields.append(f)
            message.by_number[number] = f
            message.by_name[json_name] = f
            message.has_inline = message.has_inline or f.inline
    return Schema(messages, table["kinds"])


@cache
def default_schema() -> Schema:
    """The built-in kinds' schema, shipped as package data."""
    text = resources.files(__package__).joinpath("schema.json").read_text()
    return compile_table(json.loads(text))

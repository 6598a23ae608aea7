"""What the cost estimator knows of a CRD schema node's values: their CEL types and largest sizes.

After k8s.io/apiserver ``pkg/cel/common/schemas.go`` (``SchemaDeclType``) and ``pkg/cel/types.go``, v0.37.2,
and k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel/compilation.go`` (``sizeEstimator``,
``maxCardinality``) and ``model/schemas.go`` (``WithTypeAndObjectMeta``), v0.37.2. Without ``maxLength``,
``maxItems`` or ``maxProperties`` the largest size is what fits in a request of 3 MiB
(``MaxRequestSizeBytes``): a string ``3 MiB - 2`` characters, a list ``(3 MiB - 2) / (item's smallest
serialized size + 1)`` items, a map ``(3 MiB - 2) / (value's smallest size + 6)`` entries; a ``maxLength``
counts 4 for each character (the bytes of UTF-8). Every other node has a largest size of 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakekube.cel import types as celtypes
from fakekube.cel.checked import DYN, Type
from fakekube.cel.cost import Range

MAX_REQUEST = 3 * 1024 * 1024
_NAME_MAX = 253
_STRING = Type("string")


@dataclass
class Decl:
    """One node of the declared type tree (``DeclType``): its CEL type, ``MaxElements`` and
    ``MinSerializedSize``."""

    type: Type
    max_elements: int = 0
    min_size: int = 1
    fields: dict[str, Decl] = field(default_factory=dict)
    elem: Decl | None = None
    key: Decl | None = None


def _max_length(s: dict[str, Any]) -> int | None:
    v = s.get("maxLength")
    return max(int(v), 0) if isinstance(v, int) and not isinstance(v, bool) else None


def _bound(s: dict[str, Any], name: str) -> int | None:
    v = s.get(name)
    return max(int(v), 0) if isinstance(v, int) and not isinstance(v, bool) else None


def _with_type_and_object_meta(s: dict[str, Any]) -> dict[str, Any]:
    props = s.get("properties") or {}
    meta = props.get("metadata") if isinstance(props.get("metadata"), dict) else {}
    meta_props = meta.get("properties") or {}

    def typed(v: Any, t: str) -> bool:
        return isinstance(v, dict) and v.get("type") == t
    if (typed(props.get("kind"), "string") and typed(props.get("apiVersion"), "string") and typed(meta, "object")
            and meta_props and typed(meta_props.get("name"), "string")
            and typed(meta_props.get("generateName"), "string")):
        return s

    def capped(existing: Any, limit: int) -> dict[str, Any]:
        found = _max_length(existing) if isinstance(existing, dict) else None
        return {"type": "string", "maxLength": found if found is not None and found < limit else limit}
    out = dict(s)
    out["properties"] = {**props, "kind": {"type": "string"}, "apiVersion": {"type": "string"},
                         "metadata": {"type": "object", "properties": {
                             "name": capped(meta_props.get("name"), _NAME_MAX),
                             "generateName": capped(meta_props.get("generateName"), _NAME_MAX - 1)}}}
    return out


def decl(s: Any, root: bool = False) -> Decl | None:
    """``SchemaDeclType``: the declared type of ``s``'s values (``root``: a resource root or an embedded
    resource), or None for a node CEL does not see."""
    if not isinstance(s, dict):
        return None
    if celtypes.is_int_or_string(s):
        length = _max_length(s)
        return Decl(DYN, length * 4 if length is not None else MAX_REQUEST - 2, 1)
    if root:
        s = _with_type_and_object_meta(s)
    kind = s.get("type")
    if kind == "array":
        items = s.get("items")
        if not isinstance(items, dict):
            return None
        item = decl(items, items.get("x-kubernetes-embedded-resource") is True)
        if item is None:
            return None
        top = _bound(s, "maxItems")
        if top is None:
            top = (MAX_REQUEST - 2) // (item.min_size + 1)
        return Decl(Type("list", (item.type,)), top, 2, elem=item)
    if kind == "object":
        extra = s.get("additionalProperties")
        if isinstance(extra, dict):
            value = decl(extra, extra.get("x-kubernetes-embedded-resource") is True)
            if value is None:
                return None
            top = _bound(s, "maxProperties")
            if top is None:
                top = (MAX_REQUEST - 2) // (value.min_size + 6)
            return Decl(Type("map", (_STRING, value.type)), top, 2, elem=value,
                        key=Decl(_STRING, 0, 2))
        required = {r for r in (s.get("required") or []) if isinstance(r, str)}
        out = Decl(Type("message", name="object"), 0, 2)
        for name, prop in (s.get("properties") or {}).items():
            sub = decl(prop, isinstance(prop, dict) and prop.get("x-kubernetes-embedded-resource") is True)
            if sub is None:
                continue
            escaped = celtypes.escape(name)
            if escaped is not None:
                out.fields[escaped] = sub
            if name in required and prop.get("default") is None:
                out.min_size += len(name) + sub.min_size + 4
        return out
    if kind == "string":
        fmt = s.get("format")
        if fmt == "byte":
            length = _max_length(s)
            return Decl(Type("bytes"), length if length is not None else MAX_REQUEST - 2, 2)
        if fmt == "duration":
            return Decl(Type("duration"), 32, 3)
        if fmt == "date":
            return Decl(Type("timestamp"), 12, 12)
        if fmt == "date-time":
            return Decl(Type("timestamp"), 32, 21)
        length = _max_length(s)
        if length is not None:
            top = length * 4
        elif s.get("enum"):
            top = max((len(v.encode()) for v in s["enum"] if isinstance(v, str)), default=0)
        else:
            top = MAX_REQUEST - 2
        return Decl(_STRING, top, 2)
    simple = {"boolean": ("bool", 4), "number": ("double", 1), "integer": ("int", 1)}.get(kind or "")
    if simple is None:
        return None
    return Decl(Type(simple[0]), 0, simple[1])


def max_cardinality(node: Decl) -> int:
    """How many times a node could appear in one request, when its place in the schema does not bound it."""
    return MAX_REQUEST // (node.min_size + 1)


class SchemaModel:
    """The cost model (fakekube.cel.cost.Model) of a rule's variables ``self`` and ``oldSelf`` at a node.

    As upstream's ``sizeEstimator``, a size is looked up from the node whatever the path's first element is.
    ``optional_old_self``: ``oldSelf`` is ``optional`` of the node's type."""

    def __init__(self, node: Decl, optional_old_self: bool = False) -> None:
        self.node = node
        self.optional_old_self = optional_old_self

    def _walk(self, path: tuple[str, ...]) -> Decl | None:
        current: Decl | None = self.node
        for name in path[1:]:
            if current is None:
                return None
            if name in ("@items", "@values"):
                current = current.elem
            elif name == "@keys":
                current = current.key
            else:
                current = current.fields.get(name)
        return current

    def size(self, path: tuple[str, ...]) -> Range | None:
        found = self._walk(path)
        return Range(0, found.max_elements) if found is not None else None

    def type(self, path: tuple[str, ...]) -> Type | None:
        if not path or path[0] not in ("self", "oldSelf"):
            return None
        if path == ("oldSelf",) and self.optional_old_self:
            return Type("opaque", (self.node.type,), "optional_type")
        found = self._walk(path)
        return found.type if found is not None else None

"""The typed decoder's words for what it refuses and where: Go's ``UnmarshalTypeError`` text for a value of the
wrong JSON type, the strict decoder's path of an unknown field, and encoding/base64's offset of illegal data.

The walkers in ``fakekube.apimodel.decoder`` raise ``TypeMismatch`` where they find a wrong type and add
one step per level on the way up; the message is composed only then, by walking the compiled types down
again, so the hot path keeps no record of where it is.

Sources: kubernetes-sigs/json ``internal/golang/encoding/json/decode.go`` (``UnmarshalTypeError``,
``errorContext``) and ``kubernetes_patch.go`` (strict errors); Go ``encoding/base64/base64.go``
(``decodeQuantum``, ``CorruptInputError``).
"""

from __future__ import annotations

from typing import Any

from fakekube.patch.jsonutil import go_json_kind

_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


class DecodeError(Exception):
    """A value the typed decoder refuses; ``str(exc)`` is Go's message."""


class TypeMismatch(Exception):
    """A JSON value of the wrong type, raised where it is found; each level it passes on the way up adds its
    step to ``location`` (a ``str`` struct field, a ``MapKey``, an ``int`` list index), so the hot path
    keeps no record of where it is."""

    def __init__(self, value: Any, go_type: str, number_text: bool = False, base: str | None = None,
                 own: bool = False) -> None:
        super().__init__(go_type)
        self.value = value
        self.go_type = go_type  # as Go prints it: a named type by its name (types.UID, v1.ResourceList)
        self.base = base or go_type  # its underlying type (string, [], map[), what the converter goes by
        self.number_text = number_text
        self.own = own  # raised inside a type's own UnmarshalJSON (IntOrString's int32, Time's string)
        self.location: list[Any] = []  # innermost step first

    def error(self, root: Any) -> DecodeError:
        """Go's ``UnmarshalTypeError`` text: the innermost struct and the struct-field path from the root
        (map keys and list indices are not in it; the Go names of inline embedded structs are), found by
        walking the compiled types down again."""
        what = go_json_kind(self.value)
        if self.number_text and what == "number":
            what = f"number {self.value!r}"
        fields: list[str] = []
        struct = ""
        node: Any = root
        for step in reversed(self.location):
            if type(step) is int:
                node = node.item
            elif type(step) is MapKey:
                node = node.value
            else:
                via = node.embedded.get(step)
                if via:
                    # a field of an inline embedded struct: encoding/json names the embedded field too
                    fields.extend(via.split("."))
                fields.append(step)
                struct = node.name
                node = node.fields[step]
        if fields:
            return DecodeError(f"json: cannot unmarshal {what} into Go struct field {struct}.{'.'.join(fields)} "
                               f"of type {self.go_type}")
        return self._bare()

    def _bare(self) -> DecodeError:
        what = go_json_kind(self.value)
        if self.number_text and what == "number":
            what = f"number {self.value!r}"
        return DecodeError(f"json: cannot unmarshal {what} into Go value of type {self.go_type}")

    def converter_error(self) -> DecodeError | None:
        """The same mismatch in the words of apimachinery's unstructured converter (``runtime.
        DefaultUnstructuredConverter.FromUnstructured``, ``converter.go``), which decodes a strategic merge
        patch's result: ``cannot convert int64 to string``, ``cannot restore map from slice``, ``cannot
        restore struct from: int64``, ``unrecognized type: int32``. None where the converter accepts the value
        (a whole float for an integer field)."""
        if self.own:
            # the converter hands such a type its JSON: the bare error, without a struct field
            return self._bare()
        value, go_type = self.value, self.base
        source = _GO_KINDS.get(go_json_kind(value), "")
        if isinstance(value, bool):
            source = "bool"
        elif isinstance(value, int):
            source = "int64"
        elif isinstance(value, float):
            source = "float64"
        if go_type.startswith("map["):
            return DecodeError(f"cannot restore map from {source}")
        if go_type.startswith("[]"):
            return DecodeError(f"cannot restore slice from {source}")
        if go_type in _GO_SCALARS:
            if go_type == "string":
                if source == "int64":
                    return DecodeError(f"cannot convert int64 to {self.go_type}")
                return DecodeError("unrecognized type: string")
            if go_type.startswith(("int", "uint")):
                if source == "int64":
                    return None  # (a bound the converter does not check)
                if source == "float64":
                    if float(value).is_integer():
                        return None
                    return DecodeError(f"cannot convert float64 to {self.go_type}")
            elif go_type.startswith("float") and source in ("int64", "float64"):
                return None
            return DecodeError(f"unrecognized type: {go_type}")
        return DecodeError(f"cannot restore struct from: {source}")


_GO_KINDS = {"string": "string", "array": "slice", "object": "map", "bool": "bool", "number": "float64"}
_GO_SCALARS = frozenset(("string", "bool", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
                         "uint32", "uint64", "float32", "float64"))


class MapKey(str):
    """A map key in a mismatch's location (a struct field is a plain str)."""

    __slots__ = ()


def strict_path(location: tuple[Any, ...]) -> str:
    """The strict decoder's rendering of a location: ``spec.containers[0].foo``."""
    parts = []
    for entry in location:
        if type(entry) is int:
            parts.append(f"[{entry}]")
        else:
            parts.append(f".{entry}" if parts else str(entry))
    return "".join(parts)


def unknown_locations(root: Any, found: list[tuple[dict[str, Any], str]]) -> list[tuple[Any, ...]]:
    """Where each (container, key) of ``found`` is in ``root``: one search, only when something was found."""
    wanted = {id(container) for container, _ in found}
    at: dict[int, tuple[Any, ...]] = {}
    todo: list[tuple[Any, tuple[Any, ...]]] = [(root, ())]
    while todo and len(at) < len(wanted):
        value, location = todo.pop()
        if isinstance(value, dict):
            if id(value) in wanted:
                at.setdefault(id(value), location)
            todo.extend((v, (*location, k)) for k, v in value.items() if isinstance(v, dict | list))
        elif isinstance(value, list):
            todo.extend((v, (*location, i)) for i, v in enumerate(value) if isinstance(v, dict | list))
    return [(*at[id(container)], key) for container, key in found]


def base64_error(src: str) -> int | None:
    """Where Go's ``base64.StdEncoding.Decode`` reports ``illegal base64 data`` in ``src`` (None: it decodes);
    the quantum-by-quantum walk of encoding/base64 ``decodeQuantum``, newlines skipped."""
    n = len(src)
    si = 0
    while si < n:
        j = 0
        while j < 4:
            if si == n:
                return si - j if j else None
            char = src[si]
            si += 1
            if char in _BASE64:
                j += 1
                continue
            if char in "\r\n":
                continue
            if char != "=" or j < 2:
                return si - 1
            if j == 2:  # "==" expected; the first "=" is consumed
                while si < n and src[si] in "\r\n":
                    si += 1
                if si == n:
                    return n
                if src[si] != "=":
                    return si - 1
                si += 1
            while si < n and src[si] in "\r\n":
                si += 1
            return si if si < n else None
    return None

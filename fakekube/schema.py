"""CRD structural schemas: validation, pruning and defaulting of custom resources.

Behaviour and message texts follow kubernetes/kube-openapi ``pkg/validation/{validate,errors}`` as wrapped by
kubernetes/apiextensions-apiserver ``pkg/apiserver/validation/validation.go`` (``kubeOpenAPIResultToFieldErrors``),
``pkg/apiserver/schema/{pruning,defaulting,listtype,objectmeta}``. See docs/validation.md.

A schema is compiled once into a tree of ``_Node`` objects; validating walks the object and the tree
together, building a field path string only for the fields it visits. The pruning and defaulting walks over
the same tree are in ``fakekube.schemaprune``; ``StructuralSchema`` is the one entry point to both.
"""

from __future__ import annotations

import json
from typing import Any

from fakekube import schemaprune
from fakekube.errors import (
    FieldError,
    duplicate,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
    type_invalid,
)
from fakekube.goregexp import go_pattern
from fakekube.jsonvalues import json_equal, same_json_text
from fakekube.schemavalues import FORMATS, go_float, go_number, json_type

__all__ = ["StructuralSchema"]

_ABSENT: Any = object()  # no old value to compare with
_NO_MEMBERS: dict[str, Any] = {}
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_MAX_JSON_INT = 2**53 - 1
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
# json_type of a value of each exact JSON type, looked up without the two calls (a subclass goes through it).
_TYPE_NAMES: dict[type, str] = {t: json_type(t()) for t in (bool, int, float, str, list, dict)}


# --------------------------------------------------------------------------------------- the tree


class _Node:
    """One compiled schema node."""

    __slots__ = (
        "types",
        "type_name",
        "nullable",
        "format",
        "enum",
        "enum_display",
        "enum_strings",
        "checks_strings",
        "minimum",
        "maximum",
        "exclusive_minimum",
        "exclusive_maximum",
        "multiple_of",
        "min_length",
        "max_length",
        "pattern",
        "pattern_text",
        "min_items",
        "max_items",
        "unique_items",
        "min_properties",
        "max_properties",
        "required",
        "properties",
        "additional",
        "additional_allowed",
        "items",
        "preserve_unknown",
        "embedded",
        "list_type",
        "list_map_keys",
        "lists_below",
        "default_members",
        "defaults_below",
        "default",
        "has_default",
        "int_range",
    )

    def __init__(self, schema: dict[str, Any]) -> None:
        schema = schema if isinstance(schema, dict) else {}
        int_or_string = bool(schema.get("x-kubernetes-int-or-string"))
        type_ = schema.get("type") or ""
        self.types: tuple[str, ...] = ("integer", "string") if int_or_string else ((type_,) if type_ else ())
        self.type_name = ",".join(self.types)
        self.nullable = bool(schema.get("nullable"))
        self.format: str = schema.get("format") or ""
        enum = schema.get("enum")
        self.enum: list[Any] | None = list(enum) if isinstance(enum, list) and enum else None
        # A string is JSON-equal only to an equal string: its enum test is a set lookup.
        self.enum_strings = frozenset(e for e in self.enum if type(e) is str) if self.enum else frozenset()
        self.enum_display = (
            [e if isinstance(e, str) else json.dumps(e, separators=(",", ":")) for e in self.enum]
            if self.enum
            else []
        )
        self.minimum = schema.get("minimum")
        self.maximum = schema.get("maximum")
        self.exclusive_minimum = bool(schema.get("exclusiveMinimum"))
        self.exclusive_maximum = bool(schema.get("exclusiveMaximum"))
        self.multiple_of = schema.get("multipleOf")
        self.min_length = schema.get("minLength")
        self.max_length = schema.get("maxLength")
        self.pattern_text: str = schema.get("pattern") or ""
        # Go's regexp is RE2: matched by RE2, in linear time (goregexp).
        self.pattern = go_pattern(self.pattern_text) if self.pattern_text else None
        # Whether _validate_string has anything to check (most string fields have no rule but their type).
        self.checks_strings = (self.max_length is not None or self.min_length is not None
                               or self.pattern is not None or self.format in FORMATS)
        self.min_items = schema.get("minItems")
        self.max_items = schema.get("maxItems")
        self.unique_items = bool(schema.get("uniqueItems"))
        self.min_properties = schema.get("minProperties")
        self.max_properties = schema.get("maxProperties")
        self.required: tuple[str, ...] = tuple(schema.get("required") or ())
        self.properties: dict[str, _Node] = {k: _Node(v) for k, v in (schema.get("properties") or {}).items()}
        additional = schema.get("additionalProperties")
        self.additional: _Node | None = _Node(additional) if isinstance(additional, dict) else None
        self.additional_allowed = additional is not False
        items = schema.get("items")
        self.items: _Node | None = _Node(items) if isinstance(items, dict) else None
        self.preserve_unknown = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
        self.embedded = bool(schema.get("x-kubernetes-embedded-resource"))
        self.list_type: str = schema.get("x-kubernetes-list-type") or ""
        self.list_map_keys: tuple[str, ...] = tuple(schema.get("x-kubernetes-list-map-keys") or ())
        # Whether this node or one below it is a set or map list: only those report in validate_lists, so a
        # value under a node without one needs no walk there.
        children = [*self.properties.values(), *(n for n in (self.additional, self.items) if n is not None)]
        self.lists_below: bool = (self.list_type == "set" or (self.list_type == "map" and bool(self.list_map_keys))
                                  or any(child.lists_below for child in children))
        self.has_default = "default" in schema
        self.default = schema.get("default")
        # The members with a default, and whether any node below this one has one: defaulting walks only there.
        self.default_members: tuple[tuple[str, _Node], ...] = tuple(
            (key, node) for key, node in self.properties.items() if node.has_default)
        self.defaults_below: bool = any(child.has_default or child.defaults_below for child in children)
        # int32/int64 formats bound integer values (IsValueValidAgainstRange).
        self.int_range = (
            (_INT32_MIN, _INT32_MAX)
            if self.format == "int32" and self.types == ("integer",)
            else (_INT64_MIN, _INT64_MAX)
        )

    # ---------------------------------------------------------------------------------- validation

    def validate(self, value: Any, path: str, errs: list[FieldError], old: Any = _ABSENT) -> None:
        """Errors of ``value`` at ``path``. ``old``: a value this node accepted at the same path, which
        ``value`` replaces — then members and items that are the old ones, byte for byte, are not walked
        again (see ``_same``)."""
        fpath = path or "<nil>"
        if value is None:
            if self.types and not self.nullable:
                msg = f'{path} in body must be of type {self.type_name}: "null"'
                errs.append(type_invalid(fpath, "null", msg))
            if self.enum is not None and None not in self.enum:
                self._enum_fail(value, path, errs)
            return
        kind = _TYPE_NAMES.get(type(value)) or json_type(value)
        if self.types and kind not in self.types and not self._type_ok(kind, value):
            if kind == "number" and self.types == ("integer",):
                # A fraction for an integer (observed on kube-apiserver v1.37.2): with an int32/int64 format the
                # type error names the format and Go's type, and the integer range check (kube-openapi
                # ``IsValueValidAgainstRange``) fails too, on the nil path as for out-of-range integers.
                sized = self.format in ("int32", "int64")
                if sized:
                    errs.append(type_invalid(fpath, "float64", f'{path} in body must be of type {self.format}: "float64"'))
                else:
                    errs.append(type_invalid(fpath, kind, f'{path} in body must be of type integer: "{kind}"'))
                fmt = f"with format {self.format}" if sized else "(default format)"
                errs.append(invalid("<nil>", "", f"Checked value must be of type integer {fmt} in {path}"))
            else:
                shown = f': "{kind}"' if kind else ""
                errs.append(type_invalid(fpath, kind, f"{path} in body must be of type {self.type_name}{shown}"))
            if self.enum is not None:
                self._check_enum(value, path, errs)
            return
        if kind == "string":
            if self.checks_strings:
                self._validate_string(value, path, errs)
        elif kind in ("integer", "number"):
            self._validate_number(value, path, errs)
        elif kind == "array":
            self._validate_array(value, path, errs, old)
        if self.enum is not None:
            self._check_enum(value, path, errs)
        if kind == "object":
            self._validate_object(value, path, errs, old)

    def _type_ok(self, kind: str, value: Any) -> bool:
        if kind in self.types:
            return True
        if kind == "number" and "integer" in self.types and float(value).is_integer() and abs(value) <= _MAX_JSON_INT:
            return True  # (go-openapi swag.IsFloat64AJSONInteger: a whole number within ±(2^53-1))
        return kind == "integer" and "number" in self.types

    def _validate_string(self, value: str, path: str, errs: list[FieldError]) -> None:
        # kube-openapi stops at the first failing string rule.
        fpath = path or "<nil>"
        if self.max_length is not None and len(value) > self.max_length:
            errs.append(too_long(fpath, int(self.max_length)))
        elif self.min_length is not None and len(value) < self.min_length:
            errs.append(
                invalid(fpath, value, f"{path} in body should be at least {self.min_length} chars long")
            )
        elif self.pattern is not None and not self.pattern.search(value):
            errs.append(invalid(fpath, value, f"{path} in body should match '{self.pattern_text}'"))
        if self.format and self.format in FORMATS and not FORMATS[self.format](value):
            errs.append(
                type_invalid(fpath, value, f'{path} in body must be of type {self.format}: "{value}"')
            )

    def _validate_number(self, value: float | int, path: str, errs: list[FieldError]) -> None:
        fpath = path or "<nil>"
        if isinstance(value, int) and "integer" in self.types:
            low, high = self.int_range
            if not low <= value <= high:
                fmt = (
                    f"with format {self.format}" if self.format in ("int32", "int64") else "(default format)"
                )
                # Not a kube-openapi Validation error: the CR handler reports it on the nil path.
                errs.append(invalid("<nil>", "", f"Checked value must be of type integer {fmt} in {path}"))
        if self.multiple_of:
            factor = self.multiple_of
            if isinstance(value, int) and not isinstance(value, bool) and not float(factor).is_integer():
                # kube-openapi validate/values.go MultipleOfNativeType: integer data takes the factor as an
                # int64, truncated (0.5 is 0: "must be positive"; observed on kube-apiserver v1.37.2)
                factor = int(factor)
            if factor <= 0:
                errs.append(invalid(fpath, value,
                                    f"factor MultipleOf declared for {path} must be positive: {go_number(factor)}"))
            else:
                try:
                    exact = float(value / factor).is_integer()
                except OverflowError:  # integers beyond float range cannot be checked; int64 range already failed
                    exact = True
                if not exact:
                    errs.append(invalid(fpath, value, f"{path} in body should be a multiple of {go_number(factor)}"))
        if self.maximum is not None and (
            value > self.maximum or (self.exclusive_maximum and value == self.maximum)
        ):
            word = "less than" if self.exclusive_maximum else "less than or equal to"
            bound = self._bound(self.maximum, value)
            errs.append(invalid(fpath, value, f"{path} in body should be {word} {bound}"))
        if self.minimum is not None and (
            value < self.minimum or (self.exclusive_minimum and value == self.minimum)
        ):
            word = "greater than" if self.exclusive_minimum else "greater than or equal to"
            bound = self._bound(self.minimum, value)
            errs.append(invalid(fpath, value, f"{path} in body should be {word} {bound}"))

    @staticmethod
    def _bound(bound: float | int, value: Any) -> str:
        # Integer data against an integral bound prints the bound as an int64, otherwise as a float64.
        if isinstance(value, int) and float(bound).is_integer():
            return str(int(bound))
        return go_float(float(bound))

    def _validate_array(self, value: list[Any], path: str, errs: list[FieldError], old: Any = _ABSENT) -> None:
        fpath = path or "<nil>"
        if self.items is not None:
            items = self.items
            olds = old if type(old) is list else ()
            for i, item in enumerate(value):
                if i < len(olds):
                    if same_json_text(item, olds[i]):
                        continue
                    items.validate(item, f"{path}[{i}]", errs, olds[i])
                else:
                    items.validate(item, f"{path}[{i}]", errs)
        size = len(value)
        if self.min_items is not None and size < self.min_items:
            errs.append(invalid(fpath, size, f"{path} in body should have at least {self.min_items} items"))
        if self.max_items is not None and size > self.max_items:
            errs.append(too_many(fpath, size, int(self.max_items)))
        if self.unique_items and _has_duplicates(value):
            errs.append(invalid(fpath, "", f"{path} in body shouldn't contain duplicates"))

    def _check_enum(self, value: Any, path: str, errs: list[FieldError]) -> None:
        assert self.enum is not None
        if type(value) is str:
            if value not in self.enum_strings:
                self._enum_fail(value, path, errs)
            return
        for allowed in self.enum:
            if json_equal(value, allowed):
                return
        self._enum_fail(value, path, errs)

    def _enum_fail(self, value: Any, path: str, errs: list[FieldError]) -> None:
        errs.append(not_supported(path or "<nil>", value, self.enum_display))

    def _validate_object(self, value: dict[str, Any], path: str, errs: list[FieldError], old: Any = _ABSENT) -> None:
        fpath = path or "<nil>"
        olds = old if type(old) is dict else _NO_MEMBERS
        size = len(value)
        if self.min_properties is not None and size < self.min_properties:
            errs.append(
                invalid(fpath, size, f"{path} in body should have at least {self.min_properties} properties")
            )
        if self.max_properties is not None and size > self.max_properties:
            errs.append(too_many(fpath, size, int(self.max_properties)))
        props = self.properties
        if not self.additional_allowed:
            for key in value:
                if key not in props:
                    # Reported on the object itself, with the key as the value.
                    errs.append(invalid(fpath, key, f"{path}.{key} in body is a forbidden property"))
        elif self.additional is not None:
            additional = self.additional
            for key, item in value.items():
                if key not in props:
                    was = olds.get(key, _ABSENT)
                    if was is not _ABSENT and same_json_text(item, was):
                        continue
                    # kube-openapi joins with "." even at the root; the field path drops the leading dot.
                    additional.validate(item, f"{path}.{key}" if path else key, errs, was)
        for key, node in props.items():
            if key in value:
                item, was = value[key], olds.get(key, _ABSENT)
                # (A member the write shares with the old value, by identity, is the commonest unchanged one.)
                if was is item or (was is not _ABSENT and same_json_text(item, was)):
                    continue
                node.validate(item, f"{path}.{key}" if path else key, errs, was)
        for key in self.required:
            if key not in value:
                errs.append(required(_child(path, key)))
        if self.embedded and path:
            _validate_embedded(value, path, errs)

    # ----------------------------------------------------------------------------- list types

    def validate_lists(self, value: Any, path: str, errs: list[FieldError], old: Any = _ABSENT) -> None:
        """``listtype.ValidateListSetsAndMaps``: duplicates in set and map lists. ``old`` as for ``validate``."""
        if not self.lists_below:
            return
        if isinstance(value, dict):
            olds = old if type(old) is dict else _NO_MEMBERS
            props, additional = self.properties, self.additional
            for key, item in value.items():
                node = props.get(key) or additional
                if node is not None and node.lists_below:
                    was = olds.get(key, _ABSENT)
                    if was is item or (was is not _ABSENT and same_json_text(item, was)):
                        continue
                    node.validate_lists(item, _child(path, key), errs, was)
        elif isinstance(value, list):
            if self.list_type == "set":
                seen: list[Any] = []
                for i, item in enumerate(value):
                    if any(json_equal(item, s) for s in seen):
                        errs.append(duplicate(f"{path}[{i}]", item))
                    else:
                        seen.append(item)
            elif self.list_type == "map" and self.list_map_keys:
                seen_keys: list[dict[str, Any]] = []
                for i, item in enumerate(value):
                    if not isinstance(item, dict):
                        errs.append(
                            invalid(f"{path}[{i}]", item, "must be an object for an array of list-type map")
                        )
                        continue
                    keys = {k: item.get(k) for k in self.list_map_keys if k in item}
                    if keys in seen_keys:
                        errs.append(duplicate(f"{path}[{i}]", keys))
                    else:
                        seen_keys.append(keys)
            if self.items is not None:
                olds = old if type(old) is list else ()
                for i, item in enumerate(value):
                    if i < len(olds):
                        if same_json_text(item, olds[i]):
                            continue
                        self.items.validate_lists(item, f"{path}[{i}]", errs, olds[i])
                    else:
                        self.items.validate_lists(item, f"{path}[{i}]", errs)

    def _member(self, key: str) -> _Node | None:
        """The schema of member ``key`` of an object: its property's, else additionalProperties' (None: neither)."""
        node = self.properties.get(key)
        return node if node is not None else self.additional


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _has_duplicates(values: list[Any]) -> bool:
    for i, a in enumerate(values):
        for b in values[i + 1 :]:
            if json_equal(a, b):
                return True
    return False


def _validate_embedded(value: dict[str, Any], path: str, errs: list[FieldError]) -> None:
    """objectmeta.validateEmbeddedResource: apiVersion and kind present, non-empty strings."""
    for key in ("apiVersion", "kind"):
        if key not in value:
            errs.append(required(f"{path}.{key}"))
            continue
        item = value[key]
        if not isinstance(item, str):
            errs.append(invalid(f"{path}.{key}", item, "must be a string"))
        elif not item:
            errs.append(invalid(f"{path}.{key}", item, "must not be empty"))
    meta = value.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        errs.append(invalid(f"{path}.metadata", meta, "must be an object"))


def check_value(schema: dict[str, Any], value: Any, *, embedded: bool) -> tuple[bool, list[FieldError]]:
    """A value (a CRD schema's ``default``) against one schema node: whether pruning would drop some of it, and
    its errors, located from the node (the root path is ``""``: fields ``<nil>``)."""
    node = _Node(schema)
    errs: list[FieldError] = []
    node.validate(value, "", errs)
    node.validate_lists(value, "", errs)
    return schemaprune.would_prune(node, value, embedded), errs


_UNBUILT: Any = object()
_BLOCKING = frozenset({"FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany",
                       "FieldValueTypeInvalid"})


def _has_rules(node: Any) -> bool:
    if isinstance(node, dict):
        if node.get("x-kubernetes-validations"):
            return True
        return any(_has_rules(v) for k, v in node.items() if k not in ("default", "example", "enum"))
    if isinstance(node, list):
        return any(_has_rules(v) for v in node)
    return False


class StructuralSchema:
    """A CRD version's ``openAPIV3Schema``, compiled once."""

    def __init__(self, openapi_v3_schema: dict[str, Any] | None) -> None:
        self.source = openapi_v3_schema or {}
        self._root = _Node(self.source)
        # Whether the version has a CEL validator: any x-kubernetes-validations rule anywhere in the schema.
        self.has_rules = _has_rules(self.source)
        self._rules: Any = _UNBUILT

    def rules_not_checked(self, errs: list[FieldError]) -> list[FieldError]:
        """What the CR strategy adds instead of running the CEL rules when an error blocks them: the rules
        need a well-typed object, so a NotSupported, Required, TooLong, TooMany or TypeInvalid error skips them
        with one ``<nil>`` note at the end (apiextensions-apiserver ``pkg/registry/customresource/strategy.go``
        ``hasBlockingErr``, v0.37.2)."""
        if self.has_rules and any(e.type in _BLOCKING for e in errs):
            return [invalid("<nil>", None, "some validation rules were not checked because the object was "
                                           "invalid; correct the existing errors to complete validation")]
        return []

    def rule_errors(self, errs: list[FieldError], obj: dict[str, Any], old: dict[str, Any] | None,
                    warnings: list[str] | None = None) -> list[FieldError]:
        """The ``x-kubernetes-validations`` errors of a write whose other errors are ``errs`` (the CR strategy
        runs the rules last, and not at all past a blocking error: ``rules_not_checked``); the errors of
        unchanged values (ratcheting) go to ``warnings``."""
        if not self.has_rules:
            return []
        blocked = self.rules_not_checked(errs)
        if blocked:
            return blocked
        from fakekube.cel import validator as celvalidator  # the CEL runtime loads with the first rule

        if self._rules is _UNBUILT:
            self._rules = celvalidator.build(self.source)
        return celvalidator.validate_object(self._rules, obj, old, warnings)

    def rules_count_cost(self) -> bool:
        """Whether running the rules counts their runtime cost (``fakekube.cel.validator``: only when their
        estimates could reach a limit). Such rules may run for seconds on one object, so the store lets its lock
        go around them."""
        if not self.has_rules:
            return False
        from fakekube.cel import validator as celvalidator

        if self._rules is _UNBUILT:
            self._rules = celvalidator.build(self.source)
        return self._rules is not None and self._rules.track

    def validate(self, obj: Any, old: Any = None) -> list[FieldError]:
        """Schema errors for everything but top-level ``metadata`` (validation.py owns that).

        Includes the list-type (set/map) duplicate checks the CR strategy runs after the schema. On an update
        (``old`` given), top-level fields equal to the stored ones are not validated again, as validation
        ratcheting does for unchanged values (apiextensions-apiserver ``pkg/apiserver/schema/validation``,
        CRDValidationRatcheting, GA in v1.33) — and a status write does not re-check the whole spec.
        """
        return self.check(obj, old)[0]

    def check(self, obj: Any, old: Any = None, old_valid: bool = False) -> tuple[list[FieldError], bool]:
        """``validate``'s errors, and whether the whole of ``obj`` (but metadata) is now known to pass this
        schema. ``old_valid``: the whole of ``old`` is known to pass it (an earlier ``check`` said so).

        Then a changed top-level field is validated without walking its members and items that are the stored
        ones byte for byte: validating a node is a function of its value and its path alone, so an unchanged
        part gives the answer it gave when ``old`` was checked — none. The answer is the same as walking all
        of it; only the work differs."""
        errs: list[FieldError] = []
        root = self._root
        if not isinstance(obj, dict):
            root.validate(obj, "", errs)
            return errs, False
        body = {k: v for k, v in obj.items() if k != "metadata"}
        if isinstance(old, dict) and body.keys() == {k for k in old if k != "metadata"}:
            whole = old_valid
            for key, value in body.items():
                was = old[key]
                if was == value:
                    # Not validated again (ratcheting); still known valid only when it is the old value exactly.
                    whole = whole and same_json_text(value, was)
                    continue
                node = root.properties.get(key) or root.additional
                if node is not None:
                    if old_valid:
                        node.validate(value, key, errs, was)
                        node.validate_lists(value, key, errs, was)
                    else:
                        node.validate(value, key, errs)
                        node.validate_lists(value, key, errs)
            return errs, whole and not errs
        root.validate(body, "", errs)
        root.validate_lists(body, "", errs)
        whole = not errs
        if isinstance(old, dict):
            unchanged = {k for k, v in body.items() if k in old and old[k] == v}
            errs = [e for e in errs if e.field.split(".", 1)[0].split("[", 1)[0] not in unchanged]
        return errs, whole

    def prune(self, obj: Any) -> list[str]:
        """Drop fields the schema does not know; ``apiVersion``/``kind``/``metadata`` at the root stay.
        Returns the dropped paths, sorted, as apiextensions-apiserver ``pruning.PruneWithOptions`` reports
        them for ``fieldValidation``."""
        pruned: list[str] = []
        schemaprune.prune(self._root, obj, True, [], pruned)
        return sorted(pruned)

    def would_prune(self, obj: Any) -> bool:
        """Whether ``prune`` would drop anything from ``obj``, without changing or copying it."""
        return schemaprune.would_prune(self._root, obj, True)

    def apply_defaults(self, obj: Any) -> None:
        """Apply ``default`` values, then drop non-nullable nulls without defaults (as the CR codec does).

        ``obj`` itself (the write's own top-level dict) is changed in place; below it, what changes is copied
        first (``schemaprune.defaulted``), so subtrees ``obj`` shares with a stored version stay as they are.
        ``obj``'s ``metadata`` is the write's own too and keeps its identity (the write path holds it)."""
        root = self._root
        new = schemaprune.without_nulls(root, schemaprune.defaulted(root, obj))
        if new is obj:
            return
        meta, new_meta = obj.get("metadata"), new.get("metadata")
        if type(meta) is dict and type(new_meta) is dict and new_meta is not meta:
            meta.clear()
            meta.update(new_meta)
            new["metadata"] = meta
        obj.clear()
        obj.update(new)

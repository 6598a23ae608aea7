"""A CRD version's ``openAPIV3Schema`` as the API server validates it (apiextensions-apiserver v0.37.2):
``validateCustomResourceDefinitionValidation`` and ``ValidateCustomResourceDefinitionOpenAPISchema``
(``pkg/apis/apiextensions/validation/validation.go``) and the structural rules (``ValidateStructural``,
``pkg/apiserver/schema/validation.go``: reported sorted by their text).

The rules of ``x-kubernetes-validations`` compile in fakekube.kinds.crdrules (their estimated cost limits in
fakekube.kinds.crdcost). Not emulated: defaults inside metadata (validated as metadata upstream), the
structural completeness rule, and schemas
``NewStructural`` cannot convert. Properties are walked in sorted order where upstream walks a Go map (its
order changes between requests).
"""

from __future__ import annotations

from typing import Any

from fakekube.errors import FieldError, GoLiteral, forbidden, go_json, invalid, not_supported, required
from fakekube.goregexp import syntax_error
from fakekube.kinds import crdrules
from fakekube.kinds.checks import mapping, seq
from fakekube.schema import check_value

OPENAPI_TYPES = ["array", "boolean", "integer", "number", "object", "string"]
META_FIELDS = ("metadata", "kind", "apiVersion")
VALIDATION_REASONS = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"]
# The internal JSONSchemaProps fields, in declaration order, with their v1 JSON names.
_PROPS = (
    ("ID", "id"), ("Schema", "$schema"), ("Ref", "$ref"), ("Description", "description"), ("Type", "type"),
    ("Nullable", "nullable"), ("Format", "format"), ("Title", "title"), ("Default", "default"),
    ("Maximum", "maximum"), ("ExclusiveMaximum", "exclusiveMaximum"), ("Minimum", "minimum"),
    ("ExclusiveMinimum", "exclusiveMinimum"), ("MaxLength", "maxLength"), ("MinLength", "minLength"),
    ("Pattern", "pattern"), ("MaxItems", "maxItems"), ("MinItems", "minItems"), ("UniqueItems", "uniqueItems"),
    ("MultipleOf", "multipleOf"), ("Enum", "enum"), ("MaxProperties", "maxProperties"),
    ("MinProperties", "minProperties"), ("Required", "required"), ("Items", "items"), ("AllOf", "allOf"),
    ("OneOf", "oneOf"), ("AnyOf", "anyOf"), ("Not", "not"), ("Properties", "properties"),
    ("AdditionalProperties", "additionalProperties"), ("PatternProperties", "patternProperties"),
    ("Dependencies", "dependencies"), ("AdditionalItems", "additionalItems"), ("Definitions", "definitions"),
    ("ExternalDocs", "externalDocs"), ("Example", "example"),
    ("XPreserveUnknownFields", "x-kubernetes-preserve-unknown-fields"),
    ("XEmbeddedResource", "x-kubernetes-embedded-resource"), ("XIntOrString", "x-kubernetes-int-or-string"),
    ("XListMapKeys", "x-kubernetes-list-map-keys"), ("XListType", "x-kubernetes-list-type"),
    ("XMapType", "x-kubernetes-map-type"), ("XValidations", "x-kubernetes-validations"),
)
_ZERO_STRUCT = {"ID": "", "Schema": "", "Description": "", "Type": "", "Format": "", "Title": "", "Pattern": "",
                "Nullable": False, "ExclusiveMaximum": False, "ExclusiveMinimum": False, "UniqueItems": False,
                "XEmbeddedResource": False, "XIntOrString": False}
ROOT_ALLOWED_WITH_STATUS = ("Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum",
                            "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems",
                            "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs",
                            "Example", "XPreserveUnknownFields", "XValidations")


def _go_number(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def internal_props(schema: Any) -> Any:
    """An internal ``JSONSchemaProps`` as ``json.Marshal`` writes it (no json tags: Go names, every field)."""
    if not isinstance(schema, dict):
        return None
    out: dict[str, Any] = {}
    for go_name, key in _PROPS:
        value = schema.get(key)
        if go_name in _ZERO_STRUCT:
            out[go_name] = value if value is not None else _ZERO_STRUCT[go_name]
        elif go_name in ("AllOf", "OneOf", "AnyOf"):
            out[go_name] = [internal_props(s) for s in value] if isinstance(value, list) else None
        elif go_name == "Not":
            out[go_name] = internal_props(value)
        elif go_name in ("Properties", "PatternProperties", "Definitions"):
            out[go_name] = ({k: internal_props(v) for k, v in sorted(value.items())}
                            if isinstance(value, dict) else None)
        elif go_name == "Items":
            if isinstance(value, list):
                out[go_name] = {"Schema": None, "JSONSchemas": [internal_props(s) for s in value]}
            else:
                out[go_name] = None if value is None else {"Schema": internal_props(value), "JSONSchemas": None}
        elif go_name in ("AdditionalProperties", "AdditionalItems"):
            if isinstance(value, bool):
                out[go_name] = {"Allows": value, "Schema": None}
            else:
                out[go_name] = None if value is None else {"Allows": True, "Schema": internal_props(value)}
        elif go_name == "Dependencies":
            out[go_name] = ({k: {"Schema": None if isinstance(v, list) else internal_props(v),
                                 "Property": v if isinstance(v, list) else None}
                             for k, v in sorted(value.items())} if isinstance(value, dict) else None)
        elif go_name == "ExternalDocs":
            out[go_name] = (None if not isinstance(value, dict)
                            else {"Description": value.get("description", ""), "URL": value.get("url", "")})
        elif go_name == "XValidations":
            out[go_name] = ([{"Rule": r.get("rule", ""), "Message": r.get("message", ""),
                              "MessageExpression": r.get("messageExpression", ""), "Reason": r.get("reason"),
                              "FieldPath": r.get("fieldPath", ""), "OptionalOldSelf": r.get("optionalOldSelf")}
                             for r in value if isinstance(r, dict)] if isinstance(value, list) else None)
        else:
            out[go_name] = _go_number(value)
    return out


def validate_schema_root(schema: Any, path: str, status_enabled: bool, unchanged: bool = False) -> list[FieldError]:
    """``validateCustomResourceDefinitionValidation`` for one ``openAPIV3Schema``; ``path`` names the
    ``validation`` (or a version's ``schema``) holding it; ``unchanged``: an update leaves it as it was."""
    if not isinstance(schema, dict):
        return []
    root = f"{path}.openAPIV3Schema"
    errs: list[FieldError] = []
    if status_enabled:
        props = internal_props(schema)
        for go_name, _ in _PROPS:
            value = props[go_name]
            if value in (None, "", False) or (go_name == "Schema" and value == ""):
                continue
            if go_name == "Type":
                if value != "object":
                    errs.append(invalid(f"{root}.type", value, 'only "object" is allowed as the type at the root '
                                                                "of the schema if the status subresource is enabled"))
                    break
                continue
            if go_name not in ROOT_ALLOWED_WITH_STATUS:
                allowed = "[" + " ".join(ROOT_ALLOWED_WITH_STATUS) + "]"
                errs.append(invalid(root, GoLiteral(go_json(props, sort_keys=False)),
                                    f"only {allowed} fields are allowed at the root of the schema if the status "
                                    "subresource is enabled"))
                break
    if schema.get("nullable") is True:
        errs.append(forbidden(f"{root}.nullable", "nullable cannot be true at the root"))
    # NewStructural refuses the fields no structural schema has: then the structural and default checks do not
    # run, and its own error shows only when nothing else is wrong (validation.go
    # validateCustomResourceDefinitionValidation; observed on kube-apiserver v1.37.2 for a $ref)
    init_error = _structural_init_error(schema)
    before: list[Any] = []
    if init_error is None:
        structural = sorted(_structural(schema, "root", root), key=str)
        before = structural or _defaults(schema, root, embedded=True, inside_meta=False)
        errs += before
    openapi = _openapi(schema, root, is_root=True, defaults_forbidden="", inside_meta=False)
    errs += openapi
    if init_error is None and not before:  # the rules compile only once the schema is structural with valid defaults
        errs += crdrules.rule_errors(schema, root, openapi, unchanged)
    if init_error is not None and not errs:
        errs.append(invalid(root, "", init_error))
    return errs


# apiextensions-apiserver pkg/apiserver/schema/convert.go validateUnsupportedFields, in its order
_UNSUPPORTED = (("id", "id", bool), ("$schema", "schema", bool), ("$ref", "$ref", bool),
                ("patternProperties", "patternProperties", bool), ("dependencies", "dependencies", bool),
                ("additionalItems", "additionalItems", lambda v: v is not None),
                ("definitions", "definitions", bool))


def _structural_init_error(s: Any) -> str | None:
    """The error ``NewStructural`` (``convert.go``) stops at, or None: an unsupported field anywhere in the
    schema, its value validations (allOf, anyOf, oneOf, not) included, or an array of items."""
    if not isinstance(s, dict):
        return None
    for key, name, present in _UNSUPPORTED:
        if present(s.get(key)):
            return f"OpenAPIV3Schema '{name}' is not supported"
    items = s.get("items")
    if isinstance(items, list) and items:
        return "OpenAPIV3Schema 'items' must be a schema, but is an array"
    children: list[Any] = [items, s.get("additionalProperties"), s.get("not")]
    for key in ("properties",):
        value = s.get(key)
        if isinstance(value, dict):
            children += [value[name] for name in sorted(value)]
    for key in ("allOf", "anyOf", "oneOf"):
        value = s.get(key)
        if isinstance(value, list):
            children += value
    for child in children:
        found = _structural_init_error(child)
        if found is not None:
            return found
    return None


# ----------------------------------------------------------------------------------- defaults

def _defaults(s: Any, path: str, *, embedded: bool, inside_meta: bool) -> list[FieldError]:
    """structuraldefaulting.ValidateDefaults: every default is pruned and validated against its own schema
    (errors located from it). Defaults inside an object's metadata (checked as metadata upstream) are not."""
    if not isinstance(s, dict):
        return []
    embedded = embedded or s.get("x-kubernetes-embedded-resource") is True
    if embedded:
        inside_meta = False
    errs: list[FieldError] = []
    default = s.get("default")
    if default is not None and not inside_meta:
        pruned, problems = check_value(s, default, embedded=embedded)
        if pruned:
            errs.append(invalid(f"{path}.default", default, "must not have unknown fields"))
        for problem in problems:
            where = f"{path}.default" if problem.field == "<nil>" else f"{path}.default.{problem.field}"
            errs.append(FieldError(problem.type, where, problem.detail, problem.value))
    if isinstance(s.get("items"), dict):
        errs += _defaults(s["items"], f"{path}.items", embedded=False, inside_meta=inside_meta)
    for name, prop in sorted(mapping(s.get("properties")).items()):
        meta = inside_meta or (embedded and name in META_FIELDS)
        errs += _defaults(prop, f"{path}.properties[{name}]", embedded=False, inside_meta=meta)
    return errs


# ----------------------------------------------------------------------------------- structural invariants

def _structural(s: dict[str, Any], level: str, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    kind = s.get("type") or ""
    if kind == "array" and s.get("items") is None:
        errs.append(required(f"{path}.items", "must be specified"))
    if isinstance(s.get("items"), dict):
        errs += _structural(s["items"], "item", f"{path}.items")
    for name, prop in sorted(mapping(s.get("properties")).items()):
        if isinstance(prop, dict):
            errs += _structural(prop, "field", f"{path}.properties[{name}]")
    additional = s.get("additionalProperties")
    if additional is not None and additional is not True:
        if level == "root":
            errs.append(forbidden(f"{path}.additionalProperties", "must not be used at the root"))
        if isinstance(additional, dict):
            errs += _structural(additional, "field", f"{path}.additionalProperties")
    int_or_string = s.get("x-kubernetes-int-or-string") is True
    preserve = s.get("x-kubernetes-preserve-unknown-fields") is True
    embedded = s.get("x-kubernetes-embedded-resource") is True
    if int_or_string and preserve:
        errs.append(invalid(f"{path}.x-kubernetes-preserve-unknown-fields", True,
                            "must be false if x-kubernetes-int-or-string is true"))
    if int_or_string and embedded:
        errs.append(invalid(f"{path}.x-kubernetes-embedded-resource", True,
                            "must be false if x-kubernetes-int-or-string is true"))
    errs += _value_validation(s, path, nested=False)
    if embedded and kind != "object":
        errs.append(required(f"{path}.type", "must be object if x-kubernetes-embedded-resource is true") if not kind
                    else invalid(f"{path}.type", kind, "must be object if x-kubernetes-embedded-resource is true"))
    elif not kind and not int_or_string and not preserve:
        where = {"root": "at the root", "item": "for specified array items", "field": "for specified object fields"}
        errs.append(required(f"{path}.type", f"must not be empty {where[level]}"))
    if embedded and additional not in (None, True):
        errs.append(forbidden(f"{path}.additionalProperties", "must not be used if x-kubernetes-embedded-resource is set"))
    if level == "root" and kind and kind != "object":
        errs.append(invalid(f"{path}.type", kind, "must be object at the root"))
    check_meta = level == "root" or embedded
    props = mapping(s.get("properties"))
    for name in ("kind", "apiVersion"):
        if name in props and check_meta and mapping(props[name]).get("type", "") != "string":
            errs.append(invalid(f"{path}.properties[{name}].type", mapping(props[name]).get("type", ""), "must be string"))
    if "metadata" in props:
        meta = mapping(props["metadata"])
        if check_meta and meta.get("type", "") != "object":
            errs.append(invalid(f"{path}.properties[metadata].type", meta.get("type", ""), "must be object"))
        if level == "root":
            names = set(mapping(meta.get("properties")))
            rest = {k for k in meta if k not in ("type", "default", "properties")}
            if (names and not names <= {"name", "generateName"}) or rest:
                errs.append(forbidden(f"{path}.properties[metadata]", "must not specify anything other than name and "
                                                                      "generateName, but metadata is implicitly specified"))
    if embedded and not preserve and not props:
        errs.append(required(f"{path}.properties", "must not be empty if x-kubernetes-embedded-resource is true "
                                                   "without x-kubernetes-preserve-unknown-fields"))
    return errs


def _value_validation(s: dict[str, Any], path: str, *, nested: bool) -> list[FieldError]:
    """validateValueValidation (and, ``nested``, validateNestedValueValidation's generics)."""
    errs: list[FieldError] = []
    any_of = seq(s.get("anyOf"))
    int_or_string_any_of = any_of == [{"type": "integer"}, {"type": "string"}]
    if not int_or_string_any_of:
        for i, sub in enumerate(any_of):
            errs += _nested(sub, f"{path}.anyOf[{i}]")
    for i, sub in enumerate(seq(s.get("allOf"))):
        errs += _nested(sub, f"{path}.allOf[{i}]")
    for i, sub in enumerate(seq(s.get("oneOf"))):
        errs += _nested(sub, f"{path}.oneOf[{i}]")
    if isinstance(s.get("not"), dict):
        errs += _nested(s["not"], f"{path}.not")
    pattern = s.get("pattern")
    if isinstance(pattern, str) and pattern:
        problem = syntax_error(pattern)
        if problem is not None:
            errs.append(invalid(f"{path}.pattern", pattern, f"must be a valid regular expression, but isn't: {problem}"))
    return errs


def _nested(s: Any, path: str) -> list[FieldError]:
    if not isinstance(s, dict):
        return []
    errs = _value_validation(s, path, nested=True)
    if isinstance(s.get("items"), dict):
        errs += _nested(s["items"], f"{path}.items")
    for name, prop in sorted(mapping(s.get("properties")).items()):
        errs += _nested(prop, f"{path}.properties[{name}]")
    if s.get("type"):
        errs.append(forbidden(f"{path}.type", "must be empty to be structural"))
    if s.get("additionalProperties") is not None:
        errs.append(forbidden(f"{path}.additionalProperties", "must be undefined to be structural"))
    checks = (("default", "must be undefined to be structural", lambda v: v is not None),
              ("title", "must be empty to be structural", bool), ("description", "must be empty to be structural", bool),
              ("nullable", "must be false to be structural", lambda v: v is True),
              ("x-kubernetes-preserve-unknown-fields", "must be false to be structural", lambda v: v is True),
              ("x-kubernetes-embedded-resource", "must be false to be structural", lambda v: v is True),
              ("x-kubernetes-int-or-string", "must be false to be structural", lambda v: v is True),
              ("x-kubernetes-list-map-keys", "must be empty to be structural", bool),
              ("x-kubernetes-list-type", "must be undefined to be structural", lambda v: v is not None),
              ("x-kubernetes-map-type", "must be undefined to be structural", lambda v: v is not None),
              ("x-kubernetes-validations", "must be empty to be structural", bool))
    errs += [forbidden(f"{path}.{key}", text) for key, text, present in checks if present(s.get(key))]
    if "metadata" in mapping(s.get("properties")):
        errs.append(forbidden(f"{path}.properties[metadata]", "must not be specified in a nested context"))
    return errs


# ----------------------------------------------------------------------------------- OpenAPI rules

def _openapi(s: Any, path: str, *, is_root: bool, defaults_forbidden: str, inside_meta: bool) -> list[FieldError]:
    """ValidateCustomResourceDefinitionOpenAPISchema (CEL compilation left out)."""
    if not isinstance(s, dict):
        return []
    errs = _standard(s, path, defaults_forbidden, inside_meta)
    if s.get("uniqueItems") is True:
        errs.append(forbidden(f"{path}.uniqueItems", "uniqueItems cannot be set to true since the runtime complexity "
                                                     "becomes quadratic"))
    additional = s.get("additionalProperties")
    if additional is not None:
        if s.get("properties") and (additional is False or isinstance(additional, dict)):
            errs.append(forbidden(f"{path}.additionalProperties", "additionalProperties and properties are mutual "
                                                                  "exclusive"))
        reason = "inside additionalProperties applying to object metadata" if inside_meta else defaults_forbidden
        errs += _openapi(additional, f"{path}.additionalProperties", is_root=False, defaults_forbidden=reason,
                         inside_meta=inside_meta)
    for name, prop in sorted(mapping(s.get("properties")).items()):
        reason, meta = defaults_forbidden, inside_meta
        if (is_root or s.get("x-kubernetes-embedded-resource") is True) and name in META_FIELDS:
            meta = True
            if is_root:
                reason = f"in top-level {name}"
        errs += _openapi(prop, f"{path}.properties[{name}]", is_root=False, defaults_forbidden=reason,
                         inside_meta=meta)
    errs += _openapi(s.get("not"), f"{path}.not", is_root=False, defaults_forbidden=defaults_forbidden,
                     inside_meta=inside_meta)
    for key in ("allOf", "oneOf", "anyOf"):
        for i, sub in enumerate(seq(s.get(key))):
            errs += _openapi(sub, f"{path}.{key}[{i}]", is_root=False, defaults_forbidden=defaults_forbidden,
                             inside_meta=inside_meta)
    for name, sub in sorted(mapping(s.get("definitions")).items()):
        errs += _openapi(sub, f"{path}.definitions[{name}]", is_root=False, defaults_forbidden=defaults_forbidden,
                         inside_meta=inside_meta)
    items = s.get("items")
    if isinstance(items, dict):
        errs += _openapi(items, f"{path}.items", is_root=False, defaults_forbidden=defaults_forbidden,
                         inside_meta=inside_meta)
    elif isinstance(items, list):
        for i, sub in enumerate(items):
            errs += _openapi(sub, f"{path}.items[{i}]", is_root=False, defaults_forbidden=defaults_forbidden,
                             inside_meta=inside_meta)
    for name, sub in sorted(mapping(s.get("dependencies")).items()):
        errs += _openapi(sub, f"{path}.dependencies[{name}]", is_root=False, defaults_forbidden=defaults_forbidden,
                         inside_meta=inside_meta)
    return errs + _extensions(s, path)


def _standard(s: dict[str, Any], path: str, defaults_forbidden: str, inside_meta: bool) -> list[FieldError]:
    """specStandardValidatorV3.validate."""
    errs: list[FieldError] = []
    kind = s.get("type")
    if kind and kind not in OPENAPI_TYPES:
        errs.append(not_supported(f"{path}.type", kind, OPENAPI_TYPES))
    if s.get("default") is not None and defaults_forbidden:
        errs.append(forbidden(f"{path}.default", f"must not be set {defaults_forbidden}"))
    unsupported = (("id", "id is not supported", bool), ("additionalItems", "additionalItems is not supported",
                                                         lambda v: v is not None),
                   ("patternProperties", "patternProperties is not supported", bool),
                   ("definitions", "definitions is not supported", bool),
                   ("dependencies", "dependencies is not supported", lambda v: v is not None),
                   ("$ref", "$ref is not supported", lambda v: v is not None))
    errs += [forbidden(f"{path}.{key}", text) for key, text, present in unsupported if present(s.get(key))]
    if kind == "null":
        errs.append(forbidden(f"{path}.type", "type cannot be set to null, use nullable as an alternative"))
    if isinstance(s.get("items"), list) and s["items"]:
        errs.append(forbidden(f"{path}.items", "items must be a schema object and not an array"))
    if inside_meta and s.get("x-kubernetes-embedded-resource") is True:
        errs.append(forbidden(f"{path}.x-kubernetes-embedded-resource", "must not be used inside of resource meta"))
    return errs


def _extensions(s: dict[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    kind = s.get("type") or ""
    if s.get("x-kubernetes-preserve-unknown-fields") is False:
        errs.append(invalid(f"{path}.x-kubernetes-preserve-unknown-fields", False, "must be true or undefined"))
    map_type, list_type = s.get("x-kubernetes-map-type"), s.get("x-kubernetes-list-type")
    if map_type is not None and kind != "object":
        text = "must be object if x-kubernetes-map-type is specified"
        errs.append(required(f"{path}.type", text) if not kind else invalid(f"{path}.type", kind, text))
    if map_type is not None and map_type not in ("atomic", "granular"):
        errs.append(not_supported(f"{path}.x-kubernetes-map-type", map_type, ["atomic", "granular"]))
    items = mapping(s.get("items"))
    if list_type is not None and kind != "array":
        text = "must be array if x-kubernetes-list-type is specified"
        errs.append(required(f"{path}.type", text) if not kind else invalid(f"{path}.type", kind, text))
    elif list_type == "set" and items:
        if items.get("type") == "array" and items.get("x-kubernetes-list-type") not in (None, "atomic"):
            errs.append(invalid(f"{path}.items.x-kubernetes-list-type", items.get("x-kubernetes-list-type"),
                                "must be atomic as item of a list with x-kubernetes-list-type=set"))
        if items.get("type") == "object" and items.get("x-kubernetes-map-type") != "atomic":
            errs.append(invalid(f"{path}.items.x-kubernetes-map-type", items.get("x-kubernetes-list-type"),
                                "must be atomic as item of a list with x-kubernetes-list-type=set"))
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errs.append(not_supported(f"{path}.x-kubernetes-list-type", list_type, ["atomic", "set", "map"]))
    keys = seq(s.get("x-kubernetes-list-map-keys"))
    if keys:
        if list_type is None:
            errs.append(required(f"{path}.x-kubernetes-list-type", "must be map if x-kubernetes-list-map-keys is "
                                                                   "non-empty"))
        elif list_type != "map":
            errs.append(invalid(f"{path}.x-kubernetes-list-type", list_type, "must be map if x-kubernetes-list-map-keys "
                                                                             "is non-empty"))
    if list_type == "map":
        errs += _map_list(s, path, keys, items)
    if list_type in ("set", "map") and items:
        if items.get("nullable") is True:
            errs.append(forbidden(f"{path}.items.nullable", f"cannot be nullable when x-kubernetes-list-type is {list_type}"))
        if list_type == "map":
            needed = set(seq(items.get("required")))
            for key in keys:
                prop = mapping(items.get("properties")).get(key)
                if not isinstance(prop, dict):
                    continue
                if key not in needed and prop.get("default") is None:
                    errs.append(required(f"{path}.items.properties[{key}].default", "this property is in "
                                         "x-kubernetes-list-map-keys, so it must have a default or be a required property"))
                if prop.get("nullable") is True:
                    errs.append(forbidden(f"{path}.items.properties[{key}].nullable", "this property is in "
                                          "x-kubernetes-list-map-keys, so it cannot be nullable"))
    for i, rule in enumerate(seq(s.get("x-kubernetes-validations"))):
        errs += _rule(mapping(rule), f"{path}.x-kubernetes-validations[{i}]", s)
    return errs


def _map_list(s: dict[str, Any], path: str, keys: list[Any], items: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    if not keys:
        errs.append(required(f"{path}.x-kubernetes-list-map-keys", "must not be empty if x-kubernetes-list-type is map"))
    if s.get("items") is None:
        errs.append(required(f"{path}.items", "must have a schema if x-kubernetes-list-type is map"))
    if isinstance(s.get("items"), list):
        errs.append(invalid(f"{path}.items", s["items"], "must only have a single schema if x-kubernetes-list-type "
                                                         "is map"))
    if items and items.get("type") != "object":
        errs.append(invalid(f"{path}.items.type", items.get("type", ""), "must be object if parent array's "
                                                                         "x-kubernetes-list-type is map"))
    if items and items.get("type") == "object":
        seen: set[Any] = set()
        for key in keys:
            prop = mapping(items.get("properties")).get(key)
            if isinstance(prop, dict):
                if prop.get("type") in ("array", "object"):
                    errs.append(invalid(f"{path}.items.properties[{key}].type", items.get("type"), "must be a scalar "
                                        "type if parent array's x-kubernetes-list-type is map"))
            else:
                errs.append(invalid(f"{path}.x-kubernetes-list-map-keys", keys, "entries must all be names of item "
                                                                                "properties"))
            if key in seen:
                errs.append(invalid(f"{path}.x-kubernetes-list-map-keys", keys, "must not contain duplicate entries"))
            seen.add(key)
    return errs


def _rule(rule: dict[str, Any], path: str, node: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    text, message = str(rule.get("rule") or ""), str(rule.get("message") or "")
    if not text.strip():
        errs.append(required(f"{path}.rule", "rule is not specified"))
    elif message and not message.strip():
        errs.append(invalid(f"{path}.message", message, "must be non-empty if specified"))
    elif "\n" in message.strip() or "\r" in message.strip():
        errs.append(invalid(f"{path}.message", message, "must not contain line breaks"))
    elif ("\n" in text.strip() or "\r" in text.strip()) and not message.strip():
        errs.append(required(f"{path}.message", "message must be specified if rule contains line breaks"))
    expression = str(rule.get("messageExpression") or "")
    if expression and not expression.strip():
        errs.append(required(f"{path}.messageExpression", "messageExpression must be non-empty if specified"))
    reason = rule.get("reason")
    if reason is not None and reason not in VALIDATION_REASONS:
        errs.append(not_supported(f"{path}.reason", reason, VALIDATION_REASONS))
    field_path = str(rule.get("fieldPath") or "")
    if field_path and not field_path.strip():
        errs.append(invalid(f"{path}.fieldPath", field_path, "must be non-empty if specified"))
    if "\n" in field_path or "\r" in field_path:
        errs.append(invalid(f"{path}.fieldPath", field_path, "must not contain line breaks"))
    if field_path and not _path_valid(node, field_path):
        errs.append(invalid(f"{path}.fieldPath", field_path, "must be a valid path"))
    return errs


def _path_valid(node: dict[str, Any], field_path: str) -> bool:
    from fakekube.cel.fieldpath import PathError, valid_field_path

    try:
        valid_field_path(field_path, node)
    except PathError:
        return False
    return True

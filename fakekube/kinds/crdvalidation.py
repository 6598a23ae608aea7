"""CustomResourceDefinition validation (apiextensions-apiserver v0.37.2
``pkg/apis/apiextensions/validation/validation.go``: ``ValidateCustomResourceDefinition``, its update and
status variants).

Upstream validates the internal type, into which the v1 object converts with the versions' schema,
subresources and printer columns lifted to ``spec.validation``, ``spec.subresources`` and
``spec.additionalPrinterColumns`` when every version has the same ones (``conversion.go``): errors about them
name those paths. The schema rules are in :mod:`fakekube.kinds.crdschema`.
"""

from __future__ import annotations

from collections.abc import Callable
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
    too_many,
)
from fakekube.kinds.checks import mapping, seq
from fakekube.kinds.crdschema import internal_props, validate_schema_root
from fakekube.namerules import is_dns1035_label, is_dns1123_subdomain, name_is_dns_subdomain

APPROVAL_ANNOTATION = "api-approved.kubernetes.io"
COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"]
COLUMN_FORMATS = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"]
_LIFTED = (("schema", "validation"), ("subresources", "subresources"),
           ("additionalPrinterColumns", "additionalPrinterColumns"), ("selectableFields", "selectableFields"))


def internal_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The parts of the internal spec validation reads: versions, and what all of them share lifted."""
    versions = [dict(mapping(v)) for v in seq(spec.get("versions"))]
    lifted: dict[str, Any] = {}
    if versions:
        for per_version, top in _LIFTED:
            first = versions[0].get(per_version)
            if all(v.get(per_version) == first for v in versions):
                lifted[top] = first
                for v in versions:
                    v.pop(per_version, None)
    return {"versions": versions, **lifted}


def _go_versions(versions: list[dict[str, Any]]) -> Any:
    """``spec.Versions`` as a bad value: internal versions under their Go names."""
    out = []
    for v in versions:
        schema = v.get("schema")
        out.append({"Name": v.get("name", ""), "Served": v.get("served") is True, "Storage": v.get("storage") is True,
                    "Deprecated": v.get("deprecated") is True, "DeprecationWarning": v.get("deprecationWarning"),
                    "Schema": None if not isinstance(schema, dict) else {
                        "OpenAPIV3Schema": internal_props(schema.get("openAPIV3Schema"))},
                    "Subresources": _go_subresources(v.get("subresources")),
                    "AdditionalPrinterColumns": _go_columns(v.get("additionalPrinterColumns")),
                    "SelectableFields": ([{"JSONPath": f.get("jsonPath", "")} for f in seq(v.get("selectableFields"))]
                                         if isinstance(v.get("selectableFields"), list) else None)})
    return GoLiteral(go_json(out, sort_keys=False))


def _go_subresources(value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    scale = value.get("scale")
    return {"Status": {} if isinstance(value.get("status"), dict) else None,
            "Scale": None if not isinstance(scale, dict) else {
                "SpecReplicasPath": scale.get("specReplicasPath", ""),
                "StatusReplicasPath": scale.get("statusReplicasPath", ""),
                "LabelSelectorPath": scale.get("labelSelectorPath")}}


def _go_columns(value: Any) -> Any:
    if not isinstance(value, list):
        return None
    return [{"Name": c.get("name", ""), "Type": c.get("type", ""), "Format": c.get("format", ""),
             "Description": c.get("description", ""), "Priority": c.get("priority", 0),
             "JSONPath": c.get("jsonPath", "")} for c in value if isinstance(c, dict)]


def crd_name_rule(obj: dict[str, Any]) -> Callable[[str, bool], list[str]]:
    """ValidateCustomResourceDefinition's name function: a subdomain that is ``spec.names.plural+"."+spec.group``
    (called, as every name function, only for a name or generateName that is not empty)."""
    spec = mapping(obj.get("spec"))
    wanted = f"{_text(mapping(spec.get('names')).get('plural'))}.{_text(spec.get('group'))}"

    def rule(name: str, prefix: bool) -> list[str]:
        errs = name_is_dns_subdomain(name, prefix)
        return errs if name == wanted else [*errs, 'must be spec.names.plural+"."+spec.group']

    return rule


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def validate_crd(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[FieldError]:
    """ValidateCustomResourceDefinition (create) or ...Update (``old`` given): everything but the metadata
    rules, which the store applies to every kind (the name's with :func:`crd_name_rule`)."""
    spec = mapping(obj.get("spec"))
    names = mapping(spec.get("names"))
    errs: list[FieldError] = []
    old_spec = mapping(old.get("spec")) if old is not None else None
    errs += _spec(spec, old_spec)
    if old is not None and old_spec is not None:
        if _established(old):
            errs += _immutable(spec.get("scope"), old_spec.get("scope"), "spec.scope")
            errs += _immutable(names.get("kind"), mapping(old_spec.get("names")).get("kind"), "spec.names.kind")
        errs += _immutable(spec.get("group"), old_spec.get("group"), "spec.group")
        errs += _immutable(names.get("plural"), mapping(old_spec.get("names")).get("plural"), "spec.names.plural")
    status = mapping(obj.get("status"))
    errs += _names(mapping(status.get("acceptedNames")), "status.acceptedNames")
    errs += _stored_versions(status.get("storedVersions"), internal_spec(spec)["versions"])
    errs += _api_approval(obj, old)
    if spec.get("preserveUnknownFields") is True and not (old_spec or {}).get("preserveUnknownFields"):
        errs.append(invalid("spec.preserveUnknownFields", True, "cannot set to true, set "
                                                                "x-kubernetes-preserve-unknown-fields to true in "
                                                                "spec.versions[*].schema instead"))
    return errs


def validate_crd_status(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateUpdateCustomResourceDefinitionStatus (the metadata rules are the store's)."""
    return _names(mapping(mapping(obj.get("status")).get("acceptedNames")), "status.acceptedNames")


def _established(obj: dict[str, Any]) -> bool:
    return any(mapping(c).get("type") == "Established" and mapping(c).get("status") == "True"
               for c in seq(mapping(obj.get("status")).get("conditions")))


def _immutable(new: Any, old: Any, path: str) -> list[FieldError]:
    return [] if new == old else [invalid(path, new if new is not None else "", "field is immutable")]


def _spec(spec: dict[str, Any], old_spec: dict[str, Any] | None) -> list[FieldError]:
    errs: list[FieldError] = []
    group = spec.get("group") or ""
    if not group:
        errs.append(required("spec.group", ""))
    elif problems := is_dns1123_subdomain(group):
        errs.append(invalid("spec.group", group, ",".join(problems)))
    elif len(group.split(".")) < 2:
        errs.append(invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = spec.get("scope") or ""
    if not scope:
        errs.append(required("spec.scope", ""))
    elif scope not in ("Cluster", "Namespaced"):
        errs.append(not_supported("spec.scope", scope, ["Cluster", "Namespaced"]))
    internal = internal_spec(spec)
    versions = internal["versions"]
    top_schema = mapping(internal.get("validation")).get("openAPIV3Schema")
    needs_schema = old_spec is None or all(
        mapping(v.get("schema")).get("openAPIV3Schema") is not None for v in seq(old_spec.get("versions")))
    if needs_schema and top_schema is None:
        for i, v in enumerate(versions):
            if mapping(v.get("schema")).get("openAPIV3Schema") is None:
                errs.append(required(f"spec.versions[{i}].schema.openAPIV3Schema", ""))
    if spec.get("preserveUnknownFields") is True and _has_defaults(spec):
        errs.append(invalid("spec.preserveUnknownFields", True, "must be false in order to use defaults in the schema"))
    unchanged = _unchanged_schemas(spec, old_spec)
    storage = 0
    seen: set[Any] = set()
    unique = True
    for i, v in enumerate(versions):
        storage += v.get("storage") is True
        if v.get("name") in seen:
            unique = False
        seen.add(v.get("name"))
        vname = v.get("name") or ""
        if problems := is_dns1035_label(vname):
            errs.append(invalid(f"spec.versions[{i}].name", vname, ",".join(problems)))
        status_enabled = isinstance(mapping(internal.get("subresources", v.get("subresources"))).get("status"), dict)
        errs += _version(v, f"spec.versions[{i}]", status_enabled, vname in unchanged)
    if not unique:
        errs.append(invalid("spec.versions", _go_versions(versions), "must contain unique version names"))
    if storage != 1:
        # A nil slice (no versions sent) shows as null.
        shown = _go_versions(versions) if isinstance(spec.get("versions"), list) else GoLiteral("null")
        errs.append(invalid("spec.versions", shown, "must have exactly one version marked as storage version"))
    if versions and (problems := is_dns1035_label(str(versions[0].get("name") or ""))):
        # The internal spec.version is the first version's name, and is validated again as such.
        errs.append(invalid("spec.version", versions[0].get("name") or "", ",".join(problems)))
    names = mapping(spec.get("names"))
    for key in ("plural", "singular", "kind", "listKind"):
        if not names.get(key):
            errs.append(required(f"spec.names.{key}", ""))
    errs += _names(names, "spec.names")
    any_status = isinstance(mapping(internal.get("subresources")).get("status"), dict) or any(
        isinstance(mapping(v.get("subresources")).get("status"), dict) for v in versions)
    if isinstance(internal.get("validation"), dict):
        first = str(versions[0].get("name") or "") if versions else ""
        errs += validate_schema_root(internal["validation"].get("openAPIV3Schema"), "spec.validation", any_status,
                                     first in unchanged)
    errs += _subresources(internal.get("subresources"), "spec.subresources")
    for i, column in enumerate(seq(internal.get("additionalPrinterColumns"))):
        errs += _column(mapping(column), f"spec.additionalPrinterColumns[{i}]")
    if seq(internal.get("selectableFields")):
        schema = mapping(internal.get("validation")).get("openAPIV3Schema")
        if schema is None:
            errs.append(invalid("spec.selectableFields", "", "may only be set when validations.schema is included"))
        else:
            errs += _selectable_fields(seq(internal["selectableFields"]), mapping(schema), "spec.selectableFields")
    errs += _conversion(spec.get("conversion"), spec.get("preserveUnknownFields"))
    return errs


def _has_defaults(spec: dict[str, Any]) -> bool:
    def walk(node: Any) -> bool:
        if isinstance(node, dict):
            return "default" in node and node["default"] is not None or any(walk(v) for v in node.values())
        if isinstance(node, list):
            return any(walk(v) for v in node)
        return False
    return any(walk(mapping(v.get("schema")).get("openAPIV3Schema")) for v in seq(spec.get("versions")))


def _unchanged_schemas(spec: dict[str, Any], old_spec: dict[str, Any] | None) -> set[str]:
    """The versions whose schema an update leaves as it was (``findVersionsWithUnchangedSchemas``): their
    rules are not held to the per-rule estimated cost limit again."""
    if old_spec is None:
        return set()
    old = {v.get("name"): mapping(v).get("schema") for v in seq(old_spec.get("versions")) if isinstance(v, dict)}
    return {str(v.get("name")) for v in seq(spec.get("versions"))
            if isinstance(v, dict) and v.get("name") in old and v.get("schema") == old[v.get("name")]}


def _version(v: dict[str, Any], path: str, status_enabled: bool, unchanged: bool = False) -> list[FieldError]:
    errs: list[FieldError] = []
    warning = v.get("deprecationWarning")
    if v.get("deprecated") is not True and warning is not None:
        errs.append(invalid(f"{path}.deprecationWarning", warning, "can only be set for deprecated versions"))
    elif isinstance(warning, str):
        problems = ["must be <= 256 characters long"] if len(warning.encode()) > 256 else []
        if not warning:
            problems.append("must not be an empty string")
        for i, ch in enumerate(warning):
            if not ch.isprintable():
                kind = "control" if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 else "non-printable"
                problems.append(f"must only contain printable UTF-8 characters; {kind} character found at index "
                                f"{len(warning[:i].encode())}")
                break
        errs += [invalid(f"{path}.deprecationWarning", warning, problem) for problem in problems]
    if isinstance(v.get("schema"), dict):
        errs += validate_schema_root(v["schema"].get("openAPIV3Schema"), f"{path}.schema", status_enabled, unchanged)
    errs += _subresources(v.get("subresources"), f"{path}.subresources")
    for i, column in enumerate(seq(v.get("additionalPrinterColumns"))):
        errs += _column(mapping(column), f"{path}.additionalPrinterColumns[{i}]")
    if seq(v.get("selectableFields")):
        schema = mapping(v.get("schema")).get("openAPIV3Schema")
        if schema is None:
            errs.append(invalid(f"{path}.selectableFields", "", "may only be set when `version.schema.openAPIV3Schema` "
                                                                "is not included"))
        else:
            errs += _selectable_fields(seq(v["selectableFields"]), mapping(schema), f"{path}.selectableFields")
    return errs


_MAX_SELECTABLE_FIELDS = 8


def _selectable_fields(fields: list[Any], schema: dict[str, Any], path: str) -> list[FieldError]:
    """``ValidateCustomResourceSelectableFields``: each ``jsonPath`` names a string, boolean or integer field
    outside metadata (the CEL field path check, fakekube.cel.fieldpath), once; at most 8."""
    from fakekube.cel.fieldpath import PathError, valid_field_path

    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, item in enumerate(fields):
        where = f"{path}[{i}].jsonPath"
        json_path = str(mapping(item).get("jsonPath") or "")
        if not json_path:
            errs.append(required(where, ""))
            continue
        try:
            normal, node = valid_field_path(json_path, schema, allow_array_notation=False)
        except PathError as exc:
            errs.append(invalid(where, json_path, f"is an invalid path: {exc}"))
            continue
        if normal.split(".", 1)[0].split("[", 1)[0] == "metadata":
            errs.append(invalid(where, json_path, "must not point to fields in metadata"))
        if mapping(node).get("type") not in ("string", "boolean", "integer"):
            errs.append(invalid(where, json_path, "must point to a field of type string, boolean or integer. Enum "
                                                  "string fields and strings with formats are allowed."))
        if normal in seen:
            errs.append(duplicate(where, json_path))
        seen.add(normal)
    if len(seen) > _MAX_SELECTABLE_FIELDS:
        errs.append(too_many(path, len(seen), _MAX_SELECTABLE_FIELDS))
    return errs


def _names(names: dict[str, Any], path: str) -> list[FieldError]:
    """ValidateCustomResourceDefinitionNames."""
    errs: list[FieldError] = []
    for key, lower in (("plural", False), ("singular", False), ("kind", True), ("listKind", True)):
        value = names.get(key) or ""
        if not isinstance(value, str) or not value:
            continue
        problems = is_dns1035_label(value.lower() if lower else value)
        if problems:
            prefix = "may have mixed case, but should otherwise match: " if lower else ""
            errs.append(invalid(f"{path}.{key}", value, prefix + ",".join(problems)))
    for i, short in enumerate(seq(names.get("shortNames"))):
        if problems := is_dns1035_label(str(short)):
            errs.append(invalid(f"{path}.shortNames[{i}]", short, ",".join(problems)))
    if names.get("kind") and names.get("kind") == names.get("listKind"):
        errs.append(invalid(f"{path}.listKind", names["listKind"], "kind and listKind may not be the same"))
    for i, category in enumerate(seq(names.get("categories"))):
        if problems := is_dns1035_label(str(category)):
            errs.append(invalid(f"{path}.categories[{i}]", category, ",".join(problems)))
    return errs


def _subresources(value: Any, path: str) -> list[FieldError]:
    scale = mapping(mapping(value).get("scale")) if isinstance(mapping(value).get("scale"), dict) else None
    if scale is None:
        return []
    errs: list[FieldError] = []
    for key, prefix in (("specReplicasPath", ".spec."), ("statusReplicasPath", ".status.")):
        text = scale.get(key) or ""
        if not text:
            errs.append(required(f"{path}.scale.{key}", ""))
        elif problems := _simple_json_path(text, f"{path}.scale.{key}"):
            errs += problems
        elif not text.startswith(prefix):
            errs.append(invalid(f"{path}.scale.{key}", text, f"should be a json path under {prefix.rstrip('.')}"))
    selector = scale.get("labelSelectorPath")
    if isinstance(selector, str) and selector:
        if problems := _simple_json_path(selector, f"{path}.scale.labelSelectorPath"):
            errs += problems
        elif not selector.startswith((".spec.", ".status.")):
            errs.append(invalid(f"{path}.scale.labelSelectorPath", selector,
                                "should be a json path under either .spec or .status"))
    return errs


def _simple_json_path(text: str, path: str) -> list[FieldError]:
    if not text.startswith("."):
        return [invalid(path, text, "must be a simple json path starting with .")]
    return []


def _column(column: dict[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not column.get("name"):
        errs.append(required(f"{path}.name", ""))
    kinds = ",".join(COLUMN_TYPES)
    if not column.get("type"):
        errs.append(required(f"{path}.type", f"must be one of {kinds}"))
    elif column["type"] not in COLUMN_TYPES:
        errs.append(invalid(f"{path}.type", column["type"], f"must be one of {kinds}"))
    if column.get("format") and column["format"] not in COLUMN_FORMATS:
        errs.append(invalid(f"{path}.format", column["format"], f"must be one of {','.join(COLUMN_FORMATS)}"))
    json_path = column.get("jsonPath") or ""
    if not json_path:
        errs.append(required(f"{path}.JSONPath", ""))
    else:
        errs += _simple_json_path(json_path, f"{path}.JSONPath")
    return errs


def _conversion(conversion: Any, preserve_unknown: Any) -> list[FieldError]:
    if not isinstance(conversion, dict):
        return []
    errs: list[FieldError] = []
    strategy = conversion.get("strategy") or ""
    if strategy and strategy != "None" and preserve_unknown is not False and preserve_unknown is not None:
        errs.append(invalid("spec.conversion.strategy", strategy, "must be None if spec.preserveUnknownFields is true"))
    if not strategy:
        errs.append(required("spec.conversion.strategy", ""))
    elif strategy not in ("None", "Webhook"):
        errs.append(not_supported("spec.conversion.strategy", strategy, ["None", "Webhook"]))
    webhook = mapping(conversion.get("webhook"))
    if strategy == "Webhook":
        config = webhook.get("clientConfig")
        if not isinstance(config, dict):
            errs.append(required("spec.conversion.webhookClientConfig", "required when strategy is set to Webhook"))
        elif (config.get("url") is None) == (config.get("service") is None):
            errs.append(required("spec.conversion.webhookClientConfig", "exactly one of url or service is required"))
        errs += _review_versions(seq(webhook.get("conversionReviewVersions")))
    else:
        if webhook.get("clientConfig") is not None:
            errs.append(forbidden("spec.conversion.webhookClientConfig", "should not be set when strategy is not set "
                                                                         "to Webhook"))
        if seq(webhook.get("conversionReviewVersions")):
            errs.append(forbidden("spec.conversion.conversionReviewVersions", "should not be set when strategy is not "
                                                                             "set to Webhook"))
    return errs


def _review_versions(versions: list[Any]) -> list[FieldError]:
    path = "spec.conversion.conversionReviewVersions"
    if not versions:
        return [required(path, "")]
    errs: list[FieldError] = []
    seen: set[Any] = set()
    for i, v in enumerate(versions):
        if v in seen:
            errs.append(invalid(f"{path}[{i}]", v, "duplicate version"))
            continue
        seen.add(v)
        errs += [invalid(f"{path}[{i}]", v, problem) for problem in is_dns1035_label(str(v))]
    if not seen & {"v1", "v1beta1"}:
        errs.append(invalid(path, versions, "must include at least one of v1, v1beta1"))
    return errs


def _stored_versions(stored: Any, versions: list[dict[str, Any]]) -> list[FieldError]:
    """ValidateCustomResourceDefinitionStoredVersions."""
    stored = stored if isinstance(stored, list) else None
    if not stored:
        return [invalid("status.storedVersions", stored, "must have at least one stored version")]
    errs: list[FieldError] = []
    remaining = {v: i for i, v in enumerate(stored)}
    for v in versions:
        name = v.get("name")
        if v.get("storage") is True and name not in remaining:
            errs.append(invalid("status.storedVersions", stored, f"must have the storage version {name}"))
        remaining.pop(name, None)
    for name, i in sorted(remaining.items(), key=lambda item: item[1]):
        errs.append(invalid(f"status.storedVersions[{i}]", name, f"missing from spec.versions; {name} was previously "
                            f"a storage version, and must remain in spec.versions until a storage migration ensures "
                            f"no data remains persisted in {name} and removes {name} from status.storedVersions"))
    return errs


def _approval(annotations: Any) -> tuple[str, str]:
    value = str(mapping(annotations).get(APPROVAL_ANNOTATION) or "")
    if not value:
        return "missing", (f'protected groups must have approval annotation "{APPROVAL_ANNOTATION}", see '
                           "https://github.com/kubernetes/enhancements/pull/1111")
    if value.startswith("unapproved"):
        return "bypassed", f'not approved: "{value}"'
    scheme, sep, rest = value.partition("://")
    if sep and scheme and rest.split("/", 1)[0]:
        return "approved", f"approved in {value}"
    return "invalid", (f'protected groups must have approval annotation "{APPROVAL_ANNOTATION}" with either a URL or a '
                       'reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111')


def _api_approval(obj: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    group = str(mapping(obj.get("spec")).get("group") or "")
    if not (group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))):
        return []
    state, reason = _approval(obj["metadata"].get("annotations"))
    if old is not None and _approval(old["metadata"].get("annotations"))[0] == state:
        return []
    path = f"metadata.annotations[{APPROVAL_ANNOTATION}]"
    if state == "missing":
        return [required(path, reason)]
    if state == "invalid":
        return [invalid(path, mapping(obj["metadata"].get("annotations")).get(APPROVAL_ANNOTATION, ""), reason)]
    return []

"""``ObjectMeta`` validation, with the real API server's error texts.

Sources (see docs/validation.md): kubernetes/apimachinery ``pkg/api/validation/{objectmeta,generic}.go``
(ObjectMeta create/update rules). The string rules it applies (DNS names, label keys and values,
generateName) are in ``fakekube.namerules``.

Objects are JSON-shaped dicts that may hold anything, so every check first makes sure the value has the
type ``ObjectMeta`` declares; a wrong type becomes a ``FieldError`` (as the JSON decoder's 4xx would), never a
Python exception.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from fakekube import gotext
from fakekube.errors import FieldError, forbidden, invalid, not_supported, required, type_invalid
from fakekube.namerules import (
    NameValidator,
    byte_len,
    is_qualified_name,
    is_valid_label_value,
    known_valid_annotation_keys,
    known_valid_labels,
    name_is_dns_subdomain,
    validate_namespace_name,
)

__all__ = [
    "validate_label_value",
    "validate_qualified_name",
    "validate_labels",
    "validate_annotations",
    "validate_owner_references",
    "validate_finalizers",
    "validate_kube_finalizer_names",
    "checks_kube_finalizer_names",
    "validate_object_meta",
    "validate_object_meta_update",
    "object_meta_update_passes",
    "go_quote",
    "FIELD_IMMUTABLE",
    "TOTAL_ANNOTATION_SIZE_LIMIT",
]

FIELD_IMMUTABLE = "field is immutable"
IS_NEGATIVE = "must be greater than or equal to 0"
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
FINALIZER_ORPHAN = "orphan"
FINALIZER_FOREGROUND = "foregroundDeletion"
# kubernetes pkg/apis/core/helper/helpers.go standardFinalizers: the names that may go without a prefix.
STANDARD_FINALIZERS = frozenset({"kubernetes", FINALIZER_ORPHAN, FINALIZER_FOREGROUND})
# The groups whose registries validate metadata with apimachinery's ValidateObjectMeta alone, not kubernetes'
# core wrapper (pkg/apis/core/validation ValidateObjectMeta*) that adds the unprefixed-finalizer rule:
# admissionregistration, coordination and node call the generic one, policy's PodDisruptionBudget validates
# no metadata itself (rest.ValidateCreate's generic pass), and apiextensions/apiregistration live outside
# kubernetes/pkg/apis. Custom resources are generic too.
GENERIC_METADATA_GROUPS = frozenset({
    "admissionregistration.k8s.io", "coordination.k8s.io", "node.k8s.io", "policy",
    "apiextensions.k8s.io", "apiregistration.k8s.io",
})

# ------------------------------------------------------------------------------------ field helpers


def validate_qualified_name(value: Any, field_path: str) -> list[FieldError]:
    """``ValidateLabelName``/``ValidateFinalizerName``: one Invalid error per failed rule."""
    if not isinstance(value, str):
        return [type_invalid(field_path, value, "must be of type string")]
    return [invalid(field_path, value, m) for m in is_qualified_name(value)]


def validate_label_value(value: Any, field_path: str) -> list[FieldError]:
    if not isinstance(value, str):
        return [type_invalid(field_path, value, "must be of type string")]
    return [invalid(field_path, value, m) for m in is_valid_label_value(value)]


def _string_map(value: Any, field_path: str) -> tuple[dict[str, str], list[FieldError]]:
    """Split a ``map[string]string`` candidate into its usable part and type errors."""
    if value is None:
        return {}, []
    if type(value) is not dict and not isinstance(value, Mapping):
        return {}, [type_invalid(field_path, value, "must be of type object")]
    if all(type(k) is str and type(v) is str for k, v in value.items()):
        return value, []  # the common case: read, not copied (callers only look at it)
    good: dict[str, str] = {}
    errs: list[FieldError] = []
    for k, v in value.items():
        if isinstance(k, str) and isinstance(v, str):
            good[k] = v
        else:
            errs.append(type_invalid(f"{field_path}[{k}]", v, "must be of type string"))
    return good, errs


def validate_labels(labels: Any, field_path: str = "metadata.labels") -> list[FieldError]:
    """Errors are reported on the map itself, as upstream does (not per key)."""
    if type(labels) is dict and known_valid_labels(labels):
        return []
    good, errs = _string_map(labels, field_path)
    for k, v in good.items():
        # (Known-valid keys and values answer an empty list: most calls build no errors at all.)
        messages = is_qualified_name(k)
        if messages:
            errs.extend(invalid(field_path, k, m) for m in messages)
        messages = is_valid_label_value(v)
        if messages:
            errs.extend(invalid(field_path, v, m) for m in messages)
    return errs


def validate_annotations(annotations: Any, field_path: str = "metadata.annotations") -> list[FieldError]:
    # Keys known to pass leave only the total size to check.
    if (type(annotations) is dict and known_valid_annotation_keys(annotations)
            and sum(byte_len(k) + byte_len(v) for k, v in annotations.items()) <= TOTAL_ANNOTATION_SIZE_LIMIT):
        return []
    good, errs = _string_map(annotations, field_path)
    total = 0
    for k, v in good.items():
        # Annotation keys are checked case-insensitively (lower-cased first), values are free-form.
        messages = is_qualified_name(k.lower())
        if messages:
            errs.extend(invalid(field_path, k, m) for m in messages)
        total += byte_len(k) + byte_len(v)
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(
            FieldError(
                "FieldValueTooLong", field_path, f"may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"
            )
        )
    return errs


def _valid_api_version(api_version: str) -> bool:
    # schema.ParseGroupVersion: "v1" or "group/version"; more than one slash or an empty version fails.
    parts = api_version.split("/")
    if len(parts) == 1:
        return bool(parts[0])
    return len(parts) == 2 and bool(parts[1])


def validate_owner_references(refs: Any, field_path: str = "metadata.ownerReferences") -> list[FieldError]:
    if refs is None:
        return []
    if not isinstance(refs, list):
        return [type_invalid(field_path, refs, "must be of type array")]
    errs: list[FieldError] = []
    first_controller = ""
    for i, ref in enumerate(refs):
        path = f"{field_path}[{i}]"
        if not isinstance(ref, Mapping):
            errs.append(type_invalid(path, ref, "must be of type object"))
            continue
        values: dict[str, str] = {}
        for name in ("apiVersion", "kind", "name", "uid"):
            value = ref.get(name)
            if value is not None and not isinstance(value, str):
                errs.append(type_invalid(f"{path}.{name}", value, "must be of type string"))
                value = None
            values[name] = value or ""
            if not values[name]:
                errs.append(required(f"{path}.{name}", "must not be empty"))
            elif name == "apiVersion" and not _valid_api_version(values[name]):
                errs.append(
                    invalid(f"{path}.apiVersion", values[name], "must be <group>/<version> or <version>")
                )
        for flag in ("controller", "blockOwnerDeletion"):
            if ref.get(flag) is not None and not isinstance(ref.get(flag), bool):
                errs.append(type_invalid(f"{path}.{flag}", ref.get(flag), "must be of type boolean"))
        if values["apiVersion"] == "v1" and values["kind"] == "Event":
            errs.append(invalid(path, dict(ref), "/v1, Kind=Event is disallowed from being an owner"))
        if ref.get("controller") is True:
            current = f"{values['kind']}/{values['name']}"
            if first_controller:
                errs.append(
                    invalid(
                        field_path,
                        refs,
                        'Only one reference can have Controller set to true. Found "true" in references for '
                        f"{first_controller} and {current}",
                    )
                )
            else:
                first_controller = current
    return errs


def validate_finalizers(finalizers: Any, field_path: str = "metadata.finalizers") -> list[FieldError]:
    if finalizers is None:
        return []
    if not isinstance(finalizers, list):
        return [type_invalid(field_path, finalizers, "must be of type array")]
    errs: list[FieldError] = []
    for i, fin in enumerate(finalizers):
        if not isinstance(fin, str):
            errs.append(type_invalid(f"{field_path}[{i}]", fin, "must be of type string"))
            continue
        errs.extend(invalid(field_path, fin, m) for m in is_qualified_name(fin))
    if FINALIZER_ORPHAN in finalizers and FINALIZER_FOREGROUND in finalizers:
        errs.append(
            invalid(
                field_path,
                finalizers,
                f"finalizer {FINALIZER_ORPHAN} and {FINALIZER_FOREGROUND} cannot be both set",
            )
        )
    return errs


def checks_kube_finalizer_names(group: str, custom: bool) -> bool:
    """Whether a kind's validation applies :func:`validate_kube_finalizer_names` (see GENERIC_METADATA_GROUPS)."""
    return not custom and group not in GENERIC_METADATA_GROUPS


def validate_kube_finalizer_names(finalizers: Any, field_path: str = "metadata.finalizers", *,
                                  indexed: bool = True) -> list[FieldError]:
    """kubernetes ``validateKubeFinalizerName`` (pkg/apis/core/validation/validation.go): a finalizer without a
    ``/`` must be one of the standard names. ``indexed``: reported at ``field_path[i]`` (metadata finalizers,
    after the generic errors, which name the whole list). A name with a prefix is left to the qualified-name
    rule."""
    if not isinstance(finalizers, list):
        return []
    return [
        invalid(f"{field_path}[{i}]" if indexed else field_path, fin,
                "name is neither a standard finalizer name nor is it fully qualified")
        for i, fin in enumerate(finalizers)
        if isinstance(fin, str) and "/" not in fin and fin not in STANDARD_FINALIZERS
    ]


def _validate_managed_fields(entries: Any, field_path: str) -> list[FieldError]:
    if entries is None:
        return []
    if not isinstance(entries, list):
        return [type_invalid(field_path, entries, "must be of type array")]
    errs: list[FieldError] = []
    for i, entry in enumerate(entries):
        path = f"{field_path}[{i}]"
        if not isinstance(entry, Mapping):
            errs.append(type_invalid(path, entry, "must be of type object"))
            continue
        op = entry.get("operation") or ""
        if op == "":
            errs.append(required(f"{path}.operation", "must not be empty"))
        elif op not in ("Apply", "Update"):
            errs.append(not_supported(f"{path}.operation", op, ["Apply", "Update"]))
        fields_type = entry.get("fieldsType") or ""
        if fields_type and fields_type != "FieldsV1":
            errs.append(invalid(f"{path}.fieldsType", fields_type, "must be `FieldsV1`"))
    return errs


def _string_field(meta: Mapping[str, Any], name: str, field_path: str, errs: list[FieldError]) -> str:
    value = meta.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        errs.append(type_invalid(f"{field_path}.{name}", value, "must be of type string"))
        return ""
    return value


def _int_field(meta: Mapping[str, Any], name: str, field_path: str, errs: list[FieldError]) -> int | None:
    value = meta.get(name)
    if value is None:
        return None
    # A non-finite float (in process only: JSON has none) is no integer either, and has no int() to compare.
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or (isinstance(value, float) and not math.isfinite(value)) or value != int(value)):
        errs.append(type_invalid(f"{field_path}.{name}", value, "must be of type integer"))
        return None
    return int(value)


# ------------------------------------------------------------------------------------ ObjectMeta


def validate_object_meta(
    meta: Any,
    *,
    namespaced: bool,
    name_validator: NameValidator = name_is_dns_subdomain,
    field_path: str = "metadata",
) -> list[FieldError]:
    """``ValidateObjectMetaAccessor`` for create: name/generateName, namespace, labels, annotations, ...

    The store fills ``name`` from ``generateName`` before validating, as upstream does; both are checked.
    """
    if meta is None:
        meta = {}
    if not isinstance(meta, Mapping):
        return [type_invalid(field_path, meta, "must be of type object")]
    errs: list[FieldError] = []
    generate = _string_field(meta, "generateName", field_path, errs)
    name = _string_field(meta, "name", field_path, errs)
    namespace = _string_field(meta, "namespace", field_path, errs)
    if generate:
        errs.extend(
            invalid(f"{field_path}.generateName", generate, m) for m in name_validator(generate, True)
        )
    if not name:
        errs.append(required(f"{field_path}.name", "name or generateName is required"))
    else:
        errs.extend(invalid(f"{field_path}.name", name, m) for m in name_validator(name, False))
    errs.extend(_common(meta, namespaced, namespace, field_path))
    return errs


def _common(meta: Mapping[str, Any], namespaced: bool, namespace: str, field_path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if namespaced:
        if not namespace:
            errs.append(required(f"{field_path}.namespace"))
        else:
            errs.extend(
                invalid(f"{field_path}.namespace", namespace, m)
                for m in validate_namespace_name(namespace, False)
            )
    elif namespace:
        errs.append(forbidden(f"{field_path}.namespace", "not allowed on this type"))
    generation = _int_field(meta, "generation", field_path, errs)
    if generation is not None and generation < 0:
        errs.append(invalid(f"{field_path}.generation", generation, IS_NEGATIVE))
    errs.extend(validate_labels(meta.get("labels"), f"{field_path}.labels"))
    errs.extend(validate_annotations(meta.get("annotations"), f"{field_path}.annotations"))
    errs.extend(validate_owner_references(meta.get("ownerReferences"), f"{field_path}.ownerReferences"))
    errs.extend(validate_finalizers(meta.get("finalizers"), f"{field_path}.finalizers"))
    errs.extend(_validate_managed_fields(meta.get("managedFields"), f"{field_path}.managedFields"))
    return errs


def _go_string_slice(values: list[str]) -> str:
    """``%#v`` of a ``[]string``: ``[]string{"a", "b"}``."""
    return "[]string{" + ", ".join(go_quote(v) for v in values) + "}"


def go_quote(value: Any) -> str:
    """``%#v`` of a string (``strconv.Quote``), one rendering for every message (``fakekube.gotext``)."""
    return gotext.go_quote(str(value))


def validate_object_meta_update(
    new_meta: Any,
    old_meta: Any,
    *,
    field_path: str = "metadata",
    require_resource_version: bool = False,
) -> list[FieldError]:
    """``ValidateObjectMetaAccessorUpdate``: immutable identity fields, generation, finalizers on deletion.

    Upstream also rejects an empty resourceVersion here; the store normally stamps or checks it first, so that
    check only runs with ``require_resource_version=True``. The checks of the new metadata's contents are those of
    ``ValidateObjectMetaAccessor`` (the create checks upstream's ``BeforeUpdate`` runs too), each reported once.
    """
    parts = _object_meta_update_parts(new_meta, old_meta, field_path, require_resource_version)
    if isinstance(parts, list):
        return parts
    head, contents, _ = parts
    return head + contents


def object_meta_update_passes(
    new_meta: Any, old_meta: Any, layout: tuple[str, ...], *, field_path: str = "metadata"
) -> list[FieldError]:
    """The metadata errors of an update whose strategy runs the metadata checks again itself, each pass
    reporting what it finds (a custom resource, an APIService; no built-in kind's strategy does it visibly):
    ``layout`` names the passes in order, ``"create"`` for ``ValidateObjectMetaAccessor`` (the new metadata's
    contents, changed fields only), ``"update"`` for ``ValidateObjectMetaAccessorUpdate``. Observed on
    kube-apiserver v1.37.2 (a label error three times on a custom resource, four on an APIService)."""
    parts = _object_meta_update_parts(new_meta, old_meta, field_path, False)
    if isinstance(parts, list):
        return [e for _ in layout for e in parts]
    head, contents, update_contents = parts
    passes = {"create": contents, "update": head + update_contents}
    return [e for name in layout for e in passes[name]]


def _object_meta_update_parts(
    new_meta: Any, old_meta: Any, field_path: str, require_resource_version: bool
) -> list[FieldError] | tuple[list[FieldError], list[FieldError], list[FieldError]]:
    """(the update's own checks, the contents checks of ``ValidateObjectMetaAccessor``, those the update
    repeats: all but the finalizer names); a plain list when the metadata is not an object."""
    if new_meta is None:
        new_meta = {}
    if old_meta is None or (type(old_meta) is not dict and not isinstance(old_meta, Mapping)):
        old_meta = {}
    if type(new_meta) is not dict and not isinstance(new_meta, Mapping):
        return [type_invalid(field_path, new_meta, "must be of type object")]
    # One pass over the fields that differ: every check below but generation's finds nothing to report when
    # the new value equals the old one (an immutable field kept, a finalizer list with nothing new, a map that
    # was validated when it was written), so only the changed fields are looked at — in the order upstream
    # reports them. Generation is checked whatever it is (its own range), as is the resourceVersion.
    if new_meta == old_meta:  # (a status write's metadata is the stored one's: one comparison in C)
        changed = []
    else:
        changed = [name for name, value in new_meta.items() if value != old_meta.get(name)]
        if not old_meta.keys() <= new_meta.keys():  # a field the update drops changed too (unless it was null)
            changed += [name for name in old_meta if name not in new_meta and old_meta[name] is not None]
    errs: list[FieldError] = []
    if "finalizers" in changed and old_meta.get("deletionTimestamp") is not None:
        new_fins = new_meta.get("finalizers") or []
        old_fins = old_meta.get("finalizers") or []
        if isinstance(new_fins, list) and isinstance(old_fins, list):
            extra = sorted(
                {f for f in new_fins if isinstance(f, str)} - {f for f in old_fins if isinstance(f, str)}
            )
            if extra:
                errs.append(
                    forbidden(
                        f"{field_path}.finalizers",
                        "no new finalizers can be added if the object is being deleted, found new finalizers "
                        + _go_string_slice(extra),
                    )
                )
    if require_resource_version and not new_meta.get("resourceVersion"):
        errs.append(invalid(f"{field_path}.resourceVersion", "", "must be specified for an update"))
    if "generation" in new_meta:
        generation = _int_field(new_meta, "generation", field_path, errs)
        old_generation = old_meta.get("generation")
        if generation is not None:
            if generation < 0:
                errs.append(invalid(f"{field_path}.generation", generation, IS_NEGATIVE))
            if isinstance(old_generation, int) and generation < old_generation:
                errs.append(invalid(f"{field_path}.generation", generation, "must not be decremented"))
    checked = [name for name in changed if name in _UPDATE_CHECK_ORDER]
    if len(checked) > 1:
        checked.sort(key=_UPDATE_CHECK_ORDER.__getitem__)
    contents: list[FieldError] = []
    repeated: list[FieldError] = []
    for name in checked:
        new_value, old_value = new_meta.get(name), old_meta.get(name)
        if name in _IDENTITY_FIELDS:
            errs.extend(_immutable(new_value or "", old_value or "", f"{field_path}.{name}"))
        elif name in _DELETION_FIELDS:
            errs.extend(_immutable(new_value, old_value, f"{field_path}.{name}"))
        else:
            # The stored object was validated when it was written: only what changed needs another look.
            found = _CONTENT_CHECKS[name](new_value, f"{field_path}.{name}")
            contents.extend(found)
            if name != "finalizers":
                repeated.extend(found)
    return errs, contents, repeated


_IDENTITY_FIELDS = ("name", "namespace", "uid", "creationTimestamp")
_DELETION_FIELDS = ("deletionTimestamp", "deletionGracePeriodSeconds")
_CONTENT_FIELDS = ("labels", "annotations", "ownerReferences", "finalizers", "managedFields")
# Upstream's order of the per-field update checks.
_UPDATE_CHECK_ORDER = {name: i for i, name in enumerate((*_IDENTITY_FIELDS, *_DELETION_FIELDS, *_CONTENT_FIELDS))}


def _immutable(new: Any, old: Any, field_path: str) -> list[FieldError]:
    if new == old:
        return []
    # A nil pointer renders as JSON null in the error body.
    return [invalid(field_path, new, FIELD_IMMUTABLE)]


_CONTENT_CHECKS = {
    "labels": validate_labels,
    "annotations": validate_annotations,
    "ownerReferences": validate_owner_references,
    "finalizers": validate_finalizers,
    "managedFields": _validate_managed_fields,
}

"""The options of a write (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions), checked as the real
handlers check them before they read the object: one 422 ``<Kind>Options.meta.k8s.io "" is invalid`` listing
every problem in upstream's order.

Sources (v0.37.2): apimachinery ``pkg/apis/meta/v1/validation/validation.go`` (``ValidateCreateOptions``,
``ValidateUpdateOptions``, ``ValidatePatchOptions``, ``ValidateDeleteOptions``, ``ValidateFieldManager``,
``ValidateDryRun``, ``ValidateFieldValidation``); apiserver ``pkg/endpoints/handlers/{create,update,patch,
delete}.go`` raise them as ``NewInvalid(GroupKind{"meta.k8s.io", "<Kind>Options"}, "", errs)``.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from fakekube import errors
from fakekube.validation import go_quote

META_GROUP = "meta.k8s.io"
FIELD_MANAGER_MAX_LENGTH = 128
_FIELD_VALIDATION = ["", "Ignore", "Strict", "Warn"]  # sets.List: sorted
_PROPAGATION = ["Foreground", "Background", "Orphan", "nil"]
APPLY_PATCH_TYPES = ("application/apply-patch+yaml", "application/apply-patch+cbor")


def _go_printable(ch: str) -> bool:
    """``unicode.IsPrint``: letters, marks, numbers, punctuation, symbols and the ASCII space."""
    return ch == " " or unicodedata.category(ch)[0] in "LMNPS"


def field_manager_errors(manager: str) -> list[errors.FieldError]:
    """``ValidateFieldManager``: at most 128 bytes, printable characters only (each one reported, with its
    byte offset, as Go's ``for i, r := range`` gives it)."""
    errs: list[errors.FieldError] = []
    if len(manager.encode("utf-8", "surrogatepass")) > FIELD_MANAGER_MAX_LENGTH:
        errs.append(errors.too_long("fieldManager", FIELD_MANAGER_MAX_LENGTH))
    offset = 0
    for ch in manager:
        if not _go_printable(ch):
            errs.append(errors.invalid("fieldManager", errors.GoLiteral(go_quote(manager)),
                                       f"invalid character U+{ord(ch):04X} (at position {offset})"))
        offset += len(ch.encode("utf-8", "surrogatepass"))
    return errs


def dry_run_errors(values: list[Any]) -> list[errors.FieldError]:
    """``ValidateDryRun``: every value must be ``All``; the whole list is the bad value (``["x"]``)."""
    if all(v == "All" for v in values):
        return []
    return [errors.not_supported("dryRun", values, ["All"])]


def field_validation_errors(value: str | None) -> list[errors.FieldError]:
    if value is None or value in _FIELD_VALIDATION:
        return []
    return [errors.not_supported("fieldValidation", value, _FIELD_VALIDATION)]


def check_write_options(kind: str, *, field_manager: str | None, dry_run: list[str],
                        field_validation: str | None, patch_type: str | None = None,
                        force: bool | None = None) -> None:
    """Create/Update/PatchOptions (``kind``): a 422 when any check fails."""
    errs: list[errors.FieldError] = []
    if kind == "PatchOptions":
        if patch_type in APPLY_PATCH_TYPES:
            if not field_manager:
                errs.append(errors.required("fieldManager", "is required for apply patch"))
        elif force is not None:
            errs.append(errors.forbidden("force", "may not be specified for non-apply patch"))
    errs += field_manager_errors(field_manager or "")
    errs += dry_run_errors(dry_run)
    errs += field_validation_errors(field_validation)
    if errs:
        raise errors.Invalid(kind, META_GROUP, "", errs)


def check_delete_options(options: dict[str, Any]) -> None:
    """``ValidateDeleteOptions`` over the options as ``rest.delete_options`` collects them."""
    errs: list[errors.FieldError] = []
    policy = options.get("propagationPolicy")
    if options.get("orphanDependents") is not None and policy is not None:
        errs.append(errors.invalid("propagationPolicy", policy,
                                   "orphanDependents and deletionPropagation cannot be both set"))
    if policy is not None and policy not in _PROPAGATION[:3]:
        errs.append(errors.not_supported("propagationPolicy", policy, _PROPAGATION))
    errs += dry_run_errors(options.get("dryRun") or [])
    if errs:
        raise errors.Invalid("DeleteOptions", META_GROUP, "", errs)


# The kinds the meta scheme decodes a DELETE body as (apimachinery pkg/apis/meta/internalversion/register.go,
# pkg/apis/meta/v1/register.go): unversioned ones in any apiVersion, the others in meta.k8s.io's versions.
_META_UNVERSIONED_KINDS = frozenset({"DeleteOptions", "CreateOptions", "UpdateOptions", "Status", "APIVersions",
                                     "APIGroupList", "APIGroup", "APIResourceList"})
_META_VERSIONED_KINDS = frozenset({"ListOptions", "GetOptions", "PatchOptions", "WatchEvent", "Table", "TableOptions",
                                   "PartialObjectMetadata", "PartialObjectMetadataList"})
_META_VERSIONS = ("meta.k8s.io/v1", "meta.k8s.io/v1beta1")
# The name Go gives the meta scheme (runtime.NewScheme names a scheme after its caller's file and line).
_META_SCHEME_NAME = "pkg/runtime/scheme.go:111"


def check_delete_body_kind(body: dict[str, Any]) -> None:
    """A DELETE body is decoded by the meta scheme into ``metav1.DeleteOptions`` with meta.k8s.io/v1
    DeleteOptions as the default (apiserver pkg/endpoints/handlers/delete.go): a kind that scheme does not
    know is the 400 naming the scheme; one it knows as another type cannot be converted (observed on
    kube-apiserver v1.37.2)."""
    api_version = body.get("apiVersion") or "meta.k8s.io/v1"
    kind = body.get("kind") or "DeleteOptions"
    if not isinstance(api_version, str) or not isinstance(kind, str) or kind == "DeleteOptions":
        return
    if kind in _META_UNVERSIONED_KINDS or (kind in _META_VERSIONED_KINDS and api_version in _META_VERSIONS):
        raise errors.BadRequest("decoded object cannot be converted to DeleteOptions")
    raise errors.BadRequest(f"no kind {go_quote(kind)} is registered for version {go_quote(api_version)} in scheme "
                            f"{go_quote(_META_SCHEME_NAME)}")

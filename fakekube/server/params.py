"""Query parameters, decoded the way the real API server's parameter codec decodes them (apimachinery
``pkg/runtime/conversion.go``), and the options validation of its handlers (``pkg/apis/meta/v1/validation``,
``pkg/apis/meta/internalversion/validation``). Observed on kube-apiserver v1.37.2:

- a boolean is false only when absent, ``0`` or ``false`` (any case): ``watch=maybe`` and ``watch=`` are true;
- an integer is ``strconv.ParseInt(v, 10, 64)`` even when empty: ``limit=`` and ``limit=abc`` are the 400
  ``strconv.ParseInt: parsing "abc": invalid syntax``, a number beyond int64 ``... value out of range``;
- ``resourceVersion`` is ``strconv.ParseUint``: a list answers ``invalid resource version: resourceVersion:
  Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`` (400), a get or a watch the same
  text without its first words, as a 500 with no reason;
- the options of a write are validated together, one 422 on ``CreateOptions``/``UpdateOptions``/
  ``PatchOptions`` (group meta.k8s.io) naming fieldManager (at most 128 bytes, printable), dryRun (``All``)
  and fieldValidation; a list's on ``ListOptions`` (resourceVersionMatch, sendInitialEvents).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs

from fakekube import errors
from fakekube.gotext import go_quote

_FALSE = {"0", "false"}
_INT = re.compile(r"[+-]?[0-9]+")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1
FIELD_MANAGER_MAX_LENGTH = 128
FIELD_VALIDATION_VALUES = ("", "Ignore", "Strict", "Warn")


def parse_go_int(text: str, bits: int = 64) -> int:
    """``strconv.ParseInt(text, 10, bits)``; a BadRequest with Go's error."""
    if _INT.fullmatch(text) is None:
        raise errors.BadRequest(f"strconv.ParseInt: parsing {go_quote(text)}: invalid syntax")
    value = int(text) if len(text) < 4000 else (INT64_MAX + 1)
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise errors.BadRequest(f"strconv.ParseInt: parsing {go_quote(text)}: value out of range")
    return value


def resource_version_error(value: str) -> str | None:
    """``storage.APIObjectVersioner.ParseResourceVersion``'s complaint about a resourceVersion, or None."""
    if value == "":
        return None
    if not value.isdigit() or not value.isascii():
        why = "invalid syntax"
    elif len(value) > 20 or int(value) > UINT64_MAX:
        why = "value out of range"
    else:
        return None
    return f"resourceVersion: Invalid value: {go_quote(value)}: strconv.ParseUint: parsing {go_quote(value)}: {why}"


class Query:
    """Read access to a request's query string; repeated parameters keep their first value."""

    def __init__(self, query: str) -> None:
        self._values = parse_qs(query, keep_blank_values=True)

    def __contains__(self, name: str) -> bool:
        return name in self._values

    def str(self, name: str) -> str | None:
        values = self._values.get(name)
        return values[0] if values else None

    def all(self, name: str) -> list[str]:
        return list(self._values.get(name, ()))

    def bool(self, name: str, default: bool | None = False) -> bool | None:
        """``Convert_Slice_string_To_bool``: absent is ``default``; ``0`` and ``false`` are false; anything
        else, the empty string included, is true."""
        value = self.str(name)
        if value is None:
            return default
        return value.lower() not in _FALSE

    def int(self, name: str) -> int | None:
        """``Convert_Slice_string_To_int64``: absent is None; anything else must parse."""
        value = self.str(name)
        if value is None:
            return None
        return parse_go_int(value)

    def dry_run(self, options_kind: str) -> bool:
        return dry_run_values(self.all("dryRun"), options_kind)


def dry_run_values(values: list[str] | None, options_kind: str) -> bool:
    """``dryRun`` accepts only ``All`` (apimachinery ``ValidateDryRun``): anything else is a 422 about the
    request's options (``CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["x"]...``, the
    whole list as the value), as the handlers' ``Validate<Verb>Options`` report it."""
    values = list(values or [])
    found = dry_run_errors(values)
    if found:
        raise errors.Invalid(options_kind, "meta.k8s.io", "", found)
    return bool(values)


def dry_run_errors(values: list[str]) -> list[errors.FieldError]:
    """``ValidateDryRun``: one error, the whole list as its value, unless every value is ``All``."""
    if all(value == "All" for value in values):
        return []
    return [errors.not_supported("dryRun", list(values), ["All"])]


def field_manager_errors(manager: str) -> list[errors.FieldError]:
    """``ValidateFieldManager``: at most 128 bytes, every character printable (positions in bytes)."""
    found = []
    if len(manager.encode("utf-8", "surrogatepass")) > FIELD_MANAGER_MAX_LENGTH:
        found.append(errors.too_long("fieldManager", FIELD_MANAGER_MAX_LENGTH))
    position = 0
    for ch in manager:
        if not ch.isprintable():
            found.append(errors.invalid("fieldManager", manager,
                                        f"invalid character U+{ord(ch):04X} (at position {position})"))
        position += len(ch.encode("utf-8", "surrogatepass"))
    return found


def validate_write_options(kind: str, query: Query, *, patch_type: str | None = None) -> None:
    """``ValidateCreateOptions`` / ``ValidateUpdateOptions`` / ``ValidatePatchOptions``: one 422 on
    ``<kind>.meta.k8s.io`` with every problem of the request's options."""
    found: list[errors.FieldError] = []
    manager = query.str("fieldManager") or ""
    if patch_type is not None:
        if patch_type == "application/apply-patch+yaml":
            if not manager:
                found.append(errors.required("fieldManager", "is required for apply patch"))
        elif "force" in query:
            found.append(errors.forbidden("force", "may not be specified for non-apply patch"))
    found += field_manager_errors(manager)
    found += dry_run_errors(query.all("dryRun"))
    validation = query.str("fieldValidation")
    if validation is not None and validation not in FIELD_VALIDATION_VALUES:
        found.append(errors.not_supported("fieldValidation", validation, list(FIELD_VALIDATION_VALUES)))
    if found:
        raise errors.Invalid(kind, "meta.k8s.io", "", found)


def validate_list_options(query: Query, *, watch: bool) -> None:
    """``ValidateListOptions``: a 422 on ``ListOptions.meta.k8s.io`` (sendInitialEvents and
    resourceVersionMatch are for watches that ask for initial events)."""
    match = query.str("resourceVersionMatch") or ""
    rv = query.str("resourceVersion") or ""
    send_initial = "sendInitialEvents" in query
    found: list[errors.FieldError] = []
    if watch:
        if send_initial and match != "NotOlderThan":
            found.append(errors.forbidden("resourceVersionMatch",
                                          "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
        if match:
            if not send_initial:
                found.append(errors.forbidden("resourceVersionMatch",
                                              "resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
                                              "provided"))
            if match != "NotOlderThan":
                found.append(errors.not_supported("resourceVersionMatch", match, ["NotOlderThan"]))
            if query.str("continue"):
                found.append(errors.forbidden("resourceVersionMatch",
                                              "resourceVersionMatch is forbidden when continue is provided"))
    else:
        if match:
            if not rv:
                found.append(errors.forbidden("resourceVersionMatch",
                                              "resourceVersionMatch is forbidden unless resourceVersion is provided"))
            if query.str("continue"):
                found.append(errors.forbidden("resourceVersionMatch",
                                              "resourceVersionMatch is forbidden when continue is provided"))
            if match not in ("Exact", "NotOlderThan"):
                found.append(errors.not_supported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]))
            if match == "Exact" and rv == "0":
                found.append(errors.forbidden("resourceVersionMatch",
                                              'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
        if send_initial:
            found.append(errors.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
    if found:
        raise errors.Invalid("ListOptions", "meta.k8s.io", "", found)

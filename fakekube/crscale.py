"""The scale subresource's own checks on a custom resource, after its schema's.

A CRD with ``subresources.scale`` makes the custom resource validator read the replica counts (and the label
selector) at the declared paths with apimachinery's unstructured accessors, whatever the schema says: a path
through something that is not an object, or a value that is not an int64 (or a string, for the selector), is
the accessor's error; a negative count or one above MaxInt32 is refused. Creates and updates check the spec
and status paths, a ``/status`` write the status paths only (apiextensions-apiserver v0.37.2
``pkg/registry/customresource/validator.go`` ``ValidateScaleSpec``, ``ValidateScaleStatus``; apimachinery
``pkg/apis/meta/v1/unstructured/helpers.go`` ``NestedFieldNoCopy``, ``NestedInt64``, ``NestedString``).
"""

from __future__ import annotations

from typing import Any

from fakekube.errors import FieldError, invalid
from fakekube.patch.gofmt import go_type, go_value

_MAX_INT32 = 2**31 - 1


class _AccessorError(Exception):
    pass


def _nested(obj: dict[str, Any], dotted: str, expected: str) -> tuple[Any, bool]:
    """``unstructured.Nested<Type>``: (value, found), or the accessor's error."""
    fields = dotted.removeprefix(".").split(".")
    value: Any = obj
    for i, name in enumerate(fields):
        if value is None:
            return None, False
        if not isinstance(value, dict):
            where = "." + ".".join(fields[:i + 1])
            raise _AccessorError(f"{where} accessor error: {go_value(value)} is of the type {go_type(value)}, "
                                 "expected map[string]interface{}")
        if name not in value:
            return None, False
        value = value[name]
    ok = (isinstance(value, int) and not isinstance(value, bool)) if expected == "int64" else isinstance(value, str)
    if not ok:
        raise _AccessorError(f".{'.'.join(fields)} accessor error: {go_value(value)} is of the type "
                             f"{go_type(value)}, expected {expected}")
    return value, True


def _replicas(obj: dict[str, Any], path: str) -> list[FieldError]:
    try:
        count, found = _nested(obj, path, "int64")
    except _AccessorError as exc:
        return [invalid(path, 0, str(exc))]
    if not found:
        return []
    if count < 0:
        return [invalid(path, count, "should be a non-negative integer")]
    if count > _MAX_INT32:
        return [invalid(path, count, f"should be less than or equal to {_MAX_INT32}")]
    return []


def scale_errors(obj: dict[str, Any], spec_replicas_path: str, status_replicas_path: str,
                 label_selector_path: str | None, *, status_write: bool) -> list[FieldError]:
    """The validator's scale errors for ``obj`` (``status_write``: a ``/status`` write, status paths only)."""
    errs = [] if status_write else _replicas(obj, spec_replicas_path)
    errs += _replicas(obj, status_replicas_path)
    if label_selector_path is not None:
        try:
            _nested(obj, label_selector_path, "string")
        except _AccessorError as exc:
            errs.append(invalid(label_selector_path, "", str(exc)))
    return errs

"""API errors that carry the exact ``metav1.Status`` body the real API server returns.

Every front (in-process, simulation, HTTP) raises or serialises these; none invents its own error shape.
Constructors follow kubernetes/apimachinery ``pkg/api/errors/errors.go`` (see docs/semantics.md): mind
which slot ``details.kind`` gets — the resource plural for NotFound/AlreadyExists/Conflict, the Kind for
Invalid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fakekube.gotext import go_quote

OPTIMISTIC_LOCK_MESSAGE = (
    "the object has been modified; please apply your changes to the latest version and try again"
)
GENERIC_422_MESSAGE = "the server rejected our request due to an error in our request"


def qualified(name: str, group: str) -> str:
    """``GroupResource.String()`` / ``GroupKind.String()``: bare for the core group, ``name.group`` otherwise."""
    return f"{name}.{group}" if group else name


class GoLiteral(str):
    """A bad value already rendered the way ``field.Error`` prints it (``go_json`` of a Go struct whose fields
    keep their declaration order, or a placeholder), shown verbatim instead of quoted."""


_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def go_json(value: Any, *, sort_keys: bool = True) -> str:
    """``json.Marshal``: compact, UTF-8 kept, ``<``, ``>``, ``&`` (and U+2028/9) escaped; Go sorts map keys
    (``sort_keys=False`` for a struct built in its fields' declaration order, its maps already sorted)."""
    text = json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False)
    if any(ch in text for ch in _HTML_ESCAPES):
        text = "".join(_HTML_ESCAPES.get(ch, ch) for ch in text)
    return text


def _render_value(value: Any) -> str:
    # field.Error's ErrorBody (apimachinery pkg/util/validation/field/errors.go): %v for numbers and bools, %q
    # for strings, json.Marshal for everything else.
    if isinstance(value, GoLiteral):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)  # strconv.Quote: printable text as it is, the rest escaped (\x00, \u00a0)
    return go_json(value)


_TYPE_TEXT = {
    "FieldValueRequired": "Required value",
    "FieldValueInvalid": "Invalid value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueDuplicate": "Duplicate value",
    "FieldValueTooLong": "Too long",
    "FieldValueTooMany": "Too many",
    "FieldValueNotFound": "Not found",
    "FieldValueTypeInvalid": "Invalid value",
    "InternalError": "Internal error",
}

_NO_VALUE = object()


@dataclass(frozen=True, slots=True)
class FieldError:
    """One ``field.Error``: becomes a ``details.causes`` entry of a 422."""

    type: str
    field: str
    detail: str = ""
    value: Any = _NO_VALUE

    @property
    def body(self) -> str:
        text = _TYPE_TEXT.get(self.type, self.type)
        # TooMany prints its value (the actual count) when one is given, as upstream does.
        if self.type in ("FieldValueRequired", "FieldValueForbidden", "InternalError"):
            return f"{text}: {self.detail}" if self.detail else text
        if self.value is _NO_VALUE:
            return f"{text}: {self.detail}" if self.detail else text
        rendered = f"{text}: {_render_value(self.value)}"
        return f"{rendered}: {self.detail}" if self.detail else rendered

    def cause(self) -> dict[str, str]:
        return {"reason": self.type, "message": self.body, "field": self.field}

    def __str__(self) -> str:
        return f"{self.field}: {self.body}"


def required(field: str, detail: str = "") -> FieldError:
    return FieldError("FieldValueRequired", field, detail)


def invalid(field: str, value: Any, detail: str = "") -> FieldError:
    return FieldError("FieldValueInvalid", field, detail, value)


def forbidden(field: str, detail: str) -> FieldError:
    return FieldError("FieldValueForbidden", field, detail)


def not_supported(field: str, value: Any, supported: list[str]) -> FieldError:
    detail = "supported values: " + ", ".join(json.dumps(s) for s in supported)
    return FieldError("FieldValueNotSupported", field, detail, value)


def type_invalid(field: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueTypeInvalid", field, detail, value)


def too_long(field: str, max_bytes: int) -> FieldError:
    """``field.TooLong``: the value is omitted from the message."""
    unit = "byte" if max_bytes == 1 else "bytes"
    return FieldError("FieldValueTooLong", field, f"may not be more than {max_bytes} {unit}")


def too_many(field: str, actual: int, maximum: int) -> FieldError:
    """``field.TooMany``: ``Too many: <actual>: must have at most <max> items``."""
    unit = "item" if maximum == 1 else "items"
    return FieldError("FieldValueTooMany", field, f"must have at most {maximum} {unit}", actual)


def duplicate(field: str, value: Any) -> FieldError:
    return FieldError("FieldValueDuplicate", field, "", value)


def aggregate(errors: list[FieldError]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message bare, several in brackets, duplicates dropped."""
    seen: list[str] = []
    for err in errors:
        text = str(err)
        if text not in seen:
            seen.append(text)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


class ApiError(Exception):
    """An error with its ``metav1.Status`` body; ``code`` is the HTTP status."""

    # Warnings the request met before it was refused, sent with the refusal (decoding's unknown fields).
    warnings: tuple[str, ...] = ()

    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    @property
    def status(self) -> dict[str, Any]:
        """The ``Status`` body, with empty fields omitted as the Go encoder does."""
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
        }
        if self.reason:
            body["reason"] = self.reason
        if self.details is not None:
            # Go's StatusDetails is a pointer: non-nil details are sent even when every field is empty ({}).
            body["details"] = {k: v for k, v in self.details.items() if v not in ("", None, [])}
        elif self.details is not None:
            body["details"] = {}  # the router's 404 and 405 carry an empty details object
        body["code"] = self.code
        return body

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code}, {self.reason!r}, {self.message!r})"


def _quoted_name(name: str) -> str:
    # apimachinery formats the name with %q (pkg/api/errors/errors.go); a caller refusing a malformed body
    # may hold a name that is not a string yet, shown as before.
    return go_quote(name) if isinstance(name, str) else f'"{name}"'


def _details(name: str, group: str, kind: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "group": group, "kind": kind, **extra}


class NotFound(ApiError):
    def __init__(self, resource: str, group: str, name: str, message: str | None = None) -> None:
        super().__init__(
            404,
            "NotFound",
            message or f'{qualified(resource, group)} {_quoted_name(name)} not found',
            _details(name, group, resource),
        )


class AlreadyExists(ApiError):
    def __init__(self, resource: str, group: str, name: str, *, deleting: bool = False) -> None:
        prefix = "object is being deleted: " if deleting else ""
        super().__init__(
            409,
            "AlreadyExists",
            f'{prefix}{qualified(resource, group)} {_quoted_name(name)} already exists',
            _details(name, group, resource),
        )


class GenerateNameConflict(ApiError):
    def __init__(self, resource: str, group: str, name: str) -> None:
        super().__init__(
            409,
            "AlreadyExists",
            f'{qualified(resource, group)} {_quoted_name(name)} already exists, the server was not able to '
            "generate a unique name for the object",
            _details(name, group, resource, retryAfterSeconds=1),
        )


class Conflict(ApiError):
    """409 Conflict. ``resource`` fills the resource slot (a Kind for DELETE preconditions, as upstream)."""

    def __init__(
        self, resource: str, group: str, name: str, reason_text: str = OPTIMISTIC_LOCK_MESSAGE
    ) -> None:
        super().__init__(
            409,
            "Conflict",
            f'Operation cannot be fulfilled on {qualified(resource, group)} {_quoted_name(name)}: {reason_text}',
            _details(name, group, resource),
        )


class ApplyConflict(ApiError):
    """Server-side apply ownership conflict: details carry only ``causes``."""

    def __init__(self, message: str, causes: list[dict[str, str]]) -> None:
        super().__init__(409, "Conflict", message, {"causes": causes})


class Invalid(ApiError):
    def __init__(self, kind: str, group: str, name: str, errors: list[FieldError]) -> None:
        super().__init__(
            422,
            "Invalid",
            f'{qualified(kind, group)} {_quoted_name(name)} is invalid: {aggregate(errors)}',
            _details(name, group, kind, causes=[e.cause() for e in errors]),
        )
        self.field_errors = errors


class GenericInvalid(ApiError):
    """``NewGenericServerResponse(422, ...)`` (a JSON patch operation that does not apply, most strategic merge
    patch errors): the generic message and empty details. ``detail`` (the library's words) is not sent: the
    function keeps it only for an unexpected response (apimachinery ``pkg/api/errors/errors.go``; observed on
    kube-apiserver v1.37.2 as ``"details":{}``)."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(422, "Invalid", GENERIC_422_MESSAGE, {})
        self.detail = detail


class HandlerPanic(ApiError):
    """A request on which the real handler panics (a nil pointer dereferenced in a library it calls): the
    apiserver's panic filters abort the reply, so the HTTP front closes the connection without answering
    and nothing is stored. Other fronts see this 500."""

    def __init__(self, message: str = "runtime error: invalid memory address or nil pointer dereference") -> None:
        super().__init__(500, "InternalError", f"Internal error occurred: {message}",
                         {"causes": [{"message": message}]})


class BadRequest(ApiError):
    def __init__(self, message: str) -> None:
        super().__init__(400, "BadRequest", message)


class Unauthorized(ApiError):
    def __init__(self, message: str = "Unauthorized") -> None:
        super().__init__(401, "Unauthorized", message)


class Forbidden(ApiError):
    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(403, "Forbidden", message, details)


class MethodNotSupported(ApiError):
    """The 405 of a method no route takes (go-restful's answer: empty details, observed on kube-apiserver
    v1.37.2)."""

    def __init__(self, resource: str, group: str, verb: str) -> None:
        super().__init__(405, "MethodNotAllowed", "the server does not allow this method on the requested resource",
                         {})
        self.resource, self.group, self.verb = resource, group, verb


class Expired(ApiError):
    """410 Expired. ``continue_token``: what a list whose continue token is too old offers to go on with (in the
    Status's ``metadata.continue``, as apiserver ``storage/etcd3/errors.go`` ``handleCompactedErrorForPaging``)."""

    def __init__(self, message: str, continue_token: str | None = None) -> None:
        super().__init__(410, "Expired", message)
        self.continue_token = continue_token

    @property
    def status(self) -> dict[str, Any]:
        body = super().status
        if self.continue_token:
            body["metadata"] = {"continue": self.continue_token}
        return body


class RequestEntityTooLarge(ApiError):
    def __init__(self, message: str) -> None:
        super().__init__(413, "RequestEntityTooLarge", message)


class UnsupportedMediaType(ApiError):
    def __init__(self, accepted: list[str]) -> None:
        super().__init__(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: "
            + ", ".join(accepted),
        )


class TooManyRequests(ApiError):
    def __init__(
        self, message: str = "Too many requests, please try again later.", retry_after: int = 1
    ) -> None:
        super().__init__(429, "TooManyRequests", message, {"retryAfterSeconds": retry_after})


class InternalError(ApiError):
    """A 500. ``reason`` is empty for errors the server passes through raw (most SMP errors, RV on create)."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(500, reason, message)


class ServiceUnavailable(ApiError):
    def __init__(self, message: str = "the server is currently unable to handle the request") -> None:
        super().__init__(503, "ServiceUnavailable", message)


class Timeout(ApiError):
    def __init__(self, message: str, retry_after: int | None = None) -> None:
        super().__init__(504, "Timeout", message, {"retryAfterSeconds": retry_after} if retry_after else None)


_BY_CODE: dict[int, str] = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    409: "Conflict",
    410: "Expired",
    413: "RequestEntityTooLarge",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


def error_for_code(code: int, message: str | None = None, reason: str | None = None) -> ApiError:
    """An ApiError for an arbitrary HTTP code (fault injection, adapters)."""
    reason = _BY_CODE.get(code, "Unknown") if reason is None else reason
    return ApiError(code, reason, message or f"injected {reason or code}")


def from_status(body: dict[str, Any]) -> ApiError:
    """Rebuild an ApiError from a ``Status`` body (HTTP clients of the fake, tests)."""
    return ApiError(
        int(body.get("code", 500)), body.get("reason", ""), body.get("message", ""), body.get("details")
    )

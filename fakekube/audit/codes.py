"""Result codes as timelines show them: the colour classes of PR #508's tables, and reason names.

The colours are the PR's: 🟢 a 2xx, 🟡 an *expected* 4xx (a blind DELETE's 404, a 410 from a watch...), 🔴 a
409 or a 5xx (and any other 4xx, e.g. 403, which a controller does not expect). A table cell may give a colour
without a code (``🟢 Claim Controller adopts Sandbox``); the colour then stands for its class.

Reasons are compared by name whatever the spelling: ``Not Found`` (the HTTP phrase a person types) and
``NotFound`` (metav1.StatusReason, what the server sends) are the same reason.
"""

from __future__ import annotations

import contextlib
import http

GREEN, YELLOW, RED = "🟢", "🟡", "🔴"
COLOURS = (GREEN, YELLOW, RED)
EXPECTED_4XX = (400, 404, 410, 412, 415, 422, 429)

# metav1.StatusReason values (kubernetes/apimachinery pkg/apis/meta/v1/types.go @ eed236ce, the
# StatusReason* constants): what ``Status.reason`` may hold.
STATUS_REASONS = (
    "Unauthorized", "Forbidden", "NotFound", "AlreadyExists", "Conflict", "Gone", "Invalid", "ServerTimeout",
    "StoreReadError", "Timeout", "TooManyRequests", "BadRequest", "MethodNotAllowed", "NotAcceptable",
    "RequestEntityTooLarge", "UnsupportedMediaType", "InternalError", "Expired", "ServiceUnavailable",
)

# The reason a timeline shows for a code when the entry has none (a success, or a log that kept only the code).
HTTP_REASONS = {200: "OK", 201: "Created", 202: "Accepted", 204: "NoContent", 400: "BadRequest",
                404: "NotFound", 409: "Conflict", 410: "Expired", 415: "UnsupportedMediaType",
                422: "Invalid", 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable",
                504: "Timeout"}


def color(code: int | None) -> str:
    """The PR's colour for an HTTP code ('' for no code)."""
    if code is None:
        return ""
    if 200 <= code < 300:
        return GREEN
    if code == 409 or code >= 500:
        return RED
    if 400 <= code < 500:
        return YELLOW if code in EXPECTED_4XX else RED
    return YELLOW


def reason_key(reason: str) -> str:
    """A reason's identity: case, spaces and underscores ignored (``Not Found`` = ``NotFound``)."""
    return "".join(ch for ch in reason.lower() if ch.isalnum())


def reason_names(code: int | None) -> list[str]:
    """The reason spellings a table may put after ``code``: every StatusReason and the code's HTTP phrase."""
    names = list(STATUS_REASONS)
    if code is not None:
        with contextlib.suppress(ValueError):  # a code that http.HTTPStatus does not know
            names.append(http.HTTPStatus(code).phrase)
    return names


def default_reason(code: int | None) -> str:
    return HTTP_REASONS.get(code, "") if code is not None else ""

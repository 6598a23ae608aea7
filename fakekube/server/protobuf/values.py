"""JSON forms of the apimachinery types that marshal themselves: Time, MicroTime, Duration, Quantity.

- ``metav1.Time``: RFC 3339 in UTC with whole seconds (protobuf carries nanoseconds; Time's Unmarshal drops
  them, so JSON readers and protobuf writers agree). The zero time is JSON ``null`` and an empty message.
- ``metav1.MicroTime``: RFC 3339 with exactly six fractional digits (``2006-01-02T15:04:05.000000Z``).
- ``metav1.Duration``: Go's ``time.Duration`` text (``1h0m0s``, ``1.5s``, ``300ms``), nanoseconds on the wire.
- ``resource.Quantity``: its string, checked against the quantity grammar the decoder enforces.

Sources: kubernetes/apimachinery pkg/apis/meta/v1/time.go, time_proto.go, micro_time.go, micro_time_proto.go,
duration.go; pkg/api/resource/quantity.go and quantity_proto.go (v0.36.3); Go's time.Duration.String and
time.ParseDuration (src/time/time.go, src/time/format.go).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from fakekube.quantity import QUANTITY_RE
from fakekube.quantity import REGEX_ERROR as QUANTITY_REGEX_ERROR
from fakekube.server.protobuf.wire import CodecError

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
GO_ZERO_UNIX = -62135596800  # time.Time{}.Unix(): year 1, January 1, 00:00:00 UTC


def format_time(seconds: int, nanos: int = 0, micro: bool = False) -> str | None:
    if seconds == GO_ZERO_UNIX and nanos == 0:
        return None
    try:
        moment = EPOCH + timedelta(seconds=seconds)
    except OverflowError:
        raise CodecError(f"Time.MarshalJSON: year outside of range [0,9999] (seconds {seconds})") from None
    if not 1 <= moment.year <= 9999:
        raise CodecError(f"Time.MarshalJSON: year outside of range [0,9999] (seconds {seconds})")
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if micro:
        text += f".{(nanos // 1000) % 1000000:06d}"
    return text + "Z"


def parse_time(text: str) -> tuple[int, int]:
    """(seconds, nanoseconds) of an RFC 3339 time, as Go's time.Parse(time.RFC3339, ...) reads it."""
    if not isinstance(text, str):
        raise CodecError(f"a time must be a string, not {type(text).__name__}")
    match = re.fullmatch(r"(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", text)
    if match is None:
        raise CodecError(f'parsing time "{text}" as RFC 3339 failed')
    base, fraction, zone = match.groups()
    try:
        moment = datetime.fromisoformat(base.upper() + ("+00:00" if zone in "Zz" else zone))
    except ValueError:
        raise CodecError(f'parsing time "{text}": out of range') from None
    delta = moment - EPOCH
    seconds = delta.days * 86400 + delta.seconds
    nanos = int((fraction[1:] + "000000000")[:9]) if fraction else 0
    return seconds, nanos


_UNITS = {"ns": 1, "us": 1000, "µs": 1000, "μs": 1000, "ms": 1000000, "s": 10**9, "m": 60 * 10**9,
          "h": 3600 * 10**9}
_DURATION_PART = re.compile(r"(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)")


def _frac(value: int, precision: int) -> tuple[str, int]:
    """Go's fmtFrac: the fraction of value / 10**precision without trailing zeros, and the integer part."""
    digits = ""
    printed = False
    for _ in range(precision):
        digit = value % 10
        printed = printed or digit != 0
        if printed:
            digits = str(digit) + digits
        value //= 10
    return ("." + digits if printed else ""), value


def format_duration(nanos: int) -> str:
    """Go's time.Duration.String."""
    sign = "-" if nanos < 0 else ""
    u = -nanos if nanos < 0 else nanos
    if u < 10**9:
        if u == 0:
            return "0s"
        if u < 1000:
            unit, precision = "ns", 0
        elif u < 10**6:
            unit, precision = "µs", 3
        else:
            unit, precision = "ms", 6
        fraction, whole = _frac(u, precision)
        return f"{sign}{whole}{fraction}{unit}"
    fraction, seconds = _frac(u, 9)
    text = f"{seconds % 60}{fraction}s"
    minutes = seconds // 60
    if minutes:
        text = f"{minutes % 60}m{text}"
        hours = minutes // 60
        if hours:
            text = f"{hours}h{text}"
    return sign + text


def parse_duration(text: str) -> int:
    """Go's time.ParseDuration, in nanoseconds."""
    if not isinstance(text, str):
        raise CodecError(f"a duration must be a string, not {type(text).__name__}")
    body = text
    sign = 1
    if body[:1] in "+-" and body:
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if body == "0":
        return 0
    if not body:
        raise CodecError(f'time: invalid duration "{text}"')
    total = 0
    pos = 0
    while pos < len(body):
        match = _DURATION_PART.match(body, pos)
        if match is None or (not match.group(1) and not match.group(2)):
            raise CodecError(f'time: invalid duration "{text}"')
        whole, fraction, unit = match.groups()
        scale = _UNITS[unit]
        total += int(whole or "0") * scale
        if fraction:
            total += int(fraction) * scale // 10 ** len(fraction)
        pos = match.end()
    if total > 2**63 - 1:
        raise CodecError(f'time: invalid duration "{text}"')
    return sign * total


def check_quantity(text: str) -> str:
    if not isinstance(text, str) or not QUANTITY_RE.match(text):
        raise CodecError(QUANTITY_REGEX_ERROR)
    return text


def quantity_of(value: object) -> str:
    """The string a JSON quantity is sent as: a string as it is, a number in Go's shortest form."""
    if isinstance(value, bool):
        raise CodecError(QUANTITY_REGEX_ERROR)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return check_quantity(repr(value).replace("e+", "e"))
    return check_quantity(value)  # type: ignore[arg-type]

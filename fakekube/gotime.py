"""Go's ``time.Parse`` for the two layouts the API's time types decode with, and its error texts.

``metav1.Time`` decodes a JSON string with ``time.Parse(time.RFC3339, s)`` and ``metav1.MicroTime`` with
``time.Parse("2006-01-02T15:04:05.000000Z07:00", s)``; a string they refuse fails the whole request with the
``*time.ParseError`` text (``parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"``).
This walks the layouts' elements the way Go's generic parser does (the RFC 3339 fast path accepts nothing the
generic one refuses), so the message names the same element and the same rest of the value.

Sources: Go 1.26 ``time/format.go`` (``parse``, ``skip``, ``getnum``, ``parseNanoseconds``, ``ParseError.
Error``, ``quote``); apimachinery v0.37.2 ``pkg/apis/meta/v1/time.go`` and ``micro_time.go`` (``UnmarshalJSON``).
"""

from __future__ import annotations

import calendar
from datetime import UTC, datetime, timedelta

RFC3339 = "2006-01-02T15:04:05Z07:00"
RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"

# (literal prefix, element, its text in the layout) for each layout; a fixed fraction carries its digits
_ELEMENTS = {
    RFC3339: (("", "year", "2006"), ("-", "month", "01"), ("-", "day", "02"), ("T", "hour", "15"),
              (":", "minute", "04"), (":", "second", "05"), ("", "zone", "Z07:00")),
    RFC3339_MICRO: (("", "year", "2006"), ("-", "month", "01"), ("-", "day", "02"), ("T", "hour", "15"),
                    (":", "minute", "04"), (":", "second", "05"), ("", "fraction", ".000000"),
                    ("", "zone", "Z07:00")),
}


class TimeParseError(ValueError):
    """``str(exc)`` is Go's ``*time.ParseError`` text."""


def _quote(data: bytes) -> str:
    """time's own ``quote``: bytes outside printable ASCII as ``\\x`` escapes, ``"`` and ``\\`` escaped."""
    out = ['"']
    for byte in data:
        if byte >= 0x80 or byte < 0x20:
            out.append(f"\\x{byte:02x}")
        else:
            char = chr(byte)
            out.append("\\" + char if char in '"\\' else char)
    out.append('"')
    return "".join(out)


def _digit(data: bytes, i: int) -> bool:
    return i < len(data) and 0x30 <= data[i] <= 0x39


def _getnum(data: bytes, fixed: bool) -> tuple[int, bytes] | None:
    if not _digit(data, 0):
        return None
    if not _digit(data, 1):
        return None if fixed else (data[0] - 0x30, data[1:])
    return (data[0] - 0x30) * 10 + data[1] - 0x30, data[2:]


def parse(value: str, layout: str = RFC3339) -> datetime:
    """The instant ``value`` names (UTC), or TimeParseError with Go's message."""
    whole = value.encode()
    rest = whole
    fields = {"year": 0, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0, "micro": 0, "offset": 0}

    def failed(layout_elem: str, value_elem: bytes) -> TimeParseError:
        return TimeParseError(f"parsing time {_quote(whole)} as {_quote(layout.encode())}: cannot parse "
                              f"{_quote(value_elem)} as {_quote(layout_elem.encode())}")

    def out_of_range(what: str) -> TimeParseError:
        return TimeParseError(f"parsing time {_quote(whole)}: {what} out of range")

    elements = _ELEMENTS[layout]
    for index, (prefix, element, text) in enumerate(elements):
        for char in prefix.encode():
            if not rest or rest[0] != char:
                raise failed(prefix, rest)
            rest = rest[1:]
        hold = rest
        if element == "year":
            if len(rest) < 4 or not _digit(rest, 0) or not rest[:4].isdigit():
                raise failed(text, hold)
            fields["year"], rest = int(rest[:4]), rest[4:]
            continue
        if element in ("month", "day", "hour", "minute", "second"):
            got = _getnum(rest, fixed=element != "hour")
            if got is None:
                raise failed(text, hold)
            number, rest = got
            limits = {"month": (1, 12), "day": (0, 31), "hour": (0, 23), "minute": (0, 59), "second": (0, 59)}
            low, high = limits[element]
            if element != "day" and not low <= number <= high:
                raise out_of_range(element)
            fields[element] = number
            next_is_fraction = index + 1 < len(elements) and elements[index + 1][1] == "fraction"
            if element == "second" and not next_is_fraction and len(rest) >= 2 and rest[:1] in (b".", b",") \
                    and _digit(rest, 1):
                n = 2
                while _digit(rest, n):
                    n += 1
                fields["micro"] = int(rest[1:min(n, 10)].ljust(9, b"0")[:6])
                rest = rest[n:]
            continue
        if element == "fraction":
            width = len(text)
            digits = rest[1:width]
            # strconv-like atoi: a sign is allowed; a negative fraction is out of range
            signed = digits[:1] in (b"+", b"-") and digits[1:].isdigit()
            if len(rest) < width or rest[:1] not in (b".", b",") or not (digits.isdigit() or signed):
                raise failed(text, hold)
            if digits[:1] == b"-" and int(digits[1:]) != 0:
                raise out_of_range("fractional second")
            fields["micro"], rest = abs(int(digits)) * 10 ** (7 - width), rest[width:]
            continue
        # zone: "Z" or ±hh:mm
        if rest[:1] == b"Z":
            rest = rest[1:]
            continue
        if len(rest) < 6 or rest[3:4] != b":":
            raise failed(text, hold)
        sign, hours, minutes, rest = rest[:1], rest[1:3], rest[4:6], rest[6:]
        # Go reads the hours, then the minutes, checks both ranges, then the sign; a range error wins
        hour_got = _getnum(hours, True)
        minute_got = _getnum(minutes, True) if hour_got is not None else None
        bad = hour_got is None or minute_got is None or sign not in (b"+", b"-")
        hour_n = hour_got[0] if hour_got is not None else 0
        minute_n = minute_got[0] if minute_got is not None else 0
        if minute_n > 60:
            raise out_of_range("time zone offset minute")
        if hour_n > 24:
            raise out_of_range("time zone offset hour")
        if bad:
            raise failed(text, hold)
        offset = hour_n * 3600 + minute_n * 60
        fields["offset"] = -offset if sign == b"-" else offset
    if rest:
        raise TimeParseError(f"parsing time {_quote(whole)}: extra text: {_quote(rest)}")
    year, month, day = fields["year"], fields["month"], fields["day"]
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = calendar.mdays[month] + (1 if month == 2 and leap else 0)
    if not 1 <= day <= days:
        raise out_of_range("day")
    try:
        base = datetime(max(year, 1), month, min(day, 28 if year == 0 else day), fields["hour"], fields["minute"],
                        fields["second"], fields["micro"], tzinfo=UTC)
        return base - timedelta(seconds=fields["offset"])
    except OverflowError:  # (an offset before year 1: Go keeps it; nothing here needs the instant exactly)
        return datetime.min.replace(tzinfo=UTC)


def check(value: str, layout: str = RFC3339) -> None:
    """Raise TimeParseError unless Go's ``time.Parse(layout, value)`` accepts ``value``."""
    parse(value, layout)

"""A CronJob schedule's parse error, in the words of ``cron.ParseStandard`` (github.com/robfig/cron/v3 v3.0.1
``parser.go``, which kubernetes v1.37.2 ``pkg/util/parsers`` ``ParseCronScheduleWithPanicRecovery`` calls):
five fields of comma-separated ranges (``N``, ``A-B``, ``*``/``?``, each with an optional ``/step``; month and
weekday names), an optional ``TZ=``/``CRON_TZ=`` prefix, or a descriptor (``@daily``, ``@every 1h``).
"""

from __future__ import annotations

import re
import zoneinfo

from fakekube.gotext import go_quote

_MONTHS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                           "nov", "dec"))}
_DAYS = {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# minute, hour, day of month, month, day of week: (min, max, names)
_FIELDS: tuple[tuple[int, int, dict[str, int] | None], ...] = (
    (0, 59, None), (0, 23, None), (1, 31, None), (1, 12, _MONTHS), (0, 6, _DAYS))
_DESCRIPTORS = {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}
_INT64_MAX = 2**63 - 1


class _CronError(Exception):
    pass


def cron_schedule_error(schedule: str) -> str | None:
    """The error ``cron.ParseStandard(schedule)`` returns, or None when it parses."""
    try:
        _parse(schedule)
    except _CronError as err:
        return str(err)
    return None


def _parse(spec: str) -> None:
    if not spec:
        raise _CronError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space, eq = spec.find(" "), spec.find("=")
        if space < 0:  # the slice spec[eq+1:-1] panics; the caller recovers it
            raise _CronError("invalid schedule format: runtime error: slice bounds out of range [:-1]")
        name = spec[eq + 1:space]
        if not _known_zone(name):
            raise _CronError(f"provided bad location {name}: unknown time zone {name}")
        spec = spec[space:].strip()
    if spec.startswith("@"):
        _descriptor(spec)
        return
    fields = spec.split()
    if len(fields) != 5:
        raise _CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    for text, bounds in zip(fields, _FIELDS, strict=True):
        for expr in (part for part in text.split(",") if part):
            _range(expr, *bounds)


def _known_zone(name: str) -> bool:
    if name in ("", "UTC", "Local"):
        return True
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _descriptor(spec: str) -> None:
    if spec in _DESCRIPTORS:
        return
    if spec.startswith("@every "):
        error = _duration_error(spec[len("@every "):])
        if error:
            raise _CronError(f"failed to parse duration {spec}: {error}")
        return
    raise _CronError(f"unrecognized descriptor: {spec}")


_DURATION = re.compile(r"[-+]?((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+")
_NUMBER = r"(?:\d+\.?\d*|\.\d+)"
# a run of valid "<number><unit>" parts, then a number followed by something that is not a unit
_BAD_UNIT = re.compile(rf"[-+]?(?:{_NUMBER}(?:ns|us|µs|μs|ms|s|m|h))*{_NUMBER}([^\d.]+)")


def _duration_error(text: str) -> str | None:
    """time.ParseDuration's error, for the common shapes."""
    if text in ("0", "+0", "-0") or _DURATION.fullmatch(text):
        return None
    quoted = go_quote(text)
    if re.fullmatch(rf"[-+]?{_NUMBER}", text):
        return f"time: missing unit in duration {quoted}"
    bad = _BAD_UNIT.match(text)
    if bad:
        return f"time: unknown unit {go_quote(bad.group(1))} in duration {quoted}"
    return f"time: invalid duration {quoted}"


def _range(expr: str, low: int, high: int, names: dict[str, int] | None) -> None:
    range_and_step = expr.split("/")
    bounds = range_and_step[0].split("-")
    if bounds[0] in ("*", "?"):
        start, end = low, high
    else:
        start = _int_or_name(bounds[0], names)
        if len(bounds) == 1:
            end = start
        elif len(bounds) == 2:
            end = _int_or_name(bounds[1], names)
        else:
            raise _CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 2:
        step = _int(range_and_step[1])
        if len(bounds) == 1:  # "N/step" is "N-max/step"
            end = high
    elif len(range_and_step) > 2:
        raise _CronError(f"too many slashes: {expr}")
    else:
        step = 1
    if start < low:
        raise _CronError(f"beginning of range ({start}) below minimum ({low}): {expr}")
    if end > high:
        raise _CronError(f"end of range ({end}) above maximum ({high}): {expr}")
    if start > end:
        raise _CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise _CronError(f"step of range should be a positive number: {expr}")


def _int_or_name(expr: str, names: dict[str, int] | None) -> int:
    if names and expr.lower() in names:
        return names[expr.lower()]
    return _int(expr)


def _int(expr: str) -> int:
    """strconv.Atoi, then the parser's own refusal of negative numbers."""
    if not re.fullmatch(r"[-+]?\d+", expr):
        raise _CronError(f"failed to parse int from {expr}: strconv.Atoi: parsing {go_quote(expr)}: invalid syntax")
    value = int(expr)
    if abs(value) > _INT64_MAX + (value < 0):
        raise _CronError(f"failed to parse int from {expr}: strconv.Atoi: parsing {go_quote(expr)}: "
                         "value out of range")
    if value < 0:
        raise _CronError(f"negative number ({value}) not allowed: {expr}")
    return value

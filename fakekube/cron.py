"""Cron schedules as kube-apiserver validates them and kube-controller-manager reads them: robfig/cron v3's
``ParseStandard`` (its error texts are a CronJob's ``spec.schedule`` errors) and ``Next``.

kube-controller-manager's CronJob controller parses ``spec.schedule`` with github.com/robfig/cron/v3
(v3.0.1, ``parser.go``, ``spec.go``, ``constantdelay.go``), so its quirks are the API's semantics:

- five fields (minute, hour, day of month, month, day of week); the seconds field is always 0;
- ``*`` or ``?``, numbers, ranges ``a-b``, steps ``/n`` (``a/n`` runs from ``a`` to the field's maximum),
  lists ``,``; month names ``jan``…``dec`` and day names ``sun``…``sat`` in any case; day of week 0-6 only
  (``7`` is out of range, unlike Vixie cron); no ``L``, ``W`` or ``#``;
- day of month and day of week: if either field starts with ``*`` or ``?`` *without a step above 1*, both
  must match; otherwise either may (``*/2`` in one field therefore means "or");
- descriptors ``@yearly`` / ``@annually``, ``@monthly``, ``@weekly``, ``@daily`` / ``@midnight``,
  ``@hourly`` and ``@every <Go duration>`` (at least a second, whole seconds);
- a ``TZ=<zone>`` or ``CRON_TZ=<zone>`` prefix gives the zone (the controller adds ``TZ=<spec.timeZone>``);
  without one, the schedule runs in the zone of the time it is asked about ("Local"): the controller asks in
  its local zone, UTC as kube-controller-manager's image runs;
- ``Next`` walks month, day, hour, minute, second forward in the zone's wall time, adding hours as absolute
  durations (so daylight-saving jumps behave as Go's ``time`` package makes them) and gives up after five
  years (no time: ``None``).

Written from the upstream sources (not a port of their code); tests/cluster/test_cron.py checks it against
robfig/cron's own test tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fakekube.gotext import go_quote

STAR = 1 << 63
_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTHS = {n: i + 1 for i, n in enumerate(_MONTH_NAMES)}
DAYS = {n: i for i, n in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# (min, max, names) of minute, hour, day of month, month, day of week.
FIELDS = ((0, 59, None), (0, 23, None), (1, 31, None), (1, 12, MONTHS), (0, 6, DAYS))
_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


class CronError(ValueError):
    """An unparseable schedule; the message is robfig/cron's."""


def _bits(low: int, high: int, step: int) -> int:
    return sum(1 << i for i in range(low, high + 1, step))


def _all(low: int, high: int) -> int:
    return _bits(low, high, 1) | STAR


def _number(text: str, names: dict[str, int] | None) -> int:
    if names is not None and text.lower() in names:
        return names[text.lower()]
    if not re.fullmatch(r"[+-]?\d+", text):
        raise CronError(f"failed to parse int from {text}: strconv.Atoi: parsing {go_quote(text)}: invalid syntax")
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise CronError(f"failed to parse int from {text}: strconv.Atoi: parsing {go_quote(text)}: value out of range")
    if value < 0:
        raise CronError(f"negative number ({value}) not allowed: {text}")
    return value


def _range(expr: str, low: int, high: int, names: dict[str, int] | None) -> int:
    range_and_step = expr.split("/")
    low_high = range_and_step[0].split("-")
    extra = 0
    if low_high[0] in ("*", "?"):
        start, end, extra = low, high, STAR
    else:
        start = _number(low_high[0], names)
        if len(low_high) == 1:
            end = start
        elif len(low_high) == 2:
            end = _number(low_high[1], names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _number(range_and_step[1], None)
        if len(low_high) == 1:
            end = high
        if step > 1:
            extra = 0
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < low:
        raise CronError(f"beginning of range ({start}) below minimum ({low}): {expr}")
    if end > high:
        raise CronError(f"end of range ({end}) above maximum ({high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")
    return _bits(start, end, step) | extra


def _field(text: str, low: int, high: int, names: dict[str, int] | None) -> int:
    bits = 0
    for expr in (part for part in text.split(",") if part):
        bits |= _range(expr, low, high, names)
    return bits


def go_duration(text: str) -> float:
    """Go's ``time.ParseDuration`` in seconds (``1h30m``, ``90s``, ``1.5h``, ``300ms``); :class:`CronError`
    with Go's error text."""
    match = re.fullmatch(r"([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+", text)
    if text in ("0", "+0", "-0"):
        return 0.0
    if not match:
        raise CronError(_duration_error(text))
    total = sum(float(n) * _GO_UNITS[u] for n, u in re.findall(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)", text))
    return -total if match.group(1) == "-" else total


_NUMBER = r"(?:\d+\.?\d*|\.\d+)"
# valid "<number><unit>" parts, then a number followed by something that is not a unit
_BAD_UNIT = re.compile(rf"[-+]?(?:{_NUMBER}(?:ns|us|µs|μs|ms|s|m|h))*{_NUMBER}([^\d.]+)")


def _duration_error(text: str) -> str:
    """time.ParseDuration's error, for the common shapes (observed on kube-apiserver v1.37.2)."""
    quoted = go_quote(text)
    if re.fullmatch(rf"[-+]?{_NUMBER}", text):
        return f"time: missing unit in duration {quoted}"
    bad = _BAD_UNIT.match(text)
    if bad:
        return f"time: unknown unit {go_quote(bad.group(1))} in duration {quoted}"
    return f"time: invalid duration {quoted}"


@dataclass(frozen=True)
class Every:
    """``@every <duration>``: ``ConstantDelaySchedule``, whole seconds, at least one."""

    seconds: int

    def next(self, t: datetime) -> datetime | None:
        return _plus(t.replace(microsecond=0), timedelta(seconds=self.seconds))


@dataclass(frozen=True)
class Spec:
    """``SpecSchedule``: one bit set per field (the seconds field is always ``0``) and a zone."""

    minute: int
    hour: int
    dom: int
    month: int
    dow: int
    zone: tzinfo | None = None  # None: "Local", the zone of the time asked about
    second: int = 1

    def _day_matches(self, t: datetime) -> bool:
        dom = bool(1 << t.day & self.dom)
        dow = bool(1 << ((t.weekday() + 1) % 7) & self.dow)
        if self.dom & STAR or self.dow & STAR:
            return dom and dow
        return dom or dow

    def next(self, t: datetime) -> datetime | None:
        """The first activation strictly after ``t`` (in ``t``'s zone), or None within five years."""
        origin = t.tzinfo or UTC
        zone = self.zone or origin
        t = _plus(t.astimezone(zone), timedelta(seconds=1) - timedelta(microseconds=t.microsecond))
        added = False
        year_limit = t.year + 5
        while True:  # WRAP
            if t.year > year_limit:
                return None
            wrapped = False
            while not (1 << t.month & self.month):
                if not added:
                    added = True
                    t = _wall(t.year, t.month, 1, 0, 0, 0, zone)
                t = _wall(t.year, t.month + 1, t.day, t.hour, t.minute, t.second, zone)
                if t.month == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not self._day_matches(t):
                if not added:
                    added = True
                    t = _wall(t.year, t.month, t.day, 0, 0, 0, zone)
                t = _wall(t.year, t.month, t.day + 1, t.hour, t.minute, t.second, zone)
                if t.hour != 0:  # midnight skipped or doubled by daylight saving
                    t = _plus(t, timedelta(hours=24 - t.hour) if t.hour > 12 else timedelta(hours=-t.hour))
                if t.day == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << t.hour & self.hour):
                if not added:
                    added = True
                    t = _wall(t.year, t.month, t.day, t.hour, 0, 0, zone)
                t = _plus(t, timedelta(hours=1))
                if t.hour == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << t.minute & self.minute):
                if not added:
                    added = True
                    t = t.replace(second=0, microsecond=0)
                t = _plus(t, timedelta(minutes=1))
                if t.minute == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << t.second & self.second):
                if not added:
                    added = True
                    t = t.replace(microsecond=0)
                t = _plus(t, timedelta(seconds=1))
                if t.second == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            return t.astimezone(origin)


Schedule = Spec | Every


def _plus(t: datetime, delta: timedelta) -> datetime:
    """Go's ``t.Add``: absolute time (Python's aware arithmetic would be wall time)."""
    return (t.astimezone(UTC) + delta).astimezone(t.tzinfo)


def _wall(year: int, month: int, day: int, hour: int, minute: int, second: int, zone: tzinfo) -> datetime:
    """Go's ``time.Date``: out-of-range months and days roll over; a wall time a daylight-saving gap skips
    lands after the gap."""
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    naive = datetime(year, month, 1) + timedelta(days=day - 1, hours=hour, minutes=minute, seconds=second)
    return naive.replace(tzinfo=zone).astimezone(UTC).astimezone(zone)


def known_zone(name: str) -> bool:
    """Whether Go's ``time.LoadLocation`` finds the zone ("", "UTC" and "Local" always)."""
    try:
        _zone(name)
    except CronError:
        return False
    return True


def _zone(name: str) -> tzinfo | None:
    if name in ("", "UTC"):
        return UTC
    if name == "Local":
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise CronError(f"provided bad location {name}: unknown time zone {name}") from exc


def parse_standard(spec: str) -> Schedule:
    """``cron.ParseStandard``: a schedule, or :class:`CronError` with robfig/cron's message."""
    return parse(spec)


def parse(spec: str, *, seconds: bool = False) -> Schedule:
    """``Parser.Parse``; ``seconds=True`` is robfig/cron's six-field parser (a leading seconds field) that
    its own test tables use, the standard parser otherwise."""
    if not spec:
        raise CronError("empty spec string")
    zone: tzinfo | None = None
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space = spec.find(" ")
        if space < 0:  # robfig slices spec[eq+1:-1] and panics; kubernetes' ParseCronScheduleWithPanicRecovery
            raise CronError("invalid schedule format: runtime error: slice bounds out of range [:-1]")
        zone = _zone(spec[spec.index("=") + 1:space])
        spec = spec[space:].strip()
    if spec.startswith("@"):
        return _descriptor(spec, zone)
    fields = spec.split()
    want = 6 if seconds else 5
    if len(fields) != want:
        raise CronError(f"expected exactly {want} fields, found {len(fields)}: [{' '.join(fields)}]")
    second = _field(fields.pop(0), 0, 59, None) if seconds else 1
    bits = [_field(text, *bounds) for text, bounds in zip(fields, FIELDS, strict=True)]
    return Spec(*bits, zone=zone, second=second)


def _descriptor(spec: str, zone: tzinfo | None) -> Schedule:
    minute, hour, dom, month, dow = (1 << 0, 1 << 0, 1 << 1, 1 << 1, 1 << 0)
    all_dom, all_month, all_dow = _all(1, 31), _all(1, 12), _all(0, 6)
    if spec in ("@yearly", "@annually"):
        return Spec(minute, hour, dom, month, all_dow, zone)
    if spec == "@monthly":
        return Spec(minute, hour, dom, all_month, all_dow, zone)
    if spec == "@weekly":
        return Spec(minute, hour, all_dom, all_month, dow, zone)
    if spec in ("@daily", "@midnight"):
        return Spec(minute, hour, all_dom, all_month, all_dow, zone)
    if spec == "@hourly":
        return Spec(minute, _all(0, 23), all_dom, all_month, all_dow, zone)
    if spec.startswith("@every "):
        try:
            seconds = go_duration(spec[len("@every "):])
        except CronError as err:
            raise CronError(f"failed to parse duration {spec}: {err}") from err
        return Every(max(int(seconds), 1))
    raise CronError(f"unrecognized descriptor: {spec}")

"""The cron parser against robfig/cron v3.0.1's own test tables (spec_test.go: TestActivation, TestNext,
TestErrors; parser_test.go's descriptors) — the library kube-controller-manager schedules CronJobs with."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from fakekube.cron import CronError, Every, go_duration, parse, parse_standard

# (time, spec, activates at that time) — TestActivation: Next(time - 1 s) == time.
ACTIVATION = [
    ("Mon Jul 9 15:00 2012", "0/15 * * * *", True), ("Mon Jul 9 15:45 2012", "0/15 * * * *", True),
    ("Mon Jul 9 15:40 2012", "0/15 * * * *", False), ("Mon Jul 9 15:05 2012", "5/15 * * * *", True),
    ("Mon Jul 9 15:20 2012", "5/15 * * * *", True), ("Mon Jul 9 15:50 2012", "5/15 * * * *", True),
    ("Sun Jul 15 15:00 2012", "0/15 * * Jul *", True), ("Sun Jul 15 15:00 2012", "0/15 * * Jun *", False),
    ("Sun Jul 15 08:30 2012", "30 08 ? Jul Sun", True), ("Sun Jul 15 08:30 2012", "30 08 15 Jul ?", True),
    ("Mon Jul 16 08:30 2012", "30 08 ? Jul Sun", False), ("Mon Jul 16 08:30 2012", "30 08 15 Jul ?", False),
    ("Mon Jul 9 15:00 2012", "@hourly", True), ("Mon Jul 9 15:04 2012", "@hourly", False),
    ("Mon Jul 9 15:00 2012", "@daily", False), ("Mon Jul 9 00:00 2012", "@daily", True),
    ("Mon Jul 9 00:00 2012", "@weekly", False), ("Sun Jul 8 00:00 2012", "@weekly", True),
    ("Sun Jul 8 01:00 2012", "@weekly", False), ("Sun Jul 8 00:00 2012", "@monthly", False),
    ("Sun Jul 1 00:00 2012", "@monthly", True),
    ("Sun Jul 15 00:00 2012", "* * 1,15 * Sun", True), ("Fri Jun 15 00:00 2012", "* * 1,15 * Sun", True),
    ("Wed Aug 1 00:00 2012", "* * 1,15 * Sun", True), ("Sun Jul 15 00:00 2012", "* * */10 * Sun", True),
    ("Sun Jul 15 00:00 2012", "* * * * Mon", False), ("Mon Jul 9 00:00 2012", "* * 1,15 * *", False),
    ("Sun Jul 15 00:00 2012", "* * 1,15 * *", True), ("Sun Jul 15 00:00 2012", "* * */2 * Sun", True),
]

NY = "America/New_York"
# (time, six-field spec, next) — TestNext, with its daylight-saving cases; "" is "never".
NEXT = [
    ("Mon Jul 9 14:45 2012", "0 0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 14:59 2012", "0 0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 14:59:59 2012", "0 0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 15:45 2012", "0 20-35/15 * * * *", "Mon Jul 9 16:20 2012"),
    ("Mon Jul 9 23:46 2012", "0 */15 * * * *", "Tue Jul 10 00:00 2012"),
    ("Mon Jul 9 23:45 2012", "0 20-35/15 * * * *", "Tue Jul 10 00:20 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 * * * *", "Tue Jul 10 00:20:15 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 1/2 * * *", "Tue Jul 10 01:20:15 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 10-12 * * *", "Tue Jul 10 10:20:15 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 1/2 */2 * *", "Thu Jul 11 01:20:15 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 * 9-20 * *", "Wed Jul 10 00:20:15 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 * 9-20 Jul *", "Wed Jul 10 00:20:15 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 0 9 Apr-Oct ?", "Thu Aug 9 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 0 */5 Apr,Aug,Oct Mon", "Tue Aug 1 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 0 */5 Oct Mon", "Mon Oct 1 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 0 * Feb Mon", "Mon Feb 4 00:00 2013"),
    ("Mon Jul 9 23:35 2012", "0 0 0 * Feb Mon/2", "Fri Feb 1 00:00 2013"),
    ("Mon Dec 31 23:59:45 2012", "0 * * * * *", "Tue Jan 1 00:00:00 2013"),
    ("Mon Jul 9 23:35 2012", "0 0 0 29 Feb ?", "Mon Feb 29 00:00 2016"),
    ("2012-03-11T00:00:00-0500", f"TZ={NY} 0 30 2 11 Mar ?", "2013-03-11T02:30:00-0400"),
    ("2012-03-11T00:00:00-0500", f"TZ={NY} 0 0 * * * ?", "2012-03-11T01:00:00-0500"),
    ("2012-03-11T01:00:00-0500", f"TZ={NY} 0 0 * * * ?", "2012-03-11T03:00:00-0400"),
    ("2012-03-11T03:00:00-0400", f"TZ={NY} 0 0 * * * ?", "2012-03-11T04:00:00-0400"),
    ("2012-03-11T04:00:00-0400", f"TZ={NY} 0 0 * * * ?", "2012-03-11T05:00:00-0400"),
    ("2012-03-11T00:00:00-0500", f"CRON_TZ={NY} 0 0 * * * ?", "2012-03-11T01:00:00-0500"),
    ("2012-03-11T01:00:00-0500", f"CRON_TZ={NY} 0 0 * * * ?", "2012-03-11T03:00:00-0400"),
    ("2012-03-11T03:00:00-0400", f"CRON_TZ={NY} 0 0 * * * ?", "2012-03-11T04:00:00-0400"),
    ("2012-03-11T04:00:00-0400", f"CRON_TZ={NY} 0 0 * * * ?", "2012-03-11T05:00:00-0400"),
    ("2012-03-11T00:00:00-0500", f"TZ={NY} 0 0 1 * * ?", "2012-03-11T01:00:00-0500"),
    ("2012-03-11T01:00:00-0500", f"TZ={NY} 0 0 1 * * ?", "2012-03-12T01:00:00-0400"),
    ("2012-03-11T00:00:00-0500", f"TZ={NY} 0 0 2 * * ?", "2012-03-12T02:00:00-0400"),
    ("2012-11-04T00:00:00-0400", f"TZ={NY} 0 30 2 04 Nov ?", "2012-11-04T02:30:00-0500"),
    ("2012-11-04T01:45:00-0400", f"TZ={NY} 0 30 1 04 Nov ?", "2012-11-04T01:30:00-0500"),
    ("2012-11-04T00:00:00-0400", f"TZ={NY} 0 0 * * * ?", "2012-11-04T01:00:00-0400"),
    ("2012-11-04T01:00:00-0400", f"TZ={NY} 0 0 * * * ?", "2012-11-04T01:00:00-0500"),
    ("2012-11-04T01:00:00-0500", f"TZ={NY} 0 0 * * * ?", "2012-11-04T02:00:00-0500"),
    ("2012-11-04T00:00:00-0400", f"TZ={NY} 0 0 1 * * ?", "2012-11-04T01:00:00-0400"),
    ("2012-11-04T01:00:00-0400", f"TZ={NY} 0 0 1 * * ?", "2012-11-04T01:00:00-0500"),
    ("2012-11-04T01:00:00-0500", f"TZ={NY} 0 0 1 * * ?", "2012-11-05T01:00:00-0500"),
    ("2012-11-04T00:00:00-0400", f"TZ={NY} 0 0 2 * * ?", "2012-11-04T02:00:00-0500"),
    ("2012-11-04T02:00:00-0500", f"TZ={NY} 0 0 2 * * ?", "2012-11-05T02:00:00-0500"),
    ("2012-11-04T00:00:00-0400", f"TZ={NY} 0 0 3 * * ?", "2012-11-04T03:00:00-0500"),
    ("2012-11-04T03:00:00-0500", f"TZ={NY} 0 0 3 * * ?", "2012-11-05T03:00:00-0500"),
    (f"TZ={NY} 2012-11-04T00:00:00-0400", "0 0 * * * ?", "2012-11-04T01:00:00-0400"),
    (f"TZ={NY} 2012-11-04T01:00:00-0400", "0 0 * * * ?", "2012-11-04T01:00:00-0500"),
    (f"TZ={NY} 2012-11-04T01:00:00-0500", "0 0 * * * ?", "2012-11-04T02:00:00-0500"),
    (f"TZ={NY} 2012-11-04T00:00:00-0400", "0 0 1 * * ?", "2012-11-04T01:00:00-0400"),
    (f"TZ={NY} 2012-11-04T01:00:00-0400", "0 0 1 * * ?", "2012-11-04T01:00:00-0500"),
    (f"TZ={NY} 2012-11-04T01:00:00-0500", "0 0 1 * * ?", "2012-11-05T01:00:00-0500"),
    (f"TZ={NY} 2012-11-04T00:00:00-0400", "0 0 2 * * ?", "2012-11-04T02:00:00-0500"),
    (f"TZ={NY} 2012-11-04T02:00:00-0500", "0 0 2 * * ?", "2012-11-05T02:00:00-0500"),
    (f"TZ={NY} 2012-11-04T00:00:00-0400", "0 0 3 * * ?", "2012-11-04T03:00:00-0500"),
    (f"TZ={NY} 2012-11-04T03:00:00-0500", "0 0 3 * * ?", "2012-11-05T03:00:00-0500"),
    ("Mon Jul 9 23:35 2012", "0 0 0 30 Feb ?", ""),
    ("Mon Jul 9 23:35 2012", "0 0 0 31 Apr ?", ""),
    (f"TZ={NY} 2012-11-04T00:00:00-0400", "0 0 3 3 * ?", "2012-12-03T03:00:00-0500"),
    ("2018-10-17T05:00:00-0400", "TZ=America/Sao_Paulo 0 0 9 10 * ?", "2018-11-10T06:00:00-0500"),
    ("2018-02-14T05:00:00-0500", "TZ=America/Sao_Paulo 0 0 9 22 * ?", "2018-02-22T07:00:00-0500"),
]


def at(value: str) -> datetime | None:
    """robfig's getTime: its layouts, in UTC (the tests' Local) unless prefixed ``TZ=<zone> ``."""
    if not value:
        return None
    zone = UTC
    if value.startswith("TZ="):
        name, value = value[3:].split(" ", 1)
        zone = ZoneInfo(name)
    for layout in ("%a %b %d %H:%M %Y", "%a %b %d %H:%M:%S %Y"):
        try:
            return datetime.strptime(value, layout).replace(tzinfo=zone)
        except ValueError:
            pass
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z").astimezone(zone)


@pytest.mark.parametrize(("time", "spec", "expected"), ACTIVATION)
def test_activation(time: str, spec: str, expected: bool):
    moment = at(time)
    assert moment is not None
    assert (parse_standard(spec).next(moment - timedelta(seconds=1)) == moment) is expected


@pytest.mark.parametrize(("time", "spec", "expected"), NEXT)
def test_next(time: str, spec: str, expected: str):
    moment = at(time)
    assert moment is not None
    got, want = parse(spec, seconds=True).next(moment), at(expected)
    # As instants: PEP 495 makes == across zones False for a time in a repeated (fall-back) hour.
    assert (got and got.timestamp()) == (want and want.timestamp())


@pytest.mark.parametrize("spec", ["xyz", "60 0 * * *", "0 60 * * *", "0 0 * * XYZ", "* * * * 7", "* * * *",
                                  "@fortnightly", "TZ=Nowhere/City * * * * *", "1-2-3 * * * *", "*/0 * * * *",
                                  "5-1 * * * *"])
def test_errors(spec: str):
    with pytest.raises(CronError):
        parse_standard(spec)


def test_error_messages_are_robfigs():
    with pytest.raises(CronError, match=r"^expected exactly 5 fields, found 4: \[\* \* \* \*\]$"):
        parse_standard("* * * *")
    with pytest.raises(CronError, match=r"^end of range \(60\) above maximum \(59\): 60$"):
        parse_standard("60 0 * * *")
    with pytest.raises(CronError, match=r"^unrecognized descriptor: @fortnightly$"):
        parse_standard("@fortnightly")


def test_every_and_go_durations():
    assert go_duration("1h30m") == 5400 and go_duration("1.5h") == 5400 and go_duration("300ms") == 0.3
    start = datetime(2012, 7, 9, 15, 0, 0, 500000, tzinfo=UTC)
    assert parse_standard("@every 90s").next(start) == datetime(2012, 7, 9, 15, 1, 30, tzinfo=UTC)
    assert parse_standard("@every 100ms") == Every(1)  # at least a second
    with pytest.raises(CronError, match="failed to parse duration"):
        parse_standard("@every soon")


def test_time_zone_prefix_and_local():
    # Without a zone the schedule runs in the zone of the time asked about (robfig's time.Local rule).
    tokyo = datetime(2024, 1, 1, 8, 0, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert parse_standard("0 9 * * *").next(tokyo) == datetime(2024, 1, 1, 9, 0, tzinfo=ZoneInfo("Asia/Tokyo"))
    utc = datetime(2024, 1, 1, 0, 0, tzinfo=UTC)
    assert parse_standard("TZ=Asia/Tokyo 0 9 * * *").next(utc) == datetime(2024, 1, 1, 0, 0, tzinfo=UTC) + \
        timedelta(days=1)


# CronJob schedule parse errors as spec.schedule reports them, observed on kube-apiserver v1.37.2
# (workloads/cronjob-schedule-parse-errors; kubernetes pkg/util/parsers ParseCronScheduleWithPanicRecovery).
@pytest.mark.parametrize("schedule", ["0 0 * * mon-fri", "0 0 * JAN sun", "@every 1h30m", "@daily", "? * * * *",
                                      "TZ=UTC 0 * * * *", "0 0 1,,2 * *"])
def test_schedules_the_api_accepts(schedule: str) -> None:
    parse_standard(schedule)


@pytest.mark.parametrize(("schedule", "error"), [
    ("0 * * * TZ", 'failed to parse int from TZ: strconv.Atoi: parsing "TZ": invalid syntax'),
    ("* * *", "expected exactly 5 fields, found 3: [* * *]"),
    ("70 * * * *", "end of range (70) above maximum (59): 70"),
    ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("5-2 * * * *", "beginning of range (5) beyond end of range (2): 5-2"),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("1/2/3 * * * *", "too many slashes: 1/2/3"),
    ("-1 * * * *", 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'),
    ("99999999999999999999 * * * *", 'failed to parse int from 99999999999999999999: strconv.Atoi: parsing '
                                     '"99999999999999999999": value out of range'),
    ("@every 5", 'failed to parse duration @every 5: time: missing unit in duration "5"'),
    ("@every 1q", 'failed to parse duration @every 1q: time: unknown unit "q" in duration "1q"'),
    ("@every x", 'failed to parse duration @every x: time: invalid duration "x"'),
    ("@weekly2", "unrecognized descriptor: @weekly2"),
    ("TZ=Nowhere/X 0 * * * *", "provided bad location Nowhere/X: unknown time zone Nowhere/X"),
    # the parser slices spec[eq+1:-1] and panics; kubernetes recovers it
    ("TZ=UTC", "invalid schedule format: runtime error: slice bounds out of range [:-1]"),
])
def test_parse_errors_in_the_apis_words(schedule: str, error: str) -> None:
    with pytest.raises(CronError) as caught:
        parse_standard(schedule)
    assert str(caught.value) == error

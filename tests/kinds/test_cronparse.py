"""CronJob schedule parse errors, observed on kube-apiserver v1.37.2 (workloads/cronjob-schedule-parse-errors;
github.com/robfig/cron/v3 v3.0.1 parser.go via kubernetes pkg/util/parsers ParseCronScheduleWithPanicRecovery)."""

from __future__ import annotations

import pytest

from fakekube.kinds.cronparse import cron_schedule_error


@pytest.mark.parametrize("schedule", ["0 0 * * mon-fri", "0 0 * JAN sun", "@every 1h30m", "@daily", "? * * * *",
                                      "TZ=UTC 0 * * * *", "0 0 1,,2 * *"])
def test_schedules_that_parse(schedule: str) -> None:
    assert cron_schedule_error(schedule) is None


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
def test_parse_errors(schedule: str, error: str) -> None:
    assert cron_schedule_error(schedule) == error

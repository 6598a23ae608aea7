"""Go's time.Parse for metav1.Time / MicroTime (fakekube.gotime): the texts were observed on kube-apiserver
v1.37.2 for a Pod's creationTimestamp (Go time/format.go ``parse``; apimachinery pkg/apis/meta/v1/time.go)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fakekube import gotime


@pytest.mark.parametrize(("value", "message"), [
    ("not a time", 'parsing time "not a time" as "2006-01-02T15:04:05Z07:00": cannot parse "not a time" as "2006"'),
    ("2020-13-01T00:00:00Z", 'parsing time "2020-13-01T00:00:00Z": month out of range'),
    ("2020-02-30T00:00:00Z", 'parsing time "2020-02-30T00:00:00Z": day out of range'),
    ("2020-01-01T00:00:00+25:00", 'parsing time "2020-01-01T00:00:00+25:00": time zone offset hour out of range'),
    ("2020-01-01T00:00:00x01:00",
     'parsing time "2020-01-01T00:00:00x01:00" as "2006-01-02T15:04:05Z07:00": cannot parse "x01:00" as "Z07:00"'),
    ("2020-01-01T00:00:00Zab", 'parsing time "2020-01-01T00:00:00Zab": extra text: "ab"'),
    ("2020-01-01", 'parsing time "2020-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'),
])
def test_rfc3339_refusals_are_gos_parse_errors(value: str, message: str) -> None:
    with pytest.raises(gotime.TimeParseError) as caught:
        gotime.check(value)
    assert str(caught.value) == message


def test_accepted_times_include_a_one_digit_hour_a_fraction_and_an_offset() -> None:
    # the generic parser reads the hour "15" with one or two digits (accepted by the real server too)
    assert gotime.parse("2020-01-01T1:00:00+01:00") == datetime(2020, 1, 1, 0, 0, tzinfo=UTC)
    assert gotime.parse("2020-01-01T00:00:00.5Z") == datetime(2020, 1, 1, 0, 0, 0, 500000, tzinfo=UTC)
    assert gotime.parse("2020-02-29T00:00:00Z").day == 29


def test_micro_time_needs_six_fraction_digits() -> None:
    assert gotime.parse("2020-01-01T00:00:00.123456Z", gotime.RFC3339_MICRO).microsecond == 123456
    with pytest.raises(gotime.TimeParseError, match=r'cannot parse "Z" as "\.000000"'):
        gotime.check("2020-01-01T00:00:00Z", gotime.RFC3339_MICRO)

"""Kubernetes' semver CEL library (fakekube.cel.semverlib): the cases of k8s.io/apiserver v0.37.2
pkg/cel/library/semver_test.go (``TestSemver``), and blang/semver v4.0.0's parse errors and precedence
(semver.go ``Parse``, ``Version.Compare``; semver.org's precedence example)."""

from __future__ import annotations

from typing import Any

import pytest
from cel_expr_python import cel

from fakekube.cel import rules

T = cel.Type


def _eval(expression: str) -> Any:
    result = rules._compile(expression, {}).eval()
    if result.type() == T.ERROR:
        return ("error", rules.issues_text(RuntimeError(str(result.value()))))
    return result.plain_value()


UPSTREAM = [  # semver_test.go TestSemver
    ('semver("1.2.3") == semver("1.2.3")', True),
    ('isSemver("1.2.3-beta.1+build.1")', True),
    ('isSemver("")', False), ('isSemver("v1.0.0")', False), ('isSemver(" 1.0.0")', False),
    ('isSemver("1. 0.0")', False), ('isSemver("1.0.0 ")', False), ('isSemver("01.01.01")', False),
    ('isSemver("1")', False), ('isSemver("1.1")', False),
    ('isSemver("", true)', False), ('isSemver(" 1.0.0", true)', False), ('isSemver("1. 0.0", true)', False),
    ('isSemver("1.0.0 ", true)', False), ('isSemver("v1.0.0", true)', True), ('isSemver("01.01.01", true)', True),
    ('isSemver("1", true)', True), ('isSemver("1.1", true)', True),
    ('semver("v01.01", true) == semver("1.1.0")', True),
    ('semver("1.2.3") == semver("1.0.0")', False),
    ('semver("1.0.0").isLessThan(semver("1.2.3"))', True), ('semver("1.0.0").isLessThan(semver("1.0.0"))', False),
    ('semver("1.2.3").isGreaterThan(semver("1.0.0"))', True),
    ('semver("1.0.0").isGreaterThan(semver("1.0.0"))', False),
    ('semver("1.2.3").compareTo(semver("1.2.3"))', 0), ('semver("1.0.0").compareTo(semver("1.2.3"))', -1),
    ('semver("1.2.3").compareTo(semver("1.0.0"))', 1),
    ('semver("1.2.3").major()', 1), ('semver("1.2.3").minor()', 2), ('semver("1.2.3").patch()', 3),
    ('semver("v1.0")', ("error", "No Major.Minor.Patch elements found")),
]

BLANG = [  # semver.go Parse's errors; Compare's precedence (semver.org 11)
    ('semver("")', ("error", "Version string empty")),
    ('semver("a.0.0")', ("error", 'Invalid character(s) found in major number "a"')),
    ('semver("01.0.0")', ("error", 'Major number must not contain leading zeroes "01"')),
    ('semver("1.01.0")', ("error", 'Minor number must not contain leading zeroes "01"')),
    ('semver("1.0.0x")', ("error", 'Invalid character(s) found in patch number "0x"')),
    ('semver("1.0.0-01")', ("error", 'Numeric PreRelease version must not contain leading zeroes "01"')),
    ('semver("1.0.0-a..b")', ("error", "Prerelease is empty")),
    ('semver("1.0.0-a_b")', ("error", 'Invalid character(s) found in prerelease "a_b"')),
    ('semver("1.0.0+")', ("error", "Build meta data is empty")),
    ('semver("1.0.0+a_b")', ("error", 'Invalid character(s) found in build meta data "a_b"')),
    ('semver("1..0")', ("error", 'strconv.ParseUint: parsing "": invalid syntax')),
    ('semver("18446744073709551616.0.0")',
     ("error", 'strconv.ParseUint: parsing "18446744073709551616": value out of range')),
    ('semver("1.0-a", true)', ("error", "short version cannot contain PreRelease/Build meta data")),
    ('semver("1.0.0+build.1") == semver("1.0.0+build.2")', True),
    ('semver("1.0.0-alpha").isLessThan(semver("1.0.0-alpha.1"))', True),
    ('semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta"))', True),
    ('semver("1.0.0-alpha.beta").isLessThan(semver("1.0.0-beta"))', True),
    ('semver("1.0.0-beta.2").isLessThan(semver("1.0.0-beta.11"))', True),
    ('semver("1.0.0-rc.1").isLessThan(semver("1.0.0"))', True),
    ('semver("v1.2.3-rc.1+b", true).minor()', 2),
    ('semver("9223372036854775808.0.0").major()', -9223372036854775808),
]


@pytest.mark.parametrize(("expression", "expected"), UPSTREAM + BLANG, ids=[c[0] for c in UPSTREAM + BLANG])
def test_semver(expression: str, expected: Any) -> None:
    assert _eval(expression) == expected


@pytest.mark.parametrize(("expression", "error"), [
    ('isSemver([1, 2, 3])', "found no matching overload for 'isSemver' applied to '(list(int))'"),
    ('semver("1.0.0").isGreaterThan(quantity("1"))', "found no matching overload for 'isGreaterThan'"),
])
def test_refused_calls(expression: str, error: str) -> None:
    with pytest.raises(RuntimeError, match=error.replace("(", r"\(").replace(")", r"\)")):
        rules._compile(expression, {})

"""cel-cpp's overload errors in cel-go's words (fakekube.cel.overloaderrors): the texts kube-apiserver v1.37.2
answered in tests/differential/corpus/crd-cel-libs.yaml (crd-cel-libs/refused)."""

from __future__ import annotations

import pytest

from fakekube.cel import rules


def _issues(expression: str) -> str:
    with pytest.raises((RuntimeError, rules._Issues)) as info:
        rules._compile(expression, {})
    return rules.issues_text(info.value)


@pytest.mark.parametrize(("expression", "expected"), [
    ("semver('1.0.0').compareTo('1.0.0') > 0",  # recorded
     "found no matching overload for 'compareTo' applied to 'kubernetes.Semver.(string)'"),
    ("[1].first().orValue('') == ''",  # recorded (on a list of integers)
     "found no matching overload for 'orValue' applied to 'optional_type(int).(string)'"),
    ("isSemver(1)", "found no matching overload for 'isSemver' applied to '(int)'"),  # recorded
    ("format.named(1).hasValue()", "found no matching overload for 'format.named' applied to '(int)'"),  # recorded
    ("quantity('1').add(url('/'))",
     "found no matching overload for 'add' applied to 'kubernetes.Quantity.(kubernetes.URL)'"),
    ("'a'.startsWith(1)", "found no matching overload for 'startsWith' applied to 'string.(int)'"),
    ("1 + 'a'", "found no matching overload for '_+_' applied to '(int, string)'"),
])
def test_overload_errors(expression: str, expected: str) -> None:
    assert expected in _issues(expression)

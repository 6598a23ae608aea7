"""Go's ``%v`` renderings of decoded JSON in strategic-merge-patch errors (fakekube.patch.gofmt).

Floats follow strconv's 'g' format with the shortest digits: the exponent form from an exponent of 6 up or
below -4 (strconv ``ftoa.go``: "if precision was the shortest possible, use precision 6 for this decision"),
with at least two exponent digits; integers decode as int64 (apimachinery ``pkg/util/json``) and print whole.
"""

from __future__ import annotations

import pytest

from fakekube.patch.gofmt import go_type, go_value


@pytest.mark.parametrize("value, text", [
    (1000000.0, "1e+06"),
    (999999.0, "999999"),
    (123456789.5, "1.234567895e+08"),
    (0.5, "0.5"),
    (0.0001, "0.0001"),
    (0.00001, "1e-05"),
    (5.0, "5"),
    (-2.5e-7, "-2.5e-07"),
    (1000000, "1000000"),
    (None, "<nil>"),
    (True, "true"),
    ({"b": [1, 2.5], "a": "x"}, "map[a:x b:[1 2.5]]"),
])
def test_values_print_as_go_prints_them(value: object, text: str) -> None:
    assert go_value(value) == text


def test_types_are_the_decoded_go_types() -> None:
    assert [go_type(v) for v in ({}, [], "s", 1, 1.5, True, None)] == [
        "map[string]interface {}", "[]interface {}", "string", "int64", "float64", "bool", "<nil>"]

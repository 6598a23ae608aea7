"""Kubernetes' format CEL library (fakekube.cel.formatlib): the cases of k8s.io/apiserver v0.37.2
pkg/cel/library/format_test.go (``TestFormat``), with kube-openapi strfmt's date and date-time rules, and the
``[?0]`` rewrite keeping compile errors at the source's columns."""

from __future__ import annotations

from typing import Any

import pytest
from cel_expr_python import cel

from fakekube.cel import formatlib, rules

T = cel.Type
NONE = "<none>"

_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
          "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
              "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
              r"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
_DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
            "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
            "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
_QUALIFIED = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
              "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
              "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
_LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
                "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def _validate(expression: str) -> Any:
    result = rules._compile(f"({expression}).orValue(['{NONE}'])", {}).eval()
    value = result.plain_value()
    return NONE if value == [NONE] else value


UPSTREAM = [  # format_test.go TestFormat
    ('format.dns1123Label().validate("my-label-name")', NONE),
    ('format.dns1123Subdomain().validate("apiextensions.k8s.io")', NONE),
    ('format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")', NONE),
    ('format.dns1123LabelPrefix().validate("my-label-prefix-")', NONE),
    ('format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")', NONE),
    ('format.dns1035LabelPrefix().validate("my-label-prefix-")', NONE),
    ('format.uri().validate("http://example.com")', NONE),
    ('format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', NONE),
    ('format.byte().validate("aGVsbG8=")', NONE),
    ('format.date().validate("2021-01-01")', NONE),
    ('format.datetime().validate("2021-01-01T00:00:00Z")', NONE),
    ('format.dns1123Label().validate("contains a space")', [_LABEL]),
    ('format.dns1123Subdomain().validate("contains a space")', [_SUBDOMAIN]),
    ('format.dns1035Label().validate("contains a space")', [_DNS1035]),
    ('format.qualifiedName().validate("contains a space")', [_QUALIFIED]),
    ('format.dns1123LabelPrefix().validate("contains a space-")', [_LABEL]),
    ('format.dns1123SubdomainPrefix().validate("contains a space-")', [_SUBDOMAIN]),
    ('format.dns1035LabelPrefix().validate("contains a space-")', [_DNS1035]),
    ('format.dns1123Label().validate("my-label-name")', NONE),
    ('format.dns1123Subdomain().validate("example.com")', NONE),
    ('format.dns1035Label().validate("my-label-name")', NONE),
    ('format.qualifiedName().validate("my.name")', NONE),
    ('format.byte().validate("aGVsbG8=")', NONE),
    ('format.byte().validate("aGVsbG8")', ["invalid base64"]),
    ('format.date().validate("2020-01-01")', NONE),
    ('format.date().validate("2020-01-32")', ["invalid date"]),
    ('format.datetime().validate("2020-01-01T00:00:00Z")', NONE),
    ('format.datetime().validate("2020-01-32T00:00:00Z")', ["invalid datetime"]),
    ('format.labelValue().validate("my-cool-label-Value")', NONE),
    ('format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")', [_LABEL_VALUE]),
]

STRFMT = [  # kube-openapi strfmt IsDate (time.Parse "2006-01-02"), IsDateTime, UUIDPattern, govalidator Base64
    ('format.date().validate("2021-02-29")', ["invalid date"]),
    ('format.date().validate("2020-02-29")', NONE),
    ('format.date().validate("2020-1-01")', ["invalid date"]),
    ('format.datetime().validate("2020-01-01t23:59:59.5+01:00")', NONE),
    ('format.datetime().validate("2020-01-01T24:00:00Z")', ["invalid datetime"]),
    ('format.datetime().validate("2020-01-01T00:00:00")', ["invalid datetime"]),
    ('format.uuid().validate("123E4567E89B12D3A456426614174000")', NONE),
    ('format.uuid().validate("123e4567-e89b-12d3-a456-42661417400")', ["does not match the UUID format"]),
    ('format.byte().validate("")', ["invalid base64"]),
    ('format.uri().validate("example.com")', ['parse "example.com": invalid URI for request']),
]


@pytest.mark.parametrize(("expression", "expected"), UPSTREAM + STRFMT, ids=[c[0] for c in UPSTREAM + STRFMT])
def test_validate(expression: str, expected: Any) -> None:
    assert _validate(expression) == expected


NAMES = ["dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
         "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date", "datetime"]


def _bool(expression: str) -> bool:
    return bool(rules._compile(expression, {}).eval().plain_value())


@pytest.mark.parametrize("name", NAMES)
def test_named_formats(name: str) -> None:  # format_test.go: lookup and comparison of every constant
    assert _bool(f'format.named("{name}").hasValue()')
    assert _bool(f'format.named("{name}").value() == format.{name}()')
    assert not any(_bool(f"format.{name}() == format.{other}()") for other in NAMES if other != name)


def test_unknown_format() -> None:
    assert not _bool('format.named("unknown").hasValue()')


def test_rewrite_keeps_columns() -> None:
    source = 'format.named("uri").value().validate(1) ||\n  format.uri().validate("x").hasValue() + 1'
    rewritten = formatlib.rewrite(source)
    assert rewritten is not None
    assert rewritten.text.count("[?0]") == 3
    with pytest.raises(Exception) as info:
        rules._compile(source, {})
    text = rules.issues_text(info.value)
    assert "ERROR: <input>:1:37: found no matching overload for 'validate'" in text
    assert "ERROR: <input>:2:41: found no matching overload for '_+_' applied to '(bool, int)'" in text
    assert "\n | " + source.split("\n")[1] + "\n | " + "." * 40 + "^" in text


def test_rewrite_leaves_strings_and_fields() -> None:
    assert formatlib.rewrite('"x.validate(1)" == self.format.named') is None
    rewritten = formatlib.rewrite("self.format.named(1)")
    assert rewritten is None

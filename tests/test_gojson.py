"""fakekube.gojson: JSON read as Go reads it. The syntax errors below are Go 1.26's ``encoding/json`` words (the
scanner here agreed with ``json.Unmarshal`` on 40,000 generated inputs when it was written); the number and
text rules are what kube-apiserver v1.37.2 answered (docs/malformed-input.md)."""

from __future__ import annotations

import math

import pytest

from fakekube import gojson
from fakekube.gojson import BigNumber, GoJSONError, JSONSyntaxError


@pytest.mark.parametrize(("data", "message"), [
    (b"", "unexpected end of JSON input"),
    (b"  \n", "unexpected end of JSON input"),
    (b'{"a":1', "unexpected end of JSON input"),
    (b'{"a":NaN}', "invalid character 'N' looking for beginning of value"),
    (b'{"a":Infinity}', "invalid character 'I' looking for beginning of value"),
    (b'{"a":-Infinity}', "invalid character 'I' in numeric literal"),
    (b'{"a":1} x', "invalid character 'x' after top-level value"),
    (b'{"a":1}{}', "invalid character '{' after top-level value"),
    (b"{'a':1}", "invalid character '\\'' looking for beginning of object key string"),
    (b'{"a":1,}', "invalid character '}' looking for beginning of object key string"),
    (b'{"a":01}', "invalid character '1' after object key:value pair"),
    (b'{"a" 1}', "invalid character '1' after object key"),
    (b"[1 2]", "invalid character '2' after array element"),
    (b'"\\x"', "invalid character 'x' in string escape code"),
    (b'"\x01"', "invalid character '\\x01' in string literal"),
    (b'"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"),
    (b"-", "invalid character ' ' in numeric literal"),
    (b"1.", "invalid character ' ' after decimal point in numeric literal"),
    (b"1e+", "invalid character ' ' in exponent of numeric literal"),
    (b"tru", "invalid character ' ' in literal true (expecting 'e')"),
    (b"nul", "invalid character ' ' in literal null (expecting 'l')"),
    (b"\xf7", "invalid character '\u00f7' looking for beginning of value"),
    (b"[" * 10001 + b"]" * 10001, "invalid character '[' exceeded max depth"),
])
def test_syntax_errors_are_gos(data: bytes, message: str) -> None:
    assert gojson.syntax_error(data) == message
    with pytest.raises(JSONSyntaxError) as caught:
        gojson.loads(data)
    assert str(caught.value) == message


def test_valid_documents_parse_as_python_does() -> None:
    assert gojson.loads(b'{"a":[1,2.5,"x",true,null]}') == {"a": [1, 2.5, "x", True, None]}
    assert gojson.syntax_error(b'{"a":[1,2.5,"x",true,null]}') is None


def test_ten_thousand_levels_parse_without_recursion() -> None:
    doc = gojson.loads(b"[" * 10000 + b"1" + b"]" * 10000)
    depth = 0
    while isinstance(doc, list):
        doc, depth = doc[0], depth + 1
    assert (depth, doc) == (10000, 1)


def test_text_as_go_unquotes_it() -> None:
    # kube-apiserver v1.37.2 stores both as U+FFFD: each invalid byte, and an escaped lone surrogate.
    assert gojson.loads(b'{"a":"\xff\xfe"}') == {"a": "\ufffd\ufffd"}
    assert gojson.loads(b'{"a":"\\ud800x"}') == {"a": "\ufffdx"}
    assert gojson.loads(b'{"a":"\\ud83d\\ude00"}') == {"a": "\U0001f600"}


def test_numbers_beyond_64_bits_remember_their_text() -> None:
    flags = gojson.Flags()
    doc = gojson.loads(b'{"i":123456789012345678901234567890,"f":1e400,"ok":9223372036854775807}', flags=flags)
    assert flags.big and flags.floats
    assert isinstance(doc["i"], BigNumber) and repr(doc["i"]) == "123456789012345678901234567890"
    assert math.isinf(doc["f"]) and not doc["f"].finite and repr(doc["f"]) == "1e400"
    assert type(doc["ok"]) is int


def test_unstructured_holds_numbers_as_go_does() -> None:
    doc = gojson.loads(b'{"a":1.0,"b":1e3,"c":1.5,"d":123456789012345678901234567890,"e":[2.0],"f":-0.0}')
    assert gojson.unstructured(doc) == {"a": 1, "b": 1000, "c": 1.5, "d": 1.2345678901234568e29, "e": [2], "f": 0}
    assert type(doc["a"]) is int and type(doc["d"]) is float
    with pytest.raises(GoJSONError) as caught:
        gojson.unstructured(gojson.loads(b'{"spec":{"x":-1e400}}'))
    assert str(caught.value) == "json: cannot unmarshal number -1e400 into Go value of type float64"


def test_first_overflow_is_in_document_order() -> None:
    doc = gojson.loads(b'{"a":[1,{"b":1e999}],"c":2e999}')
    assert repr(gojson.first_overflow(doc)) == "1e999"
    assert gojson.first_overflow(gojson.loads(b'{"a":1e300}')) is None

"""The JSON bodies' fast path (orjson) writes exactly what the reference path (``json.dumps`` and Go's escapes)
writes, and leaves to the reference whatever it could write differently."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.server import encoding


def reference(document: object) -> bytes:
    return encoding._go_text(json.dumps(document, separators=(",", ":"), ensure_ascii=False))


# Every code point of the BMP's first planes that matters (controls, DEL, Latin, Go's escapes, BOM, specials,
# astral), lone surrogates included.
SPECIAL_TEXT = "".join(map(chr, range(0x800))) + "\u2028\u2029\ufeff\ufffe\uffff\U0001f600\U0010ffff"

json_scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
                | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12)
                | st.sampled_from(["<a&b>", "1e5", ",1.5", ":null", "\u2028", "\ud800", "89e-4", ":1e-5", ",-0.00001",
                                   "12:00:50.000000Z"]))
documents = st.recursive(json_scalars, lambda children: st.lists(children, max_size=4)
                         | st.dictionaries(st.text(max_size=6) | st.sampled_from(["a<", ",2."]), children,
                                           max_size=4), max_leaves=20)


@settings(max_examples=60, deadline=None)
@given(documents)
def test_marshal_is_the_reference_text(document: object) -> None:
    assert encoding.marshal(document) == reference(document)


def test_every_special_code_point_is_written_alike() -> None:
    document = {"text": SPECIAL_TEXT.replace("\ud800", ""), "list": list(SPECIAL_TEXT[:300])}
    assert encoding._fast_text(document) == reference(document)


def test_the_fast_path_takes_the_usual_objects() -> None:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap",
                  "metadata": {"name": "a", "labels": {"app": "b"}, "resourceVersion": "9",
                               "annotations": {"html": "<a&b>", "line": "\u2028x\u2029"}},
                  "data": {"k": "v\n\t\x00\x7f é 😀", "n": "null", "f": "1.5"}, "spec": {"replicas": 3, "on": True,
                                                                                 "nothing": None}}
    assert encoding._fast_text(config_map) == reference(config_map)
    assert encoding._fast_text([config_map, 2**63 - 1, -(2**63)]) == reference([config_map, 2**63 - 1, -(2**63)])


def test_strings_that_hold_a_float_s_text_keep_the_fast_path() -> None:
    # A UID's "9e-4" and a MicroTime's "0.0000" are text in strings, not numbers.
    items = [{"metadata": {"uid": f"0a1b2c39e-4{i:03d}", "renewTime": "2026-12-06T05:17:54.000001Z"}}
             for i in range(50)]
    assert encoding._fast_text({"items": items}) == reference({"items": items})


def test_what_the_fast_path_leaves_to_the_reference() -> None:
    class Text(str):
        pass

    for document in ({"f": 1e-05}, [2.5e-7], {"f": -0.00001234}, {"nan": math.nan}, {"inf": [math.inf]},
                     {"big": 2**64}, {1: "int key"}, {"s": "\ud800"}, {"sub": Text("x")}, 1, "text", None):
        assert encoding._fast_text(document) is None, document
        assert encoding.marshal(document) == reference(document)
    assert encoding.marshal({"nan": math.nan}) == b'{"nan":NaN}'  # what json.dumps writes, as before
    assert encoding.marshal({"s": "\ud800"}) == b'{"s":"?"}'  # as before
    # Floats both write alike take the fast path.
    for document in ({"f": 1e16}, {"f": 1.0}, [0.1, -0.0001, 1.5e300, 123.25]):
        assert encoding._fast_text(document) == reference(document)
    # A string that merely looks like a float or a null is written exactly either way.
    assert encoding.marshal({"a": "x,1.5", "b": ":null"}) == b'{"a":"x,1.5","b":":null"}'


def test_encode_adds_the_serializers_newline() -> None:
    assert encoding.encode({"a": "<"}) == b'{"a":"\\u003c"}\n'
    assert encoding.encode({"a": 1}, pretty=True) == b'{\n  "a": 1\n}'

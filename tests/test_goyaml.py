"""fakekube.goyaml: YAML converted as sigs.k8s.io/yaml v1.6.0 (go-yaml v2) converts it. Expected values are what
kube-apiserver v1.37.2 stored and answered for these bodies, and what ``yaml.YAMLToJSON`` returned when the
converter was compared with it on 20,000 generated documents (docs/malformed-input.md)."""

from __future__ import annotations

import pytest

from fakekube.goyaml import GoYAMLError, yaml_to_json


@pytest.mark.parametrize(("text", "expected"), [
    ("d: 2024-01-31", "2024-01-31"),  # a timestamp stays the text it was
    ("d: 2001-12-14 21:59:43.10 -5", "2001-12-14 21:59:43.10 -5"),
    ("d: !!binary aGVsbG8=", "hello"),
    ("d: !!binary /w==", "\ufffd"),  # bytes that are not UTF-8
    ("d: !!set {a, b}", {"a": None, "b": None}),
    ("d: !!omap [a: 1, b: 2]", [{"a": 1}, {"b": 2}]),
    ("d: y", True), ("d: n", False), ("d: On", True), ("d: tRUE", "tRUE"), ("d: ~", None),
    ("d: 08", 8), ("d: 0x1F", 31), ("d: 0o17", 15), ("d: 017", 15), ("d: 1_000", 1000), ("d: -0b101", -5),
    ("d: .5", 0.5), ("d: 1.0", 1), ("d: -0.0", 0), ("d: 1e3", 1000), ("d: 1:30", "1:30"), ("d: 1e400", "1e400"),
    ("d: 12345678901234567890", 1.2345678901234567e19),  # a uint64 read back as a float64
    ("d: !!str 123", "123"), ("d: !foo bar", "bar"), ("d: !!float 1", 1), ("d: !!int 0x10", 16),
    ("d: '1'", "1"), ("d: \t1", 1),  # a tab after `key:` is whitespace to libyaml
    ("d: {1: a, 1.5: b, 1e10: c, true: d, no: e, .inf: f}",
     {"1": "a", "1.5": "b", "1e+10": "c", "true": "d", "false": "e", ".inf": "f"}),
    ("d: {a: 1, <<: {a: 2, b: 3}, c: 4}", {"a": 2, "b": 3, "c": 4}),  # merges overwrite in document order
    ("d: {<<: [{a: 1}, {a: 2, b: 2}]}", {"a": 1, "b": 2}),
])
def test_values_as_the_server_stores_them(text: str, expected: object) -> None:
    assert yaml_to_json(text + "\n")["d"] == expected


def test_only_the_first_document_counts() -> None:
    assert yaml_to_json("a: 1\n---\nb: [\n") == {"a": 1}
    assert yaml_to_json("a: 1\n...\nfoo: [\n") == {"a": 1}
    for empty in ("", "---\n", "null\n", "# only a comment\n"):
        assert yaml_to_json(empty) is None


@pytest.mark.parametrize(("text", "message"), [
    ("d: !!int abc\n", "yaml: cannot decode !!str `abc` as a !!int"),
    ("d: !!binary '%%%'\n", "yaml: !!binary value contains invalid base64 data"),
    ("d: !!binary aGVsbG8\n", "yaml: !!binary value contains invalid base64 data"),
    ("d: {<<: 5}\n", "yaml: map merge requires map or sequence of maps as the value"),
    ("d: {~: a}\n", 'unsupported map key of type: %!s(<nil>), key: <nil>, value: "a"'),
    ("d: {18446744073709551615: a}\n", 'unsupported map key of type: uint64, key: 0xffffffffffffffff, value: "a"'),
    ("d: {? {a: 1} : b}\n", 'yaml: invalid map key: map[interface {}]interface {}{"a":1}'),
    ("d: {? [a, b] : c}\n", 'yaml: invalid map key: []interface {}{"a", "b"}'),
    ("d: *x\n", "yaml: unknown anchor 'x' referenced"),
    ("d: &x {a: *x}\n", "yaml: anchor 'x' value contains itself"),
    ("d: .nan\n", "json: unsupported value: NaN"),
    ("d: -.Inf\n", "json: unsupported value: -Inf"),
    ("a: 1\nd: a: b: c\n", "yaml: line 2: mapping values are not allowed in this context"),
    ("a: 1\nd: 'x}\n", "yaml: line 3: found unexpected end of stream"),
    ("a:\n  b: 1\n c: 2\n", "yaml: line 2: did not find expected key"),
    ("a: 1\nb:\n\tc: 2\n", "yaml: line 3: found character that cannot start any token"),
    ('a: "\\q"\n', "yaml: found unknown escape character"),  # (go-yaml prints no line 0)
    ('{"a":', "yaml: line 1: did not find expected node content"),
])
def test_errors_are_go_yamls(text: str, message: str) -> None:
    with pytest.raises(GoYAMLError) as caught:
        yaml_to_json(text)
    assert str(caught.value) == message


def test_excessive_aliasing_is_refused() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i, name in enumerate("bcdefghij"):
        prev = "abcdefghij"[i]
        lines.append(f"{name}: &{name} [{', '.join(['*' + prev] * 10)}]")
    with pytest.raises(GoYAMLError) as caught:
        yaml_to_json("\n".join(lines) + "\n")
    assert str(caught.value) == "yaml: document contains excessive aliasing"

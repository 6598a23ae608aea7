"""Label and field selectors: grammar, semantics and error texts of apimachinery pkg/labels, pkg/fields."""

from __future__ import annotations

import pytest

from fakekube.errors import BadRequest
from fakekube.fieldselectors import FieldSelector
from fakekube.selectors import LabelSelector

KEY_REGEX_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("", ""),
        ("a=b", "a=b"),
        ("a==b", "a==b"),
        ("a!=b", "a!=b"),
        (" a = b , c != d ", "a=b,c!=d"),
        ("x in (b,a), !y, z", "x in (a,b),!y,z"),
        ("x notin (b, a, b)", "x notin (a,b)"),
        ("a>5", "a>5"),
        ("b=1,a=2", "a=2,b=1"),
        ("a=", "a="),
        ("a in ()", "a in ()"),
        ("a in (,b)", "a in (,b)"),
        ("in in (in,notin)", "in in (in,notin)"),
        ("example.com/app=web", "example.com/app=web"),
        ("!a,a", "!a,a"),
    ],
)
def test_label_selector_canonical_form(text: str, canonical: str) -> None:
    assert str(LabelSelector.parse(text)) == canonical


def test_label_selector_negative_bound_is_rejected() -> None:
    # "-5" is not a valid label value, so upstream rejects a negative bound even though ParseInt accepts it.
    with pytest.raises(BadRequest, match=r'values\[0\]\[a\]: Invalid value: "-5"'):
        LabelSelector.parse("a<-5")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
        ("a=b c", "found 'c', expected: ',' or 'end of string'"),
        ("a=b=c", "found '=', expected: ',' or 'end of string'"),
        ("a in b", "unable to parse requirement: found 'b' expected: '('"),
        ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
        ("a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"),
        ("a,", "found '', expected: identifier after ','"),
        (",a", "found ',', expected: !, identifier, or 'end of string'"),
        ("=a", "found '=', expected: !, identifier, or 'end of string'"),
        ("!", "unable to parse requirement: found '', expected: identifier"),
        ("a >= 3", "unable to parse requirement: found '=', expected: identifier"),
        (
            "a>x",
            "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
        ("a in (x=)", "unable to parse requirement: found '=', expected: ',' or ')'"),
        ("a b c", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
        (
            "a/b/c=d",
            'unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key '
            + KEY_REGEX_ERR
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        ),
        ("-a=b", 'unable to parse requirement: <nil>: Invalid value: "-a": name part ' + KEY_REGEX_ERR),
        ("/a=b", 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty'),
        (
            "a=b_",
            'unable to parse requirement: values[0][a]: Invalid value: "b_": a valid label must be an empty '
            "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
        (
            "a=" + "x" * 64,
            'unable to parse requirement: values[0][a]: Invalid value: "'
            + "x" * 64
            + '": must be no more than 63 bytes',
        ),
    ],
)
def test_label_selector_malformed(text: str, message: str) -> None:
    with pytest.raises(BadRequest) as info:
        LabelSelector.parse(text)
    assert info.value.code == 400
    assert info.value.reason == "BadRequest"
    assert info.value.message == message


LABELS = {"app": "web", "tier": "front", "n": "10", "neg": "-3", "text": "abc"}


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        ("", LABELS, True),
        ("", None, True),
        ("app=web", LABELS, True),
        ("app==web", LABELS, True),
        ("app=db", LABELS, False),
        ("missing=x", LABELS, False),
        ("app!=db", LABELS, True),
        ("app!=web", LABELS, False),
        ("missing!=x", LABELS, True),  # != matches a missing key
        ("app in (web,db)", LABELS, True),
        ("app in (db)", LABELS, False),
        ("missing in (x)", LABELS, False),
        ("app notin (db)", LABELS, True),
        ("app notin (web)", LABELS, False),
        ("missing notin (x)", LABELS, True),  # notin matches a missing key
        ("app", LABELS, True),
        ("missing", LABELS, False),
        ("!missing", LABELS, True),
        ("!app", LABELS, False),
        ("n>9", LABELS, True),
        ("n>10", LABELS, False),
        ("n<11", LABELS, True),
        ("neg<0", LABELS, True),
        ("text>1", LABELS, False),  # non-numeric label value never matches
        ("missing>1", LABELS, False),
        ("missing<1", LABELS, False),
        ("app=web,tier=front", LABELS, True),
        ("app=web,tier=back", LABELS, False),
        ("empty=", {"empty": ""}, True),
        ("empty=", {}, False),
        ("empty in ()", {"empty": ""}, True),
        ("app", None, False),
        ("!app", None, True),
    ],
)
def test_label_selector_matches(text: str, labels: dict[str, str] | None, expected: bool) -> None:
    assert LabelSelector.parse(text).matches(labels) is expected


def test_label_selector_empty() -> None:
    assert LabelSelector.parse(None).empty
    assert LabelSelector.parse("").empty
    assert not LabelSelector.parse("a").empty


@pytest.mark.parametrize(
    ("sel", "labels", "expected"),
    [
        ({}, {"a": "b"}, True),
        ({"matchLabels": {"a": "b"}}, {"a": "b"}, True),
        ({"matchLabels": {"a": "b"}}, {"a": "c"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["b", "c"]}]}, {"a": "c"}, True),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["b"]}]}, {}, True),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": ""}, True),
        ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": ""}, False),
        (
            {"matchLabels": {"a": "b"}, "matchExpressions": [{"key": "c", "operator": "Exists"}]},
            {"a": "b"},
            False,
        ),
    ],
)
def test_label_selector_from_dict(sel: dict, labels: dict[str, str], expected: bool) -> None:
    assert LabelSelector.from_dict(sel).matches(labels) is expected


def test_label_selector_from_dict_none_matches_nothing() -> None:
    sel = LabelSelector.from_dict(None)
    assert not sel.matches({})
    assert not sel.empty


def test_label_selector_from_dict_string_form() -> None:
    sel = LabelSelector.from_dict(
        {
            "matchLabels": {"b": "1"},
            "matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["y", "x"]}],
        }
    )
    assert str(sel) == "a notin (x,y),b=1"


@pytest.mark.parametrize(
    ("sel", "message"),
    [
        (
            {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
            '"Gt" is not a valid label selector operator',
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]},
            "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
            'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
        ),
        ({"matchLabels": {"a b": "c"}}, 'key: Invalid value: "a b": name part ' + KEY_REGEX_ERR),
    ],
)
def test_label_selector_from_dict_invalid(sel: dict, message: str) -> None:
    with pytest.raises(BadRequest) as info:
        LabelSelector.from_dict(sel)
    assert info.value.message == message


def test_label_selector_requires_exact_match() -> None:
    sel = LabelSelector.parse("a=1,b in (2),c in (3,4),d!=5")
    assert sel.requires_exact_match("a") == "1"
    assert sel.requires_exact_match("b") == "2"
    assert sel.requires_exact_match("c") is None
    assert sel.requires_exact_match("d") is None


def test_label_selector_over_many_label_sets() -> None:
    # Speed is measured by `python -m benchmarks store` (label-selector lists over 1k and 10k objects), not here:
    # a wall-clock bound flakes on a loaded CI machine.
    sel = LabelSelector.parse("app=web,tier in (a,b),!canary,env!=prod")
    objects = [{"app": "web" if i % 2 else "db", "tier": "cab"[i % 3], "env": "prod" if i % 5 == 0 else "dev",
                **({"canary": ""} if i % 7 == 0 else {})} for i in range(10_000)]
    expected = sum(1 for i in range(10_000) if i % 2 and i % 3 and i % 5 and i % 7)
    assert sum(1 for labels in objects if sel.matches(labels)) == expected


# ------------------------------------------------------------------------------------------- fields


@pytest.mark.parametrize(
    ("text", "requirements", "canonical"),
    [
        ("", (), ""),
        ("metadata.name=foo", (("metadata.name", "=", "foo"),), "metadata.name=foo"),
        ("metadata.name==foo", (("metadata.name", "=", "foo"),), "metadata.name=foo"),
        ("status.phase!=Running", (("status.phase", "!=", "Running"),), "status.phase!=Running"),
        ("b=1,a=2", (("a", "=", "2"), ("b", "=", "1")), "a=2,b=1"),
        ("a=1,,b=2", (("a", "=", "1"), ("b", "=", "2")), "a=1,b=2"),
        ("a=", (("a", "=", ""),), "a="),
        (r"a=x\,y", (("a", "=", "x,y"),), r"a=x\,y"),
        (r"a=x\=y\\z", (("a", "=", "x=y\\z"),), r"a=x\=y\\z"),
        ("a!=b=", None, None),
    ],
)
def test_field_selector_parse(text: str, requirements: tuple | None, canonical: str | None) -> None:
    if requirements is None:
        with pytest.raises(BadRequest):
            FieldSelector.parse(text)
        return
    sel = FieldSelector.parse(text)
    assert sel.requirements == requirements
    assert str(sel) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a", "invalid selector: 'a'; can't understand 'a'"),
        ("a=1,b", "invalid selector: 'a=1,b'; can't understand 'b'"),
        ("a=b=c", "invalid field selector: unescaped character in value: 61"),
        (r"a=\x", r"invalid field selector: invalid escape sequence: \x"),
        ("a=b\\", "invalid field selector: invalid escape sequence: \\"),
    ],
)
def test_field_selector_malformed(text: str, message: str) -> None:
    with pytest.raises(BadRequest) as info:
        FieldSelector.parse(text)
    assert info.value.message == message
    assert info.value.code == 400


@pytest.mark.parametrize(
    ("text", "values", "expected"),
    [
        ("", {}, True),
        ("metadata.name=foo", {"metadata.name": "foo"}, True),
        ("metadata.name=foo", {"metadata.name": "bar"}, False),
        ("metadata.name!=foo", {"metadata.name": "bar"}, True),
        ("spec.nodeName=", {}, True),  # missing renders as ""
        ("spec.nodeName!=", {}, False),
        ("a=1,b!=2", {"a": "1", "b": "3"}, True),
        ("a=1,b!=2", {"a": "1", "b": "2"}, False),
    ],
)
def test_field_selector_matches(text: str, values: dict[str, str], expected: bool) -> None:
    assert FieldSelector.parse(text).matches(values) is expected


def test_field_selector_fields() -> None:
    assert FieldSelector.parse("metadata.name=a,status.phase!=b").fields() == {
        "metadata.name",
        "status.phase",
    }
    assert FieldSelector.parse("metadata.name=a").requires_exact_match("metadata.name") == "a"
    assert FieldSelector.parse(None).empty

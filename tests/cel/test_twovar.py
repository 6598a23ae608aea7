"""Two-variable comprehensions (fakekube.cel.macros, fakekube.cel.twovar): the cases of
github.com/google/cel-go v0.29.2 ext/comprehensions_test.go (``TestTwoVarComprehensions``,
``TestTwoVarComprehensionsStaticErrors``), and estimated costs computed by upstream's estimator
(k8s.io/apiextensions-apiserver v0.37.2 through oracle/cmd/celcost)."""

from __future__ import annotations

import pytest
from cel_expr_python import cel

from fakekube.cel import rules
from tests.cel.test_cost import _estimate
from tests.cel.test_libcost import SCHEMA

T = cel.Type

UPSTREAM = [  # TestTwoVarComprehensions; those calling string functions the base environment lacks
    # (reverse: strings version 3) are left out
    "[1, 2, 3, 4].all(i, v, i < 5 && v > 0)",
    "[1, 2, 3, 4].all(i, v, i < v)",
    "[1, 2, 3, 4].all(i, v, i > v) == false",
    "cel.bind(listA, [1, 2, 3, 4], cel.bind(listB, [1, 2, 3, 4, 5], "
    "listA.all(i, v, listB[?i].hasValue() && listB[i] == v)))",
    "cel.bind(listA, [1, 2, 3, 4, 5, 6], cel.bind(listB, [1, 2, 3, 4, 5], "
    "listA.all(i, v, listB[?i].hasValue() && listB[i] == v))) == false",
    "cel.bind(l, ['hello', 'world', 'hello!', 'worlds'], l.exists(i, v, "
    "v.startsWith('hello') && l[?(i+1)].optMap(next, next.endsWith('world')).orValue(false)))",
    "cel.bind(l, ['hello', 'world', 'hello!', 'worlds'], l.existsOne(i, v, "
    "v.startsWith('hello') && l[?(i+1)].optMap(next, next.endsWith('world')).orValue(false)))",
    "cel.bind(l, ['hello', 'goodbye', 'hello!', 'goodbye'], l.exists_one(i, v, "
    "v.startsWith('hello') && l[?(i+1)].optMap(next, next == \"goodbye\").orValue(false))) == false",
    "['Hello', 'world'].transformList(i, v, \"[%d]%s\".format([i, v.lowerAscii()])) == [\"[0]hello\", \"[1]world\"]",
    "['hello', 'world'].transformList(i, v, v.startsWith('greeting'), \"[%d]%s\".format([i, v])) == []",
    "[1, 2, 3].transformList(indexVar, valueVar, (indexVar * valueVar) + valueVar) == [1, 4, 9]",
    "[1, 2, 3].transformList(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar) == [1, 9]",
    "['Hello', 'world'].transformMap(i, v, [v.lowerAscii()]) == {0: ['hello'], 1: ['world']}",
    "['world', 'Hello'].transformMap(i, v, [v.lowerAscii()])\n  .transformList(k, v, v) // back to the list\n"
    "  .flatten()\n  .sort() == ['hello', 'world']",
    "[1, 2, 3].transformMap(indexVar, valueVar, (indexVar * valueVar) + valueVar) == {0: 1, 1: 4, 2: 9}",
    "[1, 2, 3].transformMap(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar) == {0: 1, 2: 9}",
    "\"key1:value1 key2:value2 key3:value3\".split(\" \").transformMapEntry(i, v, cel.bind(entry, v.split(\":\"), "
    "entry.size() == 2 ? {entry[0]: entry[1]} : {})) == {'key1': 'value1', 'key2': 'value2', 'key3': 'value3'}",
    "\"key1:value1:extra key2:value2 key3\".split(\" \").transformMapEntry(i, v, cel.bind(entry, v.split(\":\"), "
    "{?entry[0]: entry[?1]})) == {'key1': 'value1', 'key2': 'value2'}",
    "{'hello': 'world', 'hello!': 'world'}.all(k, v, k.startsWith('hello') && v == 'world')",
    "{'hello': 'world', 'hello!': 'worlds'}.all(k, v, k.startsWith('hello') && v.endsWith('world')) == false",
    "{'hello': 'world', 'hello!': 'worlds'}.exists(k, v, k.startsWith('hello') && v.endsWith('world'))",
    "{'hello': 'world', 'hello!': 'worlds'}.existsOne(k, v, k.startsWith('hello') && v.endsWith('world'))",
    "{'hello': 'world', 'hello!': 'worlds'}.exists_one(k, v, k.startsWith('hello') && v.endsWith('world'))",
    "{'hello': 'world', 'hello!': 'wow, world'}.exists_one(k, v, k.startsWith('hello') && v.endsWith('world'))"
    " == false",
    "{'Hello': 'world'}.transformList(k, v, \"%s=%s\".format([k.lowerAscii(), v])) == [\"hello=world\"]",
    "dyn({'Hello': 'world'}).transformList(k, v, \"%s=%s\".format([k.lowerAscii(), v])) == [\"hello=world\"]",
    "{'hello': 'world'}.transformList(k, v, k.startsWith('greeting'), \"%s=%s\".format([k, v])) == []",
    "{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(k, _, k).sort() == ['farewell', 'greeting']",
    "{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(_, v, v).sort() == ['goodbye', 'hello']",
    "{'hello': 'world', 'goodbye': 'cruel world'}.transformMap(k, v, \"%s, %s!\".format([k, v])) "
    "== {'hello': 'hello, world!', 'goodbye': 'goodbye, cruel world!'}",
    "dyn({'hello': 'world', 'goodbye': 'cruel world'}).transformMap(k, v, \"%s, %s!\".format([k, v])) "
    "== {'hello': 'hello, world!', 'goodbye': 'goodbye, cruel world!'}",
    "{'hello': 'world', 'goodbye': 'cruel world'}.transformMap(k, v, v.startsWith('world'), "
    "\"%s, %s!\".format([k, v])) == {'hello': 'hello, world!'}",
    "{'hello': 'world', 'greetings': 'tacocat'}.transformMapEntry(k, v, {}) == {}",
]


@pytest.mark.parametrize("expression", UPSTREAM, ids=range(len(UPSTREAM)))
def test_two_var(expression: str) -> None:
    result = rules._compile(expression, {}).eval()
    assert result.plain_value() is True


STATIC_ERRORS = [  # TestTwoVarComprehensionsStaticErrors: the macros' own errors
    ("[].all(i, i, i < i)", "duplicate variable name: i"),
    ("[].all(i.j, k, i.j < k)", "argument must be a simple name"),
    ("[].all(j, i.k, j < i.k)", "argument must be a simple name"),
    ("[].exists(i.j, k, i.j < k)", "argument must be a simple name"),
    ("[].existsOne(j, i.k, j < i.k)", "argument must be a simple name"),
    ("[].exists_one(i.j, k, i.j < k)", "argument must be a simple name"),
    ("[].transformList(j, i.k, j + i.k)", "argument must be a simple name"),
    ("{}.transformMap(i.j, k, i.j + k)", "argument must be a simple name"),
    ("{}.transformMapEntry(j, i.k, {j: i.k})", "argument must be a simple name"),
    ("{}.transformMapEntry(j, k, 'bad filter', {k: j})", "no matching overload"),
    ("[1, 2].transformList(i, v, v % 2 == 0 ? [v] : v)", "no matching overload"),
]


@pytest.mark.parametrize(("expression", "error"), STATIC_ERRORS, ids=[c[0] for c in STATIC_ERRORS])
def test_static_errors(expression: str, error: str) -> None:
    with pytest.raises((RuntimeError, rules._Issues)) as info:
        rules._compile(expression, {})
    assert error in rules.issues_text(info.value)


def test_duplicate_key() -> None:  # cel-go types.InsertMapKeyValue
    result = rules._compile("[1, 1].transformMapEntry(i, v, {v: i})", {}).eval()
    assert result.type() == T.ERROR and "insert failed: key 1 already exists" in str(result.value())


UPSTREAM_ESTIMATOR = [
    ("self.l.all(i, v, v > i)", 63), ("self.ls.exists(i, v, v == 'a' && i > 2)", 83),
    ("self.m.all(k, v, k.startsWith('a') && v.size() > 0)", 43), ("self.l.existsOne(i, v, v == 1)", 34),
    ("self.l.exists_one(i, v, v == 1)", 34), ("self.l.transformList(i, v, v * 2).size() > 0", 155),
    ("self.l.transformList(i, v, i > 2, v * 2).size() > 0", 175),
    ("self.m.transformMap(k, v, v + 'x').size() > 0", 80),
    ("self.m.transformMap(k, v, k != 'a', v + 'x').size() > 0", 85),
    ("self.ls.transformMapEntry(i, v, {v: i}).size() > 0", 375),
    ("self.l.all(i, v, self.l.all(j, w, i == j || v != w))", 863),
    ("self.ls.transformList(i, v, v).all(i, v, v != '')", 184),
]


@pytest.mark.parametrize(("rule", "expected"), UPSTREAM_ESTIMATOR, ids=[c[0] for c in UPSTREAM_ESTIMATOR])
def test_estimated_cost(rule: str, expected: int) -> None:
    assert _estimate(SCHEMA, rule) == expected


@pytest.mark.parametrize(("expression", "error"), [
    # kube-apiserver v1.37.2's words and columns (crd-cel-libs/refused)
    ("self.exists(i, v, v == 'a')",
     "ERROR: <input>:1:1: expression of type 'string' cannot be range of a comprehension (must be list, map, or "
     "dynamic)\n | self.exists(i, v, v == 'a')\n | ^"),
    ("[].exists(i, v.x, true)", "ERROR: <input>:1:15: argument must be a simple name"),
])
def test_refused_ranges_and_variables(expression: str, error: str) -> None:
    with pytest.raises((RuntimeError, rules._Issues)) as info:
        rules._compile(expression, {"self": T.STRING})
    assert rules.issues_text(info.value).startswith(error)

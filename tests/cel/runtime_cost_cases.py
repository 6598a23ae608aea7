"""The cases of tests/cel/test_runtime_cost.py: CRD schema nodes with rules, and objects to validate.

Each case is ``{"name", "schema", "obj", "old"?, "budget"?}``; scripts/record-cel-runtime-cost asks upstream
(``oracle/cmd/celcost``: k8s.io/apiextensions-apiserver v0.37.2's ``Validator.Validate``) what the rules cost
and which errors they give, into runtime_cost_cases.json. Large values are written compactly (``expand``):
``{"$str": [text, n]}`` is ``text`` n times, ``{"$list": [item, n]}`` n items (``{i}`` in a string: the index),
``{"$range": n}`` the integers below n.
"""

from __future__ import annotations

from typing import Any

S: dict[str, Any] = {"type": "string"}
INT: dict[str, Any] = {"type": "integer"}
N: dict[str, Any] = {"type": "number"}


def expand(v: Any, i: int = 0) -> Any:
    if isinstance(v, dict):
        if set(v) == {"$str"}:
            return v["$str"][0] * v["$str"][1]
        if set(v) == {"$list"}:
            return [expand(v["$list"][0], k) for k in range(v["$list"][1])]
        if set(v) == {"$range"}:
            return list(range(v["$range"]))
        return {k: expand(x, i) for k, x in v.items()}
    if isinstance(v, list):
        return [expand(x, i) for x in v]
    if isinstance(v, str) and "{i}" in v:
        return v.replace("{i}", str(i))
    return v


def _rule(rule: str, **extra: Any) -> dict[str, Any]:
    return {"rule": rule, **extra}


_OBJ = {"type": "object", "properties": {
    "a": INT, "n": N, "s": S, "l": {"type": "array", "items": INT}, "ls": {"type": "array", "items": S},
    "m": {"type": "object", "additionalProperties": INT}, "b": {"type": "object", "properties": {"c": INT}},
    "q": {"x-kubernetes-int-or-string": True}, "u": S, "ip": S, "d": {"type": "string", "format": "duration"},
    "o": {"type": "array", "items": {"type": "object", "properties": {"n": S, "v": INT}}}}}
_SMALL = {"a": 2, "n": 1.5, "s": "aaaa", "l": [1, 2, 3], "ls": ["x", "yy", "zzz"], "m": {"a": 1, "b": 2},
          "b": {"c": 1}, "q": "1Gi", "u": "https://example.com/path?x=1", "ip": "10.1.2.3", "d": "1h",
          "o": [{"n": "x0", "v": 0}, {"n": "x1", "v": 1}]}
_LARGE = {"a": 2, "s": {"$str": ["a", 200000]}, "l": {"$range": 9000}, "ls": {"$list": [{"$str": ["x", 50]}, 2000]},
          "o": {"$list": [{"n": "x{i}", "v": 7}, 4000]}, "m": {"k": 1}, "b": {"c": 1}}

SINGLE_RULES = [
    # attributes: one per variable, one per qualifier; computed operands and indexes
    "self.a == 1", "self.b.c == 1", "self.l[0] == 1", "self.l[self.a] == 3", "self.l[1 + 1] == 3",
    "self.m[self.s] == 1", "self.m['a'] == 1", "self.ls[0].size() == 1", "self.s.split('a')[0] == ''",
    "self.m[self.s.substring(0, 1)] == 1", "size(self.s) == 4", "self.s.size() == 4",
    # presence tests cost their qualifiers only
    "has(self.s)", "has(self.b.c)", "has(self.m.zz) || true", "!has(self.m.a)",
    # ternaries: the condition and the branch taken; an attribute branch costs its qualifiers
    "self.s == 'x' ? self.a == 1 : self.a == 2", "(self.s == 'x' ? self.b : self.b).c == 1",
    "(self.s == 'aaaa' ? self.a : self.l[0]) == 2", "self.l.size() > 0 ? self.l[0] == 1 : false",
    "(self.a > 1 ? 'x' : self.s) == 'x'",
    # logical operators stop at the first deciding term
    "self.l.exists(x, x == 1) || self.l.all(x, x > 5)", "self.l.all(x, x > 5) && self.a == 2",
    "self.a == 3 || self.s == 'aaaa'", "self.a == 2 && self.s.startsWith('b')",
    # comprehensions: early exit, accumulators, nesting
    "self.l.all(x, x > 0)", "self.l.exists(x, x > 1)", "self.l.exists_one(x, x == 2)",
    "self.l.map(x, x + 1).size() == 3", "self.l.filter(x, x > 1).size() == 2", "self.l.map(x, x > 1, x * 2)[0] == 4",
    "self.ls.all(s, s.size() < 5)", "self.ls.map(x, x.size()).exists(n, n == 3)", "self.m.all(k, self.m[k] > 0)",
    "self.l.all(x, self.l.all(y, x + y > 0))", "self.o.all(i, i.n.startsWith('x'))",
    "[1, 2, 3].all(x, x > 0)", "self.l.all(x, x in [1, 2, 3])", "self.o.exists(i, has(i.v) && i.v == 1)",
    # literals: constant ones are free, others cost their base
    "[self.a, 2].size() == 2", "{'a': self.a}.size() == 1", "[1, 2] == [1, 2]", "{'a': [1]}.size() == 1",
    "self.s in ['a', 'b']", "self.s in []", "self.a in [1, 2, 3]", "self.s in [self.s, 'x']",
    "self.s in self.ls", "'a' in self.m", "self.l == [1, 2, 3]",
    # conversions of constants are folded
    "int('5') == 5", "string(self.a) == '2'", "double(self.a) < self.n + 1.0", "duration('1h') > duration('1m')",
    "timestamp('2020-01-01T00:00:00Z') < timestamp('2021-01-01T00:00:00Z')",
    "bytes(self.s).size() == 4", "string(bytes(self.s)) == self.s", "type(self.a) == int", "dyn(self.a) == 2",
    # strings
    "self.s.matches('^a+$')", "self.s.contains('aa')", "self.s + 'b' != 'x'", "self.s < 'b'",
    "self.s.startsWith('aa') && self.s.endsWith('a')", "self.s.lowerAscii() == self.s", "self.s.upperAscii() == 'AAAA'",
    "self.s.replace('a', 'b') == 'bbbb'", "self.s.split('a').size() == 5", "self.s.indexOf('a') == 0",
    "self.s.lastIndexOf('a') == 3", "self.s.trim() == self.s", "self.s.charAt(1) == 'a'",
    "self.ls.join(',').size() > 0", "self.ls.join().size() == 6", "'%s-%d'.format([self.s, self.a]) == 'aaaa-2'",
    "self.s.find('a+') == 'aaaa'", "self.s.findAll('a').size() == 4", "self.s.substring(1) == 'aaa'",
    # lists library
    "self.l.isSorted()", "self.l.sum() == 6", "self.l.max() == 3", "self.l.min() == 1", "self.l.indexOf(2) == 1",
    "self.l.lastIndexOf(3) == 2", "self.ls.isSorted()", "lists.range(3).size() == 3", "self.l.slice(1, 2) == [2]",
    "self.l.reverse()[0] == 3", "self.l.distinct().size() == 3", "self.l.sort()[0] == 1", "self.ls.sort()[0] == 'x'",
    "[self.l, [4]].flatten().size() == 4", "sets.contains(self.l, [1])", "sets.intersects(self.l, [9])",
    "sets.equivalent(self.l, [3, 2, 1])",
    # optionals
    "self.?s.orValue('') == 'aaaa'", "self.?s.hasValue()", "optional.of(self.a).value() == 2",
    "self.?b.?c.orValue(0) == 1", "self.m[?'a'].orValue(0) == 1", "self.m[?'zz'].orValue(0) == 0",
    "self.l[?5].hasValue() == false", "optional.none().or(self.?s).hasValue()", "optional.ofNonZeroValue(self.s).hasValue()",
    # Kubernetes libraries
    "quantity(self.q).isGreaterThan(quantity('1Mi'))", "isQuantity(self.q)", "quantity(self.q) == quantity('1Gi')",
    "quantity(self.q).asApproximateFloat() > 1.0", "quantity(self.q).add(quantity('1')).isInteger()",
    "url(self.u).getHost() == 'example.com'", "url(self.u).getQuery().size() == 1", "isURL(self.u)",
    "url('https://example.com/' + self.s).getHostname() == 'example.com'", "url(self.u).getEscapedPath() == '/path'",
    "ip(self.ip).family() == 4", "isIP(self.ip)", "ip(self.ip).isGlobalUnicast()", "ip.isCanonical(self.ip)",
    "cidr('10.0.0.0/8').containsIP(ip(self.ip))", "cidr('10.0.0.0/8').containsIP(self.ip)", "isCIDR('10.0.0.0/8')",
    "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", "cidr('10.0.0.0/8').ip() == ip('10.0.0.0')",
    "cidr('10.0.0.0/8').prefixLength() == 8", "cidr('10.0.0.0/8').masked() == cidr('10.0.0.0/8')",
    "ip(self.ip) == ip('10.1.2.3')", "string(ip(self.ip)) == self.ip",
    # errors still cost what was evaluated
    "self.m['zz'] == 1", "self.l[9] == 1", "self.a / 0 == 1", "self.l.all(x, self.m['zz'] == x)",
]

LARGE_RULES = [
    "self.s.matches('^a+$')", "self.l.all(x, x >= 0)", "self.l.all(x, self.l.exists(y, y == x))",
    "self.ls.all(x, x.size() == 50)", "self.ls.all(s, self.ls.exists(t, t == s))",
    "self.o.all(i, i.n.startsWith('x') && i.v >= 0)", "self.o.map(i, i.n).all(n, n.size() > 1)",
    "self.s.size() > 0 ? self.s.contains('b' + self.ls[0]) : false", "self.ls.join('').size() > 0",
    "self.o.exists(i, i.v == 3999)", "self.o.exists_one(i, i.n == 'x3999')", "self.l.filter(x, x % 2 == 0).size() > 0",
    "self.s.replace('a', 'bb').size() > 0", "self.s.split('a').size() > 0", "self.s.lowerAscii().size() > 0",
    "self.s.matches('^(a|b)+$' + self.ls[0] + self.ls[0]) || self.s.matches('^(a|b|c)+$' + self.ls[0] + self.ls[0])",
    "self.ls.all(x, x.matches('^x+$'))", "self.l.sort().size() > 0", "self.ls.distinct().size() == 1",
    "self.o.all(i, self.m['k'] == 1)",
]


def _single(rules: list[str], obj: Any, prefix: str) -> list[dict[str, Any]]:
    return [{"name": f"{prefix}: {r}", "schema": {**_OBJ, "x-kubernetes-validations": [_rule(r)]}, "obj": obj}
            for r in rules]


_ITEM = {"type": "object", "properties": {"name": S, "v": INT, "s": S}, "required": ["name"],
         "x-kubernetes-validations": [_rule("self.s.matches('^[a-z]+$') && self.s.size() > 0"),
                                      _rule("self.v >= 0", message="negative")]}
_ITEMS = {"type": "object", "x-kubernetes-validations": [_rule("self.items.all(i, i.v < 1000000)")],
          "properties": {"x": S, "items": {"type": "array", "items": _ITEM, "x-kubernetes-list-type": "map",
                                           "x-kubernetes-list-map-keys": ["name"]}}}
_TRANSITIONS = {"type": "object", "properties": {"items": {
    "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
    "items": {"type": "object", "properties": {"name": S, "v": INT, "s": S}, "x-kubernetes-validations": [
        _rule("self.v >= oldSelf.v", message="down"),
        _rule("!has(oldSelf.v) || self.v != 5", optionalOldSelf=True),
        _rule("oldSelf.?v.orValue(0) <= self.v", optionalOldSelf=True),
        _rule("!oldSelf.hasValue() || self.s.size() >= oldSelf.value().s.size()", optionalOldSelf=True),
        _rule("self.s == oldSelf.s || self.s.startsWith(oldSelf.s)")]}}}}
_MESSAGE = {"type": "object", "properties": {"s": S}, "x-kubernetes-validations": [
    _rule("self.s.size() < 3", messageExpression="'too long: ' + self.s.substring(0, 3)")]}
_LETTERS = "^(" + "|".join("abcdefghijklmnopqrstuvwxyz") + ")+$"  # 56 characters: a regex cost of 14
_BIG_ITEMS = {"type": "object", "properties": {"items": {"type": "array", "items": {
    "type": "object", "properties": {"name": S, "s": S},
    "x-kubernetes-validations": [_rule(f"self.s.matches('{_LETTERS}')"), _rule("self.name != ''")]}}}}
_PER_ITEM = {"type": "object", "properties": {"ls": {"type": "array", "items": {
    "type": "string", "x-kubernetes-validations": [_rule("self.matches('^(a|b)+$')"), _rule("self.size() > 1")]}}}}


def _items(n: int, size: int, v: int = 1) -> dict[str, Any]:
    return {"items": {"$list": [{"name": "n{i}", "v": v, "s": {"$str": ["a", size]}}, n]}}


def _trans(*items: tuple[str, int, str]) -> dict[str, Any]:
    return {"items": [{"name": n, "v": v, "s": s} for n, v, s in items]}


VALIDATOR_CASES: list[dict[str, Any]] = [
    {"name": "items", "schema": _ITEMS, "obj": _items(3, 5)},
    {"name": "items negative", "schema": _ITEMS, "obj": _items(3, 5, -1)},
    {"name": "items budget 100", "schema": _ITEMS, "obj": _items(10, 5), "budget": 100},
    {"name": "items budget 30", "schema": _ITEMS, "obj": _items(10, 5), "budget": 30},
    {"name": "items budget 1", "schema": _ITEMS, "obj": _items(2, 5), "budget": 1},
    {"name": "items budget 55", "schema": _ITEMS, "obj": _items(3, 5), "budget": 55},
    {"name": "items budget 54", "schema": _ITEMS, "obj": _items(3, 5), "budget": 54},
    {"name": "transitions", "schema": _TRANSITIONS,
     "obj": _trans(("a", 3, "xy"), ("b", 1, "x"), ("c", 5, "")), "old": _trans(("a", 2, "x"), ("b", 2, "xz"))},
    {"name": "transitions create", "schema": _TRANSITIONS, "obj": _trans(("a", 3, "xy"), ("c", 5, ""))},
    {"name": "transitions budget", "schema": _TRANSITIONS, "budget": 40,
     "obj": _trans(("a", 3, "xy"), ("b", 1, "x"), ("c", 5, "")), "old": _trans(("a", 2, "x"), ("b", 2, "xz"))},
    {"name": "messageExpression", "schema": _MESSAGE, "obj": {"s": "abcdef"}},
    {"name": "messageExpression budget", "schema": _MESSAGE, "obj": {"s": "abcdef"}, "budget": 4},
    {"name": "messageExpression budget 5", "schema": _MESSAGE, "obj": {"s": "abcdef"}, "budget": 5},
]

LARGE_VALIDATOR_CASES: list[dict[str, Any]] = [
    {"name": "items big strings", "schema": _ITEMS, "obj": _items(200, 20000)},
    {"name": "items just under budget", "schema": _BIG_ITEMS,
     "obj": {"items": {"$list": [{"name": "n{i}", "s": {"$str": ["a", 99990]}}, 71]}}},
    {"name": "items over budget", "schema": _BIG_ITEMS,
     "obj": {"items": {"$list": [{"name": "n{i}", "s": {"$str": ["a", 100000]}}, 75]}}},
    {"name": "item over per-call limit", "schema": _BIG_ITEMS,
     "obj": {"items": [{"name": "a", "s": "b"}, {"name": "b", "s": {"$str": ["a", 720000]}}, {"name": "", "s": "c"}]}},
    {"name": "item just under per-call limit", "schema": _BIG_ITEMS,
     "obj": {"items": [{"name": "a", "s": "b"}, {"name": "b", "s": {"$str": ["a", 714000]}}, {"name": "", "s": "c"}]}},
    {"name": "per item regex", "schema": _PER_ITEM, "obj": {"ls": {"$list": [{"$str": ["ab", 100000]}, 3]}}},
    {"name": "per item regex over per-call", "schema": _PER_ITEM,
     "obj": {"ls": ["a", {"$str": ["ab", 1400000]}, "a"]}},
    {"name": "messageExpression large", "schema": _MESSAGE, "obj": {"s": {"$str": ["a", 3000000]}}},
]


def all_cases() -> list[dict[str, Any]]:
    """Every case, each marked ``large`` when it takes seconds here (tests marked slow)."""
    cases = _single(SINGLE_RULES, _SMALL, "small") + VALIDATOR_CASES
    large = _single(LARGE_RULES, _LARGE, "large") + LARGE_VALIDATOR_CASES
    return [{**c, "large": False} for c in cases] + [{**c, "large": True} for c in large]

"""Label selectors, parsed and matched as the real API server does (field selectors: ``fakekube.fieldselectors``).

Grammar, canonical string forms and error texts follow kubernetes/apimachinery ``pkg/labels/selector.go``
(see docs/selectors.md). The server wraps every parse error in a 400 BadRequest whose message is the raw parser
error, so that is what ``parse`` raises.

Selectors are parsed once into small closures so that ``matches`` is a tight loop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fakekube.errors import BadRequest, FieldError, aggregate, invalid, not_supported
from fakekube.namerules import is_qualified_name, is_valid_label_value

__all__ = ["LabelSelector", "Requirement"]

# Operator names as apimachinery's selection package spells them.
_IN, _NOT_IN, _EQ, _DEQ, _NEQ = "in", "notin", "=", "==", "!="
_GT, _LT, _EXISTS, _NOT_EXISTS = "gt", "lt", "exists", "!"
_BINARY_OPS = [_IN, _NOT_IN, _EQ, _DEQ, _NEQ, _GT, _LT]
_ALL_OPS = [*_BINARY_OPS, _EXISTS, _NOT_EXISTS]

# Lexer tokens.
_ERR, _END, _CLOSE, _COMMA, _BANG, _DEQ_T, _EQ_T, _GT_T, _ID, _IN_T, _LT_T, _NEQ_T, _NOTIN_T, _OPEN = range(
    14
)
_KEYWORDS = {
    ")": _CLOSE,
    ",": _COMMA,
    "!": _BANG,
    "==": _DEQ_T,
    "=": _EQ_T,
    ">": _GT_T,
    "in": _IN_T,
    "<": _LT_T,
    "!=": _NEQ_T,
    "notin": _NOTIN_T,
    "(": _OPEN,
}
_SPECIAL = frozenset("=!(),><")
_SPACE = frozenset(" \t\r\n")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _parse_int64(text: str) -> int | None:
    """``strconv.ParseInt(s, 10, 64)``: optional sign, ASCII digits only, in int64 range."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


class Requirement:
    """One label requirement: ``key``, an operator (selection.Operator spelling) and its values."""

    __slots__ = ("key", "operator", "values", "match")

    def __init__(self, key: str, operator: str, values: list[str]) -> None:
        self.key = key
        self.operator = operator
        self.values = tuple(values)
        self.match: Callable[[Mapping[str, str]], bool] = self._compile()

    @classmethod
    def create(cls, key: str, operator: str, values: list[str], path: str | None = None) -> Requirement:
        """``labels.NewRequirement``: validates and raises ``ValueError`` with the aggregate message."""
        errs = _requirement_errors(key, operator, values, path)
        if errs:
            raise ValueError(aggregate(errs))
        return cls(key, operator, values)

    def _compile(self) -> Callable[[Mapping[str, str]], bool]:
        key, op = self.key, self.operator
        if op in (_IN, _EQ, _DEQ):
            if len(self.values) == 1:
                only = self.values[0]
                return lambda labels: labels.get(key) == only
            wanted = frozenset(self.values)
            return lambda labels: key in labels and labels[key] in wanted
        if op in (_NOT_IN, _NEQ):
            # A missing key satisfies both != and notin.
            unwanted = frozenset(self.values)
            return lambda labels: labels.get(key) not in unwanted if key in labels else True
        if op == _EXISTS:
            return lambda labels: key in labels
        if op == _NOT_EXISTS:
            return lambda labels: key not in labels
        if op in (_GT, _LT):
            bound = _parse_int64(self.values[0]) if len(self.values) == 1 else None
            if bound is None:
                return lambda labels: False
            greater = op == _GT

            def numeric(labels: Mapping[str, str]) -> bool:
                raw = labels.get(key)
                if raw is None:
                    return False
                value = _parse_int64(raw)
                if value is None:
                    return False
                return value > bound if greater else value < bound

            return numeric
        return lambda labels: False

    def __str__(self) -> str:
        op = self.operator
        prefix = "!" if op == _NOT_EXISTS else ""
        if op in (_EXISTS, _NOT_EXISTS):
            return prefix + self.key
        symbol = {_EQ: "=", _DEQ: "==", _NEQ: "!=", _IN: " in ", _NOT_IN: " notin ", _GT: ">", _LT: "<"}[op]
        values = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if op in (_IN, _NOT_IN):
            values = f"({values})"
        return f"{self.key}{symbol}{values}"

    def __repr__(self) -> str:
        return f"Requirement({self.key!r}, {self.operator!r}, {list(self.values)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirement):
            return NotImplemented
        return (self.key, self.operator, self.values) == (other.key, other.operator, other.values)

    def __hash__(self) -> int:
        return hash((self.key, self.operator, self.values))


def _child(path: str | None, name: str) -> str:
    return f"{path}.{name}" if path else name


def _requirement_errors(key: str, op: str, values: list[str], path: str | None) -> list[FieldError]:
    errs: list[FieldError] = []
    key_err = _label_key_error(key, _child(path, "key"))
    if key_err:
        errs.append(key_err)
    values_path = _child(path, "values")
    if op in (_IN, _NOT_IN):
        if not values:
            errs.append(
                invalid(values_path, values, "for 'in', 'notin' operators, values set can't be empty")
            )
    elif op in (_EQ, _DEQ, _NEQ):
        if len(values) != 1:
            errs.append(invalid(values_path, values, "exact-match compatibility requires one single value"))
    elif op in (_EXISTS, _NOT_EXISTS):
        if values:
            errs.append(
                invalid(values_path, values, "values set must be empty for exists and does not exist")
            )
    elif op in (_GT, _LT):
        if len(values) != 1:
            errs.append(
                invalid(values_path, values, "for 'Gt', 'Lt' operators, exactly one value is required")
            )
        for i, value in enumerate(values):
            if _parse_int64(value) is None:
                errs.append(
                    invalid(
                        f"{values_path}[{i}]", value, "for 'Gt', 'Lt' operators, the value must be an integer"
                    )
                )
    else:
        errs.append(not_supported(_child(path, "operator"), op, _ALL_OPS))
    for i, value in enumerate(values):
        msgs = is_valid_label_value(value)
        if msgs:
            # Upstream indexes the value path and then keys it by the label key: values[0][key].
            errs.append(invalid(f"{values_path}[{i}][{key}]", value, "; ".join(msgs)))
    return errs


def _label_key_error(key: str, path: str) -> FieldError | None:
    msgs = is_qualified_name(key)
    return invalid(path, key, "; ".join(msgs)) if msgs else None


class _Lexer:
    """Byte-for-byte the upstream lexer: identifiers end at whitespace or a special symbol."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def tokens(self) -> list[tuple[int, str]]:
        items: list[tuple[int, str]] = []
        while True:
            tok = self._lex()
            items.append(tok)
            if tok[0] == _END:
                return items

    def _lex(self) -> tuple[int, str]:
        text, n = self.text, len(self.text)
        while self.pos < n and text[self.pos] in _SPACE:
            self.pos += 1
        if self.pos >= n:
            return _END, ""
        if text[self.pos] in _SPECIAL:
            return self._special()
        start = self.pos
        while self.pos < n and text[self.pos] not in _SPECIAL and text[self.pos] not in _SPACE:
            self.pos += 1
        word = text[start : self.pos]
        return _KEYWORDS.get(word, _ID), word

    def _special(self) -> tuple[int, str]:
        # Longest run of special symbols that still forms a known token ("!=" beats "!").
        text, n = self.text, len(self.text)
        buffer = ""
        best: tuple[int, str] | None = None
        while self.pos < n and text[self.pos] in _SPECIAL:
            buffer += text[self.pos]
            self.pos += 1
            tok = _KEYWORDS.get(buffer)
            if tok is not None:
                best = (tok, buffer)
            elif best is not None:
                self.pos -= 1
                break
        if best is None:
            return _ERR, f"error expected: keyword found '{buffer}'"
        return best


class _ParseError(Exception):
    pass


class _Parser:
    def __init__(self, text: str) -> None:
        self.items = _Lexer(text).tokens()
        self.pos = 0

    @staticmethod
    def _as_value(tok: int) -> int:
        # In value context the keywords "in"/"notin" are ordinary identifiers.
        return _ID if tok in (_IN_T, _NOTIN_T) else tok

    def peek(self, values: bool = True) -> tuple[int, str]:
        tok, lit = self.items[self.pos]
        return (self._as_value(tok) if values else tok), lit

    def take(self, values: bool = True) -> tuple[int, str]:
        tok, lit = self.peek(values)
        self.pos += 1
        return tok, lit

    def parse(self) -> list[Requirement]:
        reqs: list[Requirement] = []
        while True:
            tok, lit = self.peek()
            if tok in (_ID, _BANG):
                try:
                    reqs.append(self.requirement())
                except _ParseError as exc:
                    raise _ParseError(f"unable to parse requirement: {exc}") from None
                tok, lit = self.take()
                if tok == _END:
                    return reqs
                if tok == _COMMA:
                    tok2, lit2 = self.peek()
                    if tok2 not in (_ID, _BANG):
                        raise _ParseError(f"found '{lit2}', expected: identifier after ','")
                    continue
                raise _ParseError(f"found '{lit}', expected: ',' or 'end of string'")
            if tok == _END:
                return reqs
            raise _ParseError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def requirement(self) -> Requirement:
        op = ""
        tok, key = self.take()
        if tok == _BANG:
            op = _NOT_EXISTS
            tok, key = self.take()
        if tok != _ID:
            raise _ParseError(f"found '{key}', expected: identifier")
        # The parser validates the key with a nil field path, which Go prints as "<nil>".
        key_err = _label_key_error(key, "<nil>")
        if key_err:
            raise _ParseError(str(key_err))
        if self.peek()[0] in (_END, _COMMA) and op != _NOT_EXISTS:
            op = _EXISTS
        if op in (_EXISTS, _NOT_EXISTS):
            return self._new(key, op, [])
        op = self.operator()
        values = self.set_values() if op in (_IN, _NOT_IN) else self.exact_value()
        return self._new(key, op, sorted(values))

    @staticmethod
    def _new(key: str, op: str, values: list[str]) -> Requirement:
        try:
            return Requirement.create(key, op, values)
        except ValueError as exc:
            raise _ParseError(str(exc)) from None

    def operator(self) -> str:
        tok, lit = self.take(values=False)
        ops = {_IN_T: _IN, _EQ_T: _EQ, _DEQ_T: _DEQ, _GT_T: _GT, _LT_T: _LT, _NOTIN_T: _NOT_IN, _NEQ_T: _NEQ}
        if tok not in ops:
            raise _ParseError(f"found '{lit}', expected: {', '.join(_BINARY_OPS)}")
        return ops[tok]

    def set_values(self) -> set[str]:
        tok, lit = self.take()
        if tok != _OPEN:
            raise _ParseError(f"found '{lit}' expected: '('")
        tok, lit = self.peek()
        if tok in (_ID, _COMMA):
            values = self.identifiers()
            if self.take()[0] != _CLOSE:
                # Upstream reports the literal seen *before* the list, a quirk kept on purpose.
                raise _ParseError(f"found '{lit}', expected: ')'")
            return values
        if tok == _CLOSE:
            self.take()
            return {""}
        raise _ParseError(f"found '{lit}', expected: ',', ')' or identifier")

    def identifiers(self) -> set[str]:
        values: set[str] = set()
        while True:
            tok, lit = self.take()
            if tok == _ID:
                values.add(lit)
                tok2, lit2 = self.peek()
                if tok2 == _COMMA:
                    continue
                if tok2 == _CLOSE:
                    return values
                raise _ParseError(f"found '{lit2}', expected: ',' or ')'")
            if tok == _COMMA:
                # Empty slots such as "(,a)" or "(a,)" stand for the empty value.
                if not values:
                    values.add("")
                tok2 = self.peek()[0]
                if tok2 == _CLOSE:
                    values.add("")
                    return values
                if tok2 == _COMMA:
                    values.add("")
                continue
            raise _ParseError(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        if self.peek()[0] in (_END, _COMMA):
            return {""}
        tok, lit = self.take()
        if tok == _ID:
            return {lit}
        raise _ParseError(f"found '{lit}', expected: identifier")


class LabelSelector:
    """A parsed label selector; ``matches`` is AND over its requirements."""

    __slots__ = ("requirements", "_nothing", "_checks")

    def __init__(
        self, requirements: list[Requirement] | tuple[Requirement, ...] = (), *, nothing: bool = False
    ):
        # Upstream keeps requirements sorted by key (stable for equal keys).
        self.requirements: tuple[Requirement, ...] = tuple(sorted(requirements, key=lambda r: r.key))
        self._nothing = nothing
        self._checks = tuple(r.match for r in self.requirements)

    @classmethod
    def parse(cls, text: str | None) -> LabelSelector:
        """Parse the ``labelSelector`` query string; raises ``BadRequest`` like the server."""
        if not text:
            return cls()
        try:
            return cls(_Parser(text).parse())
        except _ParseError as exc:
            raise BadRequest(str(exc)) from None

    @classmethod
    def from_dict(cls, sel: Mapping[str, Any] | None) -> LabelSelector:
        """``metav1.LabelSelectorAsSelector``: ``None`` matches nothing, ``{}`` matches everything.

        Invalid content raises ``BadRequest`` with the upstream error text.
        """
        if sel is None:
            return cls(nothing=True)
        if not isinstance(sel, Mapping):
            raise BadRequest(f"invalid label selector: {sel!r}")
        match_labels = sel.get("matchLabels") or {}
        expressions = sel.get("matchExpressions") or []
        if not isinstance(match_labels, Mapping) or not isinstance(expressions, list):
            raise BadRequest("invalid label selector: matchLabels must be a map, matchExpressions a list")
        reqs: list[Requirement] = []
        ops = {"In": _IN, "NotIn": _NOT_IN, "Exists": _EXISTS, "DoesNotExist": _NOT_EXISTS}
        try:
            for key, value in match_labels.items():
                reqs.append(
                    Requirement.create(str(key), _EQ, [value if isinstance(value, str) else str(value)])
                )
            for expr in expressions:
                expr = expr if isinstance(expr, Mapping) else {}
                operator = expr.get("operator", "")
                if operator not in ops:
                    raise ValueError(f'"{operator}" is not a valid label selector operator')
                values = expr.get("values") or []
                if not isinstance(values, list):
                    values = [values]
                reqs.append(
                    Requirement.create(str(expr.get("key", "")), ops[operator], [str(v) for v in values])
                )
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        return cls(reqs)

    @classmethod
    def everything(cls) -> LabelSelector:
        return cls()

    @classmethod
    def nothing(cls) -> LabelSelector:
        return cls(nothing=True)

    @property
    def empty(self) -> bool:
        """True when the selector matches everything (upstream ``Empty()``; the nothing-selector is not empty)."""
        return not self.requirements and not self._nothing

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self._nothing:
            return False
        if labels is None:
            labels = {}
        # A plain loop: measurably faster than all() over a generator in this hot path.
        for check in self._checks:  # noqa: SIM110
            if not check(labels):
                return False
        return True

    def requires_exact_match(self, key: str) -> str | None:
        """The value ``key`` must have, if the selector pins it (``RequiresExactMatch``); for index lookups."""
        for req in self.requirements:
            if req.key == key:
                if req.operator in (_EQ, _DEQ, _IN) and len(req.values) == 1:
                    return req.values[0]
                return None
        return None

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        return "LabelSelector(<nothing>)" if self._nothing else f"LabelSelector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelSelector):
            return NotImplemented
        return (self.requirements, self._nothing) == (other.requirements, other._nothing)

    def __hash__(self) -> int:
        return hash((self.requirements, self._nothing))

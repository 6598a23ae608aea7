"""Field selectors, parsed and matched as the real API server does.

Grammar, escaping, canonical string form and error texts follow kubernetes/apimachinery
``pkg/fields/selector.go`` (see docs/selectors.md). The server wraps every parse error in a 400 BadRequest
whose message is the raw parser error, so that is what ``FieldSelector.parse`` raises.
"""

from __future__ import annotations

from collections.abc import Mapping

from fakekube.errors import BadRequest

__all__ = ["FieldSelector"]

_FIELD_OPS = ("!=", "==", "=")


def _escape_field_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def _unescape_field_value(value: str) -> str:
    if "\\" not in value and "," not in value and "=" not in value:
        return value
    out: list[str] = []
    in_slash = False
    for ch in value:
        if in_slash:
            if ch not in "\\,=":
                raise BadRequest(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch in ",=":
            # Go prints the rune with %v, i.e. as its code point number.
            raise BadRequest(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if in_slash:
        raise BadRequest("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _split_terms(text: str) -> list[str]:
    """Split on commas that are not escaped by a backslash."""
    terms: list[str] = []
    start = 0
    in_slash = False
    for i, ch in enumerate(text):
        if in_slash:
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    # The first position where any operator starts wins; at one position "!=" and "==" beat "=".
    for i in range(len(term)):
        for op in _FIELD_OPS:
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
    return None


class FieldSelector:
    """A parsed field selector: an AND of ``field=value`` / ``field!=value`` terms."""

    __slots__ = ("requirements",)

    def __init__(self, requirements: tuple[tuple[str, str, str], ...] = ()) -> None:
        self.requirements: tuple[tuple[str, str, str], ...] = requirements

    @classmethod
    def parse(cls, text: str | None) -> FieldSelector:
        """Parse the ``fieldSelector`` query string; raises ``BadRequest`` like the server.

        ``==`` is normalised to ``=`` (upstream builds the same term for both).
        """
        if not text:
            return cls()
        reqs: list[tuple[str, str, str]] = []
        # Upstream sorts the raw terms before parsing, which fixes the canonical order.
        for part in sorted(_split_terms(text)):
            if not part:
                continue
            split = _split_term(part)
            if split is None:
                raise BadRequest(f"invalid selector: '{text}'; can't understand '{part}'")
            lhs, op, rhs = split
            reqs.append((lhs, "!=" if op == "!=" else "=", _unescape_field_value(rhs)))
        return cls(tuple(reqs))

    @classmethod
    def from_set(cls, values: Mapping[str, str]) -> FieldSelector:
        return cls(tuple((k, "=", v) for k, v in values.items()))

    @property
    def empty(self) -> bool:
        return not self.requirements

    def fields(self) -> set[str]:
        return {field for field, _, _ in self.requirements}

    def matches(self, values: Mapping[str, str]) -> bool:
        """``values`` maps field labels to rendered values; a missing label counts as ``""``."""
        for field, op, expected in self.requirements:
            actual = values.get(field, "")
            if (actual == expected) != (op == "="):
                return False
        return True

    def requires_exact_match(self, field: str) -> str | None:
        for name, op, value in self.requirements:
            if name == field and op == "=":
                return value
        return None

    def __str__(self) -> str:
        return ",".join(f"{f}{op}{_escape_field_value(v)}" for f, op, v in self.requirements)

    def __repr__(self) -> str:
        return f"FieldSelector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSelector):
            return NotImplemented
        return self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash(self.requirements)

"""Query parameters, decoded the way the real API server's parameter codec decodes them.

apimachinery ``pkg/runtime/conversion.go`` (v0.37.2) turns ``url.Values`` into option structs; observed on
kube-apiserver v1.37.2:

- a bool is false only for ``0`` and ``false`` (any case), true for anything else — ``watch=yes``,
  ``watch=maybe`` and ``watch=`` included; it is never an error;
- an int64 goes through ``strconv.ParseInt(s, 10, 64)`` even when empty, whose error text is the whole 400
  message (``strconv.ParseInt: parsing "soon": invalid syntax``, ``... value out of range`` beyond int64), as
  ``handlers`` wrap it in ``NewBadRequest``;
- a repeated parameter keeps its first value (a ``[]string`` field such as ``dryRun`` keeps them all).

The options are validated elsewhere: a write's by ``server.options``, a list's or a watch's by
``server.listoptions``; ``resourceVersion`` is parsed by the store, as the storage layer does.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from fakekube import errors
from fakekube.validation import go_quote

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class GoNumberError(ValueError):
    """A ``strconv`` error; ``str()`` is Go's text."""


def _digits(text: str) -> bool:
    return bool(text) and text.isascii() and text.isdigit()


def parse_int64(text: str) -> int:
    """``strconv.ParseInt(text, 10, 64)``: an optional sign and ASCII digits, in int64 range."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not _digits(body):
        raise GoNumberError(f"strconv.ParseInt: parsing {go_quote(text)}: invalid syntax")
    # Python refuses to convert more than 4300 digits; such a number is out of range anyway
    value = int(text) if len(body) < 40 else _INT64_MAX + 1
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise GoNumberError(f"strconv.ParseInt: parsing {go_quote(text)}: value out of range")
    return value


def go_bool(value: str) -> bool:
    """``Convert_Slice_string_To_bool`` for a present parameter."""
    return not (value == "0" or value.lower() == "false")


class Query:
    """Read access to a request's query string; repeated parameters keep their first value."""

    def __init__(self, query: str) -> None:
        self._values = parse_qs(query, keep_blank_values=True) if query else {}

    def __contains__(self, name: str) -> bool:
        return name in self._values

    def str(self, name: str) -> str | None:
        values = self._values.get(name)
        return values[0] if values else None

    def all(self, name: str) -> list[str]:
        return list(self._values.get(name, ()))

    def bool(self, name: str, default: bool | None = False) -> bool | None:
        """``Convert_Slice_string_To_bool``: absent is ``default``, else ``go_bool``."""
        value = self.str(name)
        return default if value is None else go_bool(value)

    def int(self, name: str) -> int | None:
        """``Convert_Slice_string_To_int64``: absent is None; anything else must parse (a 400)."""
        value = self.str(name)
        if value is None:
            return None
        try:
            return parse_int64(value)
        except GoNumberError as exc:
            raise errors.BadRequest(str(exc)) from None

    def dry_run(self) -> bool:
        """Whether ``dryRun`` asks for a dry run (its values are checked by ``options``)."""
        return bool(self.all("dryRun"))


"""Top-level JSON values of a text stream, one at a time, with their line numbers — never the whole file.

Audit logs come as JSON lines (kube-apiserver, AKS exports), as one document (a single event, an
``EventList``, an Event Hubs ``{"records": [...]}`` batch, a Cloud Logging ``{"entries": [...]}`` response), as a
top-level array (``gcloud logging read --format=json``), pretty-printed or not. `JsonValues` yields each value
(each element of a top-level array or of a wrapper list) and a `Problem` for what it cannot read — a line that is
not JSON, a truncated last line — and goes on after it.

A value is decoded from its first line; when the text ends before the value does (a pretty-printed document)
the window doubles up to the next newline, so each value costs about twice its own size, and a broken line costs
one line: JSON strings cannot hold a raw newline, so a value cut at a newline fails at its very end, while a
malformed one fails before.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

WRAPPERS = ("items", "records", "entries")  # EventList, Event Hubs batches, Cloud Logging entries.list
_CHUNK = 1 << 20
_IN_MEMORY = 64 << 20  # a top-level object bigger than this is read key by key (a huge EventList)
_WS = " \t\r\n"


@dataclass(frozen=True, slots=True)
class Value:
    value: Any
    line: int


@dataclass(frozen=True, slots=True)
class Problem:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class _Broken(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.problem = Problem(line, message)


class JsonValues:
    def __init__(self, stream: TextIO, *, chunk: int = _CHUNK) -> None:
        self._stream = stream
        self._chunk = chunk
        self._buf = ""
        self._pos = 0
        self._line = 1  # the line of self._pos
        self._eof = False
        self._decoder = json.JSONDecoder()
        self._first = True

    # -- the buffer -----------------------------------------------------------------------------------------

    def _more(self, at_least: int = 0) -> bool:
        """Read more text (at least ``at_least`` characters if there are); False at the end of the stream."""
        if self._eof:
            return False
        want = max(self._chunk, at_least)
        data = self._stream.read(want)
        if not data:
            self._eof = True
            return False
        if self._first:
            data = data.lstrip("\ufeff")  # a byte-order mark (AKS exports start with one)
            self._first = False
        self._buf += data
        return True

    def _advance(self, to: int) -> None:
        self._line += self._buf.count("\n", self._pos, to)
        self._pos = to

    def _peek(self) -> str | None:
        """The next character that is not whitespace (consumed up to it), or None at the end."""
        if self._pos > self._chunk:  # between values: drop what has been read
            self._buf = self._buf[self._pos:]
            self._pos = 0
        while True:
            buf, pos = self._buf, self._pos
            end = len(buf)
            while pos < end and buf[pos] in _WS:
                pos += 1
            self._advance(pos)
            if pos < end:
                return buf[pos]
            if not self._more():
                return None

    def _line_end(self, start: int) -> int:
        """The position after the newline that ends the line at ``start`` (reading as needed)."""
        while True:
            nl = self._buf.find("\n", start)
            if nl >= 0:
                return nl + 1
            if not self._more():
                return len(self._buf)

    def _skip_line(self) -> None:
        self._advance(self._line_end(self._pos))

    # -- values ---------------------------------------------------------------------------------------------

    def _decode(self, limit: int | None = None) -> Any:
        """The value at the current position; `_Broken` if it is malformed, or None (nothing consumed) if it
        runs past ``limit`` characters."""
        start = self._pos
        end = self._line_end(start)
        while True:
            text = self._buf[start:end]
            try:
                value, used = self._decoder.raw_decode(text)
            except json.JSONDecodeError as exc:
                incomplete = exc.pos >= len(text.rstrip())
                if incomplete and (end < len(self._buf) or not self._eof):
                    span = 2 * (end - start)
                    if limit is not None and span > limit:
                        return _TOO_BIG
                    while len(self._buf) < start + span and self._more(span):
                        pass
                    end = self._line_end(min(start + span, len(self._buf)))
                    continue
                at = self._line + text.count("\n", 0, exc.pos)
                cut = incomplete or (self._eof and end == len(self._buf) and not text.endswith("\n"))
                what = "truncated JSON" if cut else "invalid JSON"
                where = f" (at line {at})" if at != self._line else ""
                raise _Broken(self._line, f"{what}: {exc.msg}{where}") from None
            self._advance(start + used)
            return value

    def _resync(self, problem: Problem) -> Problem:
        """After a broken value: go on at the line after the one it started on (a truncated JSON line costs
        that line only)."""
        while self._line <= problem.line:
            if self._pos >= len(self._buf) and not self._more():
                break
            self._skip_line()
        return problem

    def __iter__(self) -> Iterator[Value | Problem]:
        while True:
            ch = self._peek()
            if ch is None:
                return
            line = self._line
            if ch == "[":
                self._advance(self._pos + 1)
                yield from self._array()
            elif ch == "{":
                yield from self._object(line)
            else:
                end = self._line_end(self._pos)
                snippet = self._buf[self._pos:min(end, self._pos + 40)].strip()
                self._advance(end)
                yield Problem(line, f"not JSON: {snippet!r}")

    def _array(self) -> Iterator[Value | Problem]:
        while True:
            ch = self._peek()
            if ch is None:
                yield Problem(self._line, "truncated JSON: the list is not closed")
                return
            if ch == "]":
                self._advance(self._pos + 1)
                return
            if ch == ",":
                self._advance(self._pos + 1)
                continue
            line = self._line
            try:
                yield Value(self._decode(), line)
            except _Broken as broken:
                yield self._resync(broken.problem)

    def _object(self, line: int) -> Iterator[Value | Problem]:
        try:
            value = self._decode(limit=_IN_MEMORY)
        except _Broken as broken:
            yield self._resync(broken.problem)
            return
        if value is _TOO_BIG:
            yield from self._object_by_key(line)
            return
        wrapped = _wrapped(value)
        if wrapped is None:
            yield Value(value, line)
        else:
            for item in wrapped:  # a wrapper that fitted in memory; its items' lines are not known apart
                yield Value(item, line)

    def _object_by_key(self, line: int) -> Iterator[Value | Problem]:
        """A huge top-level object: stream the list under a wrapper key, decode the other values whole."""
        self._advance(self._pos + 1)  # "{"
        rest: dict[str, Any] = {}
        streamed = False
        while True:
            ch = self._peek()
            if ch is None:
                yield Problem(self._line, "truncated JSON: the document is not closed")
                return
            if ch == "}":
                self._advance(self._pos + 1)
                break
            if ch == ",":
                self._advance(self._pos + 1)
                continue
            try:
                key = self._decode()
                if not isinstance(key, str) or self._peek() != ":":
                    raise _Broken(self._line, "invalid JSON: expected a key and ':'")
                self._advance(self._pos + 1)
                if self._peek() == "[" and key in WRAPPERS:
                    self._advance(self._pos + 1)
                    streamed = True
                    yield from self._array()
                else:
                    rest[key] = self._decode()
            except _Broken as broken:
                yield self._resync(broken.problem)
                return
        if not streamed:
            yield Value(rest, line)


_TOO_BIG: Any = object()


def _wrapped(value: Any) -> list[Any] | None:
    """The list a wrapper document holds (``{"items": [...]}`` and the like), or None for any other value."""
    if isinstance(value, dict):
        for key in WRAPPERS:
            items = value.get(key)
            if isinstance(items, list) and ("kind" not in value or str(value.get("kind", "")).endswith("List")):
                return items
    return None

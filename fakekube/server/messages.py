"""A request and a response of the HTTP front, without I/O (``fakekube.server.front``)."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Protocol

from fakekube.identity import UserInfo

# A watch stream's body: batches of encoded events (each batch is what one write sends, each event one chunk on
# the wire). Its return value is False when the client went away (the connection must then be closed).
# ``conn``: the client's socket, watched for a hang-up; None in process. An optional second argument, a pacer
# (``fakekube.server.watchstream.Pacer``), makes the stream yield the seconds it would wait (floats) instead of
# blocking: the in-process transport on an event loop in virtual time does the waiting.
StreamBody = Callable[..., Generator[Any, None, bool]]


class RequestHeaders(Protocol):
    """What the front reads of request headers: the stdlib server's ``email.message.Message`` and ``Headers``."""

    def get(self, name: str, failobj: Any = None) -> Any: ...

    def get_all(self, name: str, failobj: Any = None) -> Any: ...

    def items(self) -> Any: ...


class Headers:
    """Request headers, case-insensitive and repeatable, as ``email.message.Message`` answers ``get``,
    ``get_all`` and ``items`` (the first value of a repeated header for ``get``). Built once per in-process
    request: a ``Message`` lower-cases every stored name on every lookup, which was a quarter of the front's
    own time per request."""

    __slots__ = ("_pairs", "_index")

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        self._pairs = list(pairs)
        index: dict[str, list[str]] = {}
        for name, value in self._pairs:
            index.setdefault(name.lower(), []).append(value)
        self._index = index

    def get(self, name: str, failobj: Any = None) -> Any:
        values = self._index.get(name.lower())
        return values[0] if values else failobj

    def get_all(self, name: str, failobj: Any = None) -> Any:
        values = self._index.get(name.lower())
        return list(values) if values else failobj

    def __getitem__(self, name: str) -> str | None:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._index

    def items(self) -> list[tuple[str, str]]:
        return list(self._pairs)

    def keys(self) -> list[str]:
        return [name for name, _ in self._pairs]


def headers_of(pairs: Mapping[str, str] | Iterable[tuple[str, str]]) -> Headers:
    """Request headers from name-value pairs (case-insensitive, repeatable)."""
    return Headers(pairs.items() if isinstance(pairs, Mapping) else pairs)


@dataclass(slots=True)
class HttpRequest:
    method: str
    target: str  # the path and query as sent (``/api/v1/namespaces?limit=1``)
    headers: RequestHeaders
    # The body, or a function reading it (the threading server reads it off the socket inside the request's
    # audit context, so a refused body is logged like any other refusal).
    body: bytes | Callable[[], bytes] = b""
    client_address: tuple[Any, ...] | None = None
    certificate: UserInfo | None = None  # the user of a client certificate the TLS handshake verified


@dataclass(slots=True)
class HttpResponse:
    status: int  # 0 when ``abort``
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    stream: StreamBody | None = None  # a watch: the body is streamed (chunked on the wire)
    # A protocol upgrade (status 101): once the head is out, the connection's socket and its buffered reader are
    # handed to this function, which runs the new protocol until it ends (exec, attach).
    upgrade: Callable[[Any, Any], None] | None = None
    close: bool = False  # the connection cannot carry another request after this reply
    abort: bool = False  # no reply at all: the connection closes (the real handler's panic, a client gone)
    finish: Callable[[], None] = lambda: None
    cancel: Callable[[], None] = lambda: None  # ends a stream from any thread (its watch stops)
    audit_id: str = ""

    def header(self, name: str) -> str | None:
        lower = name.lower()
        return next((v for k, v in self.headers if k.lower() == lower), None)


def wire_head(response: HttpResponse, close: bool) -> bytes:
    """The status line and headers as the threading server writes them (``Connection: close`` when the
    connection closes after a reply that is not a stream)."""
    try:
        phrase = HTTPStatus(response.status).phrase
    except ValueError:
        phrase = ""
    lines = [f"HTTP/1.1 {response.status} {phrase}\r\n", *(f"{k}: {v}\r\n" for k, v in response.headers)]
    if close and response.stream is None and response.upgrade is None:
        lines.append("Connection: close\r\n")
    return ("".join(lines) + "\r\n").encode()

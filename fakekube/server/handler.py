"""The threading server's request handler: an adapter between a connection and ``Front.handle``
(``fakekube.server.front``). It reads the request (its body inside the front's audit context, so a refused
body is answered and logged like any other refusal), writes the reply in one write, and streams a watch as
chunks. Malformed request lines and over-long headers, which never reach the front, leave as a
``metav1.Status`` body too."""

from __future__ import annotations

import contextlib
import logging
import ssl
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.server import encoding, requestbody
from fakekube.server.auth import user_from_certificate
from fakekube.server.exchange import CLIENT_GONE, JSON_TYPE, warning_header
from fakekube.server.messages import HttpRequest, HttpResponse, wire_head
from fakekube.server.watchstream import _END, chunk

if TYPE_CHECKING:
    from fakekube.identity import UserInfo
    from fakekube.server.app import ApiServer

logger = logging.getLogger("fakekube.server")

__all__ = ["ApiHandler", "warning_header"]

UPGRADED_IDLE_TIMEOUT = 4 * 3600.0  # apiserver pkg/util/proxy/websocket.go defaultIdleConnectionTimeout


class ApiHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked watch streams
    disable_nagle_algorithm = True  # else each reply waits ~40 ms for the client's delayed ACK
    server: ApiServer
    _audit_id = ""  # the last request's Audit-ID (empty before the first one is answered)

    def setup(self) -> None:
        if isinstance(self.request, ssl.SSLSocket):
            # TLS handshake here, in the connection's thread, with a deadline: a silent client blocks nobody.
            self.request.settimeout(10)
            self.request.do_handshake()
            self.request.settimeout(None)
        # Every read and write of the connection then waits at most this long: an idle keep-alive connection,
        # a half-sent request or a watch client that stopped reading frees its thread (kube-apiserver's
        # http.Server: IdleTimeout 90 s, ReadHeaderTimeout 32 s — apiserver pkg/server/secure_serving.go).
        self.timeout = self.server.idle_timeout
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's signature
        logger.debug("%s %s", self.address_string(), format % args)

    def _serve(self) -> None:
        request = HttpRequest(self.command, self.path, self.headers, self._read_body, self.client_address,
                              self._client_certificate())
        response = self.server.front.handle(request)
        if response.audit_id:
            self._audit_id = response.audit_id
        try:
            if response.abort:
                self.close_connection = True
            elif response.upgrade is not None:
                self.close_connection = True
                self._upgrade(response)
            elif response.stream is not None:
                self._stream(response)
            else:
                self._write(response)
        except CLIENT_GONE + (OSError,):
            self.close_connection = True
        finally:
            response.finish()

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _serve

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The stdlib calls this for malformed requests (bad request line, huge headers, unknown method):
        answer with a Status body instead of its HTML page, and close the connection."""
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "Error"
        reason = {400: "BadRequest", 404: "NotFound", 405: "MethodNotAllowed", 414: "RequestURITooLong",
                  431: "RequestHeaderFieldsTooLarge", 501: "MethodNotAllowed"}.get(code, phrase.replace(" ", ""))
        self.close_connection = True
        status = errors.ApiError(405 if code == 501 else code, reason, message or phrase).status
        body = encoding.encode(status)
        headers = [("Audit-Id", self._audit_id)] if self._audit_id else []
        headers += [("Content-Type", JSON_TYPE), ("Content-Length", str(len(body)))]
        with contextlib.suppress(*CLIENT_GONE, OSError):
            self._write(HttpResponse(status["code"], headers, body))

    # -- the connection -----------------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        return requestbody.read(self.rfile, self.headers, self.server.front.max_body_bytes)

    def _client_certificate(self) -> UserInfo | None:
        """The user of the client certificate the TLS handshake verified against the server's CA, if any."""
        if not isinstance(self.connection, ssl.SSLSocket):
            return None
        der = self.connection.getpeercert(binary_form=True)
        return user_from_certificate(self.connection.getpeercert().get("subject"), der) if der else None

    def _head(self, response: HttpResponse) -> bytes:
        if response.close:
            self.close_connection = True
        return wire_head(response, self.close_connection)

    def _write(self, response: HttpResponse) -> None:
        # One write for status line, headers and body: the stdlib's send_response path costs more per request.
        self.wfile.write(self._head(response) + response.body)

    def _upgrade(self, response: HttpResponse) -> None:
        assert response.upgrade is not None
        self.wfile.write(self._head(response))
        # A stream may idle far longer than a request (the apiserver's stream translator allows 4 hours); the
        # server's stop() still ends it by shutting the socket down.
        self.connection.settimeout(UPGRADED_IDLE_TIMEOUT)
        response.upgrade(self.connection, self.rfile)

    def _stream(self, response: HttpResponse) -> None:
        assert response.stream is not None
        self.wfile.write(self._head(response))
        batches = response.stream(self.connection)
        try:
            while True:
                self.wfile.write(b"".join(chunk(data) for data in next(batches)))
        except StopIteration as done:
            if done.value:
                self.wfile.write(_END)
            else:
                self.close_connection = True
        finally:
            batches.close()

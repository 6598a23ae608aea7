"""The HTTPS call of an admission (or conversion) webhook, with the errors worded as Go's ``net/http`` and
client-go word them.

k8s.io/apiserver ``pkg/util/webhook/client.go`` (v0.37.2) builds the client: a ``clientConfig.url`` is called as
written (validation allows only ``https``), a ``service`` reference becomes ``https://<name>.<namespace>.svc:<port>
<path>`` with that name as the TLS server name, and the ``caBundle`` is the only extra root (none: the system's).
client-go appends ``?timeout=<n>s`` to the URL when the call has a deadline (``rest.Request.Timeout``), so the
URL in every error carries it. No Service network exists here: ``ServiceMap`` maps a service to a loopback
address (``fakekube serve --webhook-service``), while the URL, the Host and the certificate check keep the
service's DNS name, as kube-apiserver's dialer does when it resolves the service to an endpoint.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import http.client
import json
import socket
import ssl
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fakekube import errors


class CallError(Exception):
    """A failure to talk to the webhook (apiserver ``webhookutil.ErrCallingWebhook``): ``reason`` is the text
    after ``failed calling webhook "<name>": ``, ``status`` the error the call itself gave."""

    def __init__(self, reason: str, status: errors.ApiError) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


@dataclass(frozen=True)
class Endpoint:
    """Where a call goes: ``url`` as Go shows it, ``host``/``port`` to connect to, ``server_name`` for TLS."""

    url: str
    host: str
    port: int
    server_name: str
    path: str


class ServiceMap:
    """``namespace/name[:port]`` of a webhook's Service to the ``host:port`` that serves it here."""

    def __init__(self) -> None:
        self._map: dict[tuple[str, str, int | None], tuple[str, int]] = {}
        self._lock = threading.Lock()

    def set(self, namespace: str, name: str, address: str, port: int | None = None) -> None:
        """Calls to the Service ``namespace/name`` (on ``port``; any port when None) go to ``address``
        (``host:port``)."""
        host, _, number = address.rpartition(":")
        if not host or not number.isdigit():
            raise ValueError(f"webhook service address must be HOST:PORT, not {address!r}")
        with self._lock:
            self._map[(namespace, name, port)] = (host.strip("[]"), int(number))

    def parse_flag(self, text: str) -> None:
        """``NAMESPACE/NAME[:PORT]=HOST:PORT`` (the ``--webhook-service`` flag)."""
        service, sep, address = text.partition("=")
        namespace, slash, name = service.partition("/")
        if not sep or not slash or not namespace or not name:
            raise ValueError(f"--webhook-service wants NAMESPACE/NAME[:PORT]=HOST:PORT, not {text!r}")
        port: int | None = None
        if ":" in name:
            name, _, number = name.partition(":")
            if not number.isdigit():
                raise ValueError(f"bad service port in {text!r}")
            port = int(number)
        self.set(namespace, name, address, port)

    def resolve(self, namespace: str, name: str, port: int) -> tuple[str, int] | None:
        with self._lock:
            return self._map.get((namespace, name, port)) or self._map.get((namespace, name, None))


def endpoint(client_config: dict[str, Any], services: ServiceMap, timeout: int) -> Endpoint:
    """The endpoint of a webhook's ``clientConfig``; raises ``CallError`` as the client manager does."""
    query = f"?timeout={timeout}s"
    service = client_config.get("service")
    if isinstance(service, dict):
        namespace, name = str(service.get("namespace") or ""), str(service.get("name") or "")
        port = int(service.get("port") or 443)
        path = str(service.get("path") or "")
        server_name = f"{name}.{namespace}.svc"
        url = f"https://{server_name}:{port}{path or '/'}{query}"
        target = services.resolve(namespace, name, port)
        if target is None:
            # What the real dialer would say for a name no resolver knows (documented in docs/admission.md).
            raise CallError(f'failed to call webhook: Post "{url}": dial tcp: lookup {server_name}: no such host',
                            errors.ServiceUnavailable("error calling webhook"))
        return Endpoint(url, target[0], target[1], server_name, (path or "/") + query)
    raw = client_config.get("url")
    if not raw:
        raise CallError("webhook configuration must have either service or URL", errors.InternalError(""))
    parts = urlsplit(str(raw))
    host = parts.hostname or ""
    port = parts.port or 443
    url = f"{parts.scheme}://{parts.netloc}{parts.path or '/'}{query}"
    return Endpoint(url, host, port, host, (parts.path or "/") + query)


@functools.lru_cache(maxsize=64)
def _context(ca_bundle: bytes | None, server_name: str) -> ssl.SSLContext:
    """One context per bundle (its session cache lets a second connection resume the first's TLS session)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.hostname_checks_common_name = False  # Go checks only the subjectAltNames
    if ca_bundle:
        # (no usable root: the handshake fails as Go's does with an empty pool)
        with contextlib.suppress(ssl.SSLError, ValueError):
            ctx.load_verify_locations(cadata=ca_bundle.decode("ascii", "replace"))
    else:
        ctx.load_default_certs()
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


def _go_dial_error(exc: OSError, host: str, port: int) -> str:
    where = f"dial tcp {host}:{port}" if ":" not in host else f"dial tcp [{host}]:{port}"
    if isinstance(exc, ConnectionRefusedError) or exc.errno == errno.ECONNREFUSED:
        return f"{where}: connect: connection refused"
    if isinstance(exc, socket.gaierror):
        return f"dial tcp: lookup {host}: no such host"
    return f"{where}: {exc.strerror or exc}"


def _candidate(ca_bundle: bytes | None) -> tuple[str, str] | None:
    """The CA of the bundle Go would try for a certificate whose issuer name it has: (its CN, the verification
    error of its key type)."""
    if not ca_bundle:
        return None
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives.asymmetric import ec, rsa
        from cryptography.x509.oid import NameOID

        cert = x509.load_pem_x509_certificates(ca_bundle)[0]
        names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
        key = cert.public_key()
    except (ImportError, ValueError, IndexError):
        return None
    kind = ("x509: ECDSA verification failure" if isinstance(key, ec.EllipticCurvePublicKey) else
            "crypto/rsa: verification error" if isinstance(key, rsa.RSAPublicKey) else "x509: signature failure")
    return (str(names[0].value) if names else ""), kind


def _tls_error(exc: ssl.SSLError, ca_bundle: bytes | None = None) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        code = getattr(exc, "verify_code", 0)
        if code == 7:  # a CA of the same name did not sign it: Go names the candidate it tried
            candidate = _candidate(ca_bundle)
            if candidate is not None:
                return ("tls: failed to verify certificate: x509: certificate signed by unknown authority "
                        f'(possibly because of "{candidate[1]}" while trying to verify candidate authority '
                        f'certificate "{candidate[0]}")')
        if code in (20, 19, 21, 2):  # unable to get issuer / self-signed in chain / leaf not verifiable
            return "tls: failed to verify certificate: x509: certificate signed by unknown authority"
        if code == 10:
            return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid"
        if code == 62:  # hostname mismatch
            return f"tls: failed to verify certificate: x509: {exc.verify_message}"
        return f"tls: failed to verify certificate: x509: {exc.verify_message}"
    return f"remote error: tls: {exc.reason or exc}".lower()


class _Connection(http.client.HTTPConnection):
    """HTTPS to ``point.host``, with the certificate checked against ``point.server_name`` (the Service's DNS
    name, not the dialled address)."""

    def __init__(self, point: Endpoint, timeout: float, context: ssl.SSLContext) -> None:
        super().__init__(point.host, point.port, timeout=timeout)
        self._server_name = point.server_name
        self._tls = context

    def connect(self) -> None:
        super().connect()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as Go's net package sets it
        self.sock = self._tls.wrap_socket(self.sock, server_hostname=self._server_name)


class _Pool:
    """Idle keep-alive connections per endpoint, as Go's transport keeps them (client-go caches one client per
    webhook client config: apiserver ``pkg/util/webhook/client.go``)."""

    def __init__(self) -> None:
        self._idle: dict[tuple[Any, ...], list[_Connection]] = {}
        self._lock = threading.Lock()

    def take(self, key: tuple[Any, ...]) -> _Connection | None:
        with self._lock:
            idle = self._idle.get(key)
            return idle.pop() if idle else None

    def give(self, key: tuple[Any, ...], conn: _Connection) -> None:
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if len(idle) < 8:
                idle.append(conn)
                return
        conn.close()


_POOL = _Pool()


def post(point: Endpoint, ca_bundle: bytes | None, body: dict[str, Any], timeout: float) -> Any:
    """POST ``body`` as JSON and decode the answer; ``CallError`` with client-go's words when that fails."""
    data = json.dumps(body, separators=(",", ":")).encode()
    context = _context(ca_bundle, point.server_name)
    key = (point.host, point.port, point.server_name, id(context))
    prefix = f'failed to call webhook: Post "{point.url}": '
    headers = {"Content-Type": "application/json", "Accept": "application/json, */*",
               "Host": f"{point.server_name}:{point.port}" if point.port != 443 else point.server_name,
               "User-Agent": "kube-apiserver-admission"}
    reused = _POOL.take(key)
    conn = reused or _Connection(point, timeout, context)
    conn.timeout = timeout
    if conn.sock is not None:
        conn.sock.settimeout(timeout)
    try:
        try:
            conn.request("POST", point.path, body=data, headers=headers)
            response = conn.getresponse()
            payload = response.read()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            if reused is None:
                raise
            # An idle connection the server closed meanwhile: once more on a new one, as Go's transport retries.
            conn.close()
            conn = _Connection(point, timeout, context)
            conn.request("POST", point.path, body=data, headers=headers)
            response = conn.getresponse()
            payload = response.read()
    except ssl.SSLError as exc:
        conn.close()
        raise CallError(prefix + _tls_error(exc, ca_bundle), errors.ServiceUnavailable("error calling webhook")) from None
    except TimeoutError:
        conn.close()
        raise CallError(prefix + "context deadline exceeded", errors.ServiceUnavailable("error calling webhook")) from None
    except http.client.RemoteDisconnected:
        conn.close()  # (the server hung up without an answer: Go's transport reads an EOF)
        raise CallError(prefix + "EOF", errors.ServiceUnavailable("error calling webhook")) from None
    except OSError as exc:
        conn.close()
        raise CallError(prefix + _go_dial_error(exc, point.host, point.port),
                        errors.ServiceUnavailable("error calling webhook")) from None
    except http.client.HTTPException as exc:
        conn.close()
        raise CallError(prefix + f"net/http: {exc}", errors.ServiceUnavailable("error calling webhook")) from None
    if response.will_close:
        conn.close()
    else:
        _POOL.give(key, conn)
    if not 200 <= response.status <= 206:
        status = _http_status_error(response.status, payload, response.getheader("Content-Type") or "")
        raise CallError("failed to call webhook: " + status.message, status)
    try:
        return json.loads(payload)
    except ValueError as exc:
        text = f"couldn't get version/kind; json parse error: {_not_json(payload, exc)}"
        raise CallError("failed to call webhook: " + text, errors.ServiceUnavailable("error calling webhook")) from None


def _not_json(payload: bytes, exc: ValueError) -> str:
    """Why client-go's decoder could not find a body's version and kind: it reads YAML as well
    (apimachinery ``yaml.ToJSON``), so a bare word is a string the type meta cannot be unmarshalled from
    (observed on kube-apiserver v1.37.2: ``json: cannot unmarshal string into Go value of type struct {...}``)."""
    import yaml

    from fakekube.typemeta import TypeMetaError, interpret

    try:
        doc = yaml.safe_load(payload)
    except yaml.YAMLError:
        return str(exc)
    if doc is None or isinstance(doc, dict):
        return str(exc)
    try:
        interpret(doc)
    except TypeMetaError as err:
        return str(err).removeprefix("couldn't get version/kind; json parse error: ")
    return str(exc)


def _http_status_error(code: int, payload: bytes, content_type: str) -> errors.ApiError:
    """client-go ``transformResponse``: a Status body is the error; anything else becomes apimachinery's
    ``NewGenericServerResponse`` for a POST, showing the body only when it is ``text/plain``
    (``isTextResponse``; else "unknown")."""
    try:
        decoded = json.loads(payload)
    except ValueError:
        decoded = None
    if isinstance(decoded, dict) and decoded.get("kind") == "Status":
        return errors.ApiError(int(decoded.get("code") or code), str(decoded.get("reason") or ""),
                               str(decoded.get("message") or ""), decoded.get("details"))
    is_text = content_type.split(";")[0].strip().lower() == "text/plain"
    text = payload.decode("utf-8", "replace").strip() if is_text else ""
    reason, message = _GENERIC.get(code, ("", ""))
    if not reason:
        reason, message = ("InternalError", "an error on the server ({body}) has prevented the request from "
                           "succeeding") if code >= 500 else ("BadRequest", "the server rejected our request "
                                                                             "for an unknown reason")
    body = json.dumps(text) if text else '"unknown"'
    return errors.ApiError(code, reason, message.replace("{body}", body))


_GENERIC = {
    400: ("BadRequest", "the server rejected our request for an unknown reason"),
    401: ("Unauthorized", "the server has asked for the client to provide credentials"),
    403: ("Forbidden", "the server does not allow access to the requested resource"),
    404: ("NotFound", "the server could not find the requested resource"),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
    409: ("Conflict", "the server reported a conflict"),
    429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
    500: ("InternalError", "an error on the server ({body}) has prevented the request from succeeding"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
    504: ("Timeout", "the server was unable to return a response in the time allotted, but may still be "
                    "processing the request"),
}

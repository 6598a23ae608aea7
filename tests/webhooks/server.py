"""A tiny HTTPS admission webhook server for tests: a throwaway CA (fakekube.server.tls), one handler per path
that takes the AdmissionReview request and gives the response fields; every review it got is kept."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fakekube.server.tls import Certificates, make_certificates

Handler = Callable[[dict[str, Any]], dict[str, Any]]

_CERTS: dict[tuple[str, ...], Certificates] = {}


def certificates(hosts: tuple[str, ...] = ("127.0.0.1", "localhost")) -> Certificates:
    if hosts not in _CERTS:  # (an EC key pair a test module: made once)
        _CERTS[hosts] = make_certificates(hosts)
    return _CERTS[hosts]


def allow(_: dict[str, Any]) -> dict[str, Any]:
    return {"allowed": True}


def patch(ops: list[dict[str, Any]]) -> dict[str, Any]:
    """Response fields of a JSON patch."""
    return {"allowed": True, "patchType": "JSONPatch",
            "patch": base64.b64encode(json.dumps(ops).encode()).decode()}


def converter(convert: Callable[[dict[str, Any], str], dict[str, Any]], *, version: str | None = None,
              **response: Any) -> Handler:
    """A conversion webhook's handler: ``convert(object, desiredAPIVersion)`` for each object, answered in a
    ConversionReview of the request's version (or ``version``); ``response`` fields override the answer's."""
    def handle(review: dict[str, Any]) -> dict[str, Any]:
        req = review["request"]
        converted = [convert(obj, req["desiredAPIVersion"]) for obj in req["objects"]]
        answer = {"uid": req["uid"], "convertedObjects": converted, "result": {"status": "Success"}, **response}
        return {"raw": (200, {"apiVersion": version or review["apiVersion"], "kind": "ConversionReview",
                              "response": answer})}
    return handle


class WebhookServer:
    def __init__(self, hosts: tuple[str, ...] = ("127.0.0.1", "localhost")) -> None:
        self.certs = certificates(hosts)
        self.handlers: dict[str, Handler] = {}
        self.reviews: list[tuple[str, dict[str, Any]]] = []
        self.delay = 0.0
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as webhook servers (Go's, aiohttp's) answer
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                length = int(self.headers.get("Content-Length") or 0)
                review = json.loads(self.rfile.read(length))
                path = self.path.partition("?")[0]
                server.reviews.append((path, review))
                if server.delay:
                    time.sleep(server.delay)
                handler = server.handlers.get(path, allow)
                # A ConversionReview's handler takes the whole review (see ``converter``).
                fields = handler(review if review.get("kind") == "ConversionReview" else review["request"])
                if "raw" in fields:
                    status, body = fields["raw"]
                    payload = body if isinstance(body, bytes) else json.dumps(body).encode()
                else:
                    status = 200
                    payload = json.dumps({"apiVersion": review["apiVersion"], "kind": "AdmissionReview",
                                          "response": {"uid": review["request"]["uid"], **fields}}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/plain" if fields.get("text") else "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        context = self.certs.server_context()
        import ssl

        context.verify_mode = ssl.CERT_NONE
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def ca_bundle(self) -> str:
        return base64.b64encode(self.certs.ca_pem).decode()

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def client_config(self, path: str) -> dict[str, Any]:
        return {"url": self.url(path), "caBundle": self.ca_bundle}

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

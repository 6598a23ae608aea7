"""The HTTP front without I/O: one function from a request (method, target, headers, body, the client's verified
certificate) to a response (status, headers, and a body that is bytes or, for a watch, a stream of event
batches). The threading server (``fakekube.server.handler``) and the in-process transports
(``fakekube.inprocess``) both answer through ``Front.handle``, so every front answers the same bytes.

``Front`` holds what a request is served with (the store, authentication, authorization, impersonation,
discovery, OpenAPI, printers, watch settings); ``fakekube.server.exchange`` serves one request.

A response's ``finish()`` must be called once it is out (for a watch: once its stream ended or was closed): the
audit log writes a request's event then, with the code the client got.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from fakekube.identity import Authorizer, UserInfo
from fakekube.rbac_authorizer import RBACAuthorizer
from fakekube.server import metrics
from fakekube.server.auth import Authenticator, actor_from_user_agent
from fakekube.server.bodies import DEFAULT_MAX_BODY_BYTES
from fakekube.server.discovery import Discovery
from fakekube.server.exchange import Exchange
from fakekube.server.impersonation import Impersonator
from fakekube.server.messages import HttpRequest, HttpResponse, headers_of
from fakekube.server.openapi import OpenAPIDocuments
from fakekube.server.podlog import LogFollowers
from fakekube.server.tables import Printers
from fakekube.server.watchstream import MAX_PENDING, StreamSettings, WatchStreamer
from fakekube.store import Store

__all__ = ["Front", "HttpRequest", "HttpResponse", "headers_of"]

class Front:
    """The options of ``ApiServer`` that decide answers (see there); ``handle`` serves one request."""

    def __init__(
        self,
        store: Store | None = None,
        *,
        host: str = "127.0.0.1",
        token: str | None = None,
        tokens: Mapping[str, str | UserInfo] | None = None,
        authorizer: Authorizer | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        version_minor: str | None = None,
        watch_timeout: float = 1800.0,
        bookmark_interval: float = 30.0,
        poll_interval: float = 0.25,
        watch_max_pending: int = MAX_PENDING,
        actor_of: Callable[[str | None], str] = actor_from_user_agent,
        tls: bool = False,
    ) -> None:
        self.store = store if store is not None else Store()
        all_tokens = dict(tokens or {})
        if token:
            all_tokens.setdefault(token, "admin")
        self.token = token or next(iter(all_tokens), None)
        self.authenticator = Authenticator(self.store, all_tokens)
        self.authorizer = authorizer
        # Who decides for anonymous requests: the authorizer; over TLS without one, RBAC over the store's roles
        # (the bootstrap policy grants system:unauthenticated the health and version paths), so a TLS server is
        # not open to whoever reaches its port. Plain HTTP stays open: a loopback fake without security.
        self.anonymous_authorizer: Authorizer | None = authorizer
        if authorizer is None and tls:
            self.anonymous_authorizer = RBACAuthorizer(self.store)
        if authorizer is not None and self.store.authorizer is None:
            self.store.authorizer = authorizer  # access reviews answer with the authorizer the front enforces
        self.impersonator = Impersonator()  # remembers, per requestor, the impersonation mode that last worked
        self.max_body_bytes = max_body_bytes
        self.actor_of = actor_of
        self.closing = threading.Event()
        self.streamer = WatchStreamer(self.store, StreamSettings(watch_timeout, bookmark_interval, poll_interval,
                                                                  watch_max_pending),
                                      self.closing)
        self.log_followers = LogFollowers()  # pods/log streams that follow (ended by close())
        self.printers = Printers(self.store)  # server-side printing (Table) for kubectl get
        self.discovery = Discovery(self.store.registry, server_address=host, minor=version_minor)
        self.discovery.extras = lambda: metrics.extra_groups(self.store)  # metrics.k8s.io, while its APIService is
        self.openapi = OpenAPIDocuments(self.store.registry)

    def handle(self, request: HttpRequest) -> HttpResponse:
        """The response to one request. Never raises for anything a client sends."""
        return Exchange(self, request).serve()

    def close(self) -> None:
        """End every watch stream now."""
        self.closing.set()
        self.streamer.stop_all()
        self.log_followers.stop_all()

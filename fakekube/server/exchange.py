"""One request served without I/O (``fakekube.server.front``): authenticated, authorized, routed, and answered
with a JSON (or negotiated) reply or a watch stream. Every failure leaves as a ``metav1.Status`` body — unknown
methods and errors the code did not expect included (a 500, logged, never a traceback to the client)."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.identity import ANONYMOUS_NAME, RequestAttributes, UserInfo
from fakekube.server import (
    auditing,
    encoding,
    impersonation,
    metrics,
    negotiation,
    openapi,
    partial,
    podconnect,
    podlog,
    rest,
    routes,
    routing,
    tables,
)
from fakekube.server.auth import (
    forbidden,
    granted_to_every_user,
    path_attributes,
    path_forbidden,
    path_granted,
)
from fakekube.server.discovery import AGGREGATED_CONTENT_TYPE, wants_aggregated
from fakekube.server.messages import HttpRequest, HttpResponse
from fakekube.server.params import Query
from fakekube.server.replies import Encoder

if TYPE_CHECKING:
    from fakekube.server.front import Front
    from fakekube.server.watchstream import Pacer
    from fakekube.store import Store

logger = logging.getLogger("fakekube.server")

JSON_TYPE = "application/json"
CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)
SERVED_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE"})


_UUID_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}


def new_audit_id() -> str:
    """A random (version 4) UUID's text, as ``str(uuid.uuid4())`` writes it, at a third of its cost."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_UUID_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"


def _decide(authorizer: Any, attrs: Any) -> tuple[bool, str]:
    """An authorizer's decision and reason (a plain callable gives no reason)."""
    decide = getattr(authorizer, "decide", None)
    return decide(attrs) if decide is not None else (bool(authorizer(attrs)), "")


def internal_error(exc: BaseException) -> errors.ApiError:
    """``errors.NewInternalError``: what an unexpected failure looks like on the wire."""
    text = f"{type(exc).__name__}: {exc}"
    return errors.ApiError(500, "InternalError", f"Internal error occurred: {text}", {"causes": [{"message": text}]})


def warning_header(text: str) -> str:
    """apimachinery ``net.NewWarningHeader(299, "-", text)``: ``299 - "unknown field \\"spec.foo\\""``."""
    quoted = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{quoted}"'


def method_not_allowed(method: str) -> errors.ApiError:
    """A method no route takes (HEAD, OPTIONS, anything unknown): what the threading server answers."""
    if method in ("HEAD", "OPTIONS"):
        return errors.ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
    return errors.ApiError(405, "MethodNotAllowed", f"Unsupported method ({method!r})")


class Exchange:
    """One request and its response (``Front.handle``)."""

    def __init__(self, front: Front, request: HttpRequest) -> None:
        self.server = front  # named as the handler's server was: auditing reads ``.server.store``
        self.request = request
        self.headers = request.headers
        self.path = request.target
        self.client_address = request.client_address
        self.close_connection = False
        self._response: HttpResponse | None = None
        self._audit: auditing.AuditRequest | None = None
        self._audit_id = ""
        self._reply_code = 0
        self._reply_error: errors.ApiError | None = None
        self._wanted: impersonation.WantedUser | None = None
        self._warnings: list[str] = []
        self._route_warnings: list[str] = []
        self._encoder = Encoder.JSON
        self._negotiated_error = False

    def serve(self) -> HttpResponse:
        method = self.request.method
        if method not in SERVED_METHODS:
            self._read_body_quietly()
            self.close_connection = True  # a HEAD reply must not carry a body; closing keeps the client in sync
            self._send_error(method_not_allowed(method))
        else:
            self._serve(method)
        response = self._response
        if response is None:  # nothing to answer: the connection closes
            response = HttpResponse(0, abort=True, close=True)
        response.close = response.close or self.close_connection
        response.audit_id = self._audit_id
        audit = self._audit
        if audit is not None:
            done = False

            def finish() -> None:
                nonlocal done
                if not done:
                    done = True
                    auditing.end(self, audit, self._reply_code, self._reply_error)

            response.finish = finish
        return response

    def _serve(self, method: str) -> None:
        srv = self.server
        path, _, query = self.path.partition("?")
        self._previous_request = srv.store.last_request()
        audit = srv.store.audit
        # WithAuditInit: the client's Audit-ID, or a new UUID, answered on every reply and logged as auditID.
        self._audit_id = self.headers.get("Audit-ID") or new_audit_id()
        self._audit = auditing.begin(self, method, self._audit_id) if audit.policy is not None else None
        # The request's event is written by the response's finish(), once the reply is out.
        with audit.context(self._audit) if self._audit is not None else contextlib.nullcontext():
            self._serve_audited(method, path, query)

    def _serve_audited(self, method: str, path: str, query: str) -> None:
        srv = self.server
        try:
            body = self._read_body()
            user = srv.authenticator.authenticate(self.headers.get("Authorization"), self.request.certificate)
            auditing.authenticated(self._audit, user)
            # Impersonation headers are read right after authentication (400 before any path is looked at);
            # the checks need the request's attributes, so they run where authorization does.
            self._wanted = impersonation.requested_user(self.headers)
            route = routing.parse(path)
            if not isinstance(route, routing.ResourcePath):
                self._authorize_path(user, method, path)
            if route is None:
                raise routes.missing(srv.store.registry, path)
            if isinstance(route, routing.Endpoint):
                if method != "GET" and routes.endpoint_is_restful(srv.store.registry, route.kind, route.parts):
                    raise routes.method_not_allowed()
                self._endpoint(route)
                return
            self._resource(method, route, Query(query), body, user)
        except errors.HandlerPanic:
            # The real handler panicked: its panic filters abort the reply, the client sees the connection close.
            logger.debug("aborting %s %s as the real server's handler would (a panic)", method, self.path)
            self.close_connection = True
        except errors.ApiError as exc:
            self._take_warnings()  # a failed write still sends what its decoding warned about
            if exc.warnings:
                self._warnings = list(dict.fromkeys([*self._warnings, *exc.warnings]))
            self._send_error(exc)
        except CLIENT_GONE:
            self.close_connection = True
        except Exception as exc:  # the server must keep serving whatever a request does
            logger.exception("unexpected error serving %s %s", method, self.path)
            self._send_error(internal_error(exc))

    def _authorize_path(self, user: UserInfo, method: str, path: str) -> None:
        """A non-resource path (discovery, health, an unknown path), decided before the path is even looked
        up, as upstream's filters do. Discovery, OpenAPI and health are open to authenticated users
        (``system:discovery``), health and version to everyone (``system:public-info-viewer``); other paths need
        what the authorizer grants (with no authorizer, everything but what limited anonymous requests lack)."""
        attrs = path_attributes(user, method, path)
        user = self._impersonate(attrs, user)
        attrs = path_attributes(user, method, path)
        self._authorize(attrs, user.name == ANONYMOUS_NAME, open_anyway=path_granted(attrs))

    def _authorize_unserved(self, method: str, route: routing.ResourcePath, query: Query, user: UserInfo) -> None:
        """Before the 404 or 405 of a resource path nothing serves: upstream's filters impersonate and authorize
        on the path's RequestInfo first, so a user the authorizer refuses gets the 403 (observed on kube-apiserver
        v1.37.2: ``nosuchthings is forbidden: User "bob" cannot list resource "nosuchthings" ...``)."""
        attrs = RequestAttributes(user.name, rest.request_info_verb(method, route, query), route.group, route.plural,
                                  route.subresource, route.namespace, route.name, groups=user.groups, uid=user.uid,
                                  version=route.version, extra=user.extra)
        acting = self._impersonate(attrs, user)
        attrs = dataclasses.replace(attrs, user=acting.name, groups=acting.groups, uid=acting.uid, extra=acting.extra)
        self._authorize(attrs, acting.name == ANONYMOUS_NAME, open_anyway=granted_to_every_user(attrs))

    def _impersonate(self, attrs: RequestAttributes, user: UserInfo) -> UserInfo:
        """The user the request acts as: ``user``, or whom its impersonation headers name when the requestor's
        authorizer allows it (fakekube.server.impersonation); a refusal is a 403 before authorization, so its
        audit event carries no decision annotation, as upstream's."""
        wanted = self._wanted
        if wanted is None:
            return user
        srv = self.server
        authorizer = srv.anonymous_authorizer if user.name == ANONYMOUS_NAME else srv.authorizer

        def decide(check: RequestAttributes) -> tuple[bool, str]:
            return _decide(authorizer, check) if authorizer is not None else (True, "")

        result = srv.impersonator.impersonate(decide, wanted, attrs, user)
        auditing.impersonated(self._audit, result.user, result.constraint)
        return result.user

    def _authorize(self, attrs: RequestAttributes, anonymous: bool, *, open_anyway: bool) -> None:
        """The authorizer's decision, written to the audit event as upstream's WithAuthorization filter writes
        it (annotations ``authorization.k8s.io/decision`` allow or forbid, and ``authorization.k8s.io/reason``;
        apiserver pkg/endpoints/filters/authorization.go), then a 403 if it forbids. Without an authorizer
        (AlwaysAllow) every request is allowed with no reason, as kube-apiserver's AlwaysAllow answers.
        ``open_anyway``: what the front grants whatever the authorizer says (a store without the bootstrap
        policy still serves discovery and self reviews)."""
        srv = self.server
        authorizer = srv.anonymous_authorizer if anonymous else srv.authorizer
        allowed, reason = _decide(authorizer, attrs) if authorizer is not None else (True, "")
        if not allowed and open_anyway:
            allowed, reason = True, ""
        auditing.authorized(self._audit, allowed, reason)
        if not allowed:
            raise forbidden(attrs, reason) if attrs.resource_request else path_forbidden(attrs, reason)

    def _resource(self, method: str, route: routing.ResourcePath, query: Query, body: bytes, user: UserInfo) -> None:
        srv = self.server
        store = srv.store
        if route.group == metrics.GROUP and metrics.served(store):
            self._authorize_unserved(method, route, query, user)  # authorized on the path, as any request
            answer = metrics.serve(store, method, route, query)
            version = tables.wants_table(self.headers.get("Accept"))
            if version is not None:
                table = metrics.as_table(answer, version, tables.include_object(query.str("includeObject")))
                self._write_reply(200, encoding.encode(table, pretty=self._pretty()), tables.content_type(version))
                return
            self._send_json(200, answer)
            return
        try:
            rt = routes.resolve(store.registry, route)
        except errors.ApiError:
            self._authorize_unserved(method, route, query, user)
            raise
        # A deprecated kind's warning (kinds.features.deprecation_warning), on every request its routes take.
        route_warnings = [rt.strategy.deprecation] if rt.strategy.deprecation else []
        try:
            verb = routes.verb(rt, method, route, query)
        except errors.ApiError as exc:
            self._authorize_unserved(method, route, query, user)  # a 403 comes before the handler's warnings
            if isinstance(exc, routes.HandlerRefusal):
                self._warnings = self._route_warnings = route_warnings
            raise
        req = rest.Request(store, method, route, query, body, self.headers.get("Content-Type"),
                           srv.actor_of(self.headers.get("User-Agent")), user)
        acting = user
        if self._wanted is None and srv.authorizer is None and srv.anonymous_authorizer is None:
            # Nothing to decide on the request's attributes (no impersonation, no authorizer: AlwaysAllow), so
            # they are not built: the decision is _authorize's without one.
            attrs = None
            auditing.authorized(self._audit, True, "")
        else:
            attrs = rest.attributes(req, rt, verb)
            acting = self._impersonate(attrs, user)
            if acting is not user:
                req = dataclasses.replace(req, user=acting)
                attrs = rest.attributes(req, rt, verb)
            self._authorize(attrs, acting.name == ANONYMOUS_NAME, open_anyway=granted_to_every_user(attrs))
        if not rt.custom and podconnect.handles(rt.group, rt.plural, route.subresource):
            self._connect_pod(req, attrs if attrs is not None else rest.attributes(req, rt, verb), acting)
            return
        # The route's own warnings come first: the real handler adds them before it runs (installer.go).
        self._route_warnings = route_warnings
        self._warnings = list(route_warnings)
        if route.subresource == "log" and rt.plural == "pods" and rt.group == "":
            self._pod_log(route, query)
            return
        # The response's media type (JSON, YAML, protobuf, or a Table for kubectl's human-readable get) is
        # negotiated before the verb runs, as the real handlers do: a 406 or a bad includeObject has no side
        # effects. Errors from here on are written in the negotiated type. Subresources are served as themselves.
        printable = verb in ("get", "list", "watch") and route.subresource is None
        try:
            offered = Encoder.offered(rt)
            if not rt.custom:
                # Built-in routes are go-restful's, which check Accept against what they produce first.
                negotiation.check_route_produces(self.headers.get("Accept"), offered)
            choice = negotiation.negotiate(self.headers.get("Accept"), offered, watch=verb == "watch",
                                           tables=printable, standard=Encoder.standard(rt))
        except errors.ApiError as exc:
            # The 406 itself is written in what the Accept header allows a Status to be (raw JSON when nothing).
            media = negotiation.status_media_type(self.headers.get("Accept"), Encoder.offered(rt))
            if exc.code == 406 and media is not None:
                self._encoder = Encoder.for_media_type(media)
                self._negotiated_error = True
            raise
        self._encoder = Encoder.for_media_type(choice.media_type)
        table = None
        if choice.table_version is not None:
            table = tables.TableWriter(srv.printers.for_resource(rt), rt, choice.table_version,
                                       tables.include_object(query.str("includeObject")), store.clock.now)
        result = rest.serve(req, rt, verb)
        if isinstance(result, rest.WatchReply):
            if table is not None:
                result.render = table.for_event
            elif choice.partial is not None:
                result.render = partial.event_renderer(choice.partial_version)
            self._stream(result)
            return
        code = result.code
        self._take_warnings()
        entry = store.last_request()
        if verb in ("patch", "update") and entry is not None and entry.code == 201:
            code = 201  # a server-side apply, or a PUT of a kind that allows it, that created the object
        if table is not None and code == 200:
            body = table.for_list(result.body) if verb == "list" else table.for_object(result.body)
            self._write_reply(code, encoding.encode(body, pretty=self._pretty()), tables.content_type(table.version))
            return
        if choice.partial is not None:
            self._send_document(code, partial.transform(result.body, choice.partial, choice.partial_version, rt))
            return
        body = result.body
        # (protobuf list items carry no TypeMeta anyway; their cached messages are keyed with it)
        if verb in ("list", "deletecollection") and self._encoder is not Encoder.PROTOBUF:
            body = rest.wire_list(rt, body)
        # What a read returns is the store's objects as they are: their protobuf messages can be reused.
        self._send_document(code, body, store=store if verb in ("get", "list") else None)

    def _pod_log(self, route: routing.ResourcePath, query: Query) -> None:
        """``pods/{name}/log`` (fakekube.server.podlog): text/plain, a 204 for a pod without a node, chunks when
        it follows (the API server's ``LocationStreamer`` copies the kubelet's answer, flushing when following)."""
        srv = self.server
        assert route.name is not None and route.namespace is not None
        reply = podlog.serve(srv.store, route.namespace, route.name, query, srv.log_followers,
                             srv.streamer.settings.poll_interval, srv.actor_of(self.headers.get("User-Agent")))
        if reply.stream is None and reply.body is None:
            self._reply_code = 204
            headers = [("Audit-Id", self._audit_id)] if self._audit_id else []
            self._response = HttpResponse(204, headers)
            return
        if reply.body is not None:
            self._write_reply(200, reply.body, "text/plain")
            return
        self._reply_code = 200
        stream = reply.stream
        headers = [("Audit-Id", self._audit_id), ("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked")]

        def body(conn: Any) -> Generator[list[bytes], None, bool]:
            auditing.stream_started(self, self._audit)
            try:
                return (yield from stream(conn))
            except Exception:  # headers are out: the only safe way to fail now is to drop the connection
                logger.exception("log stream failed")
                return False

        self._response = HttpResponse(200, headers, stream=body)

    def _connect_pod(self, req: rest.Request, attrs: RequestAttributes, acting: UserInfo) -> None:
        """exec and attach (``fakekube.server.podconnect``). A GET, which WebSocket clients send, also needs
        ``create`` on the subresource (AuthorizePodWebsocketUpgradeCreatePermission, on by default since 1.35;
        kubernetes pkg/registry/core/pod/rest/authorize.go)."""
        srv = self.server
        authorizer = srv.anonymous_authorizer if acting.name == ANONYMOUS_NAME else srv.authorizer
        if attrs.verb != "create" and authorizer is not None:
            allowed, reason = _decide(authorizer, dataclasses.replace(attrs, verb="create"))
            if not allowed:
                name = req.path.name or ""
                raise errors.ApiError(403, "Forbidden", f'pods "{name}" is forbidden: {reason}',
                                      {"name": name, "kind": "pods"})
        path = req.path
        assert path.namespace is not None and path.name is not None and path.subresource is not None
        response = podconnect.connect(srv.store, srv.store.pod_exec, path.namespace, path.name, path.subresource,
                                      req.query, self.request)
        self._reply_code = response.status
        response.headers.insert(0, ("Audit-Id", self._audit_id))
        self._response = response

    def _endpoint(self, route: routing.Endpoint) -> None:
        d = self.server.discovery
        kind = route.kind
        if kind == "version":
            self._write_reply(200, d.version, JSON_TYPE)
        elif kind == "health":
            self._write_reply(200, b"ok", "text/plain; charset=utf-8")
        elif kind in ("api_versions", "apis"):
            core = kind == "api_versions"
            if wants_aggregated(self.headers.get("Accept")):
                self._send_discovery(d.aggregated(core), AGGREGATED_CONTENT_TYPE)
            else:
                self._send_discovery(d.api_versions() if core else d.api_group_list())
        elif kind == "group":
            if not d.has_group(route.parts[0]):
                raise routes.missing(self.server.store.registry, self.path)
            self._send_discovery(d.api_group(route.parts[0]))
        elif kind == "group_version":
            group, version = route.parts
            if not d.has_group_version(group, version):
                raise routes.missing(self.server.store.registry, self.path)
            self._send_discovery(d.resource_list(group, version))
        elif kind.startswith("openapi"):
            self._openapi(route)
        else:  # pragma: no cover - routing only produces the kinds above
            raise rest.path_not_found()

    def _openapi(self, route: routing.Endpoint) -> None:
        documents = self.server.openapi
        if route.kind == "openapi_v3_doc" and not documents.has(*route.parts):
            raise rest.path_not_found()
        if not openapi.accepts_json(self.headers.get("Accept")):
            self._write_reply(406, b"", "text/plain; charset=utf-8")  # kube-openapi: no body, just the code
            return
        if route.kind == "openapi_v2":
            body = documents.v2()
        elif route.kind == "openapi_v3":
            body = documents.index()
        else:
            body = documents.group_version(*route.parts)
        self._write_reply(200, body, JSON_TYPE)

    def _stream(self, reply: rest.WatchReply) -> None:
        encoder = self._encoder
        headers = [("Audit-Id", self._audit_id), ("Content-Type", encoder.watch_content_type),
                   ("Transfer-Encoding", "chunked"), ("Cache-Control", "no-cache, private"),
                   *(("Warning", warning_header(w)) for w in self._warnings)]
        streamer = self.server.streamer

        def body(conn: Any, pacer: Pacer | None = None) -> Generator[list[bytes] | float, None, bool]:
            auditing.stream_started(self, self._audit)
            try:
                return (yield from streamer.stream(conn, reply.watch, reply.resource, reply.timeout, reply.bookmarks,
                                                   reply.render, encode=encoder.watch_event,
                                                   start_rv=reply.start_rv, pacer=pacer))
            except Exception:  # headers are out: the only safe way to fail now is to drop the connection
                logger.exception("watch stream failed")
                return False
            finally:
                reply.watch.stop()

        self._response = HttpResponse(200, headers, stream=body, cancel=reply.watch.stop)

    # -- bodies --------------------------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        body = self.request.body
        if not callable(body):
            return body
        try:
            return body()
        except errors.ApiError:
            self.close_connection = True  # what follows the refused body cannot be told from a next request
            raise

    def _read_body_quietly(self) -> None:
        try:
            self._read_body()
        except (errors.ApiError, *CLIENT_GONE):
            self.close_connection = True

    # -- replies -------------------------------------------------------------------------------------------

    def _take_warnings(self) -> None:
        """The warnings of the store request this HTTP request made (fieldValidation=Warn), if it made one."""
        entry = self.server.store.last_request()
        if entry is not None and entry is not self._previous_request:
            # the apiserver's recorder drops repeats
            self._warnings = list(dict.fromkeys([*self._route_warnings, *entry.warnings]))

    def _send_error(self, exc: errors.ApiError) -> None:
        self._reply_error = exc
        if isinstance(exc, routes.PageNotFound):
            self._write_reply(404, routes.PAGE_NOT_FOUND, "text/plain; charset=utf-8")
            return
        if exc.code == 406 and not self._negotiated_error:
            # WriteObjectNegotiated falls back to WriteRawJSON: indented JSON, no newline
            self._write_reply(exc.code, encoding.marshal_indent(exc.status), JSON_TYPE)
            return
        self._send_document(exc.code, exc.status)

    def _send_document(self, code: int, document: Any, store: Store | None = None) -> None:
        """A response object in the negotiated media type (JSON unless the request negotiated another)."""
        body, content_type = self._encoder.encode(document, pretty=self._pretty(), store=store)
        self._write_reply(code, body, content_type)

    def _send_json(self, code: int, document: Any) -> None:
        self._write_reply(code, encoding.encode(document, pretty=self._pretty()), JSON_TYPE)

    def _send_discovery(self, body: bytes, content_type: str = JSON_TYPE) -> None:
        self._write_reply(200, encoding.reencode(body, pretty=self._pretty()), content_type)

    def _pretty(self) -> bool:
        return encoding.wants_pretty(self.path.partition("?")[2], self.headers.get("User-Agent"))

    def _write_reply(self, code: int, body: bytes, content_type: str) -> None:
        self._reply_code = code
        headers = [("Audit-Id", self._audit_id)] if self._audit_id else []
        headers += [("Content-Type", content_type), ("Content-Length", str(len(body))),
                    *(("Warning", warning_header(w)) for w in self._warnings)]
        self._response = HttpResponse(code, headers, body)

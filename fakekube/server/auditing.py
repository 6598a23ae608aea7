"""The HTTP front's part in the audit log, when one is written (``fakekube serve --audit-log``): what
kube-apiserver's ``WithAudit`` filter knows about a request and the store does not.

Per request: the URI as sent, the user (after authentication; groups ``system:authenticated`` or, for the
anonymous user, ``system:unauthenticated``, as the authenticator union adds them), the source IP (and
``X-Forwarded-For`` before it, as ``utilnet.SourceIPs`` lists them), the User-Agent, the client's ``Audit-ID``,
and the time the request arrived. The store's entry of the request takes it; the event is written once the
reply is out, with the code the client got (a DELETE's 202, say). Requests that never reach the store — a
401, a 403, an unknown path, discovery — are written too, as the real server writes them. A watch's
ResponseStarted is written when its stream starts and its ResponseComplete when it ends.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from fakekube import errors
from fakekube.audit import AuditEntry
from fakekube.audit.context import AuditRequest
from fakekube.audit.denials import DECISION, REASON
from fakekube.identity import ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_NAME, UserInfo
from fakekube.server import rest, routing
from fakekube.server.params import Query

if TYPE_CHECKING:
    from fakekube.server.exchange import Exchange as ApiHandler


def begin(handler: ApiHandler, method: str, audit_id: str) -> AuditRequest:
    headers = handler.headers
    forwarded = [ip.strip() for ip in (headers.get("X-Forwarded-For") or "").split(",") if ip.strip()]
    remote = str(handler.client_address[0]) if handler.client_address else ""
    ips = tuple(dict.fromkeys([*forwarded, remote] if remote else forwarded))
    return AuditRequest(uri=handler.path, method=method, user_agent=headers.get("User-Agent") or "",
                        source_ips=ips, received=handler.server.store.clock.now().timestamp(),
                        audit_id=audit_id, deferred=True)


def authenticated(request: AuditRequest | None, user: UserInfo) -> None:
    """The authenticated user, with the groups the authenticator union gives it (``system:authenticated``, or
    ``system:unauthenticated`` for the anonymous user)."""
    if request is None:
        return
    request.user, request.uid = user.name, user.uid
    request.groups = user.groups or (
        (ALL_UNAUTHENTICATED,) if user.name == ANONYMOUS_NAME else (ALL_AUTHENTICATED,))
    request.extra = {k: list(v) for k, v in sorted(user.extra.items())}


def impersonated(request: AuditRequest | None, user: UserInfo, constraint: str) -> None:
    """The user the request acts as (``impersonatedUser``, every stage after RequestReceived) and the constrained
    impersonation verb that allowed it (``authenticationMetadata.impersonationConstraint``; apiserver
    pkg/audit/context.go ``LogImpersonatedUser``)."""
    if request is None:
        return
    request.impersonated_user = user.to_json()
    request.impersonation_constraint = constraint




def authorized(request: AuditRequest | None, allowed: bool, reason: str) -> None:
    """The authorization decision as the event's annotations (apiserver pkg/endpoints/filters/authorization.go:
    ``allow`` or ``forbid``, and the authorizer's reason, empty when it gave none)."""
    if request is not None:
        request.annotations[DECISION] = "allow" if allowed else "forbid"
        request.annotations[REASON] = reason


def _front_entry(handler: ApiHandler, request: AuditRequest, code: int, error: errors.ApiError | None) -> AuditEntry:
    """The entry of a request the store never saw."""
    store = handler.server.store
    path, _, query = request.uri.partition("?")
    try:
        route = routing.parse(path)
    except Exception:  # an unparseable path is still a request to log
        route = None
    entry = AuditEntry(seq=0, time=store.clock.now().timestamp(), actor=handler.server.actor_of(request.user_agent),
                       verb=request.method.lower(), group="", resource="", namespace=None, name=None, code=code,
                       request=request)
    if isinstance(route, routing.ResourcePath):
        with contextlib.suppress(errors.ApiError):  # a method the path does not take keeps its HTTP name
            entry.verb = rest.verb_of(request.method, route, Query(query))
        entry.group, entry.version, entry.resource = route.group, route.version, route.plural
        entry.namespace, entry.name, entry.subresource = route.namespace, route.name, route.subresource
    else:
        request.non_resource = True
    if error is not None:
        entry.reason, entry.message, entry.details = error.reason, error.message, error.details
    return entry


def end(handler: ApiHandler, request: AuditRequest, code: int, error: errors.ApiError | None) -> None:
    """After the reply: write the request's event with the code the client got."""
    audit = handler.server.store.audit
    entry = request.entry
    if entry is None:
        entry = _front_entry(handler, request, code, error)
    elif code:
        entry.code = code
    request.deferred = False
    if entry.verb == "watch" and 200 <= entry.code < 300 and request.stages:
        audit.finish(entry)  # its ResponseStarted went out when the stream started
        return
    audit.announce(entry)


def stream_started(handler: ApiHandler, request: AuditRequest | None) -> None:
    """A watch's stream starts: ResponseStarted now; ``end`` writes its ResponseComplete."""
    if request is None or request.entry is None:
        return
    request.deferred = False
    request.stages = ("ResponseStarted",)
    handler.server.store.audit.announce(request.entry)

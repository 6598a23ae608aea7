"""The HTTP side of a request, as an audit event records it (kube-apiserver fills these in
``pkg/endpoints/filters/audit.go`` and ``pkg/audit/request.go`` ``LogRequestMetadata``), and the front's hand-off
of it to the store.

A front (the HTTP server) opens a context per request (`AuditLog.context`); the store's first audit entry of
that request takes it (``entry.request``). Requests that never reach the store (a 401, a 403, an unknown
path, discovery) are announced by the front itself (`AuditLog.announce`) so that the written log has them,
as kube-apiserver's has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def actor_from_user_agent(user_agent: str | None) -> str:
    """The product name of the User-Agent: ``kubectl/v1.32.4 (linux/amd64) ...`` → ``kubectl``,
    ``kopf/1.45.2`` → ``kopf``. The real server derives the default field manager the same way."""
    if not user_agent:
        return "unknown"
    product = user_agent.strip().split(" ", 1)[0].split("/", 1)[0]
    return product or "unknown"


@dataclass(slots=True)
class AuditRequest:
    """What an audit event records about a request beyond the store's entry.

    ``uri``: the request URI as sent (path and query); ``received``: when the request arrived (seconds on the
    store's clock, ``requestReceivedTimestamp``); ``audit_id``: the client's ``Audit-ID`` header or one the
    log chose; ``stages``: the stages a log that was read had for it; ``annotations``: the event's
    annotations (authorization decision, ...); ``non_resource``: a request for a path, not a resource
    (``/api``, ``/healthz``).
    """

    uri: str = ""
    method: str = ""
    user: str = ""
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: dict[str, list[str]] = field(default_factory=dict)
    impersonated_user: dict[str, Any] | None = None
    impersonation_constraint: str = ""  # authenticationMetadata.impersonationConstraint
    source_ips: tuple[str, ...] = ()
    user_agent: str = ""
    received: float | None = None
    audit_id: str = ""
    annotations: dict[str, str] = field(default_factory=dict)
    stages: tuple[str, ...] = ()
    non_resource: bool = False
    # A front that writes the event itself once the reply is out (the HTTP server, so that the written code
    # is the one the client got) defers it; ``entry`` is the store's entry of the request, once taken.
    deferred: bool = False
    entry: Any = field(default=None, repr=False, compare=False)

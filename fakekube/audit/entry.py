"""One audit entry: a request the store served, as the audit log records it."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakekube.audit.context import AuditRequest


@dataclass(slots=True)
class AuditEntry:
    seq: int
    time: float  # seconds on the store's clock (virtual seconds under simulation, epoch seconds otherwise)
    actor: str
    verb: str  # get, list, watch, create, update, patch, delete, deletecollection
    group: str
    resource: str
    namespace: str | None
    name: str | None
    subresource: str | None = None
    code: int = 0
    reason: str = ""
    message: str = ""
    rv_before: str | None = None
    rv_after: str | None = None
    patch_type: str | None = None
    dry_run: bool = False
    based_on: str | None = None  # resourceVersion the client computed the write from, when it says so
    uid: str | None = None
    notes: list[str] = field(default_factory=list)
    # The generateName of a create that asked for one: the audit log's objectRef.name stays empty for such a
    # create (kube-apiserver fills objectRef from the URL), while ``name`` holds the name the store generated.
    generate_name: str | None = None
    warnings: list[str] = field(default_factory=list)  # sent to the client as Warning headers (fieldValidation)
    # What an audit.k8s.io/v1 Event says beyond the store's view. ``version``: the API version the request
    # used (objectRef.apiVersion); ``request_rv``: the resourceVersion the client sent in the body
    # (objectRef.resourceVersion); ``details``: the error's Status details. ``level`` is the audit level a
    # policy chose ("" when no policy looked at the request); ``request_object`` / ``response_object`` are the
    # bodies (JSON values), captured only when that level asks for them. ``request`` carries the HTTP side:
    # URI, user, source IPs, user agent, audit ID, received time, annotations (None in process).
    version: str = ""
    request_rv: str | None = None
    details: dict[str, Any] | None = None
    level: str = ""
    request_object: Any = None
    response_object: Any = None
    request: AuditRequest | None = None

    @property
    def path(self) -> str:
        """The resource path as an audit log shows it, e.g. ``sandboxclaims/agent-claim-4/status``."""
        parts = [self.resource]
        if self.name:
            parts.append(self.name)
        if self.subresource:
            parts.append(self.subresource)
        return "/".join(parts)

    @property
    def ok(self) -> bool:
        return 200 <= self.code < 300

    @property
    def conflict(self) -> bool:
        return self.code == 409 and self.reason == "Conflict"

    @property
    def is_write(self) -> bool:
        return self.verb in ("create", "update", "patch", "delete", "deletecollection")

    def to_dict(self) -> dict[str, Any]:
        """The entry as fakekube's own JSON lines show it (``AuditLog.to_jsonl``); the fields an
        audit.k8s.io/v1 Event carries instead are left out (the Event writer is ``fakekube.audit.writer``)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _EVENT_ONLY}
        data["notes"] = list(self.notes)
        data["path"] = self.path
        return data


def request_entry(seq: int, time: float, actor: str, verb: str, group: str, resource: str, namespace: str | None,
                  name: str | None, subresource: str | None, version: str, dry_run: bool = False,
                  based_on: str | None = None, patch_type: str | None = None,
                  request_rv: str | None = None) -> AuditEntry:
    """The entry the store opens for each request it serves, everything else at its default.

    The store opens one per request, so the fields go in by position: matching a dozen keywords against the
    dataclass's 28 parameters costs as much as the rest of the construction (tests/audit/test_entry.py ties
    this to the keyword form)."""
    return AuditEntry(seq, time, actor, verb, group, resource, namespace, name, subresource, 0, "", "", None, None,
                      patch_type, dry_run, based_on, None, [], None, [], version, request_rv)


_EVENT_ONLY = ("version", "request_rv", "details", "level", "request_object", "response_object", "request")

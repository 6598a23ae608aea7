"""One audit entry: a request the store served, as the audit log records it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


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
        data = asdict(self)
        data["path"] = self.path
        return data

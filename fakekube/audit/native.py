"""Reading kube-apiserver's own audit log (``audit.k8s.io/v1`` and ``v1beta1`` Events) for what timing needs.

A native log is one JSON Event per line (``--audit-log-path``), or a JSON ``EventList`` / array of Events. Each
request can appear once per stage (``RequestReceived``, ``ResponseStarted`` for watches, ``ResponseComplete``,
``Panic``); `read_requests` keeps one `LoggedRequest` per ``auditID`` with its ``requestReceivedTimestamp`` and
the ``stageTimestamp`` of its last stage. Lines that are not Events are reported (line number and why) in
``problems`` and skipped. The field meanings are those of ``k8s.io/apiserver/pkg/apis/audit/v1/types.go``
(``Event``, ``ObjectReference``, ``Stage``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

_FINAL_STAGES = ("ResponseComplete", "Panic")


@dataclass
class LoggedRequest:
    audit_id: str
    verb: str  # the audit verb: get, list, watch, create, update, patch, delete, deletecollection
    resource: str
    name: str | None
    subresource: str | None
    namespace: str | None
    group: str
    actor: str  # user.username
    received: float  # requestReceivedTimestamp, epoch seconds
    completed: float  # stageTimestamp of the last stage seen
    code: int | None  # responseStatus.code
    stage: str
    line: int

    @property
    def ok(self) -> bool:
        return self.code is not None and 200 <= self.code < 300

    @property
    def is_write(self) -> bool:
        return self.verb in ("create", "update", "patch", "delete", "deletecollection")


@dataclass
class AuditLogRead:
    requests: list[LoggedRequest] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "line N: why"


def _timestamp(value: Any) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    text = value.strip().replace("Z", "+00:00")
    if "." in text:  # Python's fromisoformat takes at most 6 fractional digits: MicroTime has 6, keep 6
        head, _, rest = text.partition(".")
        digits = "".join(ch for ch in rest if ch.isdigit())
        text = f"{head}.{(digits + '000000')[:6]}{rest[len(digits):]}"
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


def _events(text: str) -> list[tuple[int, Any]]:
    """(line or position, event or the JSON error) for a whole-document list / EventList, else JSON lines."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, list):
        return [(i + 1, e) for i, e in enumerate(data)]
    if isinstance(data, dict):
        return [(i + 1, e) for i, e in enumerate(data["items"])] if isinstance(data.get("items"), list) \
            else [(1, data)]
    out: list[tuple[int, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((number, json.loads(line)))
        except ValueError as exc:
            out.append((number, exc))
    return out


def read_requests(text: str) -> AuditLogRead:
    """The requests of a native audit log, one per auditID, in the order of their first stage."""
    result = AuditLogRead()
    by_id: dict[str, LoggedRequest] = {}
    for line, event in _events(text):
        if isinstance(event, Exception):
            result.problems.append(f"line {line}: not JSON ({event})")
            continue
        if not isinstance(event, dict) or event.get("kind") not in (None, "Event") or "verb" not in event:
            result.problems.append(f"line {line}: not an audit Event")
            continue
        received = _timestamp(event.get("requestReceivedTimestamp"))
        stamp = _timestamp(event.get("stageTimestamp")) or received
        if received is None or stamp is None:
            result.problems.append(f"line {line}: no requestReceivedTimestamp/stageTimestamp")
            continue
        ref = event.get("objectRef") or {}
        audit_id = str(event.get("auditID") or f"line-{line}")
        stage = str(event.get("stage") or "ResponseComplete")
        code = (event.get("responseStatus") or {}).get("code")
        existing = by_id.get(audit_id)
        if existing is not None:
            if stage in _FINAL_STAGES or existing.stage not in _FINAL_STAGES:
                existing.completed, existing.stage = max(existing.completed, stamp), stage
                existing.code = code if code is not None else existing.code
            continue
        request = LoggedRequest(
            audit_id=audit_id, verb=str(event["verb"]), resource=str(ref.get("resource") or ""),
            name=ref.get("name") or None, subresource=ref.get("subresource") or None,
            namespace=ref.get("namespace") or None, group=str(ref.get("apiGroup") or ""),
            actor=str((event.get("user") or {}).get("username") or ""), received=received, completed=stamp,
            code=code if isinstance(code, int) else None, stage=stage, line=line)
        by_id[audit_id] = request
        result.requests.append(request)
    return result

"""The shapes real clusters' audit logs come in, each turned into a native audit.k8s.io/v1 Event (a dict).

- **native**: kube-apiserver's ``--audit-log-path`` events, ``audit.k8s.io/v1`` or ``v1beta1`` (whose
  ``timestamp`` and ``metadata`` the codec understands), or with no ``apiVersion`` at all (Falco traces);
  EKS's CloudWatch events are native too.
- **AKS** diagnostic records (``category: kube-audit``/``kube-audit-admin``): the native event in
  ``properties.log``, a JSON string in real exports.
- **GKE** Cloud Logging entries (``protoPayload`` a ``google.cloud.audit.AuditLog`` with ``serviceName:
  k8s.io``): ``methodName`` ``io.k8s.<group>.<version>.<resource>[.<subresource>].<verb>`` (``io.k8s.<verb>``
  for a path), ``resourceName`` ``<group|core>/<version>/[namespaces/<ns>/]<resource>[/<name>[/<sub>]]``,
  ``authenticationInfo.principalEmail``, ``requestMetadata.callerIp`` / ``callerSuppliedUserAgent``,
  ``timestamp``, ``labels`` (the event's annotations), ``request`` / ``response`` (with an ``@type``), and a
  ``status`` that is a google.rpc.Status, not an HTTP code. Converters read: falcosecurity/plugins
  ``plugins/k8saudit-gke/pkg/k8sauditgke/convert.go`` @ 0b3cbd8d, GoogleCloudPlatform/khi
  ``pkg/task/inspection/googlecloudlogk8saudit/contract/fieldset.go`` @ 6d543af9.

GKE's HTTP code is inferred: success is 200 (201 for a create); a google.rpc code maps to HTTP as
googleapis ``google/rpc/code.proto`` (@ 16b971c4) documents, and a message starting "Operation cannot be
fulfilled" (what PR #508's author counted) is a 409 Conflict. Such entries carry the note
``code inferred from google.rpc status N``. Only PERMISSION_DENIED (7) has been seen in public samples; the
409 mappings (ABORTED 10 → Conflict, ALREADY_EXISTS 6 → AlreadyExists) are unverified against a real GKE 409.

`events_in` finds the events in any decoded value: a wrapper list, a YAML document that embeds them (Panther's
``Tests[].Log``), and says what it skipped (Cloud Logging entries of other Google services).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fakekube.audit.event import EventError, micro_time

NATIVE, NATIVE_V1BETA1, NATIVE_UNVERSIONED, AKS, GKE = "native v1", "native v1beta1", "native", "aks", "gke"

# google.rpc.Code → (HTTP code, StatusReason), from the HTTP mapping in google/rpc/code.proto.
RPC_CODES = {1: (499, ""), 2: (500, "InternalError"), 3: (400, "BadRequest"), 4: (504, "Timeout"),
             5: (404, "NotFound"), 6: (409, "AlreadyExists"), 7: (403, "Forbidden"), 8: (429, "TooManyRequests"),
             9: (400, "BadRequest"), 10: (409, "Conflict"), 11: (400, "BadRequest"), 12: (501, ""),
             13: (500, "InternalError"), 14: (503, "ServiceUnavailable"), 15: (500, "InternalError"),
             16: (401, "Unauthorized")}
_VERSION = re.compile(r"^v\d+((alpha|beta)\d+)?$")
CONFLICT_TEXT = "Operation cannot be fulfilled"


@dataclass(frozen=True, slots=True)
class Found:
    """A native event found in a value, and the format it came in (plus notes the conversion adds)."""

    event: dict[str, Any]
    format: str
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Skipped:
    """A value that is no Kubernetes audit event (a Cloud Logging entry of another service, ...)."""

    reason: str


def is_native(value: dict[str, Any]) -> bool:
    api_version = value.get("apiVersion")
    if api_version is not None and not str(api_version).startswith("audit.k8s.io/"):
        return False
    if value.get("kind") == "Event":
        return "involvedObject" not in value  # a core/v1 Event object is not an audit event
    return "verb" in value and ("auditID" in value or "requestURI" in value or "stage" in value)


def _native_format(value: dict[str, Any]) -> str:
    version = value.get("apiVersion")
    return NATIVE if version == "audit.k8s.io/v1" else NATIVE_V1BETA1 if version == "audit.k8s.io/v1beta1" \
        else NATIVE_UNVERSIONED


def events_in(value: Any, depth: int = 0) -> Iterator[Found | Skipped | EventError]:
    """The audit events in one decoded value (see the module docstring)."""
    if isinstance(value, list):
        for item in value:
            yield from events_in(item, depth + 1)
        return
    if not isinstance(value, dict):
        if depth == 0:
            yield EventError(f"expected an audit event (an object), got {type(value).__name__}")
        return
    if is_native(value):
        yield Found(value, _native_format(value))
        return
    payload = value.get("protoPayload")
    if isinstance(payload, dict):
        service = payload.get("serviceName")
        method = payload.get("methodName")
        if service == "k8s.io" or (isinstance(method, str) and method.startswith("io.k8s.")):
            try:
                event, notes = gke_event(value)
            except EventError as exc:
                yield exc
                return
            yield Found(event, GKE, notes)
        else:
            yield Skipped(f"a Cloud Logging entry of {service or 'another service'}, not Kubernetes")
        return
    properties = value.get("properties")
    if isinstance(properties, dict) and "log" in properties:
        log = properties["log"]
        if isinstance(log, str):
            try:
                log = json.loads(log)
            except ValueError as exc:
                yield EventError(f"properties.log: invalid JSON: {exc}")
                return
        if not isinstance(log, dict) or not is_native(log):
            yield EventError("properties.log: expected a Kubernetes audit event")
            return
        yield Found(log, AKS)
        return
    if depth > 8:
        return
    found = False
    for key in ("items", "records", "entries"):
        if isinstance(value.get(key), list):
            found = True
            yield from events_in(value[key], depth + 1)
    if not found:  # a document that embeds events somewhere (Panther rule files: Tests[].Log)
        for inner in value.values():
            if isinstance(inner, dict | list):
                for item in events_in(inner, depth + 1):
                    found = True
                    yield item
    if not found and depth == 0:
        yield Skipped("not an audit event")


def _time_text(value: Any) -> Any:
    if isinstance(value, datetime):  # a YAML timestamp
        return micro_time(value.timestamp())
    return value


def gke_event(entry: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """A Cloud Logging LogEntry of a GKE audit log as a native Event."""
    payload = entry["protoPayload"]
    method = payload.get("methodName")
    resource_name = payload.get("resourceName") or ""
    if not isinstance(method, str) or not isinstance(resource_name, str):
        raise EventError("protoPayload.methodName and resourceName: expected strings")
    tokens = method.split(".")[2:] if method.startswith("io.k8s.") else method.split(".")
    if not tokens or not tokens[-1]:
        raise EventError(f"protoPayload.methodName: cannot read {method!r}")
    verb = tokens[-1]
    event: dict[str, Any] = {"kind": "Event", "apiVersion": "audit.k8s.io/v1"}
    auth = payload.get("authenticationInfo") if isinstance(payload.get("authenticationInfo"), dict) else {}
    meta = payload.get("requestMetadata") if isinstance(payload.get("requestMetadata"), dict) else {}
    request, response = payload.get("request"), payload.get("response")
    event["level"] = "RequestResponse" if response is not None else "Request" if request is not None else "Metadata"
    operation = entry.get("operation") if isinstance(entry.get("operation"), dict) else {}
    event["auditID"] = str(entry.get("insertId") or operation.get("id") or "")
    event["stage"] = "ResponseComplete"
    version_at = next((i for i, t in enumerate(tokens[:-1]) if _VERSION.match(t)), None)
    parts = resource_name.split("/")
    ref: dict[str, Any] | None = None
    if version_at is None or len(parts) < 3:
        event["requestURI"] = "/" + resource_name
    else:
        resource = tokens[version_at + 1] if version_at + 1 < len(tokens) - 1 else ""
        subresource = tokens[version_at + 2] if version_at + 2 < len(tokens) - 1 else ""
        group = "" if parts[0] == "core" else parts[0]
        ref = {"resource": resource or parts[2]}
        rest = parts[2:]
        if len(rest) >= 3 and rest[0] == "namespaces" and ref["resource"] != "namespaces":
            ref["namespace"] = rest[1]
            rest = rest[2:]
        if len(rest) >= 2 and rest[1]:
            ref["name"] = rest[1]
        if group:
            ref["apiGroup"] = group
        ref["apiVersion"] = parts[1]
        if subresource:
            ref["subresource"] = subresource
        prefix = f"/apis/{group}/{parts[1]}" if group else f"/api/{parts[1]}"
        event["requestURI"] = prefix + "/" + "/".join(parts[2:])
    event["verb"] = verb
    principal = auth.get("principalEmail")
    event["user"] = {"username": principal} if isinstance(principal, str) else {}
    if isinstance(meta.get("callerIp"), str):
        event["sourceIPs"] = [meta["callerIp"]]
    if isinstance(meta.get("callerSuppliedUserAgent"), str):
        event["userAgent"] = meta["callerSuppliedUserAgent"]
    if ref is not None:
        event["objectRef"] = ref
    status = payload.get("status")
    rpc = status.get("code", 0) if isinstance(status, dict) else 0
    message = status.get("message", "") if isinstance(status, dict) else ""
    if not isinstance(rpc, int) or isinstance(rpc, bool):
        raise EventError("protoPayload.status.code: expected a number")
    notes: tuple[str, ...] = ()
    if rpc == 0:
        code, reason = (201 if verb == "create" else 200), ""
        event["responseStatus"] = {"metadata": {}, "code": code}
    else:
        code, reason = RPC_CODES.get(rpc, (500, "InternalError"))
        if isinstance(message, str) and message.startswith(CONFLICT_TEXT):
            code, reason = 409, "Conflict"
        event["responseStatus"] = {"metadata": {}, "status": "Failure", "message": message or "",
                                   "reason": reason, "code": code}
    notes = (f"code inferred from google.rpc status {rpc}",)
    if isinstance(request, dict):
        event["requestObject"] = {k: v for k, v in request.items() if k != "@type"}
    if isinstance(response, dict):
        event["responseObject"] = {k: v for k, v in response.items() if k != "@type"}
    stamp = _time_text(entry.get("timestamp"))
    if stamp is not None:
        event["requestReceivedTimestamp"] = stamp
        event["stageTimestamp"] = stamp
    labels = entry.get("labels")
    if isinstance(labels, dict):
        event["annotations"] = {str(k): str(v) for k, v in labels.items()}
    return event, notes

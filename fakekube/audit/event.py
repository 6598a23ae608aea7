"""The audit.k8s.io/v1 ``Event`` codec: an audit entry as kube-apiserver writes it, and back.

Field by field (kubernetes/apiserver ``pkg/apis/audit/v1/types.go``; who fills what: ``pkg/audit/request.go``,
``pkg/audit/context.go`` and ``pkg/endpoints/filters/audit.go`` — at kubernetes/apiserver @ 24a394e5, the
staging mirror of kubernetes/kubernetes ``staging/src/k8s.io/apiserver``; /work/shared/audit-samples/INDEX.md,
"Format facts", has the line numbers):

- keys in the Go struct's order, empty ones left out as ``omitempty`` does; ``requestReceivedTimestamp`` and
  ``stageTimestamp`` are ``metav1.MicroTime``: RFC 3339 in UTC with exactly six fractional digits;
- ``objectRef`` comes from the URL (resource, namespace, name, apiGroup, apiVersion, subresource), its empty
  namespace/name/uid/resourceVersion then from the request body (``LogRequestObject``): a create names the
  object it sends — but a ``generateName`` create has no name, the name exists only in the response; an
  update's ``resourceVersion`` is the one the client sent (its precondition), not the result; a patch never
  sets uid or resourceVersion;
- ``responseStatus``: only the code on success (``{"metadata":{},"code":200}``); status, message, reason,
  details and code on failure (message and details again since kubernetes 1.24, commit ba2b9977);
- ``requestObject`` at level Request and above, ``responseObject`` at RequestResponse (the Status body for an
  error); none on RequestReceived;
- ``annotations``: what plugins add. fakekube adds what the store knows and the Event has no field for, under
  ``fakekube.dev/`` (``seq``, ``actor``, ``rv-before``, ``rv-after``, ``based-on``, ``patch-type``, ``uid``,
  ``name`` of a generateName create, ``notes`` as a JSON list), so its own logs read back without loss.

JSON is written as Go's encoder does: compact, UTF-8, with ``<``, ``>`` and ``&`` escaped
(``\\u003c``, ``\\u003e``, ``\\u0026``).
"""

from __future__ import annotations

import functools
import json
import re
from datetime import UTC, datetime
from typing import Any

from fakekube.audit.context import AuditRequest, actor_from_user_agent
from fakekube.audit.entry import AuditEntry

API_VERSION = "audit.k8s.io/v1"
ANNOTATION = "fakekube.dev/"


# -- time -----------------------------------------------------------------------------------------------------

def micro_time(seconds: float) -> str:
    """``metav1.MicroTime`` text of epoch seconds: ``2026-01-01T00:00:00.002193Z``."""
    micros = round(seconds * 1_000_000)
    whole, frac = divmod(micros, 1_000_000)
    t = datetime.fromtimestamp(whole, UTC)
    return (f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}."
            f"{frac:06d}Z")


_TIME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?\s*"
                   r"(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$")


@functools.lru_cache(maxsize=4096)
def _whole_seconds(text: str) -> int:
    """Epoch seconds of ``YYYY-MM-DDTHH:MM:SS`` in UTC (a log's events share their seconds: cached)."""
    if not (text[:4].isdigit() and text[4] == "-" and text[10] == "T"):
        raise ValueError(text)
    return int(datetime.fromisoformat(text + "+00:00").timestamp())


def parse_time(text: Any) -> float | None:
    """Epoch seconds of an RFC 3339 time with any number of fractional digits (kept to the microsecond),
    ``Z`` or an offset, or of the ``2024-11-13 23:50:32.672347000`` form some exporters write (UTC assumed);
    None when it is not a time."""
    if type(text) is str and len(text) == 27 and text[19] == "." and text[26] == "Z":  # MicroTime, the usual
        try:
            return _whole_seconds(text[:19]) + int(text[20:26]) / 1_000_000
        except ValueError:
            pass
    if isinstance(text, datetime):  # a YAML timestamp
        return (text if text.tzinfo else text.replace(tzinfo=UTC)).timestamp()
    if not isinstance(text, str):
        return None
    m = _TIME.match(text.strip())
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    try:
        moment = datetime(year, month, day, hour, minute, min(second, 59), tzinfo=UTC)
    except ValueError:
        return None
    offset = 0
    if m.group(9):
        offset = (int(m.group(10)) * 60 + int(m.group(11))) * 60 * (1 if m.group(9) == "+" else -1)
    micros = int((m.group(7) + "000000")[:6]) if m.group(7) else 0
    return int(moment.timestamp()) - offset + micros / 1_000_000


# -- JSON as Go writes it -------------------------------------------------------------------------------------

def go_json(document: Any) -> str:
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"), default=str)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


# -- encoding -------------------------------------------------------------------------------------------------

def request_uri(entry: AuditEntry) -> str:
    """The URI a client would have sent for an in-process request (the HTTP front records the real one)."""
    base = f"/apis/{entry.group}/{entry.version}" if entry.group else f"/api/{entry.version or 'v1'}"
    parts = [base]
    if entry.namespace and entry.resource != "namespaces":
        parts.append(f"namespaces/{entry.namespace}")
    parts.append(entry.resource)
    named = entry.name and not (entry.verb == "create" and not entry.subresource)
    if named:
        parts.append(str(entry.name))
    if entry.subresource:
        parts.append(entry.subresource)
    query = []
    if entry.verb == "watch":
        query.append("watch=true")
    if entry.dry_run:
        query.append("dryRun=All")
    return "/".join(parts) + ("?" + "&".join(query) if query else "")


def _without_managed_fields(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    out = dict(value)
    meta = out.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        out["metadata"] = {k: v for k, v in meta.items() if k != "managedFields"}
    if isinstance(out.get("items"), list):
        out["items"] = [_without_managed_fields(i) for i in out["items"]]
    return out


def _user(entry: AuditEntry) -> dict[str, Any]:
    request = entry.request
    user: dict[str, Any] = {}
    name = (request.user if request is not None and request.user else entry.actor)
    if name:
        user["username"] = name
    if request is not None:
        if request.uid:
            user["uid"] = request.uid
        if request.groups:
            user["groups"] = list(request.groups)
        if request.extra:
            user["extra"] = request.extra
    return user


def _object_ref(entry: AuditEntry) -> dict[str, Any] | None:
    if entry.request is not None and entry.request.non_resource:
        return None
    ref: dict[str, Any] = {"resource": entry.resource}
    if entry.namespace:
        ref["namespace"] = entry.namespace
    name = None if entry.generate_name is not None and entry.verb == "create" else entry.name
    if name:
        ref["name"] = name
    if entry.uid and entry.verb == "update":
        ref["uid"] = entry.uid
    if entry.group:
        ref["apiGroup"] = entry.group
    if entry.version:
        ref["apiVersion"] = entry.version
    if entry.request_rv and entry.verb in ("update", "create"):
        ref["resourceVersion"] = entry.request_rv
    if entry.subresource:
        ref["subresource"] = entry.subresource
    return ref


def _failure(entry: AuditEntry) -> dict[str, Any]:
    status: dict[str, Any] = {"status": "Failure"}
    if entry.message:
        status["message"] = entry.message
    if entry.reason:
        status["reason"] = entry.reason
    details = {k: v for k, v in (entry.details or {}).items() if v not in ("", None, [])}
    if details:
        status["details"] = details
    status["code"] = entry.code
    return status


def response_status(entry: AuditEntry, stage: str) -> dict[str, Any] | None:
    if stage == "RequestReceived" or not entry.code:
        return None
    if stage == "ResponseStarted" or 200 <= entry.code < 300 or entry.code == 101:
        return {"metadata": {}, "code": entry.code}
    return {"metadata": {}, **_failure(entry)}


def _fakekube_annotations(entry: AuditEntry, ref: dict[str, Any] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if entry.seq:
        out["seq"] = str(entry.seq)
    out["actor"] = entry.actor
    for key, value in (("rv-before", entry.rv_before), ("rv-after", entry.rv_after), ("based-on", entry.based_on),
                       ("patch-type", entry.patch_type), ("generate-name", entry.generate_name)):
        if value is not None:
            out[key] = value
    if entry.uid and (ref is None or ref.get("uid") != entry.uid):
        out["uid"] = entry.uid
    if entry.name and (ref is None or ref.get("name") != entry.name):
        out["name"] = entry.name
    if entry.dry_run:
        out["dry-run"] = "true"
    if entry.notes:
        out["notes"] = json.dumps(entry.notes, ensure_ascii=False)
    return {ANNOTATION + k: v for k, v in out.items()}


AFTER_RECEIPT = ("authorization.k8s.io/",)


def encode(entry: AuditEntry, *, stage: str, level: str, audit_id: str, stage_time: float | None = None,
           omit_managed_fields: bool = False, fakekube_annotations: bool = True) -> dict[str, Any]:
    """One Event of ``entry`` at ``stage`` and ``level``."""
    request = entry.request
    received = request.received if request is not None and request.received is not None else entry.time
    event: dict[str, Any] = {"kind": "Event", "apiVersion": API_VERSION, "level": level, "auditID": audit_id,
                             "stage": stage, "requestURI": request.uri if request is not None and request.uri
                             else request_uri(entry), "verb": entry.verb, "user": _user(entry)}
    if request is not None:
        # The impersonation filter runs after RequestReceived was written (apiserver pkg/server/config.go)
        if request.impersonated_user and stage != "RequestReceived":
            event["impersonatedUser"] = request.impersonated_user
            if request.impersonation_constraint:
                event["authenticationMetadata"] = {"impersonationConstraint": request.impersonation_constraint}
        if request.source_ips:
            event["sourceIPs"] = list(request.source_ips)
        if request.user_agent:
            event["userAgent"] = request.user_agent
    ref = _object_ref(entry)
    if ref is not None:
        event["objectRef"] = ref
    status = response_status(entry, stage)
    if status is not None:
        event["responseStatus"] = status
    if stage != "RequestReceived" and level in ("Request", "RequestResponse") and entry.request_object is not None:
        event["requestObject"] = (_without_managed_fields(entry.request_object) if omit_managed_fields
                                  else entry.request_object)
    if stage == "ResponseComplete" and level == "RequestResponse":
        body = entry.response_object
        if body is None and entry.code >= 400:
            body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, **_failure(entry)}
        if body is not None:
            event["responseObject"] = _without_managed_fields(body) if omit_managed_fields else body
    event["requestReceivedTimestamp"] = micro_time(received)
    event["stageTimestamp"] = micro_time(received if stage == "RequestReceived" else
                                         (stage_time if stage_time is not None else entry.time))
    annotations = dict(request.annotations) if request is not None else {}
    if stage == "RequestReceived":
        # Logged before the filters that annotate run (authorization, admission): none of theirs yet.
        annotations = {k: v for k, v in annotations.items() if not k.startswith(AFTER_RECEIPT)}
    if fakekube_annotations:
        annotations.update(_fakekube_annotations(entry, ref))
    if annotations:
        event["annotations"] = dict(sorted(annotations.items()))  # a Go map: keys sorted
    return event


# -- decoding -------------------------------------------------------------------------------------------------

class EventError(ValueError):
    """An event that cannot be read; the message names the field."""


def _get(obj: dict[str, Any], key: str, kind: type, where: str = "") -> Any:
    """``obj[key]`` if it is of JSON type ``kind`` (decoded JSON has exact types: a bool is no number), None
    if absent; `EventError` naming the field otherwise."""
    value = obj.get(key)
    if value is None or type(value) is kind:
        return value
    raise EventError(f"{where}{key}: expected {_JSON_NAMES.get(kind.__name__, kind.__name__)}, "
                     f"got {type(value).__name__}")


_JSON_NAMES = {"str": "a string", "dict": "an object", "list": "a list", "int": "a number"}
_REF_KEYS = ("resource", "namespace", "name", "uid", "apiGroup", "apiVersion", "resourceVersion", "subresource")


def string_list(value: Any, where: str, error: type[ValueError] = EventError) -> tuple[str, ...]:
    """A JSON list of strings as a tuple (() for none); ``error`` naming ``where`` for anything else."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise error(f"{where}: expected a list of strings")
    return tuple(value)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _metadata_of(body: Any) -> dict[str, Any]:
    meta = body.get("metadata") if isinstance(body, dict) else None
    return meta if isinstance(meta, dict) else {}


def decode(event: Any, *, seq: int = 0, notes: tuple[str, ...] = ()) -> AuditEntry:
    """An Event (v1 or v1beta1, as a dict) as an audit entry; `EventError` when a field has the wrong type."""
    if not isinstance(event, dict):
        raise EventError(f"an audit event must be an object, not {type(event).__name__}")
    verb = _get(event, "verb", str) or ""
    ref = _get(event, "objectRef", dict)
    status = _get(event, "responseStatus", dict) or {}
    user = _get(event, "user", dict) or {}
    annotations = _get(event, "annotations", dict) or {}
    if not all(isinstance(v, str) for v in annotations.values()):
        raise EventError("annotations: expected an object of strings")
    own = {k[len(ANNOTATION):]: v for k, v in annotations.items() if k.startswith(ANNOTATION)}
    others = {k: v for k, v in annotations.items() if not k.startswith(ANNOTATION)}
    received = parse_time(event.get("requestReceivedTimestamp"))
    stage_time = parse_time(event.get("stageTimestamp"))
    time_ = stage_time if stage_time is not None else received
    if time_ is None:
        time_ = parse_time(event.get("timestamp"))  # v1beta1 events of 2017 carry only this
    code = _get(status, "code", int, "responseStatus.") or 0
    request_object = event.get("requestObject")
    response_object = event.get("responseObject")
    username = _get(user, "username", str, "user.") or ""
    user_agent = _get(event, "userAgent", str) or ""
    ref = ref or {}
    for key in _REF_KEYS:
        value = ref.get(key)
        if value is not None and type(value) is not str:
            _get(ref, key, str, "objectRef.")
    name = ref.get("name") or own.get("name") or None
    generate_name = own.get("generate-name")
    if verb == "create" and not ref.get("name") and not ref.get("subresource"):
        generate_name = generate_name or _metadata_of(request_object).get("generateName") or None
        name = name or _metadata_of(response_object).get("name") or None
        if generate_name is not None and not isinstance(generate_name, str):
            generate_name = None
        if name is not None and not isinstance(name, str):
            name = None
    rv_after = own.get("rv-after")
    if rv_after is None and 200 <= code < 300 and verb in ("create", "update", "patch"):
        rv = _metadata_of(response_object).get("resourceVersion")
        rv_after = rv if isinstance(rv, str) else None
    try:
        own_notes = json.loads(own["notes"]) if "notes" in own else []
    except ValueError:
        own_notes = [own["notes"]]
    if not isinstance(own_notes, list):
        own_notes = [str(own_notes)]
    seq_text = own.get("seq", "")
    request = AuditRequest(
        uri=_get(event, "requestURI", str) or "", user=username, uid=_get(user, "uid", str, "user.") or "",
        groups=string_list(user.get("groups"), "user.groups"), extra=_get(user, "extra", dict, "user.") or {},
        impersonated_user=_get(event, "impersonatedUser", dict),
        impersonation_constraint=_get(_get(event, "authenticationMetadata", dict) or {}, "impersonationConstraint",
                                      str, "authenticationMetadata.") or "",
        source_ips=string_list(event.get("sourceIPs"), "sourceIPs"),
        user_agent=user_agent, received=received, audit_id=str(event.get("auditID") or ""), annotations=others,
        stages=(str(event.get("stage") or ""),), non_resource=not ref.get("resource"))
    actor = own.get("actor") or (actor_from_user_agent(user_agent) if user_agent else username) or "unknown"
    details = _get(status, "details", dict, "responseStatus.")
    return AuditEntry(
        seq=int(seq_text) if seq_text.isdigit() else seq, time=time_ if time_ is not None else 0.0, actor=actor,
        verb=verb, group=ref.get("apiGroup") or "", resource=ref.get("resource") or "",
        namespace=ref.get("namespace") or None, name=name, subresource=ref.get("subresource") or None, code=code,
        reason=_get(status, "reason", str, "responseStatus.") or "",
        message=_get(status, "message", str, "responseStatus.") or "",
        rv_before=own.get("rv-before"), rv_after=rv_after, patch_type=own.get("patch-type"),
        dry_run=own.get("dry-run") == "true" or "dryRun=" in request.uri, based_on=own.get("based-on"),
        uid=ref.get("uid") or own.get("uid") or _str_or_none(_metadata_of(response_object).get("uid")),
        notes=[str(n) for n in own_notes] + list(notes), generate_name=generate_name,
        version=ref.get("apiVersion") or "", request_rv=ref.get("resourceVersion") or None, details=details,
        level=_get(event, "level", str) or "", request_object=request_object, response_object=response_object,
        request=request,
    )

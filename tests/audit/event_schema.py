"""A strict schema of an audit.k8s.io/v1 Event, transcribed field by field from the Go types
(kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/apis/audit/v1/types.go @ 0a40c4e8: Event,
ObjectReference; k8s.io/api authentication/v1 UserInfo; apimachinery meta/v1 Status and StatusDetails).

Unknown keys are refused, types are exact, MicroTime has exactly six fractional digits, and the enums are the
Go constants. ``test_the_schema_accepts_what_kube_apiserver_wrote`` holds it against real kube-apiserver logs
first, so that it judges fakekube's writer by the real server's output, not by our reading of the types.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

MICRO_TIME = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class UserInfo(_Strict):
    username: StrictStr | None = None
    uid: StrictStr | None = None
    groups: list[StrictStr] | None = None
    extra: dict[StrictStr, list[StrictStr]] | None = None


class ObjectReference(_Strict):
    resource: StrictStr | None = None
    namespace: StrictStr | None = None
    name: StrictStr | None = None
    uid: StrictStr | None = None
    apiGroup: StrictStr | None = None
    apiVersion: StrictStr | None = None
    resourceVersion: StrictStr | None = None
    subresource: StrictStr | None = None


class StatusCause(_Strict):
    reason: StrictStr | None = None
    message: StrictStr | None = None
    field: StrictStr | None = None


class StatusDetails(_Strict):
    name: StrictStr | None = None
    group: StrictStr | None = None
    kind: StrictStr | None = None
    uid: StrictStr | None = None
    causes: list[StatusCause] | None = None
    retryAfterSeconds: StrictInt | None = None


class ListMeta(_Strict):
    selfLink: StrictStr | None = None
    resourceVersion: StrictStr | None = None
    # ``continue`` is a Python keyword
    continue_: StrictStr | None = Field(default=None, alias="continue")
    remainingItemCount: StrictInt | None = None


class Status(_Strict):
    kind: StrictStr | None = None
    apiVersion: StrictStr | None = None
    metadata: ListMeta
    status: Literal["Success", "Failure"] | None = None
    message: StrictStr | None = None
    reason: StrictStr | None = None
    details: StatusDetails | None = None
    code: StrictInt | None = None


class Event(_Strict):
    kind: Literal["Event"]
    apiVersion: Literal["audit.k8s.io/v1"]
    level: Literal["Metadata", "Request", "RequestResponse"]
    auditID: StrictStr = Field(min_length=1)
    stage: Literal["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"]
    requestURI: StrictStr
    verb: StrictStr
    user: UserInfo
    impersonatedUser: UserInfo | None = None
    sourceIPs: list[StrictStr] | None = None
    userAgent: StrictStr | None = None
    objectRef: ObjectReference | None = None
    responseStatus: Status | None = None
    requestObject: Any = None
    responseObject: Any = None
    requestReceivedTimestamp: StrictStr = Field(pattern=MICRO_TIME)
    stageTimestamp: StrictStr = Field(pattern=MICRO_TIME)
    annotations: dict[StrictStr, StrictStr] | None = None


def check(event: dict[str, Any]) -> Event:
    """Validate one event; raises pydantic.ValidationError. Also the rules the types imply: a successful
    response's status carries only the code, bodies only at the levels that log them, none before the
    request is decoded."""
    parsed = Event.model_validate(event)
    status = event.get("responseStatus")
    if event["stage"] == "RequestReceived":
        assert status is None and "requestObject" not in event and "responseObject" not in event, event
    if status is not None and 200 <= status.get("code", 0) < 300:
        assert set(status) <= {"metadata", "code", "status", "message"}, status
    if event["level"] == "Metadata":
        assert "requestObject" not in event and "responseObject" not in event, event
    if event["level"] == "Request":
        assert "responseObject" not in event, event
    return parsed


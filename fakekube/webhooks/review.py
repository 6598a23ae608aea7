"""AdmissionReview v1 (and v1beta1) requests and the checks of their responses.

k8s.io/apiserver ``pkg/admission/plugin/webhook/request/admissionreview.go`` (v0.37.2): ``CreateV1AdmissionReview``
fills the request (``kind``/``resource`` are what the webhook matched, ``requestKind``/``requestResource`` what
the client asked for, ``dryRun`` always present, ``object``/``oldObject``/``options`` null when absent) and
``VerifyAdmissionResponse`` checks the answer (its error texts are upstream's).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from fakekube.admission.attributes import Attributes

ADMISSION_GROUP = "admission.k8s.io"


class ResponseError(ValueError):
    """``received invalid webhook response: <message>``."""


def admission_review(uid: str, attr: Attributes, invocation: tuple[str, str, str, str], version: str,
                     obj: dict[str, Any] | None, old: dict[str, Any] | None) -> dict[str, Any]:
    """The review sent to a webhook; ``invocation`` is (group, version, resource, kind) the webhook matched,
    ``obj``/``old`` the objects in that version."""
    group, ver, resource, kind = invocation
    request: dict[str, Any] = {
        "uid": uid,
        "kind": {"group": group, "version": ver, "kind": kind},
        "resource": {"group": group, "version": ver, "resource": resource},
    }
    if attr.subresource:
        request["subResource"] = attr.subresource
    request["requestKind"] = {"group": attr.group, "version": attr.version, "kind": attr.kind}
    request["requestResource"] = {"group": attr.group, "version": attr.version, "resource": attr.resource}
    if attr.subresource:
        request["requestSubResource"] = attr.subresource
    if attr.name:
        request["name"] = attr.name
    if attr.namespace:
        request["namespace"] = attr.namespace
    request["operation"] = attr.operation
    request["userInfo"] = attr.user.to_json()
    request["object"] = obj
    request["oldObject"] = old
    request["dryRun"] = attr.dry_run
    request["options"] = attr.options
    return {"kind": "AdmissionReview", "apiVersion": f"{ADMISSION_GROUP}/{version}", "request": request}


@dataclass
class AdmissionResponse:
    allowed: bool
    patch: bytes
    patch_type: str
    result: dict[str, Any] | None
    warnings: list[str]
    audit_annotations: dict[str, str]


def verify_response(uid: str, mutating: bool, version: str, review: Any) -> AdmissionResponse:
    """``VerifyAdmissionResponse``; raises ``ResponseError`` with upstream's text."""
    if not isinstance(review, dict):
        raise ResponseError(f"unexpected response type {_go_type(review)}")
    response = review.get("response")
    if not isinstance(response, dict):
        raise ResponseError("webhook response was absent")
    patch_text = response.get("patch")
    try:
        patch = base64.b64decode(patch_text, validate=True) if isinstance(patch_text, str) and patch_text else b""
    except (binascii.Error, ValueError):
        raise ResponseError("illegal base64 data in response.patch") from None
    patch_type = response.get("patchType")
    if version == "v1":
        if response.get("uid") != uid:
            raise ResponseError(f'expected response.uid="{uid}", got "{response.get("uid") or ""}"')
        got = f"{review.get('apiVersion') or ''}, Kind={review.get('kind') or ''}"
        if review.get("apiVersion") != f"{ADMISSION_GROUP}/v1" or review.get("kind") != "AdmissionReview":
            api_version = str(review.get("apiVersion") or "")
            group, _, ver = api_version.rpartition("/")
            got = f"{group}/{ver}, Kind={review.get('kind') or ''}" if group else f"/{ver}, Kind={review.get('kind') or ''}"
            raise ResponseError(f"expected webhook response of {ADMISSION_GROUP}/v1, Kind=AdmissionReview, got {got}")
        if mutating:
            if patch and patch_type is None:
                raise ResponseError("webhook returned response.patch but not response.patchType")
            if not patch and patch_type is not None:
                raise ResponseError("webhook returned response.patchType but not response.patch")
            if patch_type is not None and not patch_type:
                raise ResponseError('webhook returned invalid response.patchType of ""')
        else:
            if patch:
                raise ResponseError("validating webhook may not return response.patch")
            if patch_type is not None:
                raise ResponseError("validating webhook may not return response.patchType")
    else:
        patch_type = "JSONPatch" if mutating and patch else ""
        if not mutating:
            patch = b""
    result = response.get("status")
    warnings = response.get("warnings") or []
    annotations = response.get("auditAnnotations") or {}
    return AdmissionResponse(response.get("allowed") is True, patch, str(patch_type or ""),
                             result if isinstance(result, dict) else None,
                             [str(w) for w in warnings if isinstance(w, str)] if isinstance(warnings, list) else [],
                             {str(k): str(v) for k, v in annotations.items()} if isinstance(annotations, dict) else {})


def _go_type(value: Any) -> str:
    return "*unstructured.Unstructured" if value is not None else "<nil>"

"""Conversion webhooks of CustomResourceDefinitions (``spec.conversion.strategy: Webhook``): the ConversionReview
sent, the checks of its answer and the metadata rules, as k8s.io/apiextensions-apiserver
``pkg/apiserver/conversion/webhook_converter.go`` (v0.37.2) has them.

- the review's version is the first of ``conversionReviewVersions`` this server knows (v1beta1 or v1);
- only objects not in the desired version are sent; one request for all of them (a list's items together);
- the answer must be a ConversionReview of the request's version, with the request's uid (v1), a
  ``Success`` result and as many objects as were sent, each of the desired version, the same kind, name,
  namespace and uid;
- of the converted metadata only labels and annotations are kept (validated when they changed); the rest is
  the original's (``restoreObjectMeta``).

Every failure is a ``ConversionFailed`` whose text is upstream's ``conversion webhook for <gvk> ...``; where
the store answers it, and with which Status, is fakekube.verbs.conversion_webhook's business.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakekube import errors, validation
from fakekube.jsonvalues import json_copy
from fakekube.webhooks import transport

GROUP = "apiextensions.k8s.io"
TIMEOUT = 30  # webhook_converter.go: the client manager's default (no timeoutSeconds for conversion webhooks)

Caller = Callable[[transport.Endpoint, "bytes | None", dict[str, Any], float], Any]


class ConversionFailed(Exception):
    """Upstream's error text (``conversion webhook for <group>/<version>, Kind=<Kind> failed: ...``)."""


@dataclass(frozen=True)
class Webhook:
    """A CRD's ``spec.conversion.webhook``."""

    client_config: dict[str, Any]
    review_versions: tuple[str, ...]

    @classmethod
    def of(cls, crd_spec: dict[str, Any]) -> Webhook | None:
        """The webhook of a CRD's spec, or None when it does not convert by webhook."""
        conversion = crd_spec.get("conversion") or {}
        if not isinstance(conversion, dict) or conversion.get("strategy") != "Webhook":
            return None
        hook = conversion.get("webhook") or {}
        config = hook.get("clientConfig") or conversion.get("webhookClientConfig") or {}
        versions = hook.get("conversionReviewVersions") or conversion.get("conversionReviewVersions") or ()
        return cls(dict(config), tuple(str(v) for v in versions))


def gvk_text(api_version: str, kind: str) -> str:
    """``schema.GroupVersionKind.String()``."""
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"


def review_version(hook: Webhook) -> str:
    for version in hook.review_versions:
        if version in ("v1beta1", "v1"):
            return version
    raise ConversionFailed("no supported conversion review versions")


def convert(hook: Webhook, objects: list[dict[str, Any]], desired: str, source: str,
            services: transport.ServiceMap, caller: Caller, uid: str) -> list[dict[str, Any]]:
    """``objects`` (of one kind) in ``desired`` apiVersion; those already in it are not sent. ``source``: the
    gvk upstream's messages name (``gvk_text`` of what is converted)."""
    sending = [i for i, obj in enumerate(objects) if obj.get("apiVersion") != desired]
    if not sending:
        return list(objects)
    version = review_version(hook)
    review = {"kind": "ConversionReview", "apiVersion": f"{GROUP}/{version}",
              "request": {"uid": uid, "desiredAPIVersion": desired, "objects": [objects[i] for i in sending]},
              "response": {"uid": "", "convertedObjects": None, "result": {"metadata": {}}}}
    prefix = f"conversion webhook for {source}"
    try:
        ca = _ca_bundle(hook.client_config.get("caBundle"))
        point = transport.endpoint(hook.client_config, services, TIMEOUT)
        answer = caller(point, ca, review, float(TIMEOUT))
    except transport.CallError as exc:
        reason = exc.reason.removeprefix("failed to call webhook: ")
        raise ConversionFailed(f"{prefix} failed: {reason}") from None
    try:
        converted = _converted_objects(uid, version, answer)
    except ConversionFailed as exc:
        raise ConversionFailed(f"{prefix} failed: {exc}") from None
    if len(converted) != len(sending):
        raise ConversionFailed(f"{prefix} returned {len(converted)} objects, expected {len(sending)}")
    result = list(objects)
    single = len(objects) == 1
    for index, (at, out) in enumerate(zip(sending, converted, strict=True)):
        original = objects[at]
        where = "invalid object at index 0" if single else f"invalid converted object at index {index}"
        if not isinstance(out, dict):
            raise ConversionFailed(f"{prefix} returned {where}: Object 'Kind' is missing in '{out}'")
        got = str(out.get("apiVersion") or "")
        if got != desired:
            raise ConversionFailed(f"{prefix} returned {where}: invalid groupVersion (expected {desired}, "
                                   f"received {got})")
        if out.get("kind") != original.get("kind"):
            raise ConversionFailed(f"{prefix} returned {where}: invalid kind (expected {original.get('kind')}, "
                                   f"received {out.get('kind') or ''})")
        problem = _identity_changed(original, out)
        if problem:
            what = "invalid object" if single else where
            raise ConversionFailed(f"{prefix} returned {what}: {problem}")
        try:
            result[at] = _restore_metadata(original, out)
        except ConversionFailed as exc:
            what = "invalid metadata" if single else f"invalid metadata in object at index {index}"
            raise ConversionFailed(f"{prefix} returned {what}: {exc}") from None
    return result


def _ca_bundle(value: Any) -> bytes | None:
    if not value:
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def _converted_objects(uid: str, version: str, answer: Any) -> list[Any]:
    """``getConvertedObjectsFromResponse`` (after client-go decoded the body into the request's review type)."""
    if not isinstance(answer, dict):
        raise ConversionFailed("Object 'Kind' is missing in response")
    got_version = str(answer.get("apiVersion") or "")
    if answer.get("kind") == "ConversionReview" and got_version != f"{GROUP}/{version}" and got_version.startswith(
            f"{GROUP}/"):
        other = got_version.rpartition("/")[2]
        raise ConversionFailed(f"converting ({other}.ConversionReview) to ({version}.ConversionReview): "
                               "unknown conversion")
    if version == "v1" and (answer.get("kind"), got_version) != ("ConversionReview", f"{GROUP}/v1"):
        group, _, ver = got_version.rpartition("/")
        raise ConversionFailed(f"expected webhook response of {GROUP}/v1, Kind=ConversionReview, got "
                               f"{group}/{ver}, Kind={answer.get('kind') or ''}")
    response = answer.get("response")
    if not isinstance(response, dict):
        raise ConversionFailed("no response provided")
    if version == "v1" and str(response.get("uid") or "") != uid:
        raise ConversionFailed(f'expected response.uid="{uid}", got "{response.get("uid") or ""}"')
    result = response.get("result") if isinstance(response.get("result"), dict) else {}
    if result.get("status") != "Success":
        if result.get("message"):
            raise ConversionFailed(str(result["message"]))
        raise ConversionFailed(f"response.result.status was '{result.get('status') or ''}', not 'Success'")
    objects = response.get("convertedObjects")
    return list(objects) if isinstance(objects, list) else []


def _identity_changed(original: dict[str, Any], out: dict[str, Any]) -> str:
    """``validateConvertedObject``."""
    before, after = original.get("metadata") or {}, out.get("metadata")
    after = after if isinstance(after, dict) else {}
    for field, title in (("name", "name"), ("namespace", "namespace"), ("uid", "UID")):
        if str(before.get(field) or "") != str(after.get(field) or ""):
            return f"must have the same {title}: {before.get(field) or ''} != {after.get(field) or ''}"
    return ""


def _restore_metadata(original: dict[str, Any], out: dict[str, Any]) -> dict[str, Any]:
    """``restoreObjectMeta``: the original's metadata with the converted labels and annotations."""
    sent = out.get("metadata")
    if "metadata" not in out:
        raise ConversionFailed("missing metadata in converted object")
    if not isinstance(sent, dict):
        raise ConversionFailed(f"invalid metadata of type {_go_type(sent)} in converted object")
    meta = json_copy(original.get("metadata") or {})
    for field in ("labels", "annotations"):
        value = sent.get(field)
        if value is None:
            meta.pop(field, None)
            continue
        if not isinstance(value, dict):
            raise ConversionFailed(f"invalid metadata.{field} of type {_go_type(value)} in converted object")
        for key, item in value.items():
            if not isinstance(item, str):
                raise ConversionFailed(f"metadata.{field}[{key}] must be a string, but is {_go_type(item)} in "
                                       "converted object")
        if value != (meta.get(field) or {}):
            # (upstream's path for annotations is "metadata.annotation")
            errs = (validation.validate_labels(value, "metadata.labels") if field == "labels"
                    else validation.validate_annotations(value, "metadata.annotation"))
            if errs:
                raise ConversionFailed(errors.aggregate(errs))
        meta[field] = value
    return {**out, "metadata": meta}


def _go_type(value: Any) -> str:
    return {dict: "map[string]interface {}", list: "[]interface {}", str: "string", bool: "bool",
            int: "int64", float: "float64"}.get(type(value), "<nil>")

"""The checks kube-apiserver makes of a patch's result before it is an object of the endpoint's kind: its
apiVersion and kind (``fakekube.typemeta``), a custom resource's typed metadata, and its name.

A JSON or merge patch's result is decoded again by the endpoint's codec (apiserver
``pkg/endpoints/handlers/patch.go`` ``jsonPatcher.applyPatchToCurrentObject``: ``runtime.DecodeInto`` of the
patched JSON, a failure being the 422 on field ``patch``), so a patch that changes ``kind`` or ``apiVersion``
is refused as a body naming them would be; a strategic merge patch's result is converted field by field into
the endpoint's type, so the apiVersion and kind it names change nothing. ``checkName`` (handlers ``rest.go``)
then needs a name: a result without one is the 400 ``the name of the object (x based on URL) was
undeterminable: name must be provided``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fakekube import decoding, errors, typemeta
from fakekube.apimodel.decoder import DecodeError

if TYPE_CHECKING:
    from fakekube.resources import Registry, ResourceType


def undeterminable(name: str) -> errors.BadRequest:
    return errors.BadRequest(f"the name of the object ({name} based on URL) was undeterminable: name must be provided")


def sorted_json(value: Any) -> str:
    """An unstructured object as Go's ``json.Marshal`` writes it (map keys sorted)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def check_type_meta(registry: Registry, rt: ResourceType, patched: dict[str, Any], shown: Callable[[], str],
                    report: decoding.FieldReport | None = None, name: str = "") -> None:
    """A JSON or merge patch's result, as ``DecodeInto`` reads its apiVersion and kind. A built-in result that
    decodes is given the endpoint's apiVersion and kind; a custom resource's keeps what it names, for
    validation to refuse (``kind: Invalid value: "Gadget": must be Widget``). ``report``: the request's
    fieldValidation, told what a result without apiVersion leaves unknown; ``name``: the name on the URL."""
    try:
        group, version, kind = typemeta.interpret(patched)
    except typemeta.TypeMetaError as exc:
        text = sorted_json(patched) if rt.custom else shown()
        raise decoding.patch_invalid(text, str(exc)) from None
    if rt.custom:
        if not kind:
            text = sorted_json(patched)
            raise decoding.patch_invalid(text, f"Object 'Kind' is missing in '{text}'")
        if "apiVersion" in patched and patched["apiVersion"] is None:
            # unstructured's accessor finds a null where it wants a string (kube-apiserver v1.37.2)
            raise decoding.patch_invalid(sorted_json(patched),
                                         ".apiVersion accessor error: <nil> is of the type <nil>, expected string")
        if not group and not version:
            inner = "Object 'apiVersion' is missing in 'object has no apiVersion field'"
            raise errors.ApiError(500, "InternalError", f"Internal error occurred: {inner}",
                                  {"causes": [{"message": inner}]})
        return
    if not group and not version:
        # Decoded into the internal type without a version: its fields have no JSON names (ObjectMeta's, embedded,
        # are at the top), so the document's members are unknown and nothing lands, the name included.
        if report is not None:
            known = decoding.object_meta_fields(registry.kubernetes_version) | {"apiVersion", "kind"}
            report.patch(shown(), [decoding.unknown_field(key) for key in sorted(patched) if key not in known])
        raise undeterminable(name)
    kind = kind or rt.kind
    if not version and group == rt.group:
        version = rt.version
    verdict = typemeta.judge(registry, rt, group, version, kind)
    if verdict.outcome in (typemeta.Verdict.OK, typemeta.Verdict.OTHER_VERSION):
        patched["apiVersion"], patched["kind"] = rt.api_version, rt.kind
        return
    if verdict.other is not None and verdict.other.model is not None:
        try:
            verdict.other.model.decoder.in_place(patched, prune=False)
        except DecodeError as exc:
            raise decoding.patch_invalid(shown(), str(exc)) from None
    detail = typemeta.refusal(rt, verdict, group, version, kind, shown())
    raise decoding.patch_invalid(shown(), detail or "")


def keep_type_meta(rt: ResourceType, patched: dict[str, Any], base: dict[str, Any]) -> None:
    """A strategic merge patch's result keeps the object's apiVersion and kind (when what the patch put there
    is a string: a value of another type is the converter's error, reported when the result is decoded)."""
    for key in ("apiVersion", "kind"):
        value = patched.get(key)
        if isinstance(value, str) and key in base:
            patched[key] = base[key]


def check_custom_metadata(registry: Registry, rt: ResourceType, patched: dict[str, Any]) -> None:
    """A custom resource's patched metadata decoded into ObjectMeta (a wrong type is the 422 on ``patch``)."""
    meta = patched.get("metadata")
    if meta is None:
        return
    try:
        decoding.check_object_meta(registry.kubernetes_version, meta)
    except DecodeError as exc:
        raise decoding.patch_invalid(sorted_json(patched), str(exc)) from None


def check_name(patched: dict[str, Any], name: str) -> None:
    """``checkName``: the result must name an object (a wrong name is the store's own 400)."""
    meta = patched.get("metadata")
    if not isinstance(meta, dict) or not meta.get("name"):
        raise undeterminable(name)

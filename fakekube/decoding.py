"""Decoding request bodies the way kube-apiserver does, and the ``fieldValidation`` directive.

A built-in object is decoded into its Go struct before anything else runs (``fakekube.apimodel.decoder``):
a value of the wrong JSON type is a 400 for a create or update (``Pod in version "v1" cannot be handled as
a Pod: json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container``,
apiserver ``pkg/endpoints/handlers/create.go`` ``transformDecodeError``) and a 422 on the field ``patch`` for
a patch (``handlers/patch.go``: the patched document does not decode). Unknown fields are dropped; custom
resources drop theirs by pruning (``fakekube.schema``).

``fieldValidation`` (KEP-2885, ``handlers/rest.go``) decides what dropping says:

- ``Ignore``: nothing;
- ``Warn`` (the server's default when the parameter is absent): one warning per unknown or duplicate field,
  ``unknown field "spec.foo"``, sent as ``Warning: 299 - "unknown field \\"spec.foo\\""`` headers;
- ``Strict``: the request fails — create and update with a 400 ``<Kind> in version "v1" cannot be handled as
  a <Kind>: strict decoding error: unknown field "spec.foo", unknown field "spec.bar"``, JSON and merge
  patches with a 422 whose cause (field ``patch``) says ``strict decoding error: ...``.

Server-side apply is stricter still: an applied configuration with a field the schema does not declare
fails before any directive applies (structured-merge-diff ``typed/validate.go``, a 500 ``failed to create
typed patch object (default/x; apps/v1, Kind=Deployment): .spec.foo: field not declared in schema``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.apimodel.decode_over import copy_over
from fakekube.apimodel.decoder import Decoded, DecodeError
from fakekube.apimodel.definitions import definitions
from fakekube.patch.gofmt import go_value
from fakekube.patch.jsonutil import go_json_kind

if TYPE_CHECKING:
    from fakekube.patch.schema import PatchSchema
    from fakekube.resources import ResourceType

IGNORE, WARN, STRICT = "Ignore", "Warn", "Strict"
_DIRECTIVES = ("", IGNORE, STRICT, WARN)  # as apimachinery's ValidateFieldValidation lists them (sorted)
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def field_validation(value: str | None, options_kind: str = "CreateOptions") -> str:
    """The directive a request asked for (``None``/``""``: the server's default, Warn); another value is the
    422 ``ValidateCreateOptions`` (``UpdateOptions``, ``PatchOptions``) gives."""
    if value in (None, ""):
        return WARN
    if value not in _DIRECTIVES:
        raise errors.Invalid(options_kind, "meta.k8s.io", "",
                             [errors.not_supported("fieldValidation", value, list(_DIRECTIVES))])
    return value  # type: ignore[return-value]


def unknown_field(path: str) -> str:
    return f'unknown field "{path}"'


def duplicate_field(path: str) -> str:
    return f'duplicate field "{path}"'


def strict_message(problems: list[str]) -> str:
    """``runtime.NewStrictDecodingError(errs).Error()``."""
    return "strict decoding error: " + ", ".join(problems)


def cannot_handle(rt: ResourceType, detail: str) -> errors.BadRequest:
    """``transformDecodeError``: the 400 of a create or update whose body does not decode."""
    return errors.BadRequest(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: {detail}')


def decode_body(rt: ResourceType, body: dict[str, Any], kept: Callable[[str, Any], Any] | None = None) -> Decoded:
    """A copy of a create or update body of a built-in kind, as the typed decoder leaves it; ``kept``: the
    decoded copies of top-level fields known to decode to them (``apimodel.decode_over.copy_over``)."""
    model = rt.model
    try:
        return model.decoder.copy(body) if kept is None else copy_over(model.decoder, body, kept)
    except DecodeError as exc:
        raise cannot_handle(rt, str(exc)) from None


def check_body(rt: ResourceType, body: dict[str, Any]) -> list[str]:
    """The unknown fields of a create or update body, without copying or changing it; a value of the wrong
    type is the 400 ``decode_body`` would raise."""
    model = rt.model
    try:
        return model.decoder.in_place(body, prune=False).unknown
    except DecodeError as exc:
        raise cannot_handle(rt, str(exc)) from None


def decode_patched(rt: ResourceType, patched: dict[str, Any], shown: Callable[[], Any]) -> list[str]:
    """Check a patch's result (a document the caller owns) and drop its unknown fields in place; a value of
    the wrong type is the 422 on ``patch`` (``shown()`` is the value that error prints, taken before anything
    is dropped)."""
    model = rt.model
    try:
        return model.decoder.in_place(patched).unknown
    except DecodeError as exc:
        raise patch_invalid(shown(), str(exc)) from None


def patch_may_need_decoding(rt: ResourceType, patch_type: str, patch: Any) -> bool:
    """Whether a patch's result can hold something the decoder would refuse or drop.

    The stored object decoded cleanly when it was written, so only what a patch brings can be wrong. A merge
    or strategic merge patch is shaped like the object: when the patch document itself decodes without a
    finding, so does the result, and the (larger) result is not walked again. Any finding — a real one, or
    a strategic merge directive the decoder does not know — sends the result through the full decode,
    which names what is wrong as the server would (paths in the result, Go's messages).
    """
    if not isinstance(patch, dict) or not patch_type.startswith(("application/merge-patch",
                                                                   "application/strategic-merge-patch")):
        return True
    model = rt.model
    try:
        return bool(model.decoder.in_place(patch, prune=False).locations)
    except DecodeError:
        return True


def custom_metadata_unknown(version: Any, meta: dict[str, Any]) -> list[str]:
    """Unknown fields of a custom resource's ``metadata``, dropped as apiextensions-apiserver's objectmeta
    coercion drops them. Only ObjectMeta's own fields are checked (not those of its ownerReferences or
    managedFields entries): a custom resource's metadata is otherwise validated, not decoded, here."""
    known = object_meta_fields(version)
    unknown = [key for key in meta if key not in known]
    for key in unknown:
        del meta[key]
    return [f"metadata.{key}" for key in unknown]


def prune_custom(version: Any, rt: ResourceType, obj: dict[str, Any]) -> list[str]:
    """Drop what a custom resource's schema (and ObjectMeta of Kubernetes ``version``, when known) does not
    declare; the dropped paths."""
    unknown: list[str] = []
    meta = obj.get("metadata")
    if isinstance(meta, dict) and version is not None:
        unknown += custom_metadata_unknown(version, meta)
    if rt.schema is not None:
        unknown += rt.schema.prune(obj)
    return unknown


def custom_would_prune(version: Any, rt: ResourceType, obj: dict[str, Any]) -> bool:
    """Whether ``prune_custom`` would drop anything from ``obj``, asked without copying or changing it."""
    meta = obj.get("metadata")
    if isinstance(meta, dict) and version is not None and not object_meta_fields(version).issuperset(meta):
        return True
    return rt.schema is not None and rt.schema.would_prune(obj)


@cache
def object_meta_fields(version: Any) -> frozenset[str]:
    return frozenset(definitions(version)[OBJECT_META]["properties"])


def patch_invalid(shown: Any, detail: str) -> errors.Invalid:
    """``errors.NewInvalid(schema.GroupKind{}, "", field.Invalid(field.NewPath("patch"), shown, detail))``."""
    return errors.Invalid("", "", "", [errors.invalid("patch", shown, detail)])


def shown_patch(patch_type: str, patched: Any, patch: Any) -> str:
    """What a failed patch's 422 shows as the value: the patched JSON for JSON and merge patches, Go's
    ``%+v`` of the decoded patch for a strategic merge patch."""
    if patch_type.startswith("application/strategic-merge-patch"):
        return go_value(patch)
    return json.dumps(patched, separators=(",", ":"))


def loads_checking_duplicates(text: str | bytes) -> tuple[Any, list[str]]:
    """``json.loads`` that also names the duplicate keys (``spec.replicas``, ``items[0].name``), as the
    strict decoder does; the last value wins, as in Go. Objects without duplicates cost one length check."""
    found: list[dict[str, Any]] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            dups = [k for k, _ in pairs if k in seen or seen.add(k)]  # type: ignore[func-returns-value]
            found.append(obj)
            return _WithDuplicates(obj, dups)
        return obj

    value = json.loads(text, object_pairs_hook=pairs_hook)
    if not found:
        return value, []
    paths: list[str] = []
    _duplicate_paths(value, "", paths)
    return _plain(value), paths


class RequestBody(dict):  # type: ignore[type-arg]
    """A decoded create or update body that remembers the duplicate fields its JSON had (the store reads
    ``duplicate_fields`` for fieldValidation; a plain dict has none)."""

    def __init__(self, obj: dict[str, Any], duplicate_fields: list[str]) -> None:
        super().__init__(obj)
        self.duplicate_fields = duplicate_fields


def json_body(text: str | bytes) -> Any:
    """Decode a JSON request body; an object comes back as a RequestBody naming its duplicate fields."""
    value, duplicates = loads_checking_duplicates(text)
    return RequestBody(value, duplicates) if isinstance(value, dict) else value


class _WithDuplicates(dict):  # type: ignore[type-arg]
    def __init__(self, obj: dict[str, Any], duplicates: list[str]) -> None:
        super().__init__(obj)
        self.duplicates = duplicates


def _duplicate_paths(value: Any, path: str, out: list[str]) -> None:
    if isinstance(value, dict):
        for key in getattr(value, "duplicates", ()):
            out.append(f"{path}.{key}" if path else key)
        for key, item in value.items():
            _duplicate_paths(item, f"{path}.{key}" if path else key, out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _duplicate_paths(item, f"{path}[{i}]", out)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


_JSON_PATCH_FIELDS = frozenset(("op", "path", "from", "value"))


def read_patch(body: Any, patch_type: str, report: FieldReport) -> tuple[Any, list[str]]:
    """A JSON, merge or strategic merge patch body, decoded strictly when the directive asks for it: the
    duplicate fields of the patch document (and, for a JSON patch, unknown fields of its operations,
    ``json patch unknown field "[0].bogus"``) as strict errors. A body that does not parse is returned as
    it is, for the patch engine to answer with its own 400."""
    if report.directive == IGNORE or not isinstance(body, str | bytes | bytearray):
        return body, []
    try:
        doc, duplicates = loads_checking_duplicates(bytes(body) if isinstance(body, bytearray) else body)
    except (ValueError, UnicodeDecodeError):
        return body, []
    problems = [duplicate_field(path) for path in duplicates]
    if patch_type.startswith("application/json-patch") and isinstance(doc, list):
        problems = [f"json patch {p}" for p in problems]
        for i, op in enumerate(doc):
            if isinstance(op, dict):
                problems += [f"json patch {unknown_field(f'[{i}].{key}')}" for key in op if key not in _JSON_PATCH_FIELDS]
    return doc, problems


class FieldReport:
    """The unknown and duplicate fields of one request and what its directive makes of them."""

    def __init__(self, directive: str, warnings: list[str]) -> None:
        self.directive = directive
        self.warnings = warnings  # the request's warnings (the audit entry's list)

    def problems(self, duplicates: list[str], unknown: list[str]) -> list[str]:
        if self.directive == IGNORE:
            return []
        return [duplicate_field(p) for p in duplicates] + [unknown_field(p) for p in unknown]

    def body(self, rt: ResourceType, duplicates: list[str], unknown: list[str]) -> None:
        """A create or update body: Strict fails with the 400, Warn warns."""
        problems = self.problems(duplicates, unknown)
        if not problems:
            return
        if self.directive == STRICT:
            raise cannot_handle(rt, strict_message(problems))
        self.warnings.extend(problems)

    def patch(self, shown: Any, problems: list[str]) -> None:
        """A patch: Strict fails with the 422 on ``patch``, Warn warns."""
        if not problems:
            return
        if self.directive == STRICT:
            raise patch_invalid(shown, strict_message(problems))
        self.warnings.extend(problems)


def undeclared_apply_fields(rt: ResourceType, config: dict[str, Any]) -> bool:
    """Server-side apply of a built-in kind: a field the schema does not declare fails the typed conversion
    of the applied configuration (a 500 with structured-merge-diff's message). True when the configuration
    decoded cleanly (a built-in kind, no value of the wrong type); False when that is not known."""
    model = rt.model
    if model is None:
        return False
    try:
        decoded = model.decoder.in_place(config, prune=False)
    except DecodeError:
        return False  # a wrong type surfaces when the result is decoded
    if not decoded.locations:
        return True
    schema = rt.patch_schema
    lines = [f"{_smd_path(schema, config, location)}: field not declared in schema"
             for location in decoded.locations]
    detail = lines[0] if len(lines) == 1 else "errors:\n" + "\n".join(f"  {line}" for line in lines)
    meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    group = f"{rt.group}/{rt.version}" if rt.group else f"/{rt.version}"
    raise errors.InternalError(
        f"failed to create typed patch object ({meta.get('namespace') or ''}/{meta.get('name') or ''}; "
        f"{group}, Kind={rt.kind}): {detail}"
    )


def _smd_path(schema: PatchSchema | None, doc: Any, stack: tuple[Any, ...]) -> str:
    """structured-merge-diff's ``fieldpath.Path.String()`` of a location: ``.spec.containers[name="a"].x``."""
    parts = []
    node = schema
    value = doc
    for entry in stack:
        if type(entry) is int:
            item = value[entry] if isinstance(value, list) and entry < len(value) else None
            list_type = node.ssa_list_type if node is not None else "atomic"
            keys = node.ssa_keys if node is not None else ()
            if list_type == "map" and isinstance(item, dict) and keys:
                rendered = ",".join(f"{k}={json.dumps(item.get(k))}" for k in keys if k in item)
                parts.append(f"[{rendered}]")
            elif list_type == "set":
                parts.append(f"[={json.dumps(item)}]")
            else:
                parts.append(f"[{entry}]")
            node = node.item() if node is not None else None
            value = item
        else:
            parts.append(f".{entry}")
            node = node.field(str(entry)) if node is not None else None
            value = value.get(entry) if isinstance(value, dict) else None
    return "".join(parts)


def check_type_meta(obj: dict[str, Any]) -> None:
    """``apiVersion`` and ``kind``, when present, must be strings (TypeMeta's Go fields)."""
    for field_name in ("apiVersion", "kind"):
        value = obj.get(field_name)
        if value is not None and not isinstance(value, str):
            raise errors.BadRequest(
                f"json: cannot unmarshal {go_json_kind(value)} into Go struct field TypeMeta.{field_name} "
                "of type string"
            )

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

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from fakekube import errors, gojson
from fakekube.apimodel.decode_over import copy_over
from fakekube.apimodel.decoder import Decoded, DecodeError, Decoder, decoder
from fakekube.apimodel.definitions import definitions
from fakekube.patch import typed_validate
from fakekube.patch.gofmt import go_value
from fakekube.patch.jsonutil import go_json_kind
from fakekube.patch.patched_text import patched_json

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


def check_body_as(other: ResourceType, body: dict[str, Any], kind: str, version: str, endpoint_kind: str) -> None:
    """Decode a body as the registered kind it names (not the endpoint's), for the type errors the codec
    meets before it finds it cannot convert that kind: ``Secret in version "v1" cannot be handled as a
    ConfigMap: illegal base64 data at input byte 0``."""
    try:
        other.model.decoder.in_place(body, prune=False)
    except DecodeError as exc:
        raise errors.BadRequest(f'{kind} in version "{version}" cannot be handled as a {endpoint_kind}: {exc}') from None


def check_object_meta(version: Any, meta: Any) -> None:
    """A custom resource's metadata decoded into ``metav1.ObjectMeta`` (apiextensions-apiserver decodes it
    typed: ``json: cannot unmarshal number into Go struct field ObjectMeta.name of type string``); raises
    DecodeError. Unknown fields are left for ``custom_metadata_unknown``."""
    object_meta_decoder(version).in_place(meta, prune=False)


@cache
def object_meta_decoder(version: Any) -> Decoder:
    return decoder(version, OBJECT_META)


def check_body(rt: ResourceType, body: dict[str, Any]) -> list[str]:
    """The unknown fields of a create or update body, without copying or changing it; a value of the wrong
    type is the 400 ``decode_body`` would raise."""
    model = rt.model
    try:
        return model.decoder.in_place(body, prune=False).unknown
    except DecodeError as exc:
        raise cannot_handle(rt, str(exc)) from None


def decode_patched(rt: ResourceType, patched: dict[str, Any], shown: Callable[[], Any], *,
                   converter: bool = False) -> list[str]:
    """Check a patch's result (a document the caller owns) and drop its unknown fields in place; a value of
    the wrong type is the 422 on ``patch`` (``shown()`` is the value that error prints, taken before anything
    is dropped). ``converter``: a strategic merge patch's result, which the unstructured converter decodes."""
    model = rt.model
    try:
        return model.decoder.in_place(patched, converter=converter).unknown
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
    if _null_in_a_list(patch):
        return True  # Go decodes it as the zero value of the element type: the result is decoded again
    model = rt.model
    try:
        decoded = model.decoder.in_place(patch, prune=False)
    except DecodeError:
        return True
    # A null or empty field in the patch may leave one in the result, which the server writes as Go does. An
    # absent field Go writes (a struct's ``conditions: {}``) matters only in an object the patch brings whole,
    # a list's item: a merged object keeps the stored object's fields, already written as Go writes them.
    return bool(decoded.locations) or decoded.zeroed or (decoded.filled and _object_in_a_list(patch))


def _object_in_a_list(value: Any) -> bool:
    return _in_a_list(value, lambda item: type(item) is dict)


def _null_in_a_list(value: Any) -> bool:
    return _in_a_list(value, lambda item: item is None)


def _in_a_list(value: Any, wanted: Callable[[Any], bool]) -> bool:
    """Whether some list anywhere in ``value`` holds an item ``wanted`` accepts (a walk without recursion)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            stack.extend(v for v in node.values() if type(v) is dict or type(v) is list)
        elif type(node) is list:
            for item in node:
                if wanted(item):
                    return True
                if type(item) is dict or type(item) is list:
                    stack.append(item)
    return False


def custom_metadata_unknown(version: Any, meta: dict[str, Any]) -> list[str]:
    """Unknown fields of a custom resource's ``metadata``, dropped as apiextensions-apiserver's objectmeta
    coercion drops them, and its empty fields dropped too (not reported): the coercion writes the metadata back
    from the decoded ``metav1.ObjectMeta``, whose fields are all omitempty (creationTimestamp omitzero), but
    for the pointer ``deletionGracePeriodSeconds``. Only ObjectMeta's own fields are checked (not those of its
    ownerReferences or managedFields entries): a custom resource's metadata is otherwise validated, not decoded,
    here."""
    known = object_meta_fields(version)
    unknown = [key for key in meta if key not in known]
    for key in unknown:
        del meta[key]
    for key in [key for key, value in meta.items() if _omitted_meta_value(key, value)]:
        del meta[key]
    return [f"metadata.{key}" for key in unknown]


def _omitted_meta_value(key: str, value: Any) -> bool:
    """Whether ObjectMeta's JSON leaves out ``key`` holding ``value`` (Go's omitempty: null, "", 0, {}, [])."""
    if value is None:
        return True
    if key == "deletionGracePeriodSeconds":
        return False
    if type(value) is bool:
        return False
    return value == 0 if isinstance(value, (int, float)) else value in ("", {}, [])


def _has_omitted_meta_value(meta: dict[str, Any]) -> bool:
    return any(_omitted_meta_value(key, value) for key, value in meta.items())


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
    if isinstance(meta, dict) and version is not None and (
            not object_meta_fields(version).issuperset(meta) or _has_omitted_meta_value(meta)):
        return True
    return rt.schema is not None and rt.schema.would_prune(obj)


@cache
def object_meta_fields(version: Any) -> frozenset[str]:
    return frozenset(definitions(version)[OBJECT_META]["properties"])


def patch_invalid(shown: Any, detail: str) -> errors.Invalid:
    """``errors.NewInvalid(schema.GroupKind{}, "", field.Invalid(field.NewPath("patch"), shown, detail))``."""
    return errors.Invalid("", "", "", [errors.invalid("patch", shown, detail)])


def shown_patch(patch_type: str, patched: Any, patch: Any, schema: PatchSchema | None = None,
                custom: bool = False) -> str:
    """What a failed patch's 422 shows as the value: the patched JSON for JSON and merge patches, as the
    server writes it (``fakekube.patch.patched_text``; ``schema``: the kind's patch schema), Go's ``%+v`` of
    the decoded patch for a strategic merge patch."""
    if patch_type.startswith("application/strategic-merge-patch"):
        return go_value(patch)
    return patched_json(patched, patch, patch_type, schema, custom)


def loads_checking_duplicates(text: str | bytes, flags: gojson.Flags | None = None) -> tuple[Any, list[str]]:
    """``gojson.loads`` (JSON as Go reads it; a syntax error raises ``gojson.JSONSyntaxError``, a ValueError)
    that also names the duplicate keys (``spec.replicas``, ``items[0].name``), as the strict decoder does;
    the last value wins, as in Go. Objects without duplicates cost one length check."""
    found: list[dict[str, Any]] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            dups = [k for k, _ in pairs if k in seen or seen.add(k)]  # type: ignore[func-returns-value]
            found.append(obj)
            return _WithDuplicates(obj, dups)
        return obj

    value = gojson.loads(text, object_pairs_hook=pairs_hook, flags=flags)
    if not found:
        return value, []
    paths: list[str] = []
    _duplicate_paths(value, "", paths)
    return _plain(value), paths


class RequestBody(dict):  # type: ignore[type-arg]
    """A decoded create or update body that remembers the duplicate fields its JSON had (the store reads
    ``duplicate_fields`` for fieldValidation; a plain dict has none), and whether it holds numbers Go's
    unstructured decoding would hold differently (``number_flags``: a float, or a number beyond 64 bits), and
    its ``text`` (raw members keep their very bytes: fakekube.verbs.rawdata)."""

    def __init__(self, obj: dict[str, Any], duplicate_fields: list[str], number_flags: bool = True,
                 text: str | bytes | None = None) -> None:
        super().__init__(obj)
        self.duplicate_fields = duplicate_fields
        self.number_flags = number_flags
        self.text = text


def json_body(text: str | bytes) -> Any:
    """Decode a JSON request body; an object comes back as a RequestBody naming its duplicate fields."""
    flags = gojson.Flags()
    value, duplicates = loads_checking_duplicates(text, flags)
    if isinstance(value, dict):
        return RequestBody(value, duplicates, flags.floats or flags.big, text)
    return value


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
JSON_PATCH_OP = "handlers.jsonPatchOp"


class ParsedPatch:
    """A JSON, merge or strategic merge patch body parsed once, before the object is looked up (apiserver
    ``validateAndTranscodePatch``: a body that is not JSON is the 400 ``invalid JSON patch``)."""

    __slots__ = ("doc", "duplicates", "flags")

    def __init__(self, doc: Any, duplicates: list[str], flags: gojson.Flags) -> None:
        self.doc = doc
        self.duplicates = duplicates
        self.flags = flags


def parse_patch(body: Any) -> ParsedPatch | None:
    """Parse a patch body sent as text (None for a document a caller passed as it is)."""
    if not isinstance(body, str | bytes | bytearray | memoryview):
        return None
    flags = gojson.Flags()
    try:
        doc, duplicates = loads_checking_duplicates(bytes(body) if not isinstance(body, str | bytes) else body,
                                                    flags)
    except gojson.JSONSyntaxError:
        raise errors.BadRequest("invalid JSON patch") from None
    return ParsedPatch(doc, duplicates, flags)


def read_patch(body: Any, patch_type: str, report: FieldReport,
               parsed: ParsedPatch | None = None) -> tuple[Any, list[str]]:
    """A JSON, merge or strategic merge patch document, decoded as the patch handler decodes it: with
    ``fieldValidation`` Warn or Strict, into ``[]handlers.jsonPatchOp`` or ``map[string]any`` first (a
    mismatch is the 400 ``error decoding patch: ...``), a strategic merge patch always into
    ``map[string]interface{}`` (the 400 without that prefix). Returns the document and the strict problems
    (duplicate fields and, for a JSON patch, unknown fields of its operations)."""
    parsed = parsed if parsed is not None else parse_patch(body)
    if parsed is None:
        return body, []
    doc = parsed.doc
    strict = report.directive != IGNORE
    if patch_type.startswith("application/strategic-merge-patch"):
        _check_map_patch(doc, "")
    elif strict and patch_type.startswith("application/json-patch"):
        _check_json_patch_ops(doc)
    elif strict and patch_type.startswith("application/merge-patch"):
        _check_map_patch(doc, "error decoding patch: ")
    if not strict:
        return doc, []
    problems = [duplicate_field(path) for path in parsed.duplicates]
    if patch_type.startswith("application/json-patch") and isinstance(doc, list):
        problems = [f"json patch {p}" for p in problems]
        for i, op in enumerate(doc):
            if isinstance(op, dict):
                problems += [f"json patch {unknown_field(f'[{i}].{key}')}" for key in op if key not in _JSON_PATCH_FIELDS]
    return doc, problems


def _check_map_patch(doc: Any, prefix: str) -> None:
    """``json.Unmarshal`` of a (strategic) merge patch into ``map[string]interface{}``."""
    if doc is not None and not isinstance(doc, dict):
        raise errors.BadRequest(f"{prefix}json: cannot unmarshal {go_json_kind(doc)} into Go value of type "
                                "map[string]interface {}")
    big = gojson.first_overflow(doc)
    if big is not None:
        raise errors.BadRequest(f"{prefix}json: cannot unmarshal number {big.text} into Go value of type float64")


def _check_json_patch_ops(doc: Any) -> None:
    """``kjson.UnmarshalStrict`` of a JSON patch into ``[]handlers.jsonPatchOp`` (op, path and from are
    strings, value any JSON); the first mismatch in document order."""
    if doc is None:
        return
    if not isinstance(doc, list):
        raise errors.BadRequest(f"error decoding patch: json: cannot unmarshal {go_json_kind(doc)} into Go value "
                                f"of type []{JSON_PATCH_OP}")
    for op in doc:
        if op is None:
            continue
        if not isinstance(op, dict):
            raise errors.BadRequest(f"error decoding patch: json: cannot unmarshal {go_json_kind(op)} into Go "
                                    f"value of type {JSON_PATCH_OP}")
        for key, value in op.items():
            if key in ("op", "path", "from") and value is not None and not isinstance(value, str):
                raise errors.BadRequest(f"error decoding patch: json: cannot unmarshal {go_json_kind(value)} into "
                                        f"Go struct field jsonPatchOp.{key} of type string")
            if key == "value":
                big = gojson.first_overflow(value)
                if big is not None:
                    raise errors.BadRequest(f"error decoding patch: json: cannot unmarshal number {big.text} into "
                                            "Go struct field jsonPatchOp.value of type float64")


class FieldReport:
    """The unknown and duplicate fields of one request and what its directive makes of them."""

    def __init__(self, directive: str, warnings: list[str]) -> None:
        self.directive = directive
        self.warnings = warnings  # the request's warnings (the audit entry's list)

    def problems(self, duplicates: list[str], unknown: list[str]) -> list[str]:
        if self.directive == IGNORE:
            return []
        return [duplicate_field(p) for p in duplicates] + [unknown_field(p) for p in unknown]

    def body(self, rt: ResourceType, duplicates: list[str], unknown: list[str], extra: list[str] = ()) -> None:  # type: ignore[assignment]
        """A create or update body: Strict fails with the 400, Warn warns. ``extra``: problems already worded
        (a YAML body's duplicate keys, which the YAML decoder reports first)."""
        problems = (list(extra) if self.directive != IGNORE else []) + self.problems(duplicates, unknown)
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
    """Server-side apply: the applied configuration converted to its smd type first (``ObjectToTyped``), a
    value of the wrong type or a field the schema does not declare failing the apply with a 500 and
    structured-merge-diff's words (``fakekube.patch.typed_validate``). True when the configuration of a
    built-in kind also decodes cleanly into its Go type (no unknown field, no wrong type), so the result of
    the apply needs no decoding; False when that is not known."""
    schema = rt.patch_schema
    if schema is not None:
        found = typed_validate.validate(config, schema)
        if found:
            detail = found[0] if len(found) == 1 else "errors:\n" + "\n".join(f"  {line}" for line in found)
            meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
            group = f"{rt.group}/{rt.version}" if rt.group else f"/{rt.version}"
            namespace, name = meta.get("namespace"), meta.get("name")
            raise errors.InternalError(
                f"failed to create typed patch object ({namespace if isinstance(namespace, str) else ''}/"
                f"{name if isinstance(name, str) else ''}; {group}, Kind={rt.kind}): {detail}"
            )
    model = rt.model
    if model is None:
        return False
    try:
        decoded = model.decoder.in_place(config, prune=False)
    except DecodeError:
        return False
    # a field Go writes otherwise (an empty omitempty value, an absent one without omitempty) needs the decode
    return not decoded.locations and not decoded.zeroed and not decoded.filled


def check_type_meta(obj: dict[str, Any]) -> None:
    """``apiVersion`` and ``kind``, when present, must be strings (TypeMeta's Go fields)."""
    for field_name in ("apiVersion", "kind"):
        value = obj.get(field_name)
        if value is not None and not isinstance(value, str):
            raise errors.BadRequest(
                f"json: cannot unmarshal {go_json_kind(value)} into Go struct field TypeMeta.{field_name} "
                "of type string"
            )

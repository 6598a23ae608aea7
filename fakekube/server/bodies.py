"""Request bodies: size limit, content-type negotiation and decoding (JSON and YAML as kube-apiserver's Go
decoders read them, ``fakekube.gojson`` and ``fakekube.goyaml``, and protobuf for the built-in kinds of the
protobuf table — what kubectl's generators and Go clients send), and what the codec makes of a body's
apiVersion and kind (``fakekube.typemeta``).

Protobuf bodies fail as the real server's create and update handlers fail them (``transformDecodeError`` in
kubernetes/apiserver pkg/endpoints/handlers/rest.go): a 400 ``<Kind> in version "v1" cannot be handled as a
<Kind>: <reason>`` once the envelope names a kind, ``the object provided is unrecognized (must be of type
<Kind>): <reason> (<hex of the first 30 bytes>)`` before. Custom resources: their handler lists protobuf but
cannot unmarshal into an unstructured object, a 400 as well (apiextensions-apiserver customresource_handler.go).
Kinds fakekube serves without a protobuf schema (CustomResourceDefinition) get a 415 naming JSON and YAML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakekube import decoding, errors, gojson, goyaml, typemeta
from fakekube.apimodel.decoder import DecodeError
from fakekube.decoding import RequestBody, json_body
from fakekube.gojson import go_text
from fakekube.jsonvalues import json_copy
from fakekube.resources import ResourceType
from fakekube.server.protobuf import MEDIA_TYPE as PROTOBUF
from fakekube.server.protobuf import CodecError, UnknownKind, default_codec

if TYPE_CHECKING:
    from fakekube.resources import Registry

JSON = "application/json"
YAML = "application/yaml"
OBJECT_TYPES = (JSON, YAML)
ALL_OBJECT_TYPES = (JSON, YAML, PROTOBUF)

# kube-apiserver's default --max-request-body-bytes is 3 MiB (apiserver pkg/server/config.go).
DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024


def media_type(content_type: str | None) -> str:
    """The bare media type, lower-cased, parameters (``; charset=utf-8``) stripped; "" when absent."""
    if not content_type:
        return ""
    return content_type.split(";", 1)[0].strip().lower()


def speaks_protobuf(rt: ResourceType | None) -> bool:
    """Whether the resource's endpoint lists protobuf among its media types (custom resources do, in name)."""
    return rt is not None and (rt.custom or default_codec().serves(rt.api_version, rt.kind))


def object_types(rt: ResourceType | None) -> tuple[str, ...]:
    return ALL_OBJECT_TYPES if speaks_protobuf(rt) else OBJECT_TYPES


def _parameters_parse(content_type: str) -> bool:
    """Whether Go's ``mime.ParseMediaType`` takes the parameters: each ``key=value`` (a trailing ``;`` is fine)."""
    params = content_type.split(";")[1:]
    for i, param in enumerate(params):
        if not param.strip():
            if i == len(params) - 1:
                continue
            return False
        key, eq, _ = param.partition("=")
        if not eq or not key.strip():
            return False
    return True


def decode_object(body: bytes, content_type: str | None, rt: ResourceType | None = None, *,
                  expected_kind: str | None = None) -> Any:
    """The body of a create or update: JSON (also when no Content-Type is sent), YAML, or protobuf; any other
    media type, or one whose parameters do not parse, is a 415 (apiserver ``handlers/negotiation``
    ``NegotiateInputSerializer``: only the serializers' own types; ``text/plain`` and ``*/*`` are refused too).
    A body the decoder refuses is the 400 ``the object provided is unrecognized (must be of type <Kind>): ...``;
    JSON and YAML are read as the Go decoders read them (``fakekube.gojson``, ``fakekube.goyaml``)."""
    kind = media_type(content_type)
    if kind and not _parameters_parse(content_type or ""):
        raise errors.UnsupportedMediaType(list(object_types(rt)))
    expected = expected_kind or (rt.kind if rt is not None else "object")
    if kind in ("", JSON):
        # `kubernetes` 37 posts without a Content-Type; the real server falls back to its first type, JSON.
        return decode_json(body, expected)
    if kind == YAML:
        return decode_yaml(body, expected)
    if kind == PROTOBUF and rt is not None and speaks_protobuf(rt):
        return decode_protobuf(body, rt.api_version, rt.kind, custom=rt.custom)
    raise errors.UnsupportedMediaType(list(object_types(rt)))


def unrecognized(kind: str, detail: str, body: bytes) -> errors.BadRequest:
    """``transformDecodeError`` before a kind is known: the endpoint's kind, the error, the body's summary."""
    return errors.BadRequest(f"the object provided is unrecognized (must be of type {kind}): {detail} "
                             f"({summarize(body)})")


def summarize(data: bytes, limit: int = 30) -> str:
    """apiserver's ``summarizeData``: what a decode error quotes of the body."""
    if not data:
        return "<empty>"
    if data[:1] == b"{":
        text = go_text(data[:limit])
        return text + " ..." if len(data) > limit else text
    return data[:limit].hex() + (" ..." if len(data) > limit else "")


def decode_protobuf(body: bytes, api_version: str, kind: str, *, custom: bool = False) -> dict[str, Any]:
    """An enveloped protobuf body as the JSON object the server stores; TypeMeta defaults to the endpoint's."""
    codec = default_codec()
    try:
        sent_version, sent_kind, raw = codec.envelope(body)
    except CodecError as exc:
        raise errors.BadRequest(
            f"the object provided is unrecognized (must be of type {kind}): {exc} ({summarize(body)})") from None
    sent_kind = sent_kind or kind  # copyKindDefaults: an envelope without TypeMeta takes the endpoint's
    sent_version = sent_version or api_version
    version = sent_version.rpartition("/")[2]
    prefix = f'{sent_kind} in version "{version}" cannot be handled as a {kind}'
    if custom:
        raise errors.BadRequest(f"{prefix}: object *unstructured.Unstructured does not implement the protobuf "
                                "marshalling interface and cannot be encoded to a protobuf message")
    try:
        return codec.decode_raw(sent_version, sent_kind, raw)
    except UnknownKind:
        raise errors.BadRequest(f'{prefix}: no kind "{sent_kind}" is registered for version "{sent_version}" '
                                'in scheme "pkg/api/legacyscheme/scheme.go:30"') from None
    except CodecError as exc:
        raise errors.BadRequest(f"{prefix}: {exc}") from None


def decode_json(body: bytes, kind: str = "object") -> Any:
    """A JSON body; an object remembers its duplicate fields (``fakekube.decoding.RequestBody``), which the
    store reports as fieldValidation asks. A syntax error is what meta.Interpret, the first reader, says."""
    try:
        return json_body(body)
    except gojson.JSONSyntaxError as exc:
        raise unrecognized(kind, f"couldn't get version/kind; json parse error: {exc}", body) from None


def decode_yaml(body: bytes, kind: str = "object") -> Any:
    """A YAML body as ``YAMLToJSON`` converts it (a JSON-shaped value); its errors come before anything reads
    the kind."""
    duplicates: list[str] = []
    try:
        value = goyaml.yaml_to_json(body, duplicates)
    except goyaml.GoYAMLError as exc:
        raise unrecognized(kind, str(exc), body) from None
    if not isinstance(value, dict):
        return value
    decoded = RequestBody(value, [])
    decoded.strict_problems = duplicates  # type: ignore[attr-defined]
    return decoded


def check_type_meta(value: Any, body: bytes, rt: ResourceType, registry: Registry,
                    field_validation: str | None = None) -> dict[str, Any]:
    """What the endpoint's codec makes of a decoded create or update body's apiVersion and kind
    (``fakekube.typemeta``): the body to create or update from (``null`` is an empty object), or the 400 (a
    custom resource of another kind is decoded, and refused by validation later). ``field_validation``: the
    request's directive, for what decoding a custom resource of another version reports first."""
    try:
        group, version, kind = typemeta.interpret(value)
    except typemeta.TypeMetaError as exc:
        raise unrecognized(rt.kind, str(exc), body) from None
    raw = go_text(body)
    if rt.custom:
        _, default_version, default_kind = typemeta.body_defaults(rt, group, version, kind)
        value = _custom_numbers(value, rt, default_kind, default_version)
        if not kind:
            raise unrecognized(rt.kind, f"Object 'Kind' is missing in '{raw}'", body)
        if "apiVersion" in value and value["apiVersion"] is None:
            # apiextensions-apiserver customresource_handler.go unstructuredSchemaCoercer.apply reads it with
            # unstructured.NestedString, which refuses a null (observed on kube-apiserver v1.37.2)
            raise errors.BadRequest(f'{kind} in version "{version}" cannot be handled as a {rt.kind}: .apiVersion '
                                    "accessor error: <nil> is of the type <nil>, expected string")
        if "metadata" in value:
            try:
                decoding.check_object_meta(registry.kubernetes_version, value["metadata"])
            except DecodeError as exc:
                raise errors.BadRequest(f'{kind} in version "{version}" cannot be handled as a {rt.kind}: {exc}') from None
        sent = typemeta.group_version(group, version)
        if group != rt.group or not any(t.version == version for t in registry if t.storage == rt.storage):
            refusal = errors.BadRequest(f"the API version in the data ({sent}) does not match the expected API "
                                        f"version ({rt.api_version})")
            refusal.warnings = tuple(_custom_decoding_problems(value, rt, registry, group, version, kind,
                                                               field_validation))
            raise refusal
        return value
    group, version, kind = typemeta.body_defaults(rt, group, version, kind)
    verdict = typemeta.judge(registry, rt, group, version, kind)
    if verdict.outcome == typemeta.Verdict.OTHER_VERSION or (
            verdict.outcome == typemeta.Verdict.OK and (group, version) != (rt.group, rt.version)):
        raise errors.BadRequest(f"the API version in the data ({typemeta.group_version(group, version)}) does not "
                                f"match the expected API version ({rt.api_version})")
    if verdict.outcome != typemeta.Verdict.OK:
        if verdict.other is not None and verdict.other.model is not None and isinstance(value, dict):
            decoding.check_body_as(verdict.other, value, kind, version, rt.kind)  # its own type errors first
        detail = typemeta.refusal(rt, verdict, group, version, kind, raw)
        raise errors.BadRequest(f'{kind} in version "{version}" cannot be handled as a {rt.kind}: {detail}')
    if value is None:
        return RequestBody({}, [])
    if value.get("apiVersion") not in (None, rt.api_version):
        value["apiVersion"] = rt.api_version
    if value.get("kind") not in (None, rt.kind):
        value["kind"] = rt.kind
    return value


def _custom_decoding_problems(value: dict[str, Any], rt: ResourceType, registry: Registry, group: str,
                              version: str, kind: str, field_validation: str | None) -> list[str]:
    """What decoding a custom resource body of a version the endpoint does not serve reports before the handler
    refuses the version: the duplicate fields, the unknown metadata fields, and, when it names the endpoint's
    group and kind, every field the schema of its version does not declare — all but apiVersion, kind and
    metadata for a version the definition does not have (apiextensions-apiserver
    ``pkg/apiserver/customresource_handler.go`` schemaCoercingDecoder, ``unstructuredSchemaCoercer.apply``;
    observed on kube-apiserver v1.37.2). Strict raises them as the decoding's 400; Warn returns them as the
    warnings the refusal carries."""
    report = decoding.FieldReport(decoding.field_validation(field_validation), [])
    if report.directive == decoding.IGNORE:
        return []
    meta = value.get("metadata")
    unknown: list[str] = []
    if isinstance(meta, dict) and registry.kubernetes_version is not None:
        known = decoding.object_meta_fields(registry.kubernetes_version)
        unknown += [f"metadata.{key}" for key in meta if key not in known]
    if group == rt.group and kind == rt.kind:
        other = next((t for t in registry if t.storage == rt.storage and t.version == version), None)
        if other is not None and other.schema is not None:
            unknown += other.schema.prune(json_copy(value))
        elif other is None:
            unknown += sorted(key for key in value if key not in ("apiVersion", "kind", "metadata"))
    problems = report.problems(list(getattr(value, "duplicate_fields", ())), unknown)
    if problems and report.directive == decoding.STRICT:
        raise errors.BadRequest(f'{kind} in version "{version}" cannot be handled as a {rt.kind}: '
                                f"{decoding.strict_message(problems)}")
    return problems


def _custom_numbers(value: Any, rt: ResourceType, kind: str, version: str) -> Any:
    """A custom resource's numbers as Go's unstructured decoding holds them (``gojson.unstructured``)."""
    if isinstance(value, dict) and getattr(value, "number_flags", True):
        try:
            gojson.unstructured(value)
        except gojson.GoJSONError as exc:
            raise errors.BadRequest(f'{kind} in version "{version}" cannot be handled as a {rt.kind}: {exc}') from None
    return value


def decode_optional_json(body: bytes, content_type: str | None) -> Any:
    """DeleteOptions bodies: empty is fine; protobuf clients send them as protobuf (any group version)."""
    if not body.strip():
        return None
    if media_type(content_type) == PROTOBUF:
        return decode_protobuf(body, "v1", "DeleteOptions")
    return decode_object(body, content_type, expected_kind="DeleteOptions")

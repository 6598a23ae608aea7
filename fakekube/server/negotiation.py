"""Content negotiation of responses, as kube-apiserver does it for resource requests.

- The Accept header is parsed like goautoneg's ``ParseAccept`` (each clause through Go's
  ``mime.ParseMediaType``, malformed clauses skipped, ``q`` read as a float) and ordered with its comparison:
  higher ``q`` first, then a concrete type before ``*``, a concrete subtype before ``*`` — with Go's insertion
  sort for short lists, so equal clauses keep the client's order.
- Clauses are tried in that order against the served media types (JSON, YAML, protobuf for built-in kinds),
  each clause's parameters checked as ``acceptMediaTypeOptions`` does: ``as=Table;g=meta.k8s.io;v=v1|v1beta1``
  only with JSON or YAML (``AllowsMediaTypeTransform``); ``stream=watch`` only where a stream serializer
  exists (JSON and protobuf, not YAML); ``as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1|v1beta1`` with
  JSON or YAML on any verb (fakekube/server/partial.py), not with protobuf (fakekube does not encode it: the
  clause is skipped); other ``as=`` targets are skipped too; unknown parameters are ignored.
- No Accept header: JSON. Nothing acceptable: 406 ``NotAcceptable`` naming the served types; the error itself
  is negotiated again without transforms (``status_media_type``), raw JSON when nothing fits.
- Custom resources: their handler lists protobuf among its types but does not serve plain objects in it
  (``StandardSerializers`` exclude it), so a protobuf-only Accept is a 406 that names protobuf anyway.

Sources: kubernetes/apiserver pkg/endpoints/handlers/negotiation/negotiate.go and errors.go,
pkg/endpoints/handlers/rest.go (``AllowsMediaTypeTransform``), responsewriters/writers.go,
handlers/watch.go (``;stream=watch`` on non-JSON watch types), at 24a394e516bfda066d7e2221d7d92c052de27c54;
kubernetes/apiextensions-apiserver pkg/apiserver/customresource_handler.go at
1aa2717a552ee6ca1e2a18f1f8ffccde981db923; github.com/munnerz/goautoneg autoneg.go.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from fakekube import errors

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
TABLE_GROUP = "meta.k8s.io"
TABLE_VERSIONS = ("v1", "v1beta1")
_STREAMING = (JSON, PROTOBUF)


@dataclass(frozen=True, slots=True)
class Clause:
    type: str
    subtype: str
    q: float
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Choice:
    media_type: str  # JSON, YAML or PROTOBUF
    table_version: str | None = None  # "v1"/"v1beta1" when the client asked for a Table
    partial: str | None = None  # "PartialObjectMetadata" or "PartialObjectMetadataList" (server/partial.py)
    partial_version: str = "v1"


def _parse_media_type(text: str) -> tuple[str, dict[str, str]] | None:
    """A simplified Go ``mime.ParseMediaType``: ``type/subtype`` and its ``key=value`` parameters, or None."""
    parts = text.split(";")
    media = parts[0].strip().lower()
    main, slash, sub = media.partition("/")
    if not slash or not main or not sub or any(c in media for c in " \t()<>@,:\\\"[]?="):
        return None
    params: dict[str, str] = {}
    for raw in parts[1:]:
        raw = raw.strip()
        if not raw:
            continue
        key, eq, value = raw.partition("=")
        key = key.strip().lower()
        if not eq or not key or key in params:
            return None
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        params[key] = value
    return media, params


def _less(a: Clause, b: Clause) -> bool:
    # goautoneg's accept_slice.Less, verbatim in logic (it does not compare q the other way round).
    if a.q > b.q:
        return True
    if a.type != "*" and b.type == "*":
        return True
    return a.subtype != "*" and b.subtype == "*"


def parse_accept(header: str) -> list[Clause]:
    clauses = []
    for part in header.split(","):
        parsed = _parse_media_type(part)
        if parsed is None:
            continue
        media, params = parsed
        main, _, sub = media.partition("/")
        q = 1.0
        if "q" in params:
            try:
                q = float(params.pop("q"))
            except ValueError:
                q = 0.0  # strconv.ParseFloat's error is ignored: Q keeps its zero value
        clauses.append(Clause(main, sub, q, params))
    # sort.Sort on fewer than 13 elements is an insertion sort: stable for equal clauses.
    for i in range(1, len(clauses)):
        j = i
        while j > 0 and _less(clauses[j], clauses[j - 1]):
            clauses[j], clauses[j - 1] = clauses[j - 1], clauses[j]
            j -= 1
    return clauses


def _matches(clause: Clause, media_type: str) -> bool:
    main, _, sub = media_type.partition("/")
    return (clause.type == main and clause.subtype in (sub, "*")) or (clause.type == "*" and clause.subtype == "*")


def _accepts(clause: Clause, media_type: str, *, tables: bool, standard: tuple[str, ...]) -> Choice | None:
    params = clause.params
    stream = params.get("stream")
    if stream and (media_type not in _STREAMING or stream != "watch"):
        return None
    target = params.get("as")
    if target is None and ("g" in params or "v" in params):
        target = ""
    if target is None:
        return Choice(media_type) if media_type in standard else None
    if target == "Table" and params.get("g") == TABLE_GROUP and params.get("v") in TABLE_VERSIONS:
        if tables and media_type in (JSON, YAML):
            return Choice(JSON, params["v"])  # Tables are rendered as JSON
        return None
    if target in ("PartialObjectMetadata", "PartialObjectMetadataList") and params.get("g") == TABLE_GROUP \
            and params.get("v") in TABLE_VERSIONS:
        # Allowed in every media type and on every verb (AllowsMediaTypeTransform); fakekube writes JSON and
        # YAML and skips a protobuf clause, so the metadata client's JSON clause after it is taken.
        if media_type in (JSON, YAML):
            return Choice(media_type, partial=target, partial_version=params["v"])
        return None
    return None


def negotiate(accept: str | None, offered: tuple[str, ...], *, watch: bool = False, tables: bool = False,
              standard: tuple[str, ...] | None = None) -> Choice:
    """The response's media type for a resource request; ``errors.ApiError`` 406 when nothing fits.

    ``offered`` are the serializers of the endpoint (their order decides ``*/*``), ``standard`` those that may
    answer without a transformation (custom resources: not protobuf), ``tables`` whether Tables can be printed.
    A watch takes the first acceptable clause like any request, and is a 406 when that type cannot stream
    (YAML), as ``NegotiateOutputMediaTypeStream`` is.
    """
    standard = standard if standard is not None else offered
    choice = _first_cached(accept, offered, tables, standard)
    if watch and (choice is None or choice.media_type not in _STREAMING):
        raise not_acceptable([f"{m};stream=watch" for m in offered if m in _STREAMING])
    if choice is None:
        raise not_acceptable(list(offered))
    return choice


@functools.lru_cache(maxsize=256)
def _first_cached(accept: str | None, offered: tuple[str, ...], tables: bool, standard: tuple[str, ...]) -> Choice | None:
    # Clients send the same few Accept headers again and again; a Choice is immutable (bounded: a client may
    # send any number of distinct headers).
    return _first(accept, offered, tables=tables, standard=standard)


def _first(accept: str | None, offered: tuple[str, ...], *, tables: bool, standard: tuple[str, ...]) -> Choice | None:
    if not accept:
        return Choice(offered[0])
    for clause in parse_accept(accept):
        for media_type in offered:
            if _matches(clause, media_type):
                choice = _accepts(clause, media_type, tables=tables, standard=standard)
                if choice is not None:
                    return choice
    return None


def status_media_type(accept: str | None, offered: tuple[str, ...]) -> str | None:
    """The media type an error Status of a resource request is written in, or None for raw JSON.

    ``ErrorNegotiated`` negotiates again for the Status, with the endpoint's serializers (a custom resource's
    protobuf included) and the default restrictions: no ``as``/``g``/``v`` transform, ``stream=watch`` only on
    a type that streams; when nothing fits it falls back to ``WriteRawJSON`` (apiserver v0.37.2
    ``pkg/endpoints/handlers/responsewriters/writers.go``, ``negotiation/negotiate.go``
    ``DefaultEndpointRestrictions``). So a watch's 406 for ``Accept: application/yaml`` is YAML, a custom
    resource's for a protobuf-only Accept is protobuf (observed on kube-apiserver v1.37.2)."""
    if not accept:
        return offered[0] if offered else None
    for clause in parse_accept(accept):
        params = clause.params
        if "as" in params or "g" in params or "v" in params:
            continue
        for media_type in offered:
            if not _matches(clause, media_type):
                continue
            stream = params.get("stream")
            if stream and (media_type not in _STREAMING or stream != "watch"):
                continue
            return media_type
    return None


def check_route_produces(accept: str | None, produces: tuple[str, ...]) -> None:
    """go-restful's check of a built-in resource route, before apiserver's own negotiation: some Accept
    clause, its parameters cut off, must be ``*/*`` or exactly one of the route's types (no ``application/*``),
    else the router's 406 (emicklei/go-restful v3 ``Route.matchesAccept``, written as a Status by apiserver's
    ``ServiceErrorHandler`` with ``NewGenericServerResponse``: empty details)."""
    if not _route_accepts(accept, produces):
        raise errors.ApiError(406, "NotAcceptable",
                              "406: Not Acceptable\n\nAvailable representations: " + ", ".join(produces), {})


@functools.lru_cache(maxsize=256)
def _route_accepts(accept: str | None, produces: tuple[str, ...]) -> bool:
    if not accept or not accept.strip():
        return True
    for clause in accept.split(","):
        media = clause.split(";", 1)[0].strip()
        if media == "*/*" or media in produces:
            return True
    return False


def not_acceptable(accepted: list[str]) -> errors.ApiError:
    return errors.ApiError(406, "NotAcceptable", "only the following media types are accepted: " + ", ".join(accepted))

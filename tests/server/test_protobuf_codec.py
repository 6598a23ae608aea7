"""The protobuf codec on its own: round trips of generated objects of every kind of the table, the JSON forms
of the self-marshalling types, Go's rendering rules, malformed input, and a fuzzed decoder.

Objects are generated from the schema table in Go's canonical JSON form (what encoding/json makes of a Go
struct: non-pointer structs always present, zero non-pointer ``omitempty`` scalars absent, nil slices of
non-``omitempty`` fields ``null``...), for which JSON → protobuf → JSON must be the identity.
"""

from __future__ import annotations

import base64
import contextlib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakekube.server.protobuf import Codec, CodecError, UnknownKind, default_codec, read_frames
from fakekube.server.protobuf import values as pbvalues
from fakekube.server.protobuf.envelope import MAGIC, wrap
from fakekube.server.protobuf.schema import Field, Message

CODEC = default_codec()
SCHEMA = CODEC.schema
KINDS = sorted((api_version, kind) for api_version, kinds in SCHEMA.kinds.items() for kind in kinds)
MAX_DEPTH = 4

# -- strategies from the table --------------------------------------------------------------------------

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
_nonempty_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)
_INT = {"int32": st.integers(-(2**31), 2**31 - 1), "int64": st.integers(-(2**63), 2**63 - 1)}
_times = st.integers(0, 253402300799).map(lambda s: pbvalues.format_time(s))
_micro = st.tuples(st.integers(0, 253402300799), st.integers(0, 999999)).map(
    lambda t: pbvalues.format_time(t[0], t[1] * 1000, micro=True))
_json_values = st.recursive(st.none() | st.booleans() | st.integers(-(2**53), 2**53) | _text,
                            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
                            max_leaves=6)


def _scalar(typ: str, nonzero: bool) -> st.SearchStrategy[Any]:
    if typ == "string":
        return _nonempty_text if nonzero else _text
    if typ == "bool":
        return st.just(True) if nonzero else st.booleans()
    if typ == "bytes":
        return st.binary(min_size=1 if nonzero else 0, max_size=8).map(lambda b: base64.b64encode(b).decode())
    if typ in ("double", "float"):
        return st.floats(allow_nan=False, allow_infinity=False, width=32 if typ == "float" else 64).filter(
            lambda x: x != 0 or not nonzero)
    ints = _INT.get(typ, st.integers(0, 2**31 - 1))
    return ints.filter(bool) if nonzero else ints


def _special(msg: Message, pointer: bool) -> st.SearchStrategy[Any]:
    kind = msg.special
    if kind == "time":
        return _times if pointer else st.none() | _times
    if kind == "microtime":
        return _micro if pointer else st.none() | _micro
    if kind == "duration":
        return st.integers(-(2**40), 2**40).map(pbvalues.format_duration)
    if kind == "quantity":
        return st.sampled_from(["0", "1", "500m", "1Gi", "2k", "1.5", "100M", "-3"])
    if kind == "intorstring":
        return _INT["int32"] | _text
    if kind == "fieldsv1":
        return st.dictionaries(_nonempty_text, st.just({}), max_size=3)
    return st.dictionaries(_nonempty_text, _json_values, max_size=3) if pointer else st.none() | st.dictionaries(
        _nonempty_text, _json_values, max_size=3)  # rawextension


def _value(f: Field, depth: int, *, element: bool = False) -> st.SearchStrategy[Any]:
    sub = f.message
    if sub is None:
        return _scalar(f.type, nonzero=False)
    if sub.special is not None:
        return _special(sub, pointer=element or f.pointer)
    if sub.list_wrapper:
        return st.lists(_text, min_size=1, max_size=3)
    return message_strategy(sub, depth + 1)


@st.composite
def _message(draw: st.DrawFn, msg: Message, depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    shallow = depth >= MAX_DEPTH
    for f in msg.fields:
        if f.inline:
            if f.message is not None and (not f.pointer or (not shallow and draw(st.booleans()))):
                out.update(draw(message_strategy(f.message, depth + 1)))
            continue
        optional = f.repeated or f.map_key is not None or f.pointer or f.omit_zero
        if optional and (shallow or draw(st.integers(0, 2)) == 0):
            if not f.omit_empty:
                out[f.name] = None  # a nil slice, map or pointer without omitempty shows as null
            continue
        if f.map_key is not None:
            out[f.name] = draw(st.dictionaries(_nonempty_text if f.map_key == "string" else
                                               st.integers(0, 99).map(str), _value(f, depth, element=True),
                                               min_size=1, max_size=2))
        elif f.repeated:
            out[f.name] = draw(st.lists(_value(f, depth, element=True), min_size=1, max_size=2))
        elif f.message is None:
            out[f.name] = draw(_scalar(f.type, nonzero=f.omit_zero))
        else:
            out[f.name] = draw(_value(f, depth))
    return out


_CACHE: dict[tuple[str, int], st.SearchStrategy[dict[str, Any]]] = {}


def message_strategy(msg: Message, depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    key = (msg.name, min(depth, MAX_DEPTH))
    if key not in _CACHE:
        _CACHE[key] = st.deferred(lambda: _message(msg, key[1]))
    return _CACHE[key]


def object_strategy(api_version: str, kind: str) -> st.SearchStrategy[dict[str, Any]]:
    msg = SCHEMA.kind(api_version, kind)
    assert msg is not None
    return message_strategy(msg).map(lambda body: {"kind": kind, "apiVersion": api_version, **body})


# -- round trips ------------------------------------------------------------------------------------------


def test_every_served_kind_of_discovery_is_in_the_table():
    for api_version, kind in [("v1", "Pod"), ("apps/v1", "Deployment"), ("batch/v1", "CronJob"),
                              ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"), ("policy/v1", "Eviction"),
                              ("autoscaling/v1", "Scale"), ("authorization.k8s.io/v1", "SelfSubjectAccessReview"),
                              ("authentication.k8s.io/v1", "SelfSubjectReview"), ("v1", "PodList")]:
        assert CODEC.serves(api_version, kind), (api_version, kind)
    assert len(KINDS) > 100


@pytest.mark.parametrize("api_version, kind", KINDS, ids=[f"{v}/{k}" for v, k in KINDS])
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_json_protobuf_json_is_the_identity(api_version, kind, data):
    obj = data.draw(object_strategy(api_version, kind))
    assert CODEC.decode(CODEC.encode(obj)) == obj


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(obj=object_strategy("v1", "Pod"))
def test_pod_round_trips_through_a_watch_event(obj):
    event = CODEC.encode_event("MODIFIED", obj)
    [payload] = read_frames(event)
    assert CODEC.decode_event(payload) == ("MODIFIED", obj)


# -- Go's JSON rendering ----------------------------------------------------------------------------------


def test_zero_values_follow_the_go_struct_tags():
    # What a Go client writes for a bare Namespace: every non-pointer field, zero or empty.
    sent = CODEC.encode({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo", "generateName": "",
                                                                                "generation": 0}})
    assert CODEC.decode(sent) == {"kind": "Namespace", "apiVersion": "v1",
                                  "metadata": {"name": "demo", "creationTimestamp": None}, "spec": {}, "status": {}}
    # PriorityClass.value has no omitempty; globalDefault has: zero shows for one, not the other.
    pc = CODEC.decode(CODEC.encode({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                    "metadata": {"name": "p"}, "value": 0, "globalDefault": False}))
    assert pc["value"] == 0 and "globalDefault" not in pc
    # A pointer shows when set, zero included; a nil slice without omitempty is null.
    deploy = CODEC.decode(CODEC.encode({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 0}}))
    assert deploy["spec"]["replicas"] == 0 and deploy["spec"]["template"]["metadata"] == {"creationTimestamp": None}
    role = CODEC.decode(CODEC.encode({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role"}))
    assert role["rules"] is None


def test_inline_structs_merge_into_their_parent():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"volumes": [{"name": "v", "configMap": {"name": "cm"}}],
                    "ephemeralContainers": [{"name": "debug", "image": "busybox", "targetContainerName": "app"}]}}
    spec = CODEC.decode(CODEC.encode(pod))["spec"]
    assert spec["volumes"] == [{"name": "v", "configMap": {"name": "cm"}}]
    assert spec["ephemeralContainers"][0]["image"] == "busybox"
    assert spec["ephemeralContainers"][0]["targetContainerName"] == "app"
    assert spec["ephemeralContainers"][0]["resources"] == {}  # EphemeralContainerCommon's struct field


@pytest.mark.parametrize("value", [80, -1, 2**31 - 1, "http", ""])
def test_int_or_string(value):
    svc = {"apiVersion": "v1", "kind": "Service", "spec": {"ports": [{"port": 1, "targetPort": value}]}}
    assert CODEC.decode(CODEC.encode(svc))["spec"]["ports"][0]["targetPort"] == value


def test_times_durations_quantities_bytes_and_embedded_json():
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "c", "creationTimestamp": "2024-05-06T07:08:09Z", "deletionTimestamp": "2024-05-06T07:08:10Z",
                       "managedFields": [{"manager": "kubectl", "operation": "Update", "time": "2024-05-06T07:08:09Z",
                                          "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}}]},
          "binaryData": {"bin": base64.b64encode(b"\x00\xff").decode()}}
    assert CODEC.decode(CODEC.encode(cm)) == {**cm, "metadata": {**cm["metadata"]}}
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
             "spec": {"renewTime": "2024-05-06T07:08:09.123456Z", "leaseDurationSeconds": 15}}
    assert CODEC.decode(CODEC.encode(lease))["spec"]["renewTime"] == "2024-05-06T07:08:09.123456Z"
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "spec": {"hard": {"cpu": "500m", "pods": 10}}}
    assert CODEC.decode(CODEC.encode(quota))["spec"]["hard"] == {"cpu": "500m", "pods": "10"}
    revision = {"apiVersion": "apps/v1", "kind": "ControllerRevision", "data": {"spec": {"x": [1, "a", None]}},
                "revision": 3}
    assert CODEC.decode(CODEC.encode(revision))["data"] == revision["data"]


@pytest.mark.parametrize("nanos, text", [(0, "0s"), (1, "1ns"), (1500, "1.5µs"), (2_000_000, "2ms"),
                                         (90 * 10**9, "1m30s"), (3600 * 10**9, "1h0m0s"), (-1_500_000_000, "-1.5s"),
                                         (10**9 + 1, "1.000000001s")])
def test_durations_are_go_durations(nanos, text):
    assert pbvalues.format_duration(nanos) == text
    assert pbvalues.parse_duration(text) == nanos


def test_a_stored_time_with_fractional_seconds_reads_back_in_whole_seconds():
    # Time's protobuf Unmarshal drops the nanoseconds (time_proto.go): JSON and protobuf readers agree.
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"creationTimestamp": "2024-05-06T07:08:09.75+02:00"}}
    assert CODEC.decode(CODEC.encode(obj))["metadata"]["creationTimestamp"] == "2024-05-06T05:08:09Z"


# -- malformed input --------------------------------------------------------------------------------------

_CM = CODEC.encode({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}})


@pytest.mark.parametrize("body, message", [
    (b"", "empty data"),
    (b"{}", "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"),
    (MAGIC, "empty body"),
    (MAGIC + b"\x0a\xff", "unexpected EOF"),                      # truncated length varint
    (MAGIC + b"\x0a\x05\x0a\x02", "unexpected EOF"),             # length beyond the end
    (MAGIC + b"\x08\x01", "proto: wrong wireType = 0 for field TypeMeta"),
    (MAGIC + b"\x0a" + b"\xff" * 11, "proto: integer overflow"),
])
def test_malformed_envelopes(body, message):
    with pytest.raises(CodecError, match=message.replace("[", r"\[").replace("]", r"\]")):
        CODEC.decode(body)


def test_malformed_messages():
    with pytest.raises(CodecError, match="proto: wrong wireType = 0 for field Metadata"):
        CODEC.decode(wrap("v1", "ConfigMap", b"\x08\x01"))
    with pytest.raises(CodecError, match="unexpected EOF"):
        CODEC.decode(wrap("v1", "ConfigMap", b"\x0a\x10\x0a\x01"))
    with pytest.raises(CodecError, match="quantities must match"):
        CODEC.decode(wrap("v1", "ResourceQuota", b"\x12\x0d\x0a\x0b\x0a\x03cpu\x12\x04\x0a\x02xx"))
    with pytest.raises(UnknownKind, match='no kind "Widget" is registered for version "v1"'):
        CODEC.decode(wrap("v1", "Widget", b""))
    # unknown fields are skipped, as the generated Go code does
    assert CODEC.decode(wrap("v1", "ConfigMap", b"\xf8\x07\x05\x0a\x03\x0a\x01x"))["metadata"]["name"] == "x"


@pytest.mark.parametrize("obj, message", [
    ({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": 1}}, r"\.data\.a: expected string, got number"),
    ({"apiVersion": "v1", "kind": "Pod", "spec": {"priority": 2**31}}, "out of range for int32"),
    ({"apiVersion": "v1", "kind": "Secret", "data": {"a": "%%%"}}, "illegal base64"),
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"creationTimestamp": "yesterday"}}, "RFC 3339"),
    ({"apiVersion": "example.com/v1", "kind": "Widget"}, "no kind"),
])
def test_values_the_go_types_cannot_hold(obj, message):
    with pytest.raises(CodecError, match=message):
        CODEC.encode(obj)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(raw=st.binary(max_size=200), kind=st.sampled_from(["Pod", "ConfigMap", "Service", "Secret", "Status"]))
def test_fuzzed_messages_decode_or_fail_cleanly(raw, kind):
    try:
        obj = CODEC.decode(wrap("v1", kind, raw))
    except CodecError:
        return
    json.dumps(obj)  # whatever decodes is plain JSON


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_real_bodies_decode_or_fail_cleanly(data):
    body = bytearray(_CM)
    for _ in range(data.draw(st.integers(1, 4))):
        body[data.draw(st.integers(0, len(body) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(body)))
    with contextlib.suppress(CodecError):
        CODEC.decode(bytes(body[:cut]))


def test_a_codec_can_be_built_from_another_table():
    assert isinstance(Codec(SCHEMA).decode(_CM), dict)


# -- Go's protobuf bytes ----------------------------------------------------------------------------------

# Observed on kube-apiserver v1.37.2 (GET with Accept: application/vnd.kubernetes.protobuf): a field Go holds
# by value is written even when zero (gogo-protobuf's MarshalToSizedBuffer, apimachinery v0.37.2
# pkg/apis/meta/v1/generated.pb.go), so a Status carries its empty ListMeta and details.group, a ServiceAccount
# its generateName "", generation 0 and empty spec-less strings.
_OBSERVED = [
    ({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
      "message": 'configmaps "missing" not found', "reason": "NotFound",
      "details": {"name": "missing", "kind": "configmaps"}, "code": 404},
     b'k8s\x00\n\x0c\n\x02v1\x12\x06Status\x12[\n\x06\n\x00\x12\x00\x1a\x00\x12\x07Failure\x1a\x1econfigmaps '
     b'"missing" not found"\x08NotFound*\x1b\n\x07missing\x12\x00\x1a\nconfigmaps(\x002\x000\x94\x03\x1a\x00"\x00'),
    ({"kind": "ServiceAccount", "apiVersion": "v1", "metadata": {
        "name": "default", "namespace": "default", "uid": "f5cae88c-fe20-482a-9ccd-1bc7b1c23547",
        "resourceVersion": "214", "creationTimestamp": "2026-12-05T19:47:09Z"}},
     b'k8s\x00\n\x14\n\x02v1\x12\x0eServiceAccount\x12O\nM\n\x07default\x12\x00\x1a\x07default"\x00*$f5cae88c-'
     b'fe20-482a-9ccd-1bc7b1c235472\x032148\x00B\x08\x08\xbd\xd4\xd1\xd8\x06\x10\x00\x1a\x00"\x00'),
]


@pytest.mark.parametrize(("obj", "wire"), _OBSERVED, ids=["status", "serviceaccount"])
def test_fields_held_by_value_are_written_at_their_zero(obj, wire):
    assert CODEC.encode(obj) == wire
    # The sparse path (few keys of many fields) writes the same zeros.
    assert CODEC.encode({**obj, "metadata": {}}) == CODEC.encode({k: v for k, v in obj.items() if k != "metadata"})


def test_a_zero_time_is_an_empty_message_and_pointers_stay_absent():
    wire = CODEC.encode({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}})
    # metadata: name, generateName, namespace, selfLink, uid, resourceVersion, generation 0, creationTimestamp
    # (an empty message); no deletionTimestamp (a pointer) nor labels (a map); spec empty (finalizers is a
    # slice); status with its phase "".
    metadata = b'\n\x01n\x12\x00\x1a\x00"\x00*\x002\x008\x00B\x00'
    assert wire.endswith(b"\x12\x19\n\x11" + metadata + b'\x12\x00\x1a\x02\n\x00\x1a\x00"\x00')

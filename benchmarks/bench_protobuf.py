"""Benchmark of the protobuf codec: fakekube's pure-Python wire codec against the ``protobuf`` package's runtime
(upb, message classes built in code from the same schema table), for one Pod and a 1,000-item PodList, both
directions, with JSON (the standard library's C codec) as the yardstick.

    python -m benchmarks.bench_protobuf        # prints the figures as JSON

Both candidates produce the same JSON: the runtime variant parses with upb and then walks the parsed messages
with the same Go-rendering rules (``Decoder``'s), since the JSON the server stores is what must come out.
Figures are microseconds per call (median of batches); ``*_x`` are ratios to the pure-Python codec.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from benchmarks.timing import median_seconds
from fakekube.server.protobuf import default_codec
from fakekube.server.protobuf.envelope import unwrap, wrap
from fakekube.server.protobuf.schema import Message, Schema


def sample_pod(i: int = 0) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"web-{i}", "namespace": "default", "uid": f"6c1b0a6e-0000-4000-8000-{i:012d}",
                     "resourceVersion": str(1000 + i), "generation": 1, "creationTimestamp": "2024-05-06T07:08:09Z",
                     "labels": {"app": "web", "pod-template-hash": "5d9f8c7b6"},
                     "annotations": {"kubectl.kubernetes.io/restartedAt": "2024-05-06T07:00:00Z"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d9f8c7b6",
                                          "uid": "1f6a", "controller": True, "blockOwnerDeletion": True}]},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27", "ports": [{"containerPort": 8080,
                                                                                   "protocol": "TCP"}],
                                 "env": [{"name": "MODE", "value": "prod"}],
                                 "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                                               "limits": {"memory": "256Mi"}},
                                 "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080},
                                                    "periodSeconds": 5},
                                 "terminationMessagePath": "/dev/termination-log",
                                 "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}],
                 "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                 "serviceAccountName": "default", "nodeName": "node-1", "schedulerName": "default-scheduler",
                 "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                  "effect": "NoExecute", "tolerationSeconds": 300}]},
        "status": {"phase": "Running", "podIP": "10.0.0.7", "hostIP": "192.168.0.3",
                   "startTime": "2024-05-06T07:08:10Z", "qosClass": "Burstable",
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-06T07:08:20Z"}],
                   "containerStatuses": [{"name": "app", "ready": True, "restartCount": 0, "image": "nginx:1.27",
                                          "imageID": "docker.io/library/nginx@sha256:abc", "started": True,
                                          "state": {"running": {"startedAt": "2024-05-06T07:08:15Z"}}}]},
    }


def sample_list(n: int = 1000) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "5000"},
            "items": [{k: v for k, v in sample_pod(i).items() if k not in ("apiVersion", "kind")} for i in range(n)]}


# -- the candidate on the protobuf package's runtime --------------------------------------------------------


class RuntimeCodec:
    """Message classes built in code from the schema table (fields named ``f<number>``), parsed by upb."""

    def __init__(self, schema: Schema) -> None:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

        self.schema = schema
        file = descriptor_pb2.FileDescriptorProto(name="fakekube_bench.proto", package="fk", syntax="proto2")
        ftype = descriptor_pb2.FieldDescriptorProto
        scalar_types = {"string": ftype.TYPE_STRING, "bytes": ftype.TYPE_BYTES, "bool": ftype.TYPE_BOOL,
                        "int32": ftype.TYPE_INT32, "int64": ftype.TYPE_INT64, "double": ftype.TYPE_DOUBLE,
                        "float": ftype.TYPE_FLOAT, "uint32": ftype.TYPE_UINT32, "uint64": ftype.TYPE_UINT64}

        def ident(name: str) -> str:
            return name.replace(".", "_")

        for msg in schema.messages.values():
            proto = file.message_type.add(name=ident(msg.name))
            for f in msg.fields:
                field = proto.field.add(name=f"f{f.number}", number=f.number)
                if f.map_key is not None:
                    entry = proto.nested_type.add(name=f"F{f.number}Entry")
                    entry.options.map_entry = True
                    entry.field.add(name="key", number=1, label=ftype.LABEL_OPTIONAL, type=scalar_types[f.map_key])
                    value = entry.field.add(name="value", number=2, label=ftype.LABEL_OPTIONAL)
                    if f.message is not None:
                        value.type, value.type_name = ftype.TYPE_MESSAGE, f".fk.{ident(f.message.name)}"
                    else:
                        value.type = scalar_types[f.type]
                    field.label, field.type = ftype.LABEL_REPEATED, ftype.TYPE_MESSAGE
                    field.type_name = f".fk.{ident(msg.name)}.F{f.number}Entry"
                    continue
                field.label = ftype.LABEL_REPEATED if f.repeated else ftype.LABEL_OPTIONAL
                if f.message is not None:
                    field.type, field.type_name = ftype.TYPE_MESSAGE, f".fk.{ident(f.message.name)}"
                else:
                    field.type = scalar_types[f.type]
        pool = descriptor_pool.DescriptorPool()
        pool.Add(file)
        self.classes = {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"fk.{ident(name)}"))
                        for name in schema.messages}
        self._json = default_codec()._decoder  # the same Go-rendering rules, on re-serialised leaves

    # decode: upb parses; the walk renders what Go's encoding/json would
    def decode(self, body: bytes) -> dict[str, Any]:
        api_version, kind, raw = unwrap(body)
        msg = self.schema.kind(api_version, kind)
        assert msg is not None
        parsed = self.classes[msg.name].FromString(raw)
        return {"kind": kind, "apiVersion": api_version, **self._walk(msg, parsed)}

    def _walk(self, msg: Message, parsed: Any) -> Any:
        if msg.special is not None:
            return self._json.message(msg, parsed.SerializeToString(), 0, parsed.ByteSize())
        out: dict[str, Any] = {}
        for descriptor, value in parsed.ListFields():
            f = msg.by_number[descriptor.number]
            if f.map_key is not None:
                out[f.name] = {k: (self._walk(f.message, v) if f.message is not None else v) for k, v in value.items()}
            elif f.repeated:
                out[f.name] = [self._walk(f.message, v) for v in value] if f.message is not None else list(value)
            elif f.message is not None:
                if f.inline:
                    out.update(self._walk(f.message, value))
                else:
                    out[f.name] = self._walk(f.message, value)
            elif not (f.omit_zero and not value):
                out[f.name] = base64.b64encode(value).decode() if f.type == "bytes" else value
        self._json._fill_defaults(msg, out, 0)
        if msg.list_wrapper:
            return out.get("items")
        return out

    # encode: fill the message classes from the dict, upb serialises
    def encode(self, obj: dict[str, Any]) -> bytes:
        msg = self.schema.kind(obj["apiVersion"], obj["kind"])
        assert msg is not None
        target = self.classes[msg.name]()
        self._fill(msg, obj, target)
        return wrap(obj["apiVersion"], obj["kind"], target.SerializeToString())

    def _fill(self, msg: Message, obj: Any, target: Any) -> None:
        if msg.special is not None:
            from fakekube.server.protobuf.encode import encode_message

            target.MergeFromString(encode_message(msg, obj))
            return
        for key, value in obj.items():
            f = msg.by_name.get(key)
            if f is None or value is None:
                continue
            attr = f"f{f.number}"
            if f.map_key is not None:
                field = getattr(target, attr)
                for k, v in value.items():
                    if f.message is not None:
                        self._fill(f.message, v, field[k])
                    else:
                        field[k] = v
            elif f.repeated:
                field = getattr(target, attr)
                if f.message is None:
                    field.extend(value)
                else:
                    for item in value:
                        self._fill(f.message, item, field.add())
            elif f.message is not None:
                self._fill(f.message, value, getattr(target, attr))
            else:
                setattr(target, attr, value)


# -- the run ------------------------------------------------------------------------------------------------


def _us(fn: Any, number: int) -> float:
    return round(median_seconds(fn, number=number, repeat=5) * 1e6, 1)


def run() -> dict[str, Any]:
    codec = default_codec()
    figures: dict[str, Any] = {}
    candidates: dict[str, Any] = {"pure_python": codec}
    try:
        candidates["protobuf_runtime"] = RuntimeCodec(codec.schema)
    except ImportError as exc:
        figures["protobuf_runtime"] = {"skipped": str(exc)}
    for label, obj, number in (("pod", sample_pod(), 200), ("list_1000", sample_list(), 2)):
        body = codec.encode(obj)
        text = json.dumps(obj, separators=(",", ":")).encode()
        row: dict[str, Any] = {"protobuf_bytes": len(body), "json_bytes": len(text),
                               "json_encode_us": _us(lambda o=obj: json.dumps(o, separators=(",", ":")).encode(), number),
                               "json_decode_us": _us(lambda t=text: json.loads(t), number)}
        for name, candidate in candidates.items():
            assert candidate.decode(body) == codec.decode(body), name  # same JSON out of both
            row[f"{name}_encode_us"] = _us(lambda c=candidate, o=obj: c.encode(o), number)
            row[f"{name}_decode_us"] = _us(lambda c=candidate, b=body: c.decode(b), number)
        if "protobuf_runtime" in candidates:
            for direction in ("encode", "decode"):
                row[f"runtime_vs_pure_{direction}_x"] = round(
                    row[f"protobuf_runtime_{direction}_us"] / row[f"pure_python_{direction}_us"], 2)
        row["pure_vs_json_encode_x"] = round(row["pure_python_encode_us"] / row["json_encode_us"], 1)
        row["pure_vs_json_decode_x"] = round(row["pure_python_decode_us"] / row["json_decode_us"], 1)
        figures[label] = row
    return figures


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))

#!/usr/bin/env python3
"""Send generated malformed requests to ``fakekube serve`` (and, with ``--oracle``, to the real kube-apiserver)
and report what no client should ever see: a Python exception answered as a 500, or a rejected write that
changed what is stored. With ``--oracle`` it also counts the requests the two servers answer differently.
It lists the requests answered by closing the connection (``closed-unanswered``): where the real handler
panics (Go's == on two maps in a strategic merge patch, a nil pointer in evanphx/json-patch), so does
fakekube — with ``--oracle`` a close the real server does not make is a divergence too.

    python scripts/fuzz_malformed.py                     # starts `fakekube serve` from this checkout
    python scripts/fuzz_malformed.py --url http://127.0.0.1:8080
    python scripts/fuzz_malformed.py --oracle            # also starts oracle/bin/oracle (scripts/build-oracle)
    python scripts/fuzz_malformed.py --classes yaml,deep --seed 3 --show 20

Request classes (``--classes``, default all): ``types`` (a value of every wrong JSON type at every path of a
few kinds' objects, as create, update, merge, strategic, JSON patch and apply), ``truncated`` bodies, ``deep``
nesting, ``yaml`` with no JSON form, ``query`` (bad parameters), ``names`` (bad names in paths and bodies),
``paths`` (unknown groups, versions, resources, subresources, methods). The generator is seeded: the same
seed sends the same requests.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import random
import re
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlparse

REPO = Path(__file__).resolve().parents[1]
NS = "fuzz"
# A Python exception turned into a 500 names its class ("TypeError: ...", "KeyError('x')"); the real server's
# own 500s never do.
PYTHON_EXCEPTION = re.compile(r"Internal error occurred: [A-Za-z_.]*(Error|Exception|Exit|Iteration)\b[(:]")

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.fuzz.example.com"},
    "spec": {"group": "fuzz.example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {
                                   "size": {"type": "integer"}, "name": {"type": "string", "pattern": "^[a-z]+$"},
                                   "tags": {"type": "array", "items": {"type": "string"},
                                            "x-kubernetes-list-type": "set"},
                                   "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                                   "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}},
                               "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]}}

KINDS = {
    "configmaps": ("/api/v1/namespaces/{ns}/configmaps", {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "labels": {"a": "b"}},
        "data": {"k": "v"}}),
    "deployments": ("/apis/apps/v1/namespaces/{ns}/deployments", {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "a"}},
                 "template": {"metadata": {"labels": {"app": "a"}},
                              "spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}],
                                                       "env": [{"name": "E", "value": "1"}]}]}}}}),
    "services": ("/api/v1/namespaces/{ns}/services", {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "x"},
        "spec": {"ports": [{"port": 80, "targetPort": 8080}], "selector": {"app": "a"}}}),
    "widgets": ("/apis/fuzz.example.com/v1/namespaces/{ns}/widgets", {
        "apiVersion": "fuzz.example.com/v1", "kind": "Widget", "metadata": {"name": "x"},
        "spec": {"size": 1, "name": "abc", "tags": ["a"], "labels": {"a": "b"}, "free": {"any": [1, "x"]}}}),
}
WRONG_VALUES: list[Any] = [None, 7, 1.5, "s", True, [], {}, [1, "a"], {"z": 1}, -1, 2**63, "" ]
RAW_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1" * 400, "1e-400", "01", "1.", ".5", "+1"]


@dataclass
class Step:
    label: str
    cls: str
    method: str
    path: str
    body: bytes | None = None
    content_type: str | None = None
    # a write that targets this object must leave it as it was when it is refused
    guards: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# -- generators --------------------------------------------------------------------------------------------------


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*prefix, i))


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    node = copy
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    return copy


def _pointer(path: tuple[Any, ...]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def gen_types(rng: random.Random) -> Iterator[Step]:
    for plural, (collection, obj) in KINDS.items():
        coll = collection.format(ns=NS)
        fixture = f"{coll}/fixture"
        paths = [p for p in _paths(obj) if p]
        for path in paths:
            for wrong in WRONG_VALUES:
                bad = _replace(obj, path, wrong)
                where = ".".join(map(str, path))
                name = f"t{rng.randrange(10**9)}"
                create = _replace(bad, ("metadata", "name"), name) if isinstance(bad.get("metadata"), dict) \
                    and path != ("metadata", "name") else bad
                yield Step(f"{plural} create {where}={wrong!r}", "types", "POST", coll, _json(create),
                           "application/json", guards=f"{coll}/{name}")
                choice = rng.random()
                if choice < 0.2:
                    yield Step(f"{plural} update {where}={wrong!r}", "types", "PUT", fixture,
                               _json(_replace(bad, ("metadata", "name"), "fixture")
                                     if isinstance(bad.get("metadata"), dict) and path != ("metadata", "name")
                                     else bad), "application/json", guards=fixture)
                elif choice < 0.4:
                    yield Step(f"{plural} merge {where}={wrong!r}", "types", "PATCH", fixture,
                               _json(_nested(path, wrong)), "application/merge-patch+json", guards=fixture)
                elif choice < 0.55 and plural != "widgets":
                    yield Step(f"{plural} smp {where}={wrong!r}", "types", "PATCH", fixture,
                               _json(_nested(path, wrong)), "application/strategic-merge-patch+json",
                               guards=fixture)
                elif choice < 0.75:
                    yield Step(f"{plural} jsonpatch {where}={wrong!r}", "types", "PATCH", fixture,
                               _json([{"op": "replace", "path": _pointer(path), "value": wrong}]),
                               "application/json-patch+json", guards=fixture)
                else:
                    applied = _replace(bad, ("metadata", "name"), "fixture") \
                        if isinstance(bad.get("metadata"), dict) and path != ("metadata", "name") else bad
                    yield Step(f"{plural} apply {where}={wrong!r}", "types", "PATCH", fixture + "?fieldManager=fz",
                               _json(applied), "application/apply-patch+yaml", guards=fixture)
        for raw in RAW_NUMBERS:
            text = _json(obj).decode().replace('"v"', raw).replace('"abc"', raw).replace('"i"', raw)
            name = f"n{rng.randrange(10**9)}"
            text = text.replace('"name": "x"', f'"name": "{name}"')
            yield Step(f"{plural} create raw number {raw[:12]}", "types", "POST", coll, text.encode(),
                       "application/json", guards=f"{coll}/{name}")
            yield Step(f"{plural} merge raw number {raw[:12]}", "types", "PATCH", fixture,
                       ('{"metadata":{"annotations":{"a":' + raw + "}}}").encode(), "application/merge-patch+json",
                       guards=fixture)
        for kind_value in ("Secret", "Foo", "", 5, None, f"{obj['kind']}List", "Status"):
            for patch_type, body in (
                ("application/json-patch+json", [{"op": "replace", "path": "/kind", "value": kind_value}]),
                ("application/merge-patch+json", {"kind": kind_value}),
                ("application/json-patch+json", [{"op": "replace", "path": "/apiVersion", "value": kind_value}]),
                ("application/merge-patch+json", {"apiVersion": kind_value}),
            ):
                yield Step(f"{plural} {patch_type.split('/')[1]} typemeta {kind_value!r}", "types", "PATCH",
                           fixture, _json(body), patch_type, guards=fixture)
            yield Step(f"{plural} put kind {kind_value!r}", "types", "PUT", fixture,
                       _json({**obj, "kind": kind_value, "metadata": {"name": "fixture"}}), "application/json",
                       guards=fixture)


def _nested(path: tuple[Any, ...], value: Any) -> Any:
    """A merge patch setting ``path`` (list indices become the whole list)."""
    out: Any = value
    for key in reversed(path):
        out = [out] if isinstance(key, int) else {key: out}
    return out


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


def gen_truncated(rng: random.Random) -> Iterator[Step]:
    for plural, (collection, obj) in KINDS.items():
        coll = collection.format(ns=NS)
        text = _json(_replace(obj, ("metadata", "name"), "trunc"))
        for _ in range(40):
            cut = rng.randrange(0, len(text))
            method, path, ct = rng.choice([("POST", coll, "application/json"),
                                           ("PUT", f"{coll}/fixture", "application/json"),
                                           ("PATCH", f"{coll}/fixture", "application/merge-patch+json"),
                                           ("PATCH", f"{coll}/fixture?fieldManager=fz", "application/apply-patch+yaml"),
                                           ("POST", coll, "application/yaml")])
            yield Step(f"{plural} truncated at {cut} as {ct}", "truncated", method, path, text[:cut], ct,
                       guards=f"{coll}/fixture" if method != "POST" else f"{coll}/trunc")
        for junk in (b"", b"   ", b"null", b"[]", b"[1]", b'"x"', b"42", b"true", b"\xff\xfe", b"\x00",
                     b"{'a': 1}", b'{"a":1,}', b'{"a":1} x', b'{"a":1}{}', b"\xef\xbb\xbf{}"):
            for method, path, ct in (("POST", coll, "application/json"),
                                     ("PATCH", f"{coll}/fixture", "application/merge-patch+json"),
                                     ("PATCH", f"{coll}/fixture", "application/json-patch+json"),
                                     ("PATCH", f"{coll}/fixture?fieldManager=fz", "application/apply-patch+yaml")):
                yield Step(f"{plural} junk {junk[:10]!r} {method} {ct}", "truncated", method, path, junk, ct,
                           guards=f"{coll}/fixture")


def gen_deep(rng: random.Random) -> Iterator[Step]:
    for plural, (collection, obj) in KINDS.items():
        coll = collection.format(ns=NS)
        for depth in (64, 1000, 5000, 10000, 10001):
            for opener, closer, leaf in (("[", "]", "1"), ('{"a":', "}", "1")):
                deep = opener * depth + leaf + closer * depth
                name = f"d{rng.randrange(10**9)}"
                base = _json(_replace(obj, ("metadata", "name"), name)).decode()
                body = base[:-1] + f', "zzz": {deep}' + "}"
                yield Step(f"{plural} create deep {depth} {opener}", "deep", "POST", coll, body.encode(),
                           "application/json", guards=f"{coll}/{name}")
                yield Step(f"{plural} merge deep {depth} {opener}", "deep", "PATCH", f"{coll}/fixture",
                           ('{"metadata":{"annotations":{"a":' + deep + "}}}").encode(), "application/merge-patch+json",
                           guards=f"{coll}/fixture")
        yield Step(f"{plural} deep yaml", "deep", "POST", coll,
                   ("apiVersion: v1\nkind: X\nmetadata: {name: dy}\nspec: " + "[" * 3000 + "]" * 3000).encode(),
                   "application/yaml", guards=f"{coll}/dy")


YAML_VALUES = ["2024-01-31", "2001-12-14t21:59:43.10-05:00", "!!binary aGVsbG8=", "!!binary /w==", "!!binary ***",
               "!!set {a, b}", "!!omap [a: 1]", ".nan", ".inf", "-.inf", "1e400", "0x1F", "0o17", "08", "1:30", "y",
               "~", "!!int abc", "!!float x", "!foo bar", "*undefined", "&a [*a]", "{? [a] : b}", "{1: a, 2.5: b}",
               "{true: a}", "{~: a}", "{18446744073709551615: a}", "<<: 5", "'unclosed", '"\\q"', "[1, 2", "\t1"]


def gen_yaml(rng: random.Random) -> Iterator[Step]:
    for plural, (collection, obj) in KINDS.items():
        coll = collection.format(ns=NS)
        for value in YAML_VALUES:
            name = f"y{rng.randrange(10**9)}"
            # where a value of any shape is kept: a ConfigMap's data (strings only), a Widget's free-form field
            where = {"configmaps": "data:\n  k", "deployments": "spec:\n  k", "services": "spec:\n  k",
                     "widgets": "spec:\n  free:\n    k"}[plural]
            text = (f"apiVersion: {obj['apiVersion']}\nkind: {obj['kind']}\nmetadata:\n  name: {name}\n"
                    f"{where}: {value}\n")
            yield Step(f"{plural} yaml create {value}", "yaml", "POST", coll, text.encode(), "application/yaml",
                       guards=f"{coll}/{name}")
            applied = text.replace(name, "fixture")
            yield Step(f"{plural} yaml apply {value}", "yaml", "PATCH", f"{coll}/fixture?fieldManager=fz",
                       applied.encode(), "application/apply-patch+yaml", guards=f"{coll}/fixture")
        for doc in ("", "---\n", "- a\n", "a\n", "---\n---\n", "a: b\n---\n: :\n", "\x00", "\xff"):
            yield Step(f"{plural} yaml doc {doc!r}", "yaml", "POST", coll, doc.encode("latin-1"), "application/yaml",
                       guards=f"{coll}/fixture")


QUERIES = {
    "list": ["limit=-5", "limit=0", "limit=abc", "limit=99999999999999999999", "limit=1e3", "resourceVersion=" + "9" * 5000,
             "resourceVersion=abc", "resourceVersion=-1", "resourceVersionMatch=Exact", "resourceVersionMatch=Foo",
             "resourceVersion=0&resourceVersionMatch=Exact", "timeoutSeconds=-1", "timeoutSeconds=abc",
             "timeoutSeconds=" + "9" * 40, "fieldSelector=a", "fieldSelector=foo%3Dbar", "fieldSelector=metadata.name%3D%3D%3Dx",
             "fieldSelector=" + "%3D" * 50, "labelSelector=a%20in", "labelSelector=%21%21", "labelSelector=a%3D" + "x" * 100,
             "labelSelector=" + "(" * 100, "continue=abc", "continue=" + "9" * 100, "watch=maybe&timeoutSeconds=1", "watch=1&timeoutSeconds=x",
             "allowWatchBookmarks=x", "sendInitialEvents=true", "sendInitialEvents=x", "pretty=x", "limit=1&continue=%00",
             "resourceVersion=1&resourceVersionMatch=NotOlderThan&limit=-1"],
    "get": ["resourceVersion=abc", "resourceVersion=" + "9" * 5000, "resourceVersion=-1", "pretty=maybe", "export=true"],
    "create": ["dryRun=x", "dryRun=All&dryRun=x", "fieldValidation=x", "fieldValidation=strict", "fieldManager=" + "m" * 129,
               "fieldManager=%00", "pretty=1"],
    "delete": ["propagationPolicy=x", "propagationPolicy=", "gracePeriodSeconds=abc", "gracePeriodSeconds=-5",
               "gracePeriodSeconds=" + "9" * 30, "orphanDependents=maybe", "dryRun=x",
               "orphanDependents=true&propagationPolicy=Foreground", "preconditions.uid=x"],
    "patch": ["force=x", "force=true", "fieldManager=" + "m" * 129, "fieldValidation=x", "dryRun=Some"],
}


def gen_query(rng: random.Random) -> Iterator[Step]:
    for plural, (collection, obj) in KINDS.items():
        coll = collection.format(ns=NS)
        for q in QUERIES["list"]:
            yield Step(f"{plural} list ?{q[:60]}", "query", "GET", f"{coll}?{q}")
        for q in QUERIES["get"]:
            yield Step(f"{plural} get ?{q[:60]}", "query", "GET", f"{coll}/fixture?{q}")
        for q in QUERIES["create"]:
            name = f"q{rng.randrange(10**9)}"
            yield Step(f"{plural} create ?{q[:60]}", "query", "POST", f"{coll}?{q}",
                       _json(_replace(obj, ("metadata", "name"), name)), "application/json", guards=f"{coll}/{name}")
        for q in QUERIES["delete"]:
            yield Step(f"{plural} delete ?{q[:60]}", "query", "DELETE", f"{coll}/fixture?{q}", guards=f"{coll}/fixture")
        for body in ({"propagationPolicy": 5}, {"gracePeriodSeconds": "x"}, {"preconditions": []}, {"dryRun": "All"},
                     {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Nope"}, [1]):
            yield Step(f"{plural} delete body {body}", "query", "DELETE", f"{coll}/fixture", _json(body),
                       "application/json", guards=f"{coll}/fixture")
        for q in QUERIES["patch"]:
            yield Step(f"{plural} patch ?{q[:60]}", "query", "PATCH", f"{coll}/fixture?{q}", b'{"metadata":{}}',
                       "application/merge-patch+json", guards=f"{coll}/fixture")


def gen_names(rng: random.Random) -> Iterator[Step]:
    bad_names = ["UPPER", "a" * 254, "-a", "a_b", "a..b", "%2E%2E", "..", ".", "a%2Fb", "a%20b", "\u00e9", "a:b", "%00"]
    for plural, (collection, obj) in KINDS.items():
        coll = collection.format(ns=NS)
        for name in bad_names:
            yield Step(f"{plural} get name {name[:20]}", "names", "GET", f"{coll}/{name}")
            yield Step(f"{plural} put name {name[:20]}", "names", "PUT", f"{coll}/{name}",
                       _json(_replace(obj, ("metadata", "name"), name)), "application/json")
            yield Step(f"{plural} apply name {name[:20]}", "names", "PATCH", f"{coll}/{name}?fieldManager=fz",
                       _json(_replace(obj, ("metadata", "name"), name)), "application/apply-patch+yaml")
            yield Step(f"{plural} create body name {name[:20]}", "names", "POST", coll,
                       _json(_replace(obj, ("metadata", "name"), name)), "application/json")
        for gen in ("a", "A-", "x" * 300, "-"):
            yield Step(f"{plural} generateName {gen[:10]}", "names", "POST", coll,
                       _json({**obj, "metadata": {"generateName": gen}}), "application/json")
        yield Step(f"{plural} namespace mismatch", "names", "POST", coll,
                   _json(_replace(obj, ("metadata",), {"name": "nm", "namespace": "other"})), "application/json",
                   guards=f"{coll}/nm")
        for ns in ("UPPER", "a" * 70, "no-such-ns"):
            yield Step(f"{plural} in namespace {ns[:10]}", "names", "POST", collection.format(ns=ns),
                       _json(_replace(obj, ("metadata", "name"), "nsx")), "application/json")


def gen_paths(rng: random.Random) -> Iterator[Step]:
    for path in ("/apis/nope.example.com/v1/widgets", "/apis/apps/v9/deployments", "/api/v2/pods", "/api/v1/nopes",
                 "/apis/apps/v1/namespaces/fuzz/nopes", "/api/v1/namespaces/fuzz/configmaps/fixture/nope",
                 "/api/v1/namespaces/fuzz/configmaps/fixture/status", "/api/v1/namespaces/fuzz/pods/x/log",
                 "/apis", "/apis/", "/apis/apps", "/apis/apps/", "/apis/apps/v1/", "/api/v1/namespaces/fuzz/",
                 "/api/v1/namespaces//configmaps", "/api/v1//namespaces", "/api/v1/configmaps/x",
                 "/api/v1/namespaces/fuzz/configmaps/a/b/c/d", "/openapi/v3/apis/nope/v1", "/version/x", "/healthz/x",
                 "/apis/fuzz.example.com/v2/namespaces/fuzz/widgets", "/apis/fuzz.example.com/v1/widgets/x",
                 "/api/v1/watch/namespaces/fuzz/configmaps/x/y?timeoutSeconds=1", "/%ZZ", "/api/v1/namespaces/fuzz/configmaps?%ZZ"):
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"):
            yield Step(f"{method} {path}", "paths", method, path, b"{}" if method in ("POST", "PUT", "PATCH") else None,
                       "application/merge-patch+json" if method == "PATCH" else "application/json")
    for ct in ("text/plain", "application/xml", "application/json; charset=latin1", "application/yaml; x=y",
               "application/vnd.kubernetes.protobuf", "application/cbor", "", "*/*"):
        yield Step(f"create as {ct!r}", "paths", "POST", f"/api/v1/namespaces/{NS}/configmaps",
                   b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ct"}}', ct, guards=f"/api/v1/namespaces/{NS}/configmaps/ct")
        yield Step(f"patch as {ct!r}", "paths", "PATCH", f"/api/v1/namespaces/{NS}/configmaps/fixture",
                   b'{"data":{"a":"b"}}', ct, guards=f"/api/v1/namespaces/{NS}/configmaps/fixture")


GENERATORS = {"types": gen_types, "truncated": gen_truncated, "deep": gen_deep, "yaml": gen_yaml,
              "query": gen_query, "names": gen_names, "paths": gen_paths}


# -- servers -----------------------------------------------------------------------------------------------------


class Server:
    def __init__(self, url: str, context: ssl.SSLContext | None = None) -> None:
        parsed = urlparse(url)
        self.host, self.port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self.context = context
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: bytes | None, content_type: str | None) -> tuple[int, Any]:
        path = quote(path, safe="".join(chr(c) for c in range(0x21, 0x7F)))  # only what is not ASCII
        headers = {"Accept": "application/json"}
        if content_type is not None:
            headers["Content-Type"] = content_type
        for attempt in range(2):
            if self.conn is None:
                self.conn = (http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=60)
                             if self.context else http.client.HTTPConnection(self.host, self.port, timeout=60))
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                break
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if attempt:
                    return 0, None
        try:
            return response.status, json.loads(data)
        except ValueError:
            return response.status, data[:200]


def _start_fakekube() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "fakekube.cli", "serve", "--port", str(port), "--no-controllers"],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/version")
            return proc, url
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("fakekube serve did not start")


def _start_oracle() -> tuple[subprocess.Popen[bytes], Server]:
    import yaml

    binary = Path(os.environ.get("FAKEKUBE_ORACLE_BIN", REPO / "oracle" / "bin"))
    binary = binary / "oracle" if binary.is_dir() else binary
    directory = Path(tempfile.mkdtemp(prefix="fuzz-oracle-"))
    ready = directory / "ready"
    proc = subprocess.Popen([str(binary), "--dir", str(directory / "data"), "--ready-file", str(ready),
                             "--controllers", ""], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    for _ in range(1200):
        if ready.exists():
            break
        time.sleep(0.1)
    config = yaml.safe_load(Path(ready.read_text().strip()).read_text())
    cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
    files = {}
    for key in ("certificate-authority-data", "client-certificate-data", "client-key-data"):
        source = cluster.get(key) or user.get(key)
        files[key] = directory / key
        files[key].write_bytes(base64.b64decode(source))
    context = ssl.create_default_context(cafile=str(files["certificate-authority-data"]))
    context.load_cert_chain(str(files["client-certificate-data"]), str(files["client-key-data"]))
    context.check_hostname = False
    return proc, Server(cluster["server"], context)


def setup(server: Server) -> None:
    server.request("POST", "/api/v1/namespaces", _json({"apiVersion": "v1", "kind": "Namespace",
                                                        "metadata": {"name": NS}}), "application/json")
    server.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", _json(CRD), "application/json")
    for _ in range(100):
        if server.request("GET", f"/apis/fuzz.example.com/v1/namespaces/{NS}/widgets", None, None)[0] == 200:
            break
        time.sleep(0.1)
    for collection, obj in KINDS.values():
        server.request("POST", collection.format(ns=NS), _json(_replace(obj, ("metadata", "name"), "fixture")),
                       "application/json")


def _summary(status: int, body: Any) -> tuple[Any, ...]:
    if isinstance(body, dict) and body.get("kind") == "Status":
        return status, body.get("reason"), body.get("message")
    return (status,)


def _normalise(summary: tuple[Any, ...]) -> tuple[Any, ...]:
    text = [re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|"
                   r'resourceVersion\\?":\\?"\d+', "*", part) if isinstance(part, str) else part for part in summary]
    return tuple(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="a running fakekube serve (default: start one from this checkout)")
    parser.add_argument("--oracle", action="store_true", help="also send every request to the real kube-apiserver")
    parser.add_argument("--classes", default=",".join(GENERATORS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=0, help="send at most this many requests (0: all)")
    parser.add_argument("--show", type=int, default=10, help="print up to this many findings per kind")
    parser.add_argument("--compare", choices=("status", "message"), default="message",
                        help="with --oracle: what counts as a divergence (the HTTP status, or status, reason and "
                             "message)")
    args = parser.parse_args(argv)
    procs = []
    try:
        if args.url:
            fake = Server(args.url)
        else:
            proc, url = _start_fakekube()
            procs.append(proc)
            fake = Server(url)
        real = None
        if args.oracle:
            proc, real = _start_oracle()
            procs.append(proc)
        setup(fake)
        if real is not None:
            setup(real)
        rng = random.Random(args.seed)
        counts: Counter[str] = Counter()
        findings: dict[str, list[str]] = {"python-500": [], "stored-on-rejection": [], "divergence": [],
                                          "closed-unanswered": []}
        sent = 0
        for name in args.classes.split(","):
            for step in GENERATORS[name](rng):
                if args.limit and sent >= args.limit:
                    break
                before = fake.request("GET", step.guards, None, None) if step.guards else None
                status, body = fake.request(step.method, step.path, step.body, step.content_type)
                sent += 1
                counts[f"{step.cls} {status}"] += 1
                message = body.get("message", "") if isinstance(body, dict) else ""
                if status == 0:
                    findings["closed-unanswered"].append(step.label)
                if status == 500 and PYTHON_EXCEPTION.search(message or ""):
                    findings["python-500"].append(f"{step.label}: {message[:200]}")
                if step.guards and status >= 400 and before is not None:
                    after = fake.request("GET", step.guards, None, None)
                    if _normalise(_summary(*before))[:1] != _normalise(_summary(*after))[:1] or (
                            before[0] == 200 and isinstance(after[1], dict) and isinstance(before[1], dict)
                            and after[1].get("metadata", {}).get("resourceVersion")
                            != before[1].get("metadata", {}).get("resourceVersion")):
                        findings["stored-on-rejection"].append(f"{step.label} ({status})")
                if real is not None:
                    answer = real.request(step.method, step.path, step.body, step.content_type)
                    if step.method == "DELETE" and answer[0] < 300:
                        setup(real)
                    ours, theirs = _normalise(_summary(status, body)), _normalise(_summary(*answer))
                    if (ours[:1] != theirs[:1]) if args.compare == "status" else (ours != theirs):
                        findings["divergence"].append(
                            f"{step.label}\n      fake: {_normalise(_summary(status, body))}"[:400]
                            + f"\n      real: {_normalise(_summary(*answer))}"[:400])
                if step.method == "DELETE" and status < 300:
                    setup(fake)  # the fixture is gone: bring it back for the requests that follow
        print(f"requests: {sent}")
        for key in sorted(counts):
            print(f"  {key}: {counts[key]}")
        for kind, items in findings.items():
            print(f"{kind}: {len(items)}")
            for item in items[: args.show]:
                print(f"  - {item}")
        return 1 if findings["python-500"] or findings["stored-on-rejection"] else 0
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())

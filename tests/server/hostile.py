"""Hypothesis-drawn hostile requests and the checks issue 28 sets for every one of them, shared by the default
test run (tests/server/test_hostile_requests.py, a few hundred) and the fuzz command (scripts/fuzz-requests,
thousands).

A request is either a drawn differential case (tests/differential/harness/drawn.py: a valid object, then one
request that is valid or malformed the way clients get it wrong) or a raw one: any method, a path put together
from real and junk segments, junk query parameters, a body of any shape (bytes, truncated JSON, a YAML alias
bomb, nesting past Go's limit, protobuf's magic with junk) and odd Content-Type and Accept headers.

What no request may do (``Finding.kind``):
- ``python-500``: a 500 whose message names a Python exception (the real server's own 500s never do);
- ``logged-exception``: the server logged an error it did not expect, whatever it answered;
- ``changed-on-rejection``: an answer of 400 or more, yet the store committed a change (save upstream's own
  case: a 406 from the response transform, which runs after the write);
- ``hang``: no complete answer within ``HANG_SECONDS`` (watches end after ``WATCH_SECONDS`` here).
A connection closed without an answer is counted (``closed``) but is no finding: the real server's handler
panics on a few inputs and fakekube closes the connection where it does.
"""

from __future__ import annotations

import http.client
import json
import logging
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from hypothesis import strategies as st

from fakekube.server import ApiServer
from fakekube.server.app import raise_recursion_limit
from fakekube.store import Store
from tests.differential.harness.drawn import KINDS, NAME, QUERY, VALUES, drawn_case

NAMESPACE = "fz"
HANG_SECONDS = 10.0
WATCH_SECONDS = 0.2
# Upstream's own change-then-refuse: the response transform (as=PartialObjectMetadata[List]) runs after the write
# committed and answers 406 when the result is not the shape asked for (apiserver endpoints/handlers/response.go
# asPartialObjectMetadataList, v0.37.2).
AFTER_THE_WRITE = re.compile(r'"message":\s*"you requested PartialObjectMetadata(List)?, but the requested object is')
PYTHON_EXCEPTION = re.compile(r"Internal error occurred: [A-Za-z_.]*(Error|Exception|Exit|Iteration)\b[(:]")

_ALIAS_BOMB = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))
_PREFIXES = ["/api/v1", "/apis/apps/v1", "/apis/rbac.authorization.k8s.io/v1", "/apis/batch/v1",
             "/apis/apiextensions.k8s.io/v1", "/apis/nope.example.com/v1", "/api", "/apis", "/api/v2", "", "/apis/apps"]
_RESOURCES = ["configmaps", "secrets", "pods", "services", "deployments", "roles", "namespaces", "nodes", "jobs",
              "customresourcedefinitions", "events", "nopes", "", "Pods", "configmaps.v1"]
_SUBRESOURCES = ["status", "scale", "log", "binding", "eviction", "exec", "proxy", "ephemeralcontainers", "x",
                 "token", "approval", ""]
_SEGMENTS = st.sampled_from([NAME, "x", "..", ".", "%2F", "%00", "a" * 300, "ü", "watch", "namespaces", NAMESPACE,
                             "default", "-", "UPPER"])
_CONTENT_TYPES = st.sampled_from([
    "application/json", "application/yaml", "application/merge-patch+json", "application/strategic-merge-patch+json",
    "application/json-patch+json", "application/apply-patch+yaml", "application/vnd.kubernetes.protobuf",
    "application/apply-patch+cbor", "application/cbor", "text/plain", "", "application/json; charset=latin1",
    "*/*", "application/", ";;", "application/json, application/yaml"])
_ACCEPTS = st.sampled_from([
    None, "application/json", "application/yaml", "application/vnd.kubernetes.protobuf", "*/*", "text/html",
    "application/json;as=Table;v=v1;g=meta.k8s.io", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
    "application/json;as=Table;v=v9;g=meta.k8s.io", "application/json;stream=watch", ";", "application/json;q=x"])


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


_BODIES = st.one_of(
    st.none(),
    st.binary(max_size=48),
    VALUES.map(_json),
    st.sampled_from(sorted(KINDS)).flatmap(lambda r: st.integers(0, 200).map(
        lambda cut, r=r: _json(KINDS[r][1])[:cut])),
    st.sampled_from([
        _ALIAS_BOMB.encode(), b"[" * 10_001 + b"]" * 10_001, b'{"a":' * 10_001 + b"1" + b"}" * 10_001,
        b"k8s\x00" + b"\xff" * 20, b'{"metadata":{"name":NaN}}', b"\xef\xbb\xbf{}", b'{"a":1}{"b":2}',
        b"---\n- a\n---\nb: 1\n", b'{"apiVersion":"v1","kind":"Status"}', b"null", b'[{"op":"move"}]',
        b'{"metadata":{"name":"' + NAME.encode() + b'","resourceVersion":"999999999999"}}']),
)


@st.composite
def raw_request(draw: st.DrawFn) -> dict[str, Any]:
    parts = [draw(st.sampled_from(_PREFIXES))]
    if draw(st.integers(0, 9)) == 0:
        parts.append("watch")
    if draw(st.booleans()):
        parts += ["namespaces", draw(st.sampled_from([NAMESPACE, "default", "UPPER", "", "no-such"]))]
    parts.append(draw(st.sampled_from(_RESOURCES)))
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from([NAME, "x", "UPPER", "a" * 254, "", "%2E%2E"])))
        if draw(st.booleans()):
            parts.append(draw(st.sampled_from(_SUBRESOURCES)))
    parts += draw(st.lists(_SEGMENTS, max_size=2))
    query = draw(st.dictionaries(st.sampled_from(sorted(QUERY) + ["watch", "x", "allowWatchBookmarks",
                                                                  "sendInitialEvents", "continue", "includeObject"]),
                                 st.one_of(*QUERY.values(), st.sampled_from(["true", "1", "%ZZ", "", "\u00e9"])),
                                 max_size=3))
    return {"method": draw(st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "GET", "POST", "PATCH",
                                            "HEAD", "OPTIONS", "BREW"])),
            "path": "/".join(parts) or "/", "query": query, "body": draw(_BODIES),
            "contentType": draw(_CONTENT_TYPES), "accept": draw(_ACCEPTS)}


@st.composite
def drawn_request(draw: st.DrawFn) -> dict[str, Any]:
    case = draw(drawn_case())
    step = dict(case["steps"][0])
    body = step.get("body")
    step["body"] = None if body is None else _json(body)
    step.setdefault("contentType", "application/json")
    step["accept"] = draw(_ACCEPTS)
    step["setup"] = case["setup"]
    return step


def hostile_request() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(drawn_request(), raw_request())


@dataclass
class Finding:
    kind: str
    request: str
    detail: str


@dataclass
class Report:
    sent: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    closed: int = 0
    findings: list[Finding] = field(default_factory=list)
    slowest: list[tuple[float, str]] = field(default_factory=list)  # (seconds, request), the 5 slowest

    def timed(self, seconds: float, label: str) -> None:
        self.slowest = sorted([*self.slowest, (round(seconds, 3), label)], reverse=True)[:5]

    def counts(self) -> dict[str, int]:
        kinds = Counter(f.kind for f in self.findings)
        return {"requests": self.sent, "closed": self.closed,
                **{k: kinds.get(k, 0) for k in ("python-500", "logged-exception", "changed-on-rejection", "hang")}}


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record.getMessage() + (f" {record.exc_info[1]!r}" if record.exc_info else ""))


class Target:
    """An in-process server over a plain store (no actors: every commit is a request's) with a namespace, and
    the checks around each request."""

    def __init__(self) -> None:
        raise_recursion_limit()  # as the server's first connection would (hypothesis warns when it changes)
        self.store = Store()
        self.store.create("namespaces", {"metadata": {"name": NAMESPACE}})
        self.server = ApiServer(self.store, watch_timeout=WATCH_SECONDS).start()
        self.report = Report()
        self._errors = _Errors()
        logging.getLogger("fakekube").addHandler(self._errors)
        self._conn: http.client.HTTPConnection | None = None
        self.on_finding: Callable[[Finding], None] = lambda finding: None  # told at once (a hang may stall what follows)

    def close(self) -> None:
        logging.getLogger("fakekube").removeHandler(self._errors)
        if self._conn is not None:
            self._conn.close()
        self.server.stop()

    def _send(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> int | None:
        """The status, 0 when the connection closed unanswered, None when no answer came in time."""
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self.server.host, self.server.port, timeout=HANG_SECONDS)
        try:
            self._conn.putrequest(method, path, skip_host=False, skip_accept_encoding=True)
            for key, value in headers.items():
                self._conn.putheader(key, value)
            if body is not None:
                self._conn.putheader("Content-Length", str(len(body)))
            self._conn.endheaders(body)
            response = self._conn.getresponse()
            data = response.read()
            if response.will_close:
                self._conn.close()
                self._conn = None
        except TimeoutError:
            self._conn.close()
            self._conn = None
            return None
        except (OSError, http.client.HTTPException):
            self._conn.close()
            self._conn = None
            return 0
        self._last_body = data
        return response.status

    def check(self, request: dict[str, Any]) -> list[Finding]:
        """Send ``request`` (after its setup) and return what it did that no request may do."""
        ns_path = lambda p: p.replace("{ns}", NAMESPACE)  # noqa: E731
        for step in request.get("setup", ()):
            self._send(step["method"], ns_path(step["path"]), _json(step["body"]),
                       {"Content-Type": "application/json"})
        path = quote(ns_path(request["path"]), safe="".join(chr(c) for c in range(0x21, 0x7F)))
        if request.get("query"):
            path += "?" + urlencode(request["query"])
        headers = {}
        if request.get("contentType"):
            headers["Content-Type"] = request["contentType"]
        if request.get("accept"):
            headers["Accept"] = request["accept"]
        label = (f"{request['method']} {path[:160]} [{request.get('contentType')} -> {request.get('accept')}] "
                 f"{(request.get('body') or b'')[:60]!r}")
        before, logged = self.store.resource_version, len(self._errors.records)
        self._last_body = b""
        started = time.perf_counter()
        status = self._send(request["method"], path, request.get("body"), headers)
        self.report.timed(time.perf_counter() - started, label)
        found = []
        self.report.sent += 1
        if status is None:
            found.append(Finding("hang", label, f"no answer in {HANG_SECONDS} s: {(request.get('body') or b'')[:2000]!r}"))
        elif status == 0:
            self.report.closed += 1
        else:
            self.report.statuses[status] += 1
            if status == 500 and PYTHON_EXCEPTION.search(self._last_body.decode("utf-8", "replace")):
                found.append(Finding("python-500", label, self._last_body[:300].decode("utf-8", "replace")))
            if (status >= 400 and self.store.resource_version != before
                    and not (status == 406 and AFTER_THE_WRITE.search(self._last_body.decode("utf-8", "replace")))):
                found.append(Finding("changed-on-rejection", label,
                                     f"{status}: resourceVersion {before} -> {self.store.resource_version}: "
                                     + self._last_body[:300].decode("utf-8", "replace")))
        if len(self._errors.records) > logged:
            found.append(Finding("logged-exception", label, " | ".join(self._errors.records[logged:])[:300]))
        self.report.findings += found
        for finding in found:
            self.on_finding(finding)
        self._keep_namespace()
        return found

    def _keep_namespace(self) -> None:
        """A drawn DELETE may remove the namespace every drawn object lives in: bring it back."""
        try:
            self.store.get("namespaces", NAMESPACE)
        except Exception:
            self.store.create("namespaces", {"metadata": {"name": NAMESPACE}})

"""The differential harness itself: normalisation, templates, case shapes, comparison, recordings, the runner
and the client's bounded watch reads, on small hand-made answers (no server of either kind)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.differential.harness import corpus, divergences, openlist, recordings, verdicts
from tests.differential.harness.client import Answer, Client, Request
from tests.differential.harness.normalise import Context, comparable, warning_texts
from tests.differential.harness.runner import CaseRun, Runner, _reached, namespace_for, substitute

NS = "d-case-1234abcd"
UID_A = "0b0c1f8e-1111-4a2b-9c3d-000000000001"
UID_B = "0b0c1f8e-2222-4a2b-9c3d-000000000002"


def answer(status: int, body: Any, *, headers: list[tuple[str, str]] | None = None,
           events: list[Any] | None = None) -> Answer:
    raw = json.dumps(body).encode() if not isinstance(body, bytes) else body
    default = [("Content-Type", "application/json"), ("Audit-Id", "4f1c")]
    return Answer(status, headers if headers is not None else default, raw,
                  events=[json.dumps(e).encode() for e in events] if events is not None else None)


def configmap(name: str, uid: str, rv: str, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": NS, "uid": uid, "resourceVersion": rv,
                         "creationTimestamp": "2031-05-06T07:08:09Z", **meta}}


# -- normalisation ---------------------------------------------------------------------------------------


def test_uids_and_resource_versions_are_labelled_by_first_appearance_across_steps() -> None:
    context = Context(NS)
    first = comparable(answer(201, configmap("a", UID_A, "901")), context)["body"]["metadata"]
    second = comparable(answer(200, configmap("a", UID_A, "955")), context)["body"]["metadata"]
    third = comparable(answer(201, configmap("b", UID_B, "955")), context)["body"]["metadata"]
    assert (first["uid"], first["resourceVersion"]) == ("<uid:0>", "<rv:0>")
    assert (second["uid"], second["resourceVersion"]) == ("<uid:0>", "<rv:1>")
    assert (third["uid"], third["resourceVersion"]) == ("<uid:1>", "<rv:1>")  # equal values, equal labels
    assert first["namespace"] == "{ns}" and first["creationTimestamp"] == "<time>"


def test_labels_do_not_depend_on_the_servers_key_order() -> None:
    owner_first = {"metadata": {"ownerReferences": [{"uid": UID_B}], "uid": UID_A, "name": "x"}}
    uid_first = {"metadata": {"name": "x", "uid": UID_A, "ownerReferences": [{"uid": UID_B}]}}
    one = comparable(answer(200, owner_first), Context(NS))["body"]
    other = comparable(answer(200, uid_first), Context(NS))["body"]
    assert one == other
    assert one["metadata"]["uid"] != one["metadata"]["ownerReferences"][0]["uid"]


def test_a_lists_resource_version_and_continue_token_are_masked_but_its_items_are_not() -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMapList",
            "metadata": {"resourceVersion": "1200", "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", "remainingItemCount": 2},
            "items": [configmap("a", UID_A, "1100")]}
    result = comparable(answer(200, body), Context(NS))["body"]
    assert result["metadata"] == {"resourceVersion": "<listrv>", "continue": "<continue>", "remainingItemCount": 2}
    assert result["items"][0]["metadata"]["resourceVersion"] == "<rv:0>"


def test_values_the_case_sent_are_compared_as_they_are() -> None:
    sent_time, sent_uid = "2024-01-31T00:00:00Z", "6a2d3b1e-0000-4000-8000-000000000001"
    context = Context(NS, {sent_time, sent_uid, "12345"})
    body = configmap("a", UID_A, "12345", deletionTimestamp=sent_time)
    body["metadata"]["annotations"] = {"seen": f"precondition {sent_uid} vs {UID_A}"}
    result = comparable(answer(200, body), context)["body"]["metadata"]
    assert result["deletionTimestamp"] == sent_time
    assert result["resourceVersion"] == "12345"
    assert result["annotations"]["seen"] == f"precondition {sent_uid} vs <uid:0>"
    assert result["creationTimestamp"] == "<time>"


def test_generated_names_are_masked_wherever_they_appear() -> None:
    context = Context(NS)
    created = configmap("cm-x7k2p", UID_A, "5", generateName="cm-")
    assert comparable(answer(201, created), context)["body"]["metadata"]["name"] == "cm-<gen:0>"
    missing = {"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404,
               "message": 'configmaps "cm-x7k2p" not found'}
    assert comparable(answer(404, missing), context)["body"]["message"] == 'configmaps "cm-<gen:0>" not found'
    # A name that merely starts like a generated one is not masked.
    assert comparable(answer(201, configmap("cm-x7k2pq", UID_B, "6", generateName="cm-")),
                      Context(NS))["body"]["metadata"]["name"] == "cm-x7k2pq"


def test_generated_names_in_a_refusal_and_truncated_prefixes_are_masked() -> None:
    context = Context(NS)
    context.expect_generated("cm-")
    refusal = {"kind": "Status", "status": "Failure", "reason": "Invalid", "code": 422,
               "message": 'ConfigMap "cm-x7k2p" is invalid: data: Invalid value', "details": {"name": "cm-x7k2p"}}
    body = comparable(answer(422, refusal), context)["body"]
    assert body["details"]["name"] == "cm-<gen:0>" and '"cm-<gen:0>"' in body["message"]
    # Not a suffix the generator draws (vowels, "a"), or part of a longer name: left as it is.
    assert Context(NS, prefixes=context.prefixes).string('"cm-aaaaa" "xcm-x7k2p" "cm-x7k2pq"') == \
        '"cm-aaaaa" "xcm-x7k2p" "cm-x7k2pq"'
    long_prefix = f"{NS}-" + "p" * 60
    truncated = long_prefix[:58] + "b2c4d"
    created = configmap(truncated, UID_A, "5", generateName=long_prefix)
    name = comparable(answer(201, created), Context(NS))["body"]["metadata"]["name"]
    assert name.endswith("<gen:0>") and name.startswith("{ns}-ppp")
    sent = Context(NS)
    sent.expect_generated(long_prefix)
    assert sent.string(f"pods {truncated!r} exists").endswith("<gen:0>' exists")


def test_resource_versions_quoted_in_precondition_prose_are_labelled() -> None:
    context = Context(NS, {"1"})
    comparable(answer(200, configmap("a", UID_A, "642")), context)
    message = ("Precondition failed: the ResourceVersion in the precondition (1) does not match the "
               "ResourceVersion in record (642). ResourceVersion in precondition: 1, ResourceVersion in object "
               "meta: 642")
    assert context.string(message) == (
        "Precondition failed: the ResourceVersion in the precondition (1) does not match the ResourceVersion in "
        "record (<rv:0>). ResourceVersion in precondition: 1, ResourceVersion in object meta: <rv:0>")


def test_the_client_certificates_credential_id_is_masked() -> None:
    review = {"status": {"userInfo": {"extra": {"authentication.kubernetes.io/credential-id": [
        "X509SHA256=c11835937f519ad9f6ad307d822da584e64e22f99e721f82adbf416cb8b2fc27"]}}}}
    result = comparable(answer(201, review), Context(NS))["body"]
    assert result["status"]["userInfo"]["extra"]["authentication.kubernetes.io/credential-id"] == \
        ["X509SHA256=<fingerprint>"]


def test_managed_fields_are_compared_in_a_fixed_order() -> None:
    def entry(manager: str, operation: str, subresource: str | None = None) -> dict[str, Any]:
        found = {"manager": manager, "operation": operation, "time": "2031-05-06T07:08:09Z"}
        return {**found, "subresource": subresource} if subresource else found

    one = configmap("a", UID_A, "5", managedFields=[entry("kubectl", "Update"), entry("ctl", "Update", "status"),
                                                    entry("ctl", "Apply")])
    other = configmap("a", UID_A, "5", managedFields=[entry("ctl", "Apply"), entry("kubectl", "Update"),
                                                      entry("ctl", "Update", "status")])
    first = comparable(answer(200, one), Context(NS))["body"]
    assert first == comparable(answer(200, other), Context(NS))["body"]
    assert [(e["manager"], e["operation"]) for e in first["metadata"]["managedFields"]] == \
        [("ctl", "Apply"), ("ctl", "Update"), ("kubectl", "Update")]


@pytest.mark.parametrize(("value", "watch"), [("true", True), ("1", True), ("yes", True), ("", True),
                                              ("TRUE", True), (True, True), ("0", False), ("False", False),
                                              (False, False), (["1", "0"], True)])
def test_any_watch_value_but_0_and_false_is_a_watch(value: Any, watch: bool) -> None:
    assert corpus.watches({"watch": value}) is watch
    assert corpus.watches({}) is False


def test_per_server_material_is_masked() -> None:
    pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    body = {"data": {"ca.crt": pem}, "spec": {"volumes": [{"name": "kube-api-access-bvjm9"}]},
            "status": {"token": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"},
            "message": 'Invalid value: "{\\"metadata\\":{\\"resourceVersion\\":\\"642\\"}}"'}
    result = comparable(answer(200, body), Context(NS))["body"]
    assert result["data"]["ca.crt"] == "<pem:CERTIFICATE>"
    assert result["spec"]["volumes"][0]["name"] == "kube-api-access-<gen:0>"
    assert result["status"]["token"] == "<jwt>"
    assert result["message"] == 'Invalid value: "{\\"metadata\\":{\\"resourceVersion\\":\\"<rv:0>\\"}}"'


def test_headers_status_reason_and_content_type() -> None:
    status = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Conflict", "code": 409}
    headers = [("Content-Type", "application/json; charset=utf-8"),
               ("Warning", '299 - "unknown field \\"spec.x\\""'), ("Warning", '299 - "second"')]
    result = comparable(answer(409, status, headers=headers), Context(NS))
    assert result["contentType"] == "application/json"
    assert result["warnings"] == ['unknown field "spec.x"', "second"]
    assert result["auditId"] is False
    assert result["reason"] == "Conflict"
    # A body that happens to carry a reason is not an error's reason.
    assert comparable(answer(200, {"kind": "Event", "reason": "Scheduled"}), Context(NS))["reason"] is None
    assert warning_texts(["not the RFC form"]) == ["not the RFC form"]


def test_text_bodies_and_watch_events() -> None:
    text = Answer(404, [("Content-Type", "text/plain; charset=utf-8")], b"404 page not found\n")
    assert comparable(text, Context(NS))["body"] == "404 page not found\n"
    events = [{"type": "ADDED", "object": configmap("a", UID_A, "10")},
              {"type": "BOOKMARK", "object": {"kind": "ConfigMap", "metadata": {"resourceVersion": "99"}}}]
    result = comparable(answer(200, b"", events=events), Context(NS))["body"]
    assert [e["type"] for e in result] == ["ADDED", "BOOKMARK"]
    assert result[0]["object"]["metadata"]["resourceVersion"] == "<rv:0>"
    assert result[1]["object"]["metadata"]["resourceVersion"] == "<bookmarkrv>"


# -- templates and the runner ----------------------------------------------------------------------------


def test_substitution_fills_namespace_and_references() -> None:
    steps = [configmap("a", UID_A, "7")]
    setup = [{"kind": "ConfigMapList", "metadata": {"resourceVersion": "9", "continue": "tok"}, "items": []}]
    problems: list[str] = []
    value = {"path": "/ns/{ns}/x", "rv": "{rv:0}", "owner": {"uid": "{uid:0}"}, "{ns}-key": "{name:0}",
             "next": "{continue:s0}", "list": ["{listrv:s0}"], "n": 3}
    assert substitute(value, NS, steps, setup, problems) == {
        "path": f"/ns/{NS}/x", "rv": "7", "owner": {"uid": UID_A}, f"{NS}-key": "a", "next": "tok",
        "list": ["9"], "n": 3}
    assert problems == []
    assert substitute("{continue:0}", NS, steps, setup, problems) == ""
    assert problems == ["step: {continue:0} found nothing in that step's answer"]


def test_namespace_names_are_short_valid_and_distinct() -> None:
    names = ["configmap/create-get", "A" * 200, "---", "gc/foreground", "gc/foreground/"]
    made = [namespace_for(n) for n in names]
    assert all(re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", m) and len(m) <= 40 for m in made)
    assert len(set(made)) == len(made)
    assert namespace_for("configmap/create-get") == made[0]


class ScriptedClient:
    """Answers requests from a function and remembers them."""

    def __init__(self, reply: Callable[[Request], Answer]) -> None:
        self.reply = reply
        self.sent: list[Request] = []

    def send(self, request: Request) -> Answer:
        self.sent.append(request)
        return self.reply(request)


def test_runner_waits_tracks_cluster_scoped_creations_and_cleans_up() -> None:
    polls = {"count": 0}

    def reply(request: Request) -> Answer:
        if request.method == "POST" and request.path == "/api/v1/namespaces":
            return answer(201, {"metadata": {"name": json.loads(request.body or b"{}")["metadata"]["name"]}})
        if request.method == "POST" and request.path.endswith("/customresourcedefinitions"):
            return answer(201, {"metadata": {"name": "widgets.example.com", "uid": UID_A, "resourceVersion": "3"}})
        if request.path.endswith("/configmaps/gone"):
            polls["count"] += 1
            return answer(404 if polls["count"] >= 3 else 200, configmap("gone", UID_B, "4"))
        return answer(200 if request.method == "GET" else 201, {"metadata": {}})

    client = ScriptedClient(reply)
    case = corpus.validate({"name": "t/runner", "area": "crd", "steps": [
        {"method": "POST", "path": "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "body": {}},
        {"method": "GET", "path": "/api/v1/namespaces/{ns}/configmaps/gone", "wait": {"until": 404, "timeout": 5}},
        {"method": "POST", "path": "/api/v1/namespaces/{ns}/configmaps", "query": {"dryRun": "All"}, "body": {}},
    ]}, "test")
    run = Runner(client, poll=0.001).run(case)  # type: ignore[arg-type]
    namespace = namespace_for("t/runner")
    assert run.problems == []
    assert [a["status"] for a in run.answers] == [201, 404, 201]
    assert polls["count"] == 3
    deletes = [r.path for r in client.sent if r.method == "DELETE"]
    assert deletes == ["/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com",
                       f"/api/v1/namespaces/{namespace}"]
    assert client.sent[-2].query == []


def test_a_wait_that_times_out_is_a_problem() -> None:
    client = ScriptedClient(lambda r: answer(201 if r.method == "POST" else 200, {"metadata": {"name": "x"}}))
    case = corpus.validate({"name": "t/wait", "area": "gc", "steps": [
        {"method": "GET", "path": "/api/v1/namespaces/{ns}/configmaps/x", "wait": {"until": 404, "timeout": 0.05}}]},
        "test")
    started = time.monotonic()
    run = Runner(client, poll=0.01).run(case)  # type: ignore[arg-type]
    assert time.monotonic() - started < 2
    assert len(run.problems) == 1 and "waited" in run.problems[0]


# -- case shapes -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("case", "message"), [
    ({"name": "x", "area": "nowhere", "steps": [{"method": "GET", "path": "/api"}]}, "area 'nowhere'"),
    ({"name": "x", "area": "verbs", "steps": []}, "non-empty list"),
    ({"name": "x", "area": "verbs", "steps": [{"method": "GET", "path": "/api", "colour": 1}]}, "unknown keys"),
    ({"name": "x", "area": "verbs", "steps": [{"method": "FETCH", "path": "/api"}]}, "method 'FETCH'"),
    ({"name": "x", "area": "verbs", "steps": [{"method": "GET", "path": "/api?x=1"}]}, "query parameters go"),
    ({"name": "x", "area": "verbs", "steps": [{"method": "POST", "path": "/a", "body": {}, "raw": ""}]}, "at most one"),
    ({"name": "x", "area": "verbs", "steps": [{"method": "GET", "path": "/a/{rv:0}"}]}, "has not run"),
    ({"name": "x", "area": "verbs", "steps": [{"method": "GET", "path": "/a", "watch": {"events": 1}}]}, "watch=true"),
    ({"name": "x", "area": "verbs", "steps": [{"method": "GET", "path": "/a", "wait": {"until": "404"}}]}, "wait must"),
    ({"area": "verbs", "steps": []}, "without a name"),
    ({"name": "x", "area": "watch", "steps": [{"method": "GET", "path": "/a", "query": {"watch": True}}]},
     "a stream has no end"),
])
def test_malformed_cases_are_refused_naming_file_and_case(case: dict[str, Any], message: str) -> None:
    with pytest.raises(corpus.CorpusError, match=re.escape(message)) as raised:
        corpus.validate(case, "file.yaml")
    assert str(raised.value).startswith("file.yaml")


def test_references_to_setup_and_earlier_steps_are_allowed() -> None:
    case = corpus.validate({"name": "x", "area": "verbs",
                            "setup": [{"method": "POST", "path": "/a", "body": {}}],
                            "steps": [{"method": "GET", "path": "/a/{name:s0}"},
                                      {"method": "GET", "path": "/a/{rv:0}"}]}, "f")
    assert case.digest == corpus.validate({"name": "y", "area": "gc", "setup": case.setup, "steps": case.steps},
                                          "g").digest


def test_generators_are_discovered_and_duplicates_refused(tmp_path: Path) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "generators").mkdir()
    (tmp_path / "corpus" / "a.yaml").write_text("- {name: one, area: verbs, steps: [{method: GET, path: /api}]}\n")
    (tmp_path / "generators" / "made.py").write_text(
        "def cases():\n    return [{'name': 'two', 'area': 'fuzz', 'steps': [{'method': 'GET', 'path': '/apis'}]}]\n")
    (tmp_path / "generators" / "_helper.py").write_text("raise RuntimeError('not a generator')\n")
    cases = corpus.load(tmp_path / "corpus", tmp_path / "generators")
    assert [(c.name, c.source) for c in cases] == [("one", "a.yaml"), ("two", "made.py")]
    (tmp_path / "corpus" / "b.yaml").write_text("- {name: two, area: verbs, steps: [{method: GET, path: /}]}\n")
    with pytest.raises(corpus.CorpusError, match="also defined in"):
        corpus.load(tmp_path / "corpus", tmp_path / "generators")


def test_the_corpus_loads() -> None:
    cases = corpus.load()
    assert cases and {c.area for c in cases} <= set(corpus.AREAS)


# -- comparison and accepted divergences -----------------------------------------------------------------


def _line(*answers: dict[str, Any]) -> dict[str, Any]:
    return recordings.line_for("c", "d", [201], list(answers))


def test_differences_name_the_step_and_path() -> None:
    expected = _line({"status": 200, "body": {"metadata": {"labels": {"app.kubernetes.io/name": "a"}}, "n": 1}})
    actual = _line({"status": 200, "body": {"metadata": {"labels": {"app.kubernetes.io/name": "b"}}, "n": 1.0}})
    found = divergences.differences(expected, actual)
    assert [(d.step, d.path) for d in found] == [(0, 'body.metadata.labels["app.kubernetes.io/name"]'), (0, "body.n")]
    text = divergences.report("c", found, [{"method": "GET", "path": "/x"}])
    assert 'step 0 GET /x · body.metadata.labels["app.kubernetes.io/name"]' in text
    assert 'oracle: "a"' in text and 'fakekube: "b"' in text
    assert divergences.differences(expected, expected) == []
    shorter = {**actual, "setup": [], "answers": []}
    assert {d.step for d in divergences.differences(expected, shorter)} == {"setup", "steps"}


def test_accepted_entries_match_case_glob_step_and_field_prefix() -> None:
    found = [divergences.Difference(1, "body.message", "a", "b"),
             divergences.Difference(1, 'body.metadata.labels["x"]', "a", "b"),
             divergences.Difference(2, "status", 200, 201)]
    entry = divergences.Accepted("gc/*", 1, "body.metadata", "r", "u")
    assert divergences.unaccepted("gc/one", found, [entry]) == [found[0], found[2]]
    assert divergences.unaccepted("verbs/one", found, [entry]) == found
    anything = divergences.Accepted("gc/one", "*", "*", "r", "u")
    assert divergences.unaccepted("gc/one", found, [anything]) == []
    prefix_only = divergences.Accepted("gc/one", "*", "body.meta", "r", "u")
    assert divergences.unaccepted("gc/one", found, [prefix_only]) == found


def test_accepted_file_shape_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "accepted.yaml"
    path.write_text("- {case: 'a/*', step: '*', field: status, reason: why, upstream: k8s.io/x}\n")
    assert divergences.load_accepted(path) == [divergences.Accepted("a/*", "*", "status", "why", "k8s.io/x")]
    path.write_text("- {case: 'a/*', step: 'one', field: status, reason: why, upstream: k8s.io/x}\n")
    with pytest.raises(ValueError, match="entry 0: step"):
        divergences.load_accepted(path)
    path.write_text("- {case: 'a/*', step: 1, field: status, reason: why}\n")
    with pytest.raises(ValueError, match="needs exactly"):
        divergences.load_accepted(path)


def test_the_accepted_divergences_load() -> None:
    divergences.load_accepted()


# -- recordings ------------------------------------------------------------------------------------------


def test_recordings_are_byte_identical_whatever_the_insertion_order(tmp_path: Path) -> None:
    lines = {n: recordings.line_for(n, "d", [], [{"status": 200, "body": {"b": 1, "a": [2, 1]}}]) for n in "zay"}
    header = {"source": "oracle", "serverVersion": {"major": "1", "minor": "37"}}
    one, other = tmp_path / "one.jsonl", tmp_path / "other.jsonl"
    recordings.write(one, recordings.Recording(header, lines))
    recordings.write(other, recordings.Recording(dict(reversed(header.items())), dict(reversed(lines.items()))))
    assert one.read_bytes() == other.read_bytes()
    read = recordings.read(one)
    assert list(read.cases) == ["a", "y", "z"] and read.kubernetes_version == "1.37"
    assert one.read_text().splitlines()[1] == recordings.dumps(lines["a"])


# -- the client ------------------------------------------------------------------------------------------


class _Streaming(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if "refuse" in self.path:
            body = b'{"kind":"Status","code":410}'
            self.send_response(410)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for index in range(2):
            line = json.dumps({"type": "ADDED", "object": {"n": index}}).encode() + b"\n"
            self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
            self.wfile.flush()
        time.sleep(3)  # then nothing: a client waiting for a third event must give up on its own


@pytest.fixture
def streaming_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Streaming)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_watch_read_stops_at_k_events_or_the_timeout(streaming_server: str) -> None:
    client = Client(streaming_server)
    started = time.monotonic()
    two = client.send(Request("GET", "/w", [("watch", "true")], watch_events=2, watch_timeout=5))
    assert [json.loads(e)["object"]["n"] for e in two.events or []] == [0, 1]
    assert time.monotonic() - started < 1.5
    started = time.monotonic()
    more = client.send(Request("GET", "/w", [("watch", "true")], watch_events=3, watch_timeout=0.5))
    assert len(more.events or []) == 2 and more.error is None
    assert time.monotonic() - started < 1.5
    refused = client.send(Request("GET", "/refuse", watch_events=1, watch_timeout=1))
    assert (refused.status, refused.events) == (410, None) and b"410" in refused.body
    # The same stream read as an ordinary request: it never ends, so the request's own deadline ends it.
    started = time.monotonic()
    endless = client.send(Request("GET", "/w", timeout=0.5))
    assert endless.status == 0 and "TimeoutError" in (endless.error or "")
    assert time.monotonic() - started < 1.5


def test_ordinary_requests_share_one_kept_alive_connection(streaming_server: str) -> None:
    client = Client(streaming_server)
    answers = [client.send(Request("GET", "/refuse")) for _ in range(3)]
    assert [(a.status, a.error) for a in answers] == [(410, None)] * 3
    assert client._conn is not None  # still open: the bodies were read to their end


def test_an_unreachable_server_is_an_answer_not_an_exception() -> None:
    gone = Client("http://127.0.0.1:9").send(Request("GET", "/api", timeout=1))
    assert gone.status == 0 and gone.error


# -- the open divergences ----------------------------------------------------------------------------------


def test_the_open_list_round_trips_with_its_categories(tmp_path: Path) -> None:
    path = tmp_path / "open.txt"
    found = [divergences.Difference(2, "body.message", "a", "b"), divergences.Difference(3, "status", 1, 2)]
    openlist.write_entries({"b/case": openlist.category(found), "a/case": "step 0 status"}, path)
    text = path.read_text()
    assert text.index("a/case") < text.index("b/case") and "b/case  # step 2 body.message" in text
    assert openlist.read(path) == {"a/case": "step 0 status", "b/case": "step 2 body.message"}
    path.write_text("x/y  # one\nx/y\n")
    with pytest.raises(ValueError, match="listed twice"):
        openlist.read(path)


def test_the_ratchet_fails_regressions_and_listed_cases_that_agree() -> None:
    def case(name: str) -> corpus.Case:
        return corpus.validate({"name": name, "area": "verbs", "steps": [
            {"method": "GET", "path": "/api/v1/namespaces/{ns}/configmaps"}]}, "test")

    def line(status: int) -> dict[str, Any]:
        return {"name": "", "digest": "", "setup": [], "answers": [{"status": status}]}

    cases = [case("regressed"), case("still-open"), case("fixed"), case("agrees")]
    expected = {c.name: line(200) for c in cases}
    runs = {c.name: CaseRun(c.name, answers=[{"status": 500 if c.name in ("regressed", "still-open") else 200}])
            for c in cases}
    judged = verdicts.judge(cases, expected, runs, [], {"still-open": "step 0 status", "fixed": "step 0 status"})
    assert set(judged.failures) == {"regressed", "fixed"}
    assert "remove it from tests/differential/open.txt" in judged.failures["fixed"]
    assert "step 0" in judged.failures["regressed"] and set(judged.diverging) == {"regressed", "still-open"}
    assert "2 case(s)" in judged.message("area verbs")


def test_a_wait_for_a_condition_can_name_its_reason() -> None:
    pending = Answer(200, [], json.dumps({"status": {"conditions": [
        {"type": "Terminating", "status": "True", "reason": "InstanceDeletionPending"}]}}).encode())
    in_progress = Answer(200, [], json.dumps({"status": {"conditions": [
        {"type": "Terminating", "status": "True", "reason": "InstanceDeletionInProgress"}]}}).encode())
    wait = {"until": 200, "condition": "Terminating", "reason": "InstanceDeletionInProgress"}
    assert not _reached(pending, wait)
    assert _reached(in_progress, wait)
    assert _reached(pending, {"until": 200, "condition": "Terminating"})


def test_drawn_cluster_ips_are_masked_by_order_but_written_ones_are_kept() -> None:
    context = Context(namespace="", literals={"10.1.2.3"})
    answer = Answer(201, [], json.dumps({"spec": {"clusterIP": "10.0.0.53", "clusterIPs": ["10.0.0.53"],
                                                  "externalIPs": ["10.1.2.3"]}}).encode())
    refusal = Answer(422, [], json.dumps({"message": 'IPAddress.networking.k8s.io "10.0.0.53" is invalid'}).encode())
    assert comparable(answer, context)["body"]["spec"] == {
        "clusterIP": "<ip:0>", "clusterIPs": ["<ip:0>"], "externalIPs": ["10.1.2.3"]}
    assert comparable(refusal, context)["body"]["message"] == 'IPAddress.networking.k8s.io "<ip:0>" is invalid'


def test_a_typed_conversions_error_list_is_compared_in_any_order() -> None:
    head = "failed to create typed patch object (/d1; apps/v1, Kind=Deployment): errors:\n"
    lines = ["  .spec.template.spec.containers: element 0: not a map", "  .spec.selector: expected map"]

    def message(order: list[str], tail: str = "") -> str:
        answer = Answer(500, [], json.dumps({"message": head + "\n".join(order) + tail}).encode())
        return comparable(answer, Context(namespace=""))["body"]["message"]

    assert message(lines) == message(lines[::-1])
    assert message(lines, "\nmore") != message(lines[::-1], "\nother")
    assert message(lines[:1]) != message(lines[1:])


def test_a_rules_review_is_compared_as_a_set_of_rules() -> None:
    rules = [{"verbs": ["get"], "nonResourceURLs": ["/b"]}, {"verbs": ["get"], "nonResourceURLs": ["/a"]}]
    one, other = ({"status": {"incomplete": False, "nonResourceRules": order, "resourceRules": []}}
                  for order in (rules, rules[::-1]))
    assert comparable(Answer(201, [], json.dumps(one).encode()), Context(namespace="")) == \
        comparable(Answer(201, [], json.dumps(other).encode()), Context(namespace=""))
    # Elsewhere a list's order is compared.
    assert comparable(Answer(200, [], json.dumps({"rules": rules}).encode()), Context(namespace="")) != \
        comparable(Answer(200, [], json.dumps({"rules": rules[::-1]}).encode()), Context(namespace=""))


def test_a_case_fails_only_if_it_fails_every_time() -> None:
    first = verdicts.Verdicts({"flaky": "differs", "twice": "differs", "broken": "differs"},
                              {"flaky": [], "twice": [], "broken": []})
    asked: list[list[str]] = []

    def again(names: list[str]) -> verdicts.Verdicts:
        asked.append(names)
        failing = {"broken": "differs again"}
        if len(asked) == 1:
            failing["twice"] = "differs again"   # a chance that came twice in a row
        return verdicts.Verdicts(failing)

    settled = verdicts.settle_flakes(first, again)
    assert asked == [["broken", "flaky", "twice"], ["broken", "twice"]]
    assert settled.failures == {"broken": "differs"} and list(settled.diverging) == ["broken"]
    assert verdicts.settle_flakes(verdicts.Verdicts(), again).failures == {} and len(asked) == 2

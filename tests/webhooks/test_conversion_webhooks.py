"""CRD conversion webhooks (fakekube.webhooks.conversion, fakekube.verbs.conversion_webhook): where the store
converts, the reviews it sends, the metadata rules, the errors, and that no client waits for a webhook. Most tests
replace the HTTPS call with an in-process one (``Store.webhook_caller``, milliseconds); one goes over HTTPS. The
expected texts are upstream's (apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go, v0.37.2),
checked against kube-apiserver v1.37.2 by tests/webhooks/test_conversion_oracle.py."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store
from fakekube.watch import ERROR, MODIFIED
from tests.webhooks.server import WebhookServer, converter
from tests.webhooks.test_conversion_oracle import GROUP, crd, widget

V1, V2 = f"widgets.v1.{GROUP}", f"widgets.v2.{GROUP}"


class Hook:
    """An in-process conversion webhook: the reviews it got and how it answers."""

    def __init__(self, convert: Callable[[dict[str, Any], str], dict[str, Any]] = widget, **response: Any) -> None:
        self.reviews: list[dict[str, Any]] = []
        self.threads: list[str] = []
        self.handler = converter(convert, **response)
        self.during: Callable[[], None] | None = None

    def __call__(self, point: Any, ca: Any, review: dict[str, Any], timeout: float) -> Any:
        self.reviews.append(json.loads(json.dumps(review)))
        self.threads.append(threading.current_thread().name)
        if self.during is not None:
            during, self.during = self.during, None
            during()
        return self.handler(review)["raw"][1]


def store_with(hook: Hook, versions: list[str] | None = None) -> Store:
    store = Store(seed=1)
    store.webhook_caller = hook
    store.create("customresourcedefinitions", crd({"url": "https://127.0.0.1:9443/convert"}, versions or ["v1"]))
    return store


def w(version: str, name: str = "w1", value: str = "3") -> dict[str, Any]:
    field = "value" if version == "v1" else "amount"
    return {"apiVersion": f"{GROUP}/{version}", "kind": "Widget", "metadata": {"name": name}, "spec": {field: value}}


def test_write_through_another_version_is_stored_converted_and_answered_in_its_own() -> None:
    hook = Hook()
    store = store_with(hook)
    created = store.create(V1, w("v1"), "default")
    assert created["apiVersion"] == f"{GROUP}/v1" and created["spec"] == {"value": "3"}
    stored = store.stored_object(f"{GROUP}/widgets", ("default", "w1"))
    assert stored["apiVersion"] == f"{GROUP}/v2" and stored["spec"] == {"amount": "3"}
    # the request's object to the storage version, then the stored one back for the answer
    assert [r["request"]["desiredAPIVersion"] for r in hook.reviews] == [f"{GROUP}/v2", f"{GROUP}/v1"]
    review = hook.reviews[0]
    assert review["apiVersion"] == "apiextensions.k8s.io/v1" and review["kind"] == "ConversionReview"
    assert review["request"]["objects"][0]["spec"] == {"value": "3"} and review["request"]["uid"]


def test_reads_in_the_storage_version_call_nothing() -> None:
    hook = Hook()
    store = store_with(hook)
    store.create(V2, w("v2"), "default")
    assert store.get(V2, "w1", "default")["spec"] == {"amount": "3"}
    assert store.list(V2, "default")["items"][0]["spec"] == {"amount": "3"}
    assert hook.reviews == []


def test_list_converts_each_item_on_its_own() -> None:
    # The etcd3 store decodes objects one by one: kube-apiserver v1.37.2 sends a list of two as two reviews.
    hook = Hook()
    store = store_with(hook)
    store.create(V2, w("v2", "w1", "3"), "default")
    store.create(V2, w("v2", "w2", "4"), "default")
    listed = store.list(V1, "default")
    assert listed["apiVersion"] == f"{GROUP}/v1"
    assert [i["spec"] for i in listed["items"]] == [{"value": "3"}, {"value": "4"}]
    assert [len(r["request"]["objects"]) for r in hook.reviews] == [1, 1]


def test_only_labels_and_annotations_of_the_converted_metadata_are_kept() -> None:
    def convert(obj: dict[str, Any], desired: str) -> dict[str, Any]:
        out = widget(obj, desired)
        out["metadata"]["labels"] = {"converted": "yes"}
        out["metadata"]["finalizers"] = ["example.com/f"]
        out["metadata"]["generation"] = 99
        return out

    store = store_with(Hook(convert))
    store.create(V2, w("v2"), "default")
    got = store.get(V1, "w1", "default")
    assert got["metadata"]["labels"] == {"converted": "yes"}
    assert "finalizers" not in got["metadata"] and got["metadata"]["generation"] == 1


def test_v1beta1_review_when_the_crd_lists_it_first() -> None:
    hook = Hook()
    store = store_with(hook, ["v1beta1", "v1"])
    store.create(V2, w("v2"), "default")
    assert store.get(V1, "w1", "default")["spec"] == {"value": "3"}
    assert hook.reviews[0]["apiVersion"] == "apiextensions.k8s.io/v1beta1"


def _mutate(change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any], str], dict[str, Any]]:
    def convert(obj: dict[str, Any], desired: str) -> dict[str, Any]:
        out = widget(obj, desired)
        change(out)
        return out
    return convert


@pytest.mark.parametrize(("hook", "reason"), [
    (Hook(uid="nope"), 'failed: expected response.uid="<uid>", got "nope"'),
    (Hook(result={"status": "Failure", "message": "cannot"}), "failed: cannot"),
    (Hook(result={"status": "Failure"}), "failed: response.result.status was 'Failure', not 'Success'"),
    (Hook(convertedObjects=[]), "returned 0 objects, expected 1"),
    (Hook(_mutate(lambda o: o.update(apiVersion=f"{GROUP}/v3"))),
     f"returned invalid object at index 0: invalid groupVersion (expected {GROUP}/v1, received {GROUP}/v3)"),
    (Hook(_mutate(lambda o: o.update(kind="Gadget"))),
     "returned invalid object at index 0: invalid kind (expected Widget, received Gadget)"),
    (Hook(_mutate(lambda o: o["metadata"].update(name="other"))),
     "returned invalid object: must have the same name: w1 != other"),
    (Hook(_mutate(lambda o: o["metadata"].update(labels={"a": "not valid!"}))),
     'returned invalid metadata: metadata.labels: Invalid value: "not valid!": a valid label must be'),
], ids=["uid", "failure-message", "failure-bare", "count", "version", "kind", "name", "label"])
def test_a_bad_answer_fails_a_read_as_a_corrupt_object(hook: Hook, reason: str) -> None:
    store = store_with(hook)
    hook.handler, good = converter(widget), hook.handler
    created = store.create(V2, w("v2"), "default")
    hook.handler = good
    with pytest.raises(errors.ApiError) as caught:
        store.get(V1, "w1", "default")
    err = caught.value
    uid = hook.reviews[-1]["request"]["uid"]
    text = (f"StorageError: corrupt object, Code: 7, Key: /{GROUP}/widgets/default/w1, ResourceVersion: 0, "
            f"AdditionalErrorMsg: object not decodable revision={created['metadata']['resourceVersion']}: "
            f"conversion webhook for {GROUP}/v2, Kind=Widget {reason.replace('<uid>', uid)}")
    assert (err.code, err.reason) == (500, "InternalError")
    assert err.message.startswith(f"Internal error occurred: {text}")
    assert err.details["causes"][0]["message"].startswith(text)


def test_a_webhook_down_fails_the_write_through_another_version_and_stores_nothing() -> None:
    store = Store(seed=1)
    store.create("customresourcedefinitions", crd({"url": "https://127.0.0.1:1/convert"}, ["v1"]))
    with pytest.raises(errors.ApiError) as caught:
        store.create(V1, w("v1"), "default")
    assert (caught.value.code, caught.value.reason) == (500, "")
    assert caught.value.message == (f'conversion webhook for {GROUP}/v1, Kind=Widget failed: Post '
                                    '"https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: '
                                    "connection refused")
    assert store.objects(V2) == []
    store.create(V2, w("v2"), "default")  # the storage version needs no webhook
    with pytest.raises(errors.ApiError) as caught:
        store.patch(V1, "w1", {"spec": {"value": "6"}}, "default", patch_type="merge")
    assert (caught.value.code, caught.value.reason) == (500, "")
    assert caught.value.message.startswith("object not decodable revision=")
    with pytest.raises(errors.ApiError) as caught:
        store.list(V1, "default")
    assert (caught.value.code, caught.value.reason) == (500, "StorageReadError")
    assert caught.value.message.startswith(f"failed to read one or more widgets.{GROUP} from the storage: "
                                           f"StorageError: corrupt object, Code: 7, Key: /registry/{GROUP}/widgets/")


def test_dry_run_writes_convert_nothing() -> None:
    hook = Hook()
    store = store_with(hook)
    store.create(V1, w("v1"), "default", dry_run=True)
    assert hook.reviews == []


def test_other_clients_go_on_while_a_webhook_runs() -> None:
    hook = Hook()
    store = store_with(hook)
    done = threading.Event()

    def other_client() -> None:
        store.create("configmaps", {"metadata": {"name": "meanwhile"}}, "default")
        done.set()

    def during() -> None:
        thread = threading.Thread(target=other_client)
        thread.start()
        thread.join(5)

    hook.during = during
    store.create(V1, w("v1"), "default")
    assert done.is_set()


def test_a_patch_starts_over_when_the_object_changed_during_its_conversion() -> None:
    hook = Hook()
    store = store_with(hook)
    store.create(V2, w("v2"), "default")

    def meanwhile() -> None:
        thread = threading.Thread(target=lambda: store.patch(V2, "w1", {"metadata": {"labels": {"x": "1"}}},
                                                             "default", patch_type="merge"))
        thread.start()
        thread.join(5)

    hook.during = meanwhile
    patched = store.patch(V1, "w1", {"spec": {"value": "6"}}, "default", patch_type="merge")
    assert patched["spec"] == {"value": "6"} and patched["metadata"]["labels"] == {"x": "1"}
    assert store.get(V2, "w1", "default")["spec"] == {"amount": "6"}


def test_watchers_convert_when_they_take_events_not_in_the_writers_commit() -> None:
    hook = Hook()
    store = store_with(hook)
    store.create(V2, w("v2"), "default")
    watch = store.watch(V1, "default", resource_version=store.resource_version)
    hook.reviews.clear()
    store.patch(V2, "w1", {"spec": {"amount": "7"}}, "default", patch_type="merge")
    assert hook.reviews == []  # the writer did not call the webhook
    event = watch.next(1)
    assert event is not None and event.type == MODIFIED
    assert event.raw["apiVersion"] == f"{GROUP}/v1" and event.raw["spec"] == {"value": "7"}
    assert len(hook.reviews) == 1
    watch.stop()


def test_a_failing_conversion_ends_the_watch_with_an_error_event() -> None:
    hook = Hook()
    store = store_with(hook)
    store.create(V2, w("v2"), "default")
    watch = store.watch(V1, "default", resource_version=store.resource_version)
    hook.handler = converter(widget, result={"status": "Failure", "message": "cannot"})
    store.patch(V2, "w1", {"spec": {"amount": "7"}}, "default", patch_type="merge")
    events = watch.drain()
    assert [e.type for e in events] == [ERROR]
    assert events[0].raw["code"] == 500 and "Kind=Widget failed: cannot" in events[0].raw["message"]
    assert watch.closed


def test_strategy_none_still_rewrites_the_api_version() -> None:
    hook = Hook()
    store = Store(seed=1)
    store.webhook_caller = hook
    definition = crd({"url": "https://127.0.0.1:1/convert"}, ["v1"])
    definition["spec"]["conversion"] = {"strategy": "None"}
    store.create("customresourcedefinitions", definition)
    store.create(V1, w("v1"), "default")
    assert store.get(V2, "w1", "default")["spec"] == {"value": "3"}
    assert hook.reviews == []


def test_over_https_with_the_ca_bundle(webhook: WebhookServer) -> None:
    webhook.handlers["/convert"] = converter(widget)
    store = Store(seed=1)
    store.create("customresourcedefinitions", crd(webhook.client_config("/convert"), ["v1"]))
    store.create(V1, w("v1"), "default")
    assert store.get(V2, "w1", "default")["spec"] == {"amount": "3"}
    assert store.get(V1, "w1", "default")["spec"] == {"value": "3"}
    assert {r["request"]["desiredAPIVersion"] for _, r in webhook.reviews} == {f"{GROUP}/v1", f"{GROUP}/v2"}


def test_an_update_through_another_version_compares_with_the_live_object_converted() -> None:
    # GuaranteedUpdate decodes the live object into the request's version: the same spec sent back through v1
    # is no change (no generation bump, no new resourceVersion), a new one bumps the generation once.
    hook = Hook()
    store = store_with(hook)
    store.create(V2, w("v2"), "default")
    current = store.get(V1, "w1", "default")
    same = store.update(V1, current, "default")
    assert same["metadata"]["generation"] == 1
    assert same["metadata"]["resourceVersion"] == current["metadata"]["resourceVersion"]
    changed = store.update(V1, {**current, "spec": {"value": "5"}}, "default")
    assert changed["metadata"]["generation"] == 2 and changed["spec"] == {"value": "5"}
    patched = store.patch(V1, "w1", {"spec": {"value": "5"}}, "default", patch_type="merge")
    assert patched["metadata"]["generation"] == 2
    assert store.get(V2, "w1", "default")["spec"] == {"amount": "5"}


def test_an_admission_webhook_for_the_other_version_gets_the_object_converted() -> None:
    # matchPolicy Equivalent: a validating webhook for v2 sees a write through v1 in v2, converted by the CRD's
    # conversion webhook (not with the apiVersion rewritten).
    conversion = Hook()
    admitted: list[dict[str, Any]] = []

    def caller(point: Any, ca: Any, review: dict[str, Any], timeout: float) -> Any:
        if review["kind"] == "ConversionReview":
            return conversion(point, ca, review, timeout)
        admitted.append(review["request"])
        return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                "response": {"uid": review["request"]["uid"], "allowed": True}}

    store = store_with(conversion)
    store.webhook_caller = caller
    store.create("validatingwebhookconfigurations", {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "v2-only"},
        "webhooks": [{"name": "v2.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                      "clientConfig": {"url": "https://127.0.0.1:9444/validate"},
                      "rules": [{"operations": ["CREATE"], "apiGroups": [GROUP], "apiVersions": ["v2"],
                                 "resources": ["widgets"]}]}]})
    store.create(V1, w("v1"), "default")
    (request,) = admitted
    assert request["kind"]["version"] == "v2" and request["requestKind"]["version"] == "v1"
    assert request["object"]["apiVersion"] == f"{GROUP}/v2" and request["object"]["spec"] == {"amount": "3"}


def test_a_callback_watcher_gets_its_events_converted() -> None:
    hook = Hook()
    store = store_with(hook)
    got: list[Any] = []
    store.watch(V1, "default", resource_version=store.resource_version, on_event=got.append)
    store.create(V2, w("v2"), "default")
    assert [(e.type, e.raw["apiVersion"], e.raw["spec"]) for e in got] == [("ADDED", f"{GROUP}/v1", {"value": "3"})]


@pytest.mark.slow  # (a served front, and a watch of one second)
def test_an_http_watch_through_another_version_streams_converted_events(kube_server: Any) -> None:
    import urllib.request

    hook = Hook()
    store = kube_server.store
    store.webhook_caller = hook
    store.create("customresourcedefinitions", crd({"url": "https://127.0.0.1:9443/convert"}, ["v1"]))
    store.create(V2, w("v2"), "default")
    path = f"/apis/{GROUP}/v1/namespaces/default/widgets?watch=1&timeoutSeconds=1&resourceVersion=0"
    with urllib.request.urlopen(kube_server.url + path, timeout=10) as stream:
        lines = stream.read().decode().splitlines()
    (event,) = [json.loads(line) for line in lines if line]
    assert event["type"] == "ADDED"
    assert event["object"]["apiVersion"] == f"{GROUP}/v1" and event["object"]["spec"] == {"value": "3"}

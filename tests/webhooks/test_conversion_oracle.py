"""A conversion webhook registered for the same two-version CRD with kube-apiserver v1.37.2 (the oracle) and with
fakekube: the answers of writes and reads through either version, the error Statuses of failing webhooks and
the ConversionReviews the webhook got, compared case by case.

``pytest -m oracle tests/webhooks/test_conversion_oracle.py`` (FAKEKUBE_ORACLE_KUBECONFIG for a running oracle,
else one is started from FAKEKUBE_ORACLE_BIN). Each case prints its verdict; the test fails on any disagreement
not listed in KNOWN (each with its reason, also in docs/admission.md)."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store
from tests.webhooks.server import WebhookServer, converter
from tests.webhooks.test_oracle import Kube, oracle  # noqa: F401  (the fixture)

pytestmark = pytest.mark.oracle

GROUP = "conv.example.com"
PATH = "/convert"


def widget(obj: dict[str, Any], desired: str) -> dict[str, Any]:
    """v1 ``spec.value`` is v2 ``spec.amount``."""
    out = json.loads(json.dumps(obj))
    spec = out.get("spec") or {}
    if desired.endswith("/v2") and "value" in spec:
        spec["amount"] = spec.pop("value")
    elif desired.endswith("/v1") and "amount" in spec:
        spec["value"] = spec.pop("amount")
    out["apiVersion"] = desired
    return out


def _with(change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any], str], dict[str, Any]]:
    def convert(obj: dict[str, Any], desired: str) -> dict[str, Any]:
        out = widget(obj, desired)
        change(out)
        return out
    return convert


def crd(client_config: dict[str, Any], review_versions: list[str]) -> dict[str, Any]:
    schema = {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"widgets.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                     "versions": [{"name": "v1", "served": True, "storage": False, "schema": schema},
                                  {"name": "v2", "served": True, "storage": True, "schema": schema}],
                     "conversion": {"strategy": "Webhook", "webhook": {
                         "clientConfig": client_config, "conversionReviewVersions": review_versions}}}}


def _labels(o: dict[str, Any]) -> None:
    o["metadata"].setdefault("labels", {})["converted"] = "yes"


def _bad_label(o: dict[str, Any]) -> None:
    o["metadata"].setdefault("labels", {})["converted"] = "not valid!"


def _finalizer(o: dict[str, Any]) -> None:
    o["metadata"]["finalizers"] = ["x.example.com/y"]


def _wrong_version(o: dict[str, Any]) -> None:
    o["apiVersion"] = f"{GROUP}/v3"


def _wrong_kind(o: dict[str, Any]) -> None:
    o["kind"] = "Gadget"


def _rename(o: dict[str, Any]) -> None:
    o["metadata"]["name"] = "other"


def _new_uid(o: dict[str, Any]) -> None:
    o["metadata"]["uid"] = "00000000-0000-0000-0000-000000000000"


def _no_metadata(o: dict[str, Any]) -> None:
    o.pop("metadata")


GOOD = converter(widget)
# name: (handler, conversionReviewVersions, scenario, url override)
CASES: dict[str, tuple[Callable[..., Any], list[str], str, str | None]] = {
    "create-v1": (GOOD, ["v1"], "create-v1", None),
    "read-v1": (GOOD, ["v1"], "read-v1", None),
    "update-v1": (GOOD, ["v1"], "update-v1", None),
    "patch-v1": (GOOD, ["v1"], "patch-v1", None),
    "update-same-v1": (GOOD, ["v1"], "update-same-v1", None),
    "delete-v1": (GOOD, ["v1"], "delete-v1", None),
    "review-v1beta1": (GOOD, ["v1beta1"], "read-v1", None),
    "review-v1beta1-first": (GOOD, ["v1beta1", "v1"], "read-v1", None),
    "labels": (converter(_with(_labels)), ["v1"], "read-v1", None),
    "finalizers-restored": (converter(_with(_finalizer)), ["v1"], "read-v1", None),
    "bad-label": (converter(_with(_bad_label)), ["v1"], "get-v1", None),
    "wrong-version": (converter(_with(_wrong_version)), ["v1"], "get-v1", None),
    "wrong-kind": (converter(_with(_wrong_kind)), ["v1"], "get-v1", None),
    "renamed": (converter(_with(_rename)), ["v1"], "get-v1", None),
    "new-uid": (converter(_with(_new_uid)), ["v1"], "get-v1", None),
    "no-metadata": (converter(_with(_no_metadata)), ["v1"], "get-v1", None),
    "wrong-uid": (converter(widget, uid="nope"), ["v1"], "get-v1", None),
    "failure-message": (converter(widget, result={"status": "Failure", "message": "cannot"}), ["v1"], "get-v1", None),
    "failure-bare": (converter(widget, result={"status": "Failure"}), ["v1"], "get-v1", None),
    "no-objects": (converter(widget, convertedObjects=[]), ["v1"], "get-v1", None),
    "wrong-review-kind": (converter(widget, version="apiextensions.k8s.io/v1beta1"), ["v1"], "get-v1", None),
    "http-500": (lambda review: {"raw": (500, b"boom")}, ["v1"], "get-v1", None),
    "no-kind": (lambda review: {"raw": (200, {"response": {"uid": review["request"]["uid"], "result": {
        "status": "Success"}}})}, ["v1"], "get-v1", None),
    "not-json": (lambda review: {"raw": (200, b"nope")}, ["v1"], "get-v1", None),
    "down-read": (GOOD, ["v1"], "get-v1", "https://127.0.0.1:1/convert"),
    "down-create": (GOOD, ["v1"], "create-v1", "https://127.0.0.1:1/convert"),
    "down-delete": (GOOD, ["v1"], "delete-v1", "https://127.0.0.1:1/convert"),
    "down-patch": (GOOD, ["v1"], "patch-v1", "https://127.0.0.1:1/convert"),
    "down-update": (GOOD, ["v1"], "update-v2-body-v1", "https://127.0.0.1:1/convert"),
}

# Disagreements that remain, with their reason (docs/admission.md, "Conversion webhooks").
KNOWN: dict[str, str] = {}


def _shown(code: int, answer: Any) -> Any:
    """What is compared of an answer: a Status whole (uids masked), an object's type, spec, labels and
    annotations, a list's items so."""
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uid>", json.dumps(answer))
    text = re.sub(r"revision=[0-9]+", "revision=<rv>", text)
    answer = json.loads(text)
    if code >= 300 or not isinstance(answer, dict):
        return [code, answer]
    if "items" in answer:
        return [code, answer.get("apiVersion"), answer.get("kind"), [_shown(200, i)[1] for i in answer["items"]]]
    meta = answer.get("metadata") or {}
    return [code, {"apiVersion": answer.get("apiVersion"), "kind": answer.get("kind"), "spec": answer.get("spec"),
                   "labels": meta.get("labels"), "annotations": meta.get("annotations"),
                   "finalizers": meta.get("finalizers"), "generation": meta.get("generation")}]


class _Fake:
    """The same REST calls served by a Store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        parts = path.strip("/").split("/")
        # /apis/GROUP/VERSION/namespaces/NS/widgets[/NAME]
        version, namespace, name = parts[2], parts[4], (parts[6] if len(parts) > 6 else None)
        resource = f"widgets.{version}.{GROUP}"
        store = self.store
        try:
            if method == "POST":
                return 201, store.create(resource, body, namespace)
            if method == "GET" and name:
                return 200, store.get(resource, name, namespace)
            if method == "GET":
                return 200, store.list(resource, namespace)
            if method == "PUT":
                return 200, store.update(resource, body, namespace)
            if method == "PATCH":
                return 200, store.patch(resource, name, body, namespace, patch_type="merge")
            if method == "DELETE":
                return 200, store.delete(resource, name, namespace)
        except errors.ApiError as exc:
            return exc.code, exc.status
        raise AssertionError(method)


def _widget(version: str, name: str, namespace: str, value: str) -> dict[str, Any]:
    field = "value" if version == "v1" else "amount"
    return {"apiVersion": f"{GROUP}/{version}", "kind": "Widget", "metadata": {"name": name, "namespace": namespace},
            "spec": {field: value}}


def _scenario(client: Any, scenario: str, namespace: str) -> list[Any]:
    base = f"/apis/{GROUP}/{{}}/namespaces/{namespace}/widgets"
    v1, v2 = base.format("v1"), base.format("v2")
    steps: list[Any] = []

    def step(method: str, path: str, body: Any = None) -> Any:
        code, answer = client.call(method, path, body)
        steps.append(_shown(code, answer))
        return answer

    if scenario == "create-v1":
        step("POST", v1, _widget("v1", "w1", namespace, "3"))
        step("GET", v2 + "/w1")
        step("GET", v1 + "/w1")
    elif scenario == "read-v1":
        client.call("POST", v2, _widget("v2", "w1", namespace, "3"))
        client.call("POST", v2, _widget("v2", "w2", namespace, "4"))
        step("GET", v1 + "/w1")
        step("GET", v1)
        step("GET", v2)
    elif scenario == "get-v1":
        client.call("POST", v2, _widget("v2", "w1", namespace, "3"))
        client.call("POST", v2, _widget("v2", "w2", namespace, "4"))
        step("GET", v1 + "/w1")
        step("GET", v2)
    elif scenario == "update-v2-body-v1":
        current = client.call("POST", v2, _widget("v2", "w1", namespace, "3"))[1]
        body = {**current, "apiVersion": f"{GROUP}/v1", "spec": {"value": "5"}}
        step("PUT", v1 + "/w1", body)
        step("GET", v2 + "/w1")
    elif scenario == "update-same-v1":
        client.call("POST", v2, _widget("v2", "w1", namespace, "3"))
        code, current = client.call("GET", v1 + "/w1")
        step("PUT", v1 + "/w1", current)
        step("PUT", v1 + "/w1", {**current, "spec": {"value": "5"}})
        step("PATCH", v1 + "/w1", {"spec": {"value": "5"}})
    elif scenario == "update-v1":
        client.call("POST", v2, _widget("v2", "w1", namespace, "3"))
        current = step("GET", v1 + "/w1")
        if isinstance(current, dict) and current.get("kind") == "Widget":
            current["spec"]["value"] = "5"
            step("PUT", v1 + "/w1", current)
        step("GET", v2 + "/w1")
    elif scenario == "patch-v1":
        client.call("POST", v2, _widget("v2", "w1", namespace, "3"))
        step("PATCH", v1 + "/w1", {"spec": {"value": "6"}})
        step("GET", v2 + "/w1")
    elif scenario == "delete-v1":
        client.call("POST", v2, _widget("v2", "w1", namespace, "3"))
        step("DELETE", v1 + "/w1")
    return steps


def _reviews(server: WebhookServer) -> list[Any]:
    """The distinct reviews (review version, desired version, objects): how many times the same conversion is
    asked for is the watch cache's business upstream (each served version's cache converts every change)."""
    seen = {json.dumps([r["apiVersion"], r["request"]["desiredAPIVersion"],
                        sorted(f"{o['apiVersion']} {o['metadata'].get('name')}" for o in r["request"]["objects"])])
            for _, r in server.reviews}
    return [json.loads(text) for text in sorted(seen)]


def _patch_call(kube: Kube, method: str, path: str, body: Any) -> tuple[int, Any]:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(kube.base + path, data=json.dumps(body).encode(), method=method,
                                 headers={"Content-Type": "application/merge-patch+json"})
    try:
        with urllib.request.urlopen(req, context=kube.ctx, timeout=60) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


class _Real:
    def __init__(self, kube: Kube) -> None:
        self.kube = kube

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        if method == "PATCH":
            return _patch_call(self.kube, method, path, body)
        return self.kube.call(method, path, body)


def _set_crd(client: Any, definition: dict[str, Any], real: bool) -> None:
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    if real:
        code, current = client.kube.call("GET", f"{path}/{definition['metadata']['name']}")
        if code == 404:
            client.kube.call("POST", path, definition)
        elif current["spec"]["conversion"] != definition["spec"]["conversion"]:
            client.kube.call("PUT", f"{path}/{definition['metadata']['name']}",
                             {**definition, "metadata": current["metadata"]})
        else:
            return
        _wait_for(client.kube, definition)
        return
    store: Store = client.store
    name = definition["metadata"]["name"]
    existing = store.objects("customresourcedefinitions")
    if any(o["metadata"]["name"] == name for o in existing):
        current = store.get("customresourcedefinitions", name)
        store.update("customresourcedefinitions", {**definition, "metadata": current["metadata"]})
    else:
        store.create("customresourcedefinitions", definition)


SENTINEL = f"cv-sentinel-{os.getpid()}"


def _wait_for(kube: Kube, definition: dict[str, Any]) -> None:
    """Until kube-apiserver's CRD handler converts with the new webhook configuration: a sentinel object read
    through v1 reaches the new URL with the new review version (or fails on the unreachable one)."""
    webhook = definition["spec"]["conversion"]["webhook"]
    url, version = webhook["clientConfig"]["url"], webhook["conversionReviewVersions"][0]
    base = f"/apis/{GROUP}/{{}}/namespaces/{SENTINEL}/widgets"
    kube.call("POST", "/api/v1/namespaces", {"metadata": {"name": SENTINEL}})
    kube.call("POST", base.format("v2"), _widget("v2", "sentinel", SENTINEL, "0"))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        _SERVER_REVIEWS.clear()
        code, answer = kube.call("GET", base.format("v1") + "/sentinel")
        if url.startswith("https://127.0.0.1:1/"):
            if code == 500 and "127.0.0.1:1" in json.dumps(answer):
                return
        elif code == 200 and any(r["apiVersion"].endswith("/" + version) for _, r in _SERVER_REVIEWS):
            return
        time.sleep(0.2)
    raise AssertionError("kube-apiserver did not take the new conversion webhook configuration")


_SERVER_REVIEWS: list[Any] = []


def _run(client: Any, server: WebhookServer, case: str, namespace: str, real: bool) -> dict[str, Any]:
    handler, versions, scenario, url = CASES[case]
    server.handlers[PATH] = GOOD
    config = {"url": url or server.url(PATH), "caBundle": server.ca_bundle}
    _set_crd(client, crd(config, versions), real)
    if real:
        client.kube.call("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    else:
        client.store.ensure_namespace(namespace)
    server.reviews.clear()
    server.handlers[PATH] = handler
    steps = _scenario(client, scenario, namespace)
    reviews = _reviews(server)
    server.handlers[PATH] = GOOD
    return {"steps": steps, "reviews": reviews}


def test_conversion_webhooks_agree_with_kube_apiserver(oracle: Kube) -> None:  # noqa: F811
    # One webhook server each: kube-apiserver's watch cache may call its own while fakekube's case runs.
    server, fake_server = WebhookServer(), WebhookServer()
    server.reviews = _SERVER_REVIEWS
    fake = _Fake(Store(seed=1))
    real = _Real(oracle)
    results: dict[str, tuple[bool, Any, Any]] = {}
    try:
        for i, case in enumerate(CASES):
            namespace = f"cv-{i}-{os.getpid()}"
            got_real = _run(real, server, case, namespace, True)
            got_fake = _run(fake, fake_server, case, namespace, False)
            # Upstream's watch cache of each served version converts every change too, so the real webhook
            # gets more reviews: each one fakekube sent must be among them.
            same = got_real["steps"] == got_fake["steps"] and all(r in got_real["reviews"] for r in got_fake["reviews"])
            results[case] = (same, got_real, got_fake)
    finally:
        server.close()
        fake_server.close()
        oracle.call("DELETE", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.{GROUP}")
        oracle.call("DELETE", f"/api/v1/namespaces/{SENTINEL}")
    agree = [c for c, (ok, _, _) in results.items() if ok]
    print(f"\nconversion webhook oracle agreement: {len(agree)}/{len(results)}")
    for case, (ok, got_real, got_fake) in results.items():
        if not ok:
            print(f"--- {case}\n real: {json.dumps(got_real, sort_keys=True)}\n fake: {json.dumps(got_fake, sort_keys=True)}")
    differing = sorted(c for c, (ok, _, _) in results.items() if not ok and c not in KNOWN)
    assert not differing, differing

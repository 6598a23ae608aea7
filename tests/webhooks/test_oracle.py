"""The same webhook server registered with kube-apiserver v1.37.2 (the oracle) and with fakekube: the stored
objects, the error Statuses and the AdmissionReview requests compared case by case.

``pytest -m oracle tests/webhooks/test_oracle.py`` (set FAKEKUBE_ORACLE_KUBECONFIG to use a running oracle, else
one is started from FAKEKUBE_ORACLE_BIN). Each case prints its verdict; the test fails on any disagreement not
listed in KNOWN (each with its reason, also in docs/admission.md)."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import ssl
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import yaml

from fakekube import errors
from fakekube.store import Store
from tests.webhooks.server import WebhookServer, patch

pytestmark = pytest.mark.oracle

RULE = {"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"],
        "scope": "Namespaced"}


class Kube:
    """A bare JSON client for the oracle from its kubeconfig (client certificate)."""

    def __init__(self, kubeconfig: Path) -> None:
        config = yaml.safe_load(kubeconfig.read_text())
        cluster = config["clusters"][0]["cluster"]
        user = config["users"][0]["user"]
        self.base = cluster["server"]
        self.ctx = ssl.create_default_context(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
        self._tmp = tempfile.mkdtemp()
        cert, key = Path(self._tmp) / "c.pem", Path(self._tmp) / "k.pem"
        cert.write_bytes(base64.b64decode(user["client-certificate-data"]))
        key.write_bytes(base64.b64decode(user["client-key-data"]))
        self.ctx.load_cert_chain(cert, key)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=60) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())


@pytest.fixture(scope="module")
def oracle() -> Iterator[Kube]:
    configured = os.environ.get("FAKEKUBE_ORACLE_KUBECONFIG")
    if configured:
        yield Kube(Path(configured))
        return
    from tests.differential.harness.oracle import OracleUnavailable, running_oracle

    with ExitStack() as stack:
        try:
            started = stack.enter_context(running_oracle())
        except OracleUnavailable as exc:
            if os.environ.get("FAKEKUBE_REQUIRE_ORACLE"):
                raise
            pytest.skip(str(exc))
        yield Kube(started.kubeconfig)


def _hook(server: WebhookServer, path: str, name: str, **extra: Any) -> dict[str, Any]:
    spec = {"name": name, "clientConfig": server.client_config(path), "rules": [RULE], "sideEffects": "None",
            "admissionReviewVersions": ["v1"]}
    spec.update(extra)
    return spec


# name: (kind, webhook spec extras, handler, write, dry run)
def _deny(req: dict[str, Any]) -> dict[str, Any]:
    return {"allowed": False, "status": {"code": 403, "reason": "Forbidden", "message": "not today"}}


CASES: dict[str, tuple[str, dict[str, Any], Callable[[dict[str, Any]], dict[str, Any]], str, bool]] = {
    "mutate": ("Mutating", {}, lambda r: patch([{"op": "add", "path": "/data/injected", "value": "yes"}]), "create", False),
    "mutate-bad-path": ("Mutating", {}, lambda r: patch([{"op": "replace", "path": "/data/nothere", "value": "x"}]),
                        "create", False),
    "mutate-no-patch-type": ("Mutating", {}, lambda r: {"allowed": True, "patch": "W10="}, "create", False),
    "deny-status": ("Validating", {}, _deny, "create", False),
    "deny-bare": ("Validating", {}, lambda r: {"allowed": False}, "create", False),
    "deny-reason-only": ("Validating", {}, lambda r: {"allowed": False, "status": {"reason": "NoWay", "code": 200}},
                         "create", False),
    "deny-update": ("Validating", {}, _deny, "update", False),
    "deny-delete": ("Validating", {"rules": [{**RULE, "operations": ["DELETE"]}]}, _deny, "delete", False),
    "mutate-delete": ("Mutating", {"rules": [{**RULE, "operations": ["DELETE"]}]}, lambda r: {"allowed": True},
                      "delete", False),
    "down": ("Validating", {"clientConfig": {"url": "https://127.0.0.1:1/x"}}, lambda r: {"allowed": True},
             "create", False),
    "down-ignore": ("Validating", {"clientConfig": {"url": "https://127.0.0.1:1/x"}, "failurePolicy": "Ignore"},
                    lambda r: {"allowed": True}, "create", False),
    "untrusted": ("Validating", {"untrusted": True}, lambda r: {"allowed": True}, "create", False),
    "dry-run-side-effects": ("Validating", {"sideEffects": "Some"}, lambda r: {"allowed": True}, "create", True),
    "http-500-text": ("Validating", {}, lambda r: {"raw": (500, b"boom"), "text": True}, "create", False),
    "condition-error-ignore": ("Validating", {"failurePolicy": "Ignore", "matchConditions": [
        {"name": "c", "expression": "object.data.missing == 'a'"}]}, _deny, "create", False),
    "dry-run-ok": ("Validating", {"sideEffects": "NoneOnDryRun"}, lambda r: {"allowed": True}, "create", True),
    "validating-patch": ("Validating", {}, lambda r: patch([{"op": "add", "path": "/data/x", "value": "y"}]),
                         "create", False),
    "wrong-uid": ("Validating", {}, lambda r: {"allowed": True, "uid": "nope"}, "create", False),
    "http-500": ("Validating", {}, lambda r: {"raw": (500, b"boom")}, "create", False),
    "status-body-403": ("Validating", {}, lambda r: {"raw": (403, {"kind": "Status", "apiVersion": "v1",
                                                                   "status": "Failure", "message": "go away",
                                                                   "reason": "Forbidden", "code": 403})},
                        "create", False),
    "condition-false": ("Validating", {"matchConditions": [{"name": "c", "expression": "object.metadata.name == 'zz'"}]},
                        _deny, "create", False),
    "condition-error": ("Validating", {"matchConditions": [{"name": "c", "expression": "object.data.missing == 'a'"}]},
                        _deny, "create", False),
    "timeout": ("Validating", {"timeoutSeconds": 1, "slow": True}, lambda r: {"allowed": True}, "create", False),
    "warnings": ("Validating", {}, lambda r: {"allowed": True, "warnings": ["be careful"]}, "create", False),
}

# Disagreements that remain, with their reason (docs/admission.md, "Admission webhooks": what differs).
KNOWN: dict[str, str] = {}


def _normal_review(review: dict[str, Any]) -> dict[str, Any]:
    req = json.loads(json.dumps(review["request"]))
    req.pop("uid", None)
    req.pop("userInfo", None)
    for key in ("object", "oldObject"):
        obj = req.get(key)
        if isinstance(obj, dict):
            meta = obj.get("metadata", {})
            for field in ("uid", "creationTimestamp", "resourceVersion", "managedFields", "namespace"):
                meta.pop(field, None)
    if isinstance(req.get("options"), dict):
        req["options"].pop("fieldManager", None)
    req.pop("namespace", None)
    return req


def _run_case(store_or_kube: Any, server: WebhookServer, untrusted: WebhookServer, case: str,
              namespace: str) -> dict[str, Any]:
    kind, extra, handler, write, dry = CASES[case]
    extra = dict(extra)
    target = untrusted if extra.pop("untrusted", False) else server
    server.delay = 1.5 if extra.pop("slow", False) else 0.0
    path = f"/{case}"
    server.handlers[path] = handler
    untrusted.handlers[path] = handler
    spec = _hook(target, path, f"{case}.example.com", **extra)
    # Only this case's namespace (the root-CA publisher writes a ConfigMap into each one on the real server).
    spec["namespaceSelector"] = {"matchLabels": {"webhook-case": namespace}}
    if "url" in spec["clientConfig"] and target is untrusted:
        spec["clientConfig"] = {"url": untrusted.url(path), "caBundle": server.ca_bundle}
    elif spec["clientConfig"].get("url", "").startswith("https://127.0.0.1:1/"):
        spec["clientConfig"] = {"url": spec["clientConfig"]["url"], "caBundle": server.ca_bundle}
    plural = f"{kind.lower()}webhookconfigurations"
    config = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": f"{kind}WebhookConfiguration",
              "metadata": {"name": f"case-{case}"}, "webhooks": [spec]}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1", "namespace": namespace},
            "data": {"k": "v"}}
    query = "?dryRun=All" if dry else ""
    server.reviews.clear()
    untrusted.reviews.clear()
    if isinstance(store_or_kube, Kube):
        kube = store_or_kube
        kube.call("POST", "/api/v1/namespaces", {"metadata": {"name": namespace, "labels": {"webhook-case": namespace}}})
        if write in ("update", "delete"):
            kube.call("POST", f"/api/v1/namespaces/{namespace}/configmaps", body)
        kube.call("POST", f"/apis/admissionregistration.k8s.io/v1/{plural}", config)
        import time

        time.sleep(2.5)  # the webhook configuration informer of kube-apiserver catches up
        if write == "delete":
            code, answer = kube.call("DELETE", f"/api/v1/namespaces/{namespace}/configmaps/c1")
        elif write == "update":
            code, answer = kube.call("PUT", f"/api/v1/namespaces/{namespace}/configmaps/c1",
                                     {**body, "data": {"k": "w"}})
        else:
            code, answer = kube.call("POST", f"/api/v1/namespaces/{namespace}/configmaps{query}", body)
        kube.call("DELETE", f"/apis/admissionregistration.k8s.io/v1/{plural}/case-{case}")
        kube.call("DELETE", f"/api/v1/namespaces/{namespace}")
    else:
        store: Store = store_or_kube
        store.create("namespaces", {"metadata": {"name": namespace, "labels": {"webhook-case": namespace}}})
        if write in ("update", "delete"):
            store.create("configmaps", body, namespace)
        # (a configuration kube-apiserver refuses is refused here too; that answer is not compared here)
        with contextlib.suppress(errors.Invalid):
            store.create(plural, config)
        try:
            if write == "delete":
                answer = store.delete("configmaps", "c1", namespace)
            elif write == "update":
                current = store.get("configmaps", "c1", namespace)
                answer = store.update("configmaps", {**current, "data": {"k": "w"}}, namespace)
            else:
                answer = store.create("configmaps", body, namespace, dry_run=dry)
            code = 201 if write == "create" else 200
        except errors.ApiError as exc:
            code, answer = exc.code, exc.status
        if store.objects(plural):
            store.delete(plural, f"case-{case}")
    reviews = [_normal_review(r) for _, r in server.reviews + untrusted.reviews
               if r["request"].get("name") in ("c1", None)]
    answer = json.loads(re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uid>",
                               json.dumps(answer)))
    if code < 300:
        answer = {"data": answer.get("data"), "kind": answer.get("kind")}
    return {"code": code, "answer": answer, "reviews": reviews}


def test_webhooks_agree_with_kube_apiserver(oracle: Kube) -> None:
    server = WebhookServer()
    untrusted = WebhookServer(hosts=("127.0.0.1", "localhost", "untrusted"))  # another CA than the bundle's
    store = Store(seed=1)
    results: dict[str, tuple[bool, Any, Any]] = {}
    try:
        for i, case in enumerate(CASES):
            real = _run_case(oracle, server, untrusted, case, f"wh-{i}-{os.getpid()}")
            fake = _run_case(store, server, untrusted, case, f"wh-{i}-{os.getpid()}")
            results[case] = (real == fake, real, fake)
    finally:
        server.close()
        untrusted.close()
    agree = [c for c, (ok, _, _) in results.items() if ok]
    print(f"\nwebhook oracle agreement: {len(agree)}/{len(results)}")
    for case, (ok, real, fake) in results.items():
        if not ok:
            print(f"--- {case}\n real: {json.dumps(real, sort_keys=True)}\n fake: {json.dumps(fake, sort_keys=True)}")
    differing = sorted(c for c, (ok, _, _) in results.items() if not ok and c not in KNOWN)
    assert not differing, differing

"""Admission webhooks called by the store over HTTPS (fakekube.webhooks): the review sent, patches, refusals,
failurePolicy, dry run, selectors, match conditions, reinvocation, warnings and audit annotations. The
expected texts are upstream's (k8s.io/apiserver pkg/admission/plugin/webhook, v0.37.2) and were checked
against kube-apiserver v1.37.2 (tests/webhooks/test_oracle.py)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store
from fakekube.webhooks import transport
from tests.webhooks.server import WebhookServer, patch

RULE = {"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}


def hook(server: WebhookServer, path: str, name: str = "cm.example.com", **extra: Any) -> dict[str, Any]:
    spec = {"name": name, "clientConfig": server.client_config(path), "rules": [RULE], "sideEffects": "None",
            "admissionReviewVersions": ["v1"]}
    spec.update(extra)
    return spec


def configure(store: Store, kind: str, *hooks: dict[str, Any], name: str = "hooks") -> None:
    plural = "mutatingwebhookconfigurations" if kind == "Mutating" else "validatingwebhookconfigurations"
    store.create(plural, {"apiVersion": "admissionregistration.k8s.io/v1", "kind": f"{kind}WebhookConfiguration",
                          "metadata": {"name": name}, "webhooks": list(hooks)})


def cm(name: str = "c1", **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels},
            "data": {"k": "v"}}


def test_mutating_patch_lands_and_review_is_upstreams_shape(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    webhook.handlers["/m"] = lambda req: patch([{"op": "add", "path": "/data/injected", "value": "yes"}])
    configure(store, "Mutating", hook(webhook, "/m"))
    created = store.create("configmaps", cm(), "default", field_manager="tester")
    assert created["data"] == {"k": "v", "injected": "yes"}
    assert store.get("configmaps", "c1", "default")["data"]["injected"] == "yes"
    (path, review), = webhook.reviews
    assert review["apiVersion"] == "admission.k8s.io/v1" and review["kind"] == "AdmissionReview"
    req = review["request"]
    assert req["operation"] == "CREATE" and req["namespace"] == "default" and req["name"] == "c1"
    assert req["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
    assert req["resource"] == {"group": "", "version": "v1", "resource": "configmaps"}
    assert req["requestKind"] == req["kind"] and req["requestResource"] == req["resource"]
    assert req["oldObject"] is None and req["dryRun"] is False
    assert req["options"]["kind"] == "CreateOptions"
    # Mutating admission runs before BeforeCreate: no uid, no creationTimestamp yet.
    assert "uid" not in req["object"]["metadata"] and "creationTimestamp" not in req["object"]["metadata"]
    assert created["metadata"]["uid"]


def test_update_sends_old_object_and_validating_sees_final(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    webhook.handlers["/m"] = lambda req: patch([{"op": "add", "path": "/data/m", "value": "1"}])
    configure(store, "Mutating", hook(webhook, "/m"))
    configure(store, "Validating", hook(webhook, "/v"))
    store.create("configmaps", cm(), "default")
    webhook.reviews.clear()
    obj = store.get("configmaps", "c1", "default")
    obj["data"]["k"] = "w"
    store.update("configmaps", obj, "default")
    (p1, r1), (p2, r2) = webhook.reviews
    assert (p1, p2) == ("/m", "/v")
    assert r1["request"]["operation"] == "UPDATE" and r1["request"]["oldObject"]["data"] == {"k": "v", "m": "1"}
    assert r2["request"]["object"]["data"] == {"k": "w", "m": "1"}
    assert r2["request"]["options"]["kind"] == "UpdateOptions"
    assert r2["request"]["object"]["metadata"]["uid"]  # validating admission follows BeforeCreate/BeforeUpdate


def test_denial_is_the_webhooks_status(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    webhook.handlers["/v"] = lambda req: {"allowed": False, "status": {"code": 403, "reason": "Forbidden",
                                                                       "message": "no configmaps today"}}
    configure(store, "Validating", hook(webhook, "/v", name="deny.example.com"))
    with pytest.raises(errors.ApiError) as caught:
        store.create("configmaps", cm(), "default")
    assert caught.value.status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'admission webhook "deny.example.com" denied the request: no configmaps today',
        "reason": "Forbidden", "code": 403}
    assert store.objects("configmaps", "default") == []


def test_denial_without_status_is_a_400_without_explanation(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    webhook.handlers["/v"] = lambda req: {"allowed": False}
    configure(store, "Validating", hook(webhook, "/v"))
    with pytest.raises(errors.ApiError) as caught:
        store.create("configmaps", cm(), "default")
    assert (caught.value.code, caught.value.reason) == (400, "")
    assert caught.value.message == 'admission webhook "cm.example.com" denied the request without explanation'


def test_webhook_down_fails_closed_or_open(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    down = {"url": "https://127.0.0.1:1/x", "caBundle": webhook.ca_bundle}
    configure(store, "Validating", hook(webhook, "/v", name="down.example.com", clientConfig=down))
    with pytest.raises(errors.ApiError) as caught:
        store.create("configmaps", cm(), "default")
    reason = ('failed calling webhook "down.example.com": failed to call webhook: Post '
              '"https://127.0.0.1:1/x?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused')
    assert caught.value.status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                   "message": f"Internal error occurred: {reason}", "reason": "InternalError",
                                   "details": {"causes": [{"message": reason}]}, "code": 500}
    store.delete("validatingwebhookconfigurations", "hooks")
    configure(store, "Validating", hook(webhook, "/v", name="down.example.com", clientConfig=down,
                                        failurePolicy="Ignore"))
    store.create("configmaps", cm(), "default")
    entry = store.last_request()
    assert entry.request.annotations == {
        "failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "down.example.com"}


def test_untrusted_certificate(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    configure(store, "Validating", hook(webhook, "/v", clientConfig={"url": webhook.url("/v")}))
    with pytest.raises(errors.ApiError) as caught:
        store.create("configmaps", cm(), "default")
    assert caught.value.message.endswith(
        "x509: certificate signed by unknown authority")


def test_timeout_fails_as_failure_policy_says(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    # The call's timeout comes from timeoutSeconds (1 s, as the URL says); made shorter here to keep the test quick.
    store.webhook_caller = lambda point, ca, body, timeout: transport.post(point, ca, body, 0.1)
    webhook.delay = 0.3
    configure(store, "Validating", hook(webhook, "/v", timeoutSeconds=1))
    with pytest.raises(errors.ApiError) as caught:
        store.create("configmaps", cm(), "default")
    assert caught.value.message == (
        'Internal error occurred: failed calling webhook "cm.example.com": failed to call webhook: Post '
        f'"{webhook.url("/v")}?timeout=1s": context deadline exceeded')


def test_dry_run_needs_side_effects_none(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    # v1 accepts only None and NoneOnDryRun, so the refusal of a dry run (dispatcher.go callHook) concerns only
    # configurations stored before; such a one is put in place around the validation here.
    configure(store, "Validating", hook(webhook, "/v"))
    stored = store.stored_object("admissionregistration.k8s.io/validatingwebhookconfigurations", ("", "hooks"))
    stored["webhooks"][0]["sideEffects"] = "Some"
    with pytest.raises(errors.ApiError) as caught:
        store.create("configmaps", cm(), "default", dry_run=True)
    assert (caught.value.code, caught.value.message) == (
        400, 'admission webhook "cm.example.com" does not support dry run')
    assert webhook.reviews == []
    store.create("configmaps", cm(), "default")  # not a dry run: called
    assert len(webhook.reviews) == 1


def test_side_effects_must_be_none_in_v1(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    with pytest.raises(errors.ApiError) as caught:
        configure(store, "Validating", hook(webhook, "/v", sideEffects="Some"))
    assert caught.value.message == ('ValidatingWebhookConfiguration.admissionregistration.k8s.io "hooks" is invalid: '
                                    'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", '
                                    '"NoneOnDryRun"')


def test_dry_run_flag_reaches_webhook(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    configure(store, "Validating", hook(webhook, "/v", sideEffects="NoneOnDryRun"))
    store.create("configmaps", cm(), "default", dry_run=True)
    req = webhook.reviews[0][1]["request"]
    assert req["dryRun"] is True and req["options"]["dryRun"] == ["All"]


def test_selectors(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    store.create("namespaces", {"metadata": {"name": "watched", "labels": {"team": "a"}}})
    configure(store, "Validating", hook(webhook, "/v", namespaceSelector={"matchLabels": {"team": "a"}},
                                        objectSelector={"matchExpressions": [{"key": "skip", "operator": "DoesNotExist"}]}))
    store.create("configmaps", cm("a"), "default")
    store.create("configmaps", cm("b"), "watched")
    store.create("configmaps", cm("c", skip="1"), "watched")
    assert [r["request"]["name"] for _, r in webhook.reviews] == ["b"]


def test_rules_operations_and_subresources(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    rule = {"operations": ["UPDATE"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["configmaps/status"]}
    configure(store, "Validating", hook(webhook, "/v", rules=[rule]))
    store.create("configmaps", cm(), "default")
    obj = store.get("configmaps", "c1", "default")
    obj["data"] = {"x": "y"}
    store.update("configmaps", obj, "default")
    assert webhook.reviews == []  # a subresource's rule is not the main resource's (and CREATE is not UPDATE)
    rule["resources"] = ["configmaps/*"]  # "*" matches any subresource, none included (rules.go resource())
    configure(store, "Validating", hook(webhook, "/v", rules=[rule]), name="more")
    store.update("configmaps", store.get("configmaps", "c1", "default"), "default")
    assert len(webhook.reviews) == 1


def test_match_conditions(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    configure(store, "Validating", hook(webhook, "/v", matchConditions=[
        {"name": "named", "expression": "object.metadata.name.startsWith('x-')"},
        {"name": "op", "expression": "request.operation == 'CREATE'"}]))
    store.create("configmaps", cm("a"), "default")
    store.create("configmaps", cm("x-b"), "default")
    assert [r["request"]["name"] for _, r in webhook.reviews] == ["x-b"]


def test_warnings_and_audit_annotations(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    webhook.handlers["/m"] = lambda req: {**patch([{"op": "add", "path": "/data/a", "value": "b"}]),
                                          "warnings": ["careful"], "auditAnnotations": {"seen": "yes"}}
    configure(store, "Mutating", hook(webhook, "/m", name="mut.example.com"), name="cfg")
    store.create("configmaps", cm(), "default")
    entry = store.last_request()
    assert entry.warnings == ["careful"]
    annotations = entry.request.annotations
    assert annotations["mut.example.com/seen"] == "yes"
    assert json.loads(annotations["mutation.webhook.admission.k8s.io/round_0_index_0"]) == {
        "configuration": "cfg", "webhook": "mut.example.com", "mutated": True}
    assert json.loads(annotations["patch.webhook.admission.k8s.io/round_0_index_0"]) == {
        "configuration": "cfg", "webhook": "mut.example.com",
        "patch": [{"op": "add", "path": "/data/a", "value": "b"}], "patchType": "JSONPatch"}


def test_reinvocation_if_needed(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    # "a" adds a label; "b" (after it) changes data, so "a" (IfNeeded) is called once more.
    webhook.handlers["/a"] = lambda req: patch([{"op": "add", "path": "/metadata/labels/a", "value": "1"}])
    webhook.handlers["/b"] = lambda req: patch([{"op": "add", "path": "/data/b", "value": "2"}])
    configure(store, "Mutating", hook(webhook, "/a", name="a.example.com", reinvocationPolicy="IfNeeded"),
              hook(webhook, "/b", name="b.example.com"))
    store.create("configmaps", cm(app="x"), "default")
    assert [p for p, _ in webhook.reviews] == ["/a", "/b", "/a"]
    assert webhook.reviews[2][1]["request"]["object"]["data"]["b"] == "2"
    annotations = store.last_request().request.annotations
    assert "mutation.webhook.admission.k8s.io/round_1_index_0" in annotations


def test_invalid_response_and_bad_patch(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    webhook.handlers["/m"] = lambda req: {"allowed": True, "patch": "W10="}  # a patch without its type
    configure(store, "Mutating", hook(webhook, "/m"))
    with pytest.raises(errors.ApiError) as caught:
        store.create("configmaps", cm(), "default")
    assert caught.value.message == ('Internal error occurred: failed calling webhook "cm.example.com": received '
                                    'invalid webhook response: webhook returned response.patch but not '
                                    'response.patchType')


def test_service_reference_maps_to_loopback() -> None:
    server = WebhookServer(hosts=("hooks.system.svc",))
    try:
        store = Store(seed=1)
        store.set_webhook_service("system", "hooks", f"127.0.0.1:{server.port}")
        config = {"service": {"namespace": "system", "name": "hooks", "path": "/v"}, "caBundle": server.ca_bundle}
        configure(store, "Validating", hook(server, "/v", clientConfig=config))
        store.create("configmaps", cm(), "default")
        assert [p for p, _ in server.reviews] == ["/v"]
        store.webhook_services = type(store.webhook_services)()  # unmapped: the name does not resolve
        with pytest.raises(errors.ApiError) as caught:
            store.create("configmaps", cm("c2"), "default")
        assert caught.value.message.endswith(
            'Post "https://hooks.system.svc:443/v?timeout=10s": dial tcp: lookup hooks.system.svc: no such host')
    finally:
        server.close()


def test_webhook_configurations_are_exempt(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    rule = {"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}
    webhook.handlers["/v"] = lambda req: {"allowed": False}
    configure(store, "Validating", hook(webhook, "/v", rules=[rule]))
    store.delete("validatingwebhookconfigurations", "hooks")  # not refused by itself


def test_a_slow_webhook_does_not_hold_other_clients(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    webhook.delay = 0.3
    configure(store, "Validating", hook(webhook, "/v"))
    thread = threading.Thread(target=store.create, args=("configmaps", cm(), "default"))
    thread.start()
    time.sleep(0.05)
    started = time.monotonic()
    store.create("secrets", {"metadata": {"name": "s"}}, "default")  # not a configmap: no webhook
    assert time.monotonic() - started < 0.2
    thread.join()
    assert store.get("configmaps", "c1", "default")


def test_update_starts_over_when_object_moved(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    store.create("configmaps", cm(), "default")
    moved = threading.Event()

    def slow_then_move(req: dict[str, Any]) -> dict[str, Any]:
        if not moved.is_set():
            moved.set()
            store.patch("configmaps", "c1", {"data": {"other": "x"}}, "default", actor="other")
        return {"allowed": True}

    webhook.handlers["/v"] = slow_then_move
    configure(store, "Validating", hook(webhook, "/v", rules=[{**RULE, "operations": ["UPDATE"]}]))
    store.patch("configmaps", "c1", {"data": {"mine": "y"}}, "default")
    assert store.get("configmaps", "c1", "default")["data"] == {"k": "v", "other": "x", "mine": "y"}
    assert len(webhook.reviews) == 3  # the other patch's, ours, ours again on the moved object


def test_delete_sends_the_stored_object_as_old_object(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    store.create("configmaps", cm(protected="yes"), "default")
    rule = {"operations": ["DELETE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}
    webhook.handlers["/v"] = lambda req: ({"allowed": False, "status": {"message": "protected"}}
                                          if req["oldObject"]["metadata"].get("labels", {}).get("protected") else
                                          {"allowed": True})
    configure(store, "Validating", hook(webhook, "/v", rules=[rule]))
    with pytest.raises(errors.ApiError, match='admission webhook "cm.example.com" denied the request: protected'):
        store.delete("configmaps", "c1", "default")
    req = webhook.reviews[0][1]["request"]
    assert (req["operation"], req["object"], req["options"]["kind"]) == ("DELETE", None, "DeleteOptions")
    assert store.get("configmaps", "c1", "default")
    store.create("configmaps", cm("c2"), "default")
    store.delete("configmaps", "c2", "default")


@pytest.fixture
def webhook_services(hook_server: WebhookServer) -> dict[str, str]:
    return {"system/hooks:443": f"127.0.0.1:{hook_server.port}"}


def test_webhook_services_fixture_maps_kube(kube: Store, hook_server: WebhookServer) -> None:
    assert kube.webhook_services.resolve("system", "hooks", 443) == ("127.0.0.1", hook_server.port)


def _label_policy(store: Store, name: str, expression: str, reinvocation: str) -> None:
    v1 = "admissionregistration.k8s.io/v1"
    store.create("mutatingadmissionpolicies", {
        "apiVersion": v1, "kind": "MutatingAdmissionPolicy", "metadata": {"name": name},
        "spec": {"matchConstraints": {"resourceRules": [RULE]}, "reinvocationPolicy": reinvocation,
                 "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}]}})
    store.create("mutatingadmissionpolicybindings", {"apiVersion": v1, "kind": "MutatingAdmissionPolicyBinding",
                                                     "metadata": {"name": name}, "spec": {"policyName": name}})


def test_policies_run_before_webhooks_and_both_are_reinvoked(webhook: WebhookServer) -> None:
    store = Store(seed=1)
    # The policy (IfNeeded) copies the webhook's label; it runs first, so only its second round sees it.
    _label_policy(store, "copy", "'hooked' in object.metadata.labels ? Object{metadata: Object.metadata{labels: "
                                 "{'copied': object.metadata.labels['hooked']}}} : Object{}", "IfNeeded")
    # The webhook (IfNeeded) records what it saw; called again once the policy's second round changed the object.
    webhook.handlers["/m"] = lambda req: patch(
        [{"op": "add", "path": "/metadata/labels/hooked", "value": "yes"}]
        if "hooked" not in req["object"]["metadata"]["labels"] else [])
    configure(store, "Mutating", hook(webhook, "/m", reinvocationPolicy="IfNeeded"))
    made = store.create("configmaps", cm(app="x"), "default")
    assert made["metadata"]["labels"] == {"app": "x", "hooked": "yes", "copied": "yes"}
    assert [p for p, _ in webhook.reviews] == ["/m", "/m"]
    assert webhook.reviews[1][1]["request"]["object"]["metadata"]["labels"]["copied"] == "yes"

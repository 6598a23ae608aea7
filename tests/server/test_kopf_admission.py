"""kopf's admission example (nolar/kopf ``examples/17-admission/example.py``: its handlers, restated here) run
under KopfRunner against the fake server, with kopf serving its own webhooks (``WebhookAutoServer``) and managing
their configurations (``settings.admission.managed``): mutations land, rejections reject, as on a real cluster.

The example's final configuration is ``WebhookAutoServer()``, which needs kopf's optional ``certvalidator`` and
``certbuilder`` packages to guess the cluster type and make a certificate; here the example's own "plain and
simple local endpoint with provided certificate" (``kopf.WebhookServer(certfile=..., pkeyfile=...)``, the same
server class without the guessing) is used with a certificate from fakekube.server.tls, so no extra dependency
is needed."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from fakekube import errors
from fakekube.server.fixtures import KubeServer
from fakekube.server.tls import make_certificates

pytest.importorskip("kopf")
from kopf.testing import KopfRunner  # noqa: E402

pytestmark = pytest.mark.slow

KEX_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "kopfexamples.kopf.dev"},
    "spec": {"group": "kopf.dev", "scope": "Namespaced",
             "names": {"plural": "kopfexamples", "singular": "kopfexample", "kind": "KopfExample",
                       "shortNames": ["kex"]},
             "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                               "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]},
}

OPERATOR = '''
import kopf

@kopf.on.startup()
def config(settings: kopf.OperatorSettings, **_):
    settings.peering.standalone = True
    settings.scanning.disabled = True
    settings.posting.enabled = False
    settings.watching.server_timeout = 5
    settings.networking.request_timeout = 10
    settings.admission.server = kopf.WebhookServer(certfile=CERT, pkeyfile=KEY, host="localhost")
    settings.admission.managed = 'auto.kopf.dev'

@kopf.on.validate('kex')
def validate1(spec, dryrun, **_):
    if not dryrun and spec.get('field') == 'wrong':
        raise kopf.AdmissionError("Meh! I don't like it. Change the field.")

@kopf.on.validate('kex', field='spec.field', value='not-allowed')
def validate2(**_):
    raise kopf.AdmissionError("I'm too lazy anyway. Go away!", code=555)

@kopf.on.validate('kex', subresource='*')
def validate_subresources(spec, subresource, status, warnings, **_):
    if subresource == 'status' and status.get('field') != spec.get('field'):
        raise kopf.AdmissionError("status.field MUST be equal to spec.field!")
    elif subresource is None and status.get('field') != spec.get('field'):
        warnings.append(f"Also update status.field to match spec.field: {spec.get('field')!r} != {status.get('field')!r}")

@kopf.on.mutate('kex', labels={'somelabel': 'somevalue'})
def mutate1(patch, **_):
    patch.spec['injected'] = 123
'''


def _kex(name: str, field: str, **labels: str) -> dict:
    return {"apiVersion": "kopf.dev/v1", "kind": "KopfExample",
            "metadata": {"name": name, "labels": labels}, "spec": {"field": field}}


def _mutated_dry_run(store) -> bool:
    try:
        probe = store.create("kopfexamples", _kex("probe", "value", somelabel="somevalue"), "default", dry_run=True)
    except errors.ApiError:
        return False
    return probe["spec"].get("injected") == 123


def _wait(predicate, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_kopf_admission_example_handlers_run(kube_server: KubeServer, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    store = kube_server.store
    store.load_crds(KEX_CRD)
    certs = make_certificates(("localhost", "127.0.0.1", "::1"))
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_bytes(certs.cert_pem + certs.ca_pem)
    key.write_bytes(certs.key_pem)
    operator = tmp_path / "operator.py"
    operator.write_text(f"CERT = {str(cert)!r}\nKEY = {str(key)!r}\n" + OPERATOR)
    monkeypatch.setenv("KUBECONFIG", str(kube_server.kubeconfig))
    kube_config = pytest.importorskip("kubernetes.config.kube_config")
    monkeypatch.setattr(kube_config, "KUBE_CONFIG_DEFAULT_LOCATION", str(kube_server.kubeconfig))
    with KopfRunner(["run", "-A", "--standalone", "--verbose", str(operator)], timeout=60) as runner:
        assert _wait(lambda: store.objects("mutatingwebhookconfigurations")
                     and store.objects("validatingwebhookconfigurations")), "kopf did not configure its webhooks"
        # kopf creates its configurations empty, then patches their webhooks in once its server runs
        # (kopf/_core/engines/admission.py configuration_manager): CI once created the first object between the
        # two. Wait until a dry run meets the mutating handler, as an operator's e2e test would.
        assert _wait(lambda: _mutated_dry_run(store)), "kopf's mutating webhook never answered"
        # The mutating handler runs: the object is stored with what it injected.
        created = store.create("kopfexamples", _kex("mutated", "value", somelabel="somevalue"), "default")
        assert created["spec"] == {"field": "value", "injected": 123}
        assert store.get("kopfexamples", "mutated", "default")["spec"]["injected"] == 123
        untouched = store.create("kopfexamples", _kex("plain", "value"), "default")
        assert "injected" not in untouched["spec"]
        # kopf's warnings reach the client (Warning headers over HTTP).
        assert "Also update status.field to match spec.field: 'value' != None" in store.last_request().warnings
        # The validating handlers run: rejected objects are not stored, with kopf's message and code.
        with pytest.raises(errors.ApiError) as wrong:
            store.create("kopfexamples", _kex("wrong", "wrong"), "default")
        assert "denied the request: Meh! I don't like it. Change the field." in wrong.value.message
        with pytest.raises(errors.ApiError) as lazy:
            store.create("kopfexamples", _kex("lazy", "not-allowed"), "default")
        assert lazy.value.code == 555
        assert lazy.value.message.endswith("denied the request: I'm too lazy anyway. Go away!")
        names = {o["metadata"]["name"] for o in store.objects("kopfexamples", "default")}
        assert names == {"mutated", "plain"}
        # The same refusal over HTTP, as a client sees it.
        request = urllib.request.Request(f"{kube_server.url}/apis/kopf.dev/v1/namespaces/default/kopfexamples",
                                         data=json.dumps(_kex("wrong", "wrong")).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as http_error:
            urllib.request.urlopen(request, timeout=30)
        body = json.loads(http_error.value.read())
        assert (http_error.value.code, body["kind"], body["message"]) == (
            wrong.value.code, "Status", wrong.value.message)
        # A dry run tells the handler so (validate1 lets it through).
        store.create("kopfexamples", _kex("wrong", "wrong"), "default", dry_run=True)
        # The subresource handler: a status that does not match spec is refused, with kopf's warning otherwise.
        with pytest.raises(errors.ApiError) as status:
            store.patch("kopfexamples", "plain", {"status": {"field": "other"}}, "default", subresource="status")
        assert status.value.message.endswith("status.field MUST be equal to spec.field!")
    assert runner.exception is None or isinstance(runner.exception, SystemExit), runner.exception

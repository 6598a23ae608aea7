"""A minimal kopf operator under KopfRunner reconciles a Widget through ``kube_server``: it patches status on
create (to ``/status``, since discovery lists ``widgets/status``), keeps its finalizer with JSON-patch
``test`` ops, and lets the deletion finish."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("kopf")
from kopf.testing import KopfRunner  # noqa: E402

OPERATOR = '''
import kopf

@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_):
    settings.peering.standalone = True
    settings.scanning.disabled = True
    settings.posting.enabled = False
    settings.watching.server_timeout = 5
    settings.networking.request_timeout = 10

@kopf.on.create("example.com", "v1", "widgets")
def reconcile(spec, patch, **_):
    patch.status["observedSize"] = spec.get("size")
    return {"reconciled": True}

@kopf.on.delete("example.com", "v1", "widgets")
def cleanup(name, **_):
    pass
'''


@pytest.fixture
def kube_server(either_front):
    """The operator runs against the HTTP front and in process (tests/server/conftest.py, ``either_front``)."""
    return either_front


def _wait(predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_kopf_operator_reconciles_and_patches_status(widgets, tmp_path, monkeypatch):
    operator = tmp_path / "operator.py"
    operator.write_text(OPERATOR)
    monkeypatch.setenv("KUBECONFIG", str(widgets.kubeconfig))
    # kopf logs in through the `kubernetes` package when it is installed, and that package reads $KUBECONFIG
    # once, at import time: point its default at the fixture's file too.
    kube_config = pytest.importorskip("kubernetes.config.kube_config")
    monkeypatch.setattr(kube_config, "KUBE_CONFIG_DEFAULT_LOCATION", str(widgets.kubeconfig))
    store = widgets.store
    args = ["run", "-A", "--standalone", "--verbose", str(operator)]
    with KopfRunner(args, timeout=20) as runner:
        store.create("widgets", {"apiVersion": "example.com/v1", "kind": "Widget",
                                 "metadata": {"name": "w1"}, "spec": {"size": 3}}, "default")

        def reconciled():
            status = store.get("widgets", "w1", "default").get("status") or {}
            return status.get("observedSize") == 3 and status.get("reconcile") == {"reconciled": True}

        assert _wait(reconciled), store.get("widgets", "w1", "default")
        assert "kopf.zalando.org/KopfFinalizerMarker" in store.get("widgets", "w1", "default")["metadata"][
            "finalizers"]
        store.delete("widgets", "w1", "default")
        assert _wait(lambda: store.objects("widgets") == []), store.objects("widgets")
    assert runner.exception is None or isinstance(runner.exception, SystemExit), runner.exception
    kopf_writes = [e for e in store.audit if e.actor == "kopf" and e.is_write]
    assert any(e.subresource == "status" for e in kopf_writes)
    assert any(e.patch_type == "application/json-patch+json" for e in kopf_writes)
    assert all(e.code < 500 for e in store.audit), [e for e in store.audit if e.code >= 500]

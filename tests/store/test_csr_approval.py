"""A CertificateSigningRequest's ``/approval`` subresource and the checks of its conditions.

Expected answers are kube-apiserver v1.37.2's (the oracle), for the same requests; controller-runtime's
SubResourceClient tests approve CSRs this way (``cl.SubResource("approval").Update`` and ``.Patch``).
"""

from __future__ import annotations

import copy
import json

import pytest

from fakekube import errors
from fakekube.store import Store
from tests.builtin_objects import CSR_REQUEST

CSR = {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "csr"},
       "spec": {"request": CSR_REQUEST, "signerName": "example.com/signer", "usages": ["client auth"]}}


@pytest.fixture
def csr(kube: Store) -> dict:
    return kube.create("certificatesigningrequests", copy.deepcopy(CSR))


def _with(obj: dict, *conditions: dict) -> dict:
    body = copy.deepcopy(obj)
    body.setdefault("status", {})["conditions"] = list(conditions)
    return body


def test_approval_writes_the_conditions_and_metadata_only_and_stamps_them(kube: Store, csr: dict) -> None:
    body = _with(csr, {"type": "Approved", "status": "True", "reason": "ok"})
    body["spec"]["signerName"] = "other.com/x"
    body["status"]["certificate"] = "YWJj"
    body["metadata"]["labels"] = {"l": "v"}
    approved = kube.update("certificatesigningrequests", body, subresource="approval")
    assert approved["spec"]["signerName"] == "example.com/signer"
    assert approved["metadata"]["labels"] == {"l": "v"}
    (condition,) = approved["status"]["conditions"]
    assert "certificate" not in approved["status"]
    assert condition["type"] == "Approved" and condition["reason"] == "ok"
    assert condition["lastUpdateTime"] == condition["lastTransitionTime"]
    assert condition["lastUpdateTime"].endswith("Z")


def test_approval_by_merge_patch(kube: Store, csr: dict) -> None:
    patched = kube.patch("certificatesigningrequests", "csr", json.dumps(
        {"status": {"conditions": [{"type": "Approved", "status": "True"}]}}), subresource="approval")
    assert [c["type"] for c in patched["status"]["conditions"]] == ["Approved"]


@pytest.mark.parametrize(("conditions", "message"), [
    ([{"type": "Approved", "status": "True"}, {"type": "Denied", "status": "True"}],
     'CertificateSigningRequest.certificates.k8s.io "csr" is invalid: status.conditions: Invalid value: '
     '"{conditions[{\\"type\\": \\"Approved\\"}], conditions[{\\"type\\": \\"Denied\\"}]}": must specify at most '
     'one of: `conditions[{"type": "Approved"}]`, `conditions[{"type": "Denied"}]`'),
    ([{"type": "Approved", "status": "False"}, {"type": "", "status": ""}, {"type": "X", "status": "Maybe"},
      {"type": "X", "status": "True"}],
     'CertificateSigningRequest.certificates.k8s.io "csr" is invalid: [status.conditions[0].status: Unsupported '
     'value: "False": supported values: "True", status.conditions[1].type: Required value, '
     'status.conditions[1].status: Required value, status.conditions[2].status: Unsupported value: "Maybe": '
     'supported values: "False", "True", "Unknown", status.conditions[3].type: Duplicate value: "X"]'),
])
def test_conditions_are_checked(kube: Store, csr: dict, conditions: list, message: str) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube.update("certificatesigningrequests", _with(csr, *conditions), subresource="approval")
    assert caught.value.message == message


def test_a_decision_is_never_removed_and_only_approval_adds_one(kube: Store, csr: dict) -> None:
    approved = kube.update("certificatesigningrequests", _with(csr, {"type": "Approved", "status": "True"}),
                           subresource="approval")
    with pytest.raises(errors.Invalid) as caught:
        kube.update("certificatesigningrequests", _with(approved), subresource="approval")
    assert caught.value.message == ('CertificateSigningRequest.certificates.k8s.io "csr" is invalid: status.conditions: '
                                    'Forbidden: updates may not remove a condition of type "Approved"')
    denied = _with(approved, *approved["status"]["conditions"], {"type": "Denied", "status": "True"})
    with pytest.raises(errors.Invalid) as caught:
        kube.update("certificatesigningrequests", denied, subresource="status")
    assert caught.value.message.startswith(
        'CertificateSigningRequest.certificates.k8s.io "csr" is invalid: [status.conditions: Forbidden: updates may '
        'not add a condition of type "Denied", status.conditions: Invalid value: ')


def test_a_kept_condition_keeps_its_transition_time(kube: Store, csr: dict) -> None:
    first = kube.update("certificatesigningrequests", _with(csr, {"type": "Approved", "status": "True",
                        "lastTransitionTime": "2020-01-01T00:00:00Z"}), subresource="approval")
    again = _with(first, {"type": "Approved", "status": "True"}, {"type": "Custom", "status": "True"})
    second = kube.update("certificatesigningrequests", again, subresource="approval")
    assert second["status"]["conditions"][0]["lastTransitionTime"] == "2020-01-01T00:00:00Z"
    assert second["status"]["conditions"][1]["lastTransitionTime"] != "2020-01-01T00:00:00Z"


def test_an_apply_to_status_sets_conditions_without_owning_them(kube: Store, csr: dict) -> None:
    # observed on kube-apiserver v1.37.2: status.conditions is a reset field of /status (kubernetes
    # pkg/registry/certificates/certificates/strategy.go csrStatusStrategy.GetResetFields), so the applier owns
    # nothing and no managedFields entry is written
    config = {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "csr"},
              "status": {"conditions": [{"type": "Demo", "status": "True", "reason": "Demo", "message": "demo"}]}}
    applied = kube.patch("certificatesigningrequests", "csr", json.dumps(config), subresource="status",
                         patch_type="application/apply-patch+yaml", field_manager="status-writer")
    assert [c["type"] for c in applied["status"]["conditions"]] == ["Demo"]
    assert "managedFields" not in applied["metadata"]

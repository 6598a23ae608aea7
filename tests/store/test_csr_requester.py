"""A CertificateSigningRequest's requester fields and the fields its strategies reset.

Expected answers are kube-apiserver v1.37.2's (the oracle: the differential corpus's
``certificatesigningrequest.certificates.k8s.io/*`` cases, as the client-certificate admin); upstream
pkg/registry/certificates/certificates/strategy.go (PrepareForCreate, PrepareForUpdate, GetResetFields, the
status strategy's populateConditionTimestamps).
"""

from __future__ import annotations

import copy
import json

from fakekube.identity import UserInfo
from fakekube.store import Store
from tests.builtin_objects import CSR_REQUEST

CSR = {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "csr"},
       "spec": {"request": CSR_REQUEST, "signerName": "example.com/signer", "usages": ["client auth"],
                "username": "forged", "groups": ["system:masters"]}}
ADMIN = UserInfo("admin", groups=("system:masters", "system:authenticated"),
                 extra={"authentication.kubernetes.io/credential-id": ("X509SHA256=ab",)})


def test_the_requester_replaces_what_the_client_wrote_and_spec_is_not_tracked(kube: Store) -> None:
    created = kube.create("certificatesigningrequests", copy.deepcopy(CSR), user=ADMIN)
    spec = created["spec"]
    assert (spec["username"], spec["groups"]) == ("admin", ["system:masters", "system:authenticated"])
    assert spec["extra"] == {"authentication.kubernetes.io/credential-id": ["X509SHA256=ab"]}
    assert "uid" not in spec  # omitempty: the certificate's user has none
    # GetResetFields resets spec and status: nothing but metadata is left to own, so no entry at all.
    assert "managedFields" not in created["metadata"]


def test_an_anonymous_create_names_the_anonymous_user(kube: Store) -> None:
    created = kube.create("certificatesigningrequests", copy.deepcopy(CSR))
    assert (created["spec"]["username"], created["spec"]["groups"]) == ("system:anonymous",
                                                                         ["system:unauthenticated"])


def test_a_put_keeps_spec_and_status_so_changing_only_them_is_a_no_op(kube: Store) -> None:
    created = kube.create("certificatesigningrequests", copy.deepcopy(CSR), user=ADMIN)
    body = copy.deepcopy(created)
    body["spec"]["signerName"] = "other.example.com/x"
    body["status"] = {"certificate": "YWJj"}
    updated = kube.update("certificatesigningrequests", body)
    assert updated["spec"] == created["spec"] and updated["status"] == {}
    assert updated["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


def test_a_status_write_keeps_spec_and_stamps_new_conditions(kube: Store) -> None:
    created = kube.create("certificatesigningrequests", copy.deepcopy(CSR), user=ADMIN)
    body = copy.deepcopy(created)
    body["spec"]["signerName"] = "other.example.com/x"
    body["status"] = {"conditions": [{"type": "Demo", "status": "True"}]}
    updated = kube.update("certificatesigningrequests", body, subresource="status")
    assert updated["spec"] == created["spec"]
    (condition,) = updated["status"]["conditions"]
    assert condition["lastTransitionTime"] == condition["lastUpdateTime"]


def test_an_apply_that_creates_keeps_the_spec_but_owns_none_of_it(kube: Store) -> None:
    config = copy.deepcopy(CSR)
    created = kube.patch("certificatesigningrequests", "csr", json.dumps(config),
                         patch_type="application/apply-patch+yaml", field_manager="a", user=ADMIN)
    assert created["spec"]["signerName"] == "example.com/signer" and created["spec"]["username"] == "admin"
    (entry,) = created["metadata"].get("managedFields") or [{"fieldsV1": {}}]
    assert "f:spec" not in entry["fieldsV1"]

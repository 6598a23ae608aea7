"""RBAC mode (``fakekube serve --authorization-mode RBAC``, ``kube_cluster_options={"authorization_mode":
"RBAC"}``): the options an ``ApiServer`` needs to authorize as a kubeadm cluster does."""

from __future__ import annotations

import contextlib
from typing import Any

from fakekube import errors
from fakekube.identity import UserInfo
from fakekube.rbac_authorizer import PRIVILEGED_GROUP, RBACAuthorizer
from fakekube.server.tls import ADMIN_GROUPS
from fakekube.store import Store

__all__ = ["rbac_options"]


def rbac_options(store: Store, token: str | None) -> dict[str, Any]:
    """The server options of RBAC mode: the authorizer, the static token's user in ``system:masters`` (as
    envtest's admin is), and kubeadm's ``kubeadm:cluster-admins`` binding, which makes the TLS admin
    certificate's group (fakekube.server.tls) cluster-admin as on a kubeadm or kind cluster
    (cmd/kubeadm/app/phases/kubeconfig). The ClusterRoles come from the cluster's bootstrap policy."""
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": ADMIN_GROUPS[0]},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": ADMIN_GROUPS[0]}],
    }
    with contextlib.suppress(errors.AlreadyExists):  # a second server on the same store
        store.create("clusterrolebindings", binding, actor="kubeadm", field_manager="kubeadm")
    options: dict[str, Any] = {"authorizer": RBACAuthorizer(store)}
    if token:
        options["tokens"] = {token: UserInfo("admin", groups=(PRIVILEGED_GROUP,))}
    return options

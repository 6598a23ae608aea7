"""The RBAC bootstrap policy a real cluster starts with, from ``rbac_bootstrap.json``.

kube-apiserver's ``rbac/bootstrap-roles`` post-start hook (kubernetes ``pkg/registry/rbac/rest/
storage_rbac.go``, policy in ``plugin/pkg/auth/authorizer/rbac/bootstrappolicy``) makes sure the default
ClusterRoles (``cluster-admin``, the aggregated ``admin`` / ``edit`` / ``view`` and their
``system:aggregate-to-*`` parts, the ``system:*`` roles of the components), their ClusterRoleBindings and the
kube-system / kube-public Roles and RoleBindings exist, each labelled ``kubernetes.io/bootstrapping:
rbac-defaults`` and annotated ``rbac.authorization.kubernetes.io/autoupdate: "true"``. The data is generated
from upstream's testdata by ``scripts/generate_rbac_bootstrap.py``.

``bootstrap_rbac(store)`` creates what is missing — only when a cluster starts (``Cluster(...)``), never for a
bare ``kube`` store — as ordinary audited creates by ``kube-apiserver``. The aggregated roles are created with
``rules: null``, as the API server creates them; the clusterrole-aggregation controller fills them in.
"""

from __future__ import annotations

import contextlib
import json
from functools import cache
from importlib import resources
from typing import Any

from fakekube import errors

Obj = dict[str, Any]
GROUP_VERSION = "rbac.authorization.k8s.io/v1"
KINDS = (("clusterRoles", "clusterroles.rbac.authorization.k8s.io", "ClusterRole"),
         ("roles", "roles.rbac.authorization.k8s.io", "Role"),
         ("clusterRoleBindings", "clusterrolebindings.rbac.authorization.k8s.io", "ClusterRoleBinding"),
         ("roleBindings", "rolebindings.rbac.authorization.k8s.io", "RoleBinding"))


@cache
def policy_data() -> Obj:
    """The packaged data (read once per process)."""
    return json.loads(resources.files("fakekube.cluster").joinpath("rbac_bootstrap.json").read_text())


def bootstrap_objects() -> list[tuple[str, Obj]]:
    """(resource, object) for every object of the policy, roles before the bindings that refer to them."""
    data = policy_data()
    out = []
    for key, resource, kind in KINDS:
        for item in data[key]:
            meta: Obj = {"name": item["name"]}
            if "namespace" in item:
                meta["namespace"] = item["namespace"]
            meta["labels"] = {**data["labels"], **item.get("labels", {})}
            meta["annotations"] = item.get("annotations", data["annotations"])
            obj: Obj = {"apiVersion": GROUP_VERSION, "kind": kind, "metadata": meta}
            for field in ("aggregationRule", "rules", "roleRef", "subjects"):
                if field in item:
                    obj[field] = json.loads(json.dumps(item[field]))
            out.append((resource, obj))
    return out


def bootstrap_rbac(store: Any, *, actor: str = "kube-apiserver") -> list[Obj]:
    """Create the policy's objects the store lacks (a second call changes nothing); returns those created."""
    created = []
    for resource, obj in bootstrap_objects():
        rt = store.resolve(resource)
        namespace = obj["metadata"].get("namespace")
        if store.stored_object(rt.storage, (namespace or "", obj["metadata"]["name"])) is not None:
            continue  # the reconciler reads before it writes: nothing to do
        if namespace is not None:
            store.ensure_namespace(namespace)
        with contextlib.suppress(errors.AlreadyExists):
            created.append(store.create(rt, obj, namespace, actor=actor, field_manager=actor))
    return created

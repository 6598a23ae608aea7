#!/usr/bin/env python3
"""Write ``fakekube/cluster/rbac_bootstrap.json``: kube-apiserver's RBAC bootstrap policy as compact data.

The input is upstream's own record of that policy: the testdata files of kubernetes/kubernetes
``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/`` (``cluster-roles.yaml``, ``controller-roles.yaml``,
``cluster-role-bindings.yaml``, ``controller-role-bindings.yaml``, ``namespace-roles.yaml``,
``namespace-role-bindings.yaml``, v1.37.2), which
``policy_test.go`` regenerates from the Go definitions the API server's ``rbac/bootstrap-roles`` post-start
hook reconciles. Keep a local copy outside the repository (``--source``, default
``$FAKEKUBE_BOOTSTRAP_POLICY`` or ``~/.cache/fakekube/bootstrappolicy``); nothing fetched is committed.

The output keeps what a cluster stores and drops what every object repeats: the ``kubernetes.io/
bootstrapping: rbac-defaults`` label and ``rbac.authorization.kubernetes.io/autoupdate: "true"`` annotation are
written once, ``creationTimestamp: null`` and the List wrapper go, bindings' older ``v1beta1`` apiVersion
becomes ``v1`` (the fields are the same), and each file's sha256 is recorded so that a test can tell whether
the committed data is this script's output for the local copy (tests/cluster/test_rbac.py).

    python scripts/generate_rbac_bootstrap.py [--source DIR] [--output FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO / "fakekube" / "cluster" / "rbac_bootstrap.json"
# The upstream blobs the local copy was taken from (kubernetes v1.37.2; ``git hash-object`` of each file). The
# controllers' roles and bindings are reconciled with the others (kubernetes ``pkg/registry/rbac/rest/
# storage_rbac.go``: ``append(bootstrappolicy.ClusterRoles(), bootstrappolicy.ControllerRoles()...)``), so
# their files add to the same lists, in that order.
FILES = {
    "cluster-roles.yaml": ("clusterRoles", "94207a56f7b0b1c166d28a7a71035f12fde357a0"),
    "controller-roles.yaml": ("clusterRoles", "d7483de4e596a0a92762e9a91db22e8008cedc26"),
    "cluster-role-bindings.yaml": ("clusterRoleBindings", "c0bee73b6892429447d837379dd2b476d2e9bcbd"),
    "controller-role-bindings.yaml": ("clusterRoleBindings", "cc06b99a82c3a216bddac7dee259ec2ab681e758"),
    "namespace-roles.yaml": ("roles", "3e9480680cbb3c553f1826c7d24f214d2e7a84df"),
    "namespace-role-bindings.yaml": ("roleBindings", "08c1d883b8a21ee5501f9feac3e192cbad98e934"),
}
UPSTREAM_DIR = "kubernetes/kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata"
LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
ANNOTATIONS = {"rbac.authorization.kubernetes.io/autoupdate": "true"}


def default_source() -> Path:
    """$FAKEKUBE_BOOTSTRAP_POLICY, else the testdata of the k8s.io/kubernetes module the oracle builds
    (oracle/go.mod) in the Go module cache, which scripts/build-oracle fills, else ~/.cache/fakekube."""
    env = os.environ.get("FAKEKUBE_BOOTSTRAP_POLICY")
    if env:
        return Path(env)
    module = _oracle_kubernetes_module()
    if module is not None and (module / "cluster-roles.yaml").is_file():
        return module
    return Path.home() / ".cache" / "fakekube" / "bootstrappolicy"


def _oracle_kubernetes_module() -> Path | None:
    go_mod = Path(__file__).resolve().parents[1] / "oracle" / "go.mod"
    version = None
    if go_mod.is_file():
        for line in go_mod.read_text().splitlines():
            words = line.split()
            if "k8s.io/kubernetes" in words[:2] and "=>" not in words:  # `require` or a require block's line
                version = words[words.index("k8s.io/kubernetes") + 1]
    if version is None:
        return None
    cache = os.environ.get("GOMODCACHE") or str(Path(os.environ.get("GOPATH") or Path.home() / "go") / "pkg" / "mod")
    return Path(cache) / f"k8s.io/kubernetes@{version}" / "plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata"


def _compact(item: dict[str, Any], where: str) -> dict[str, Any]:
    meta = item.get("metadata") or {}
    if not meta.get("name"):
        raise ValueError(f"{where}: an item without metadata.name")
    out: dict[str, Any] = {"name": meta["name"]}
    if meta.get("namespace"):
        out["namespace"] = meta["namespace"]
    labels = {k: v for k, v in (meta.get("labels") or {}).items() if LABELS.get(k) != v}
    if labels:
        out["labels"] = labels
    if (meta.get("annotations") or {}) != ANNOTATIONS:
        out["annotations"] = meta.get("annotations") or {}
    for field in ("aggregationRule", "rules", "roleRef", "subjects"):
        if field in item:
            out[field] = item[field]
    return out


def generate(source: Path) -> dict[str, Any]:
    data: dict[str, Any] = {"upstream": UPSTREAM_DIR, "labels": LABELS, "annotations": ANNOTATIONS, "sources": {}}
    for name, (key, commit) in FILES.items():
        path = source / name
        text = path.read_bytes()
        document = yaml.safe_load(text)
        if not isinstance(document, dict) or not isinstance(document.get("items"), list):
            raise ValueError(f"{path}: expected a v1 List with items")
        data.setdefault(key, []).extend(_compact(item, f"{path} item {i}") for i, item in enumerate(document["items"]))
        data["sources"][name] = {"commit": commit, "sha256": hashlib.sha256(text).hexdigest()}
    return data


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=default_source())
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    try:
        data = generate(args.source)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        print(f"generate_rbac_bootstrap: {exc}", file=sys.stderr)
        return 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(render(data))
    counts = {k: len(data[k]) for k, _ in FILES.values()}
    print(f"wrote {args.output} ({', '.join(f'{n} {k}' for k, n in counts.items())})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

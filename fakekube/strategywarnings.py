"""Warnings a registry's strategy or REST storage adds to a request (``warning.AddWarning``): the store puts them
on the request's audit entry, which the HTTP front sends as ``Warning`` headers.

- ``WarningsOnCreate``/``WarningsOnUpdate`` (apiserver v0.37.2 ``pkg/registry/rest/create.go`` ``BeforeCreate``,
  ``update.go`` ``BeforeUpdate``): asked only once validation passed; a no-op update warns too.
- a REST storage's own (kubernetes v1.37.2 ``pkg/registry/batch/job/storage/storage.go``: a Job DELETE that
  names neither propagationPolicy nor orphanDependents, asked before the object is looked up).

Upstream sources of each text are next to it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube import namerules
from fakekube.gotext import go_quote

CreateWarnings = Callable[[dict[str, Any]], list[str]]
UpdateWarnings = Callable[[dict[str, Any], dict[str, Any]], list[str]]

# pkg/registry/core/pod/strategy.go; apps/{deployment,replicaset}, batch/{job,cronjob},
# core/replicationcontroller strategy.go (``WarningsOnCreate``): the name is not a DNS label.
_POD_NAME = "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: "
_TEMPLATE_NAME = ("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; "
                  "a DNS label is recommended: ")
NAME_WARNINGS: dict[tuple[str, str], str] = {
    ("", "Pod"): _POD_NAME,
    ("", "ReplicationController"): _TEMPLATE_NAME,
    ("apps", "Deployment"): _TEMPLATE_NAME,
    ("apps", "ReplicaSet"): _TEMPLATE_NAME,
    ("batch", "Job"): _TEMPLATE_NAME,
    ("batch", "CronJob"): _TEMPLATE_NAME,
}

# pkg/registry/batch/job/storage/storage.go ``deleteOptionWarnings`` (batch/v1's default policy orphans the pods).
DELETE_WARNINGS: dict[tuple[str, str], str] = {
    ("batch", "Job"): "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background "
                      "to remove them or set propagationPolicy=Orphan to suppress this warning",
}


def go_list(items: list[str]) -> str:
    """Go's ``%v`` of a ``[]string``."""
    return "[" + " ".join(items) + "]"


def name_warning(prefix: str) -> CreateWarnings:
    def warnings(obj: dict[str, Any]) -> list[str]:
        name = (obj.get("metadata") or {}).get("name")
        problems = namerules.is_dns1123_label(name) if isinstance(name, str) else []
        return [prefix + go_list(problems)] if problems else []
    return warnings


_STANDARD_FINALIZERS = frozenset({"orphan", "foregroundDeletion", "kubernetes"})


def custom_finalizer_warnings(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    """apiextensions-apiserver v0.37.2 ``pkg/registry/customresource/strategy.go`` ``generateWarningsFromObj``
    with ``validator.go`` ``validateKubeFinalizerName``: each finalizer the write adds (sorted) that is not
    domain-qualified. (A finalizer that is not a qualified name is refused by validation before this is asked.)"""
    finalizers = (new.get("metadata") or {}).get("finalizers") or []
    added = {f for f in finalizers if isinstance(f, str)}
    if old is not None:
        added -= set((old.get("metadata") or {}).get("finalizers") or [])
    out = []
    for finalizer in sorted(added):
        if "/" in finalizer or finalizer in _STANDARD_FINALIZERS:
            continue
        shown = f"metadata.finalizers: {go_quote(finalizer)}: prefer a domain-qualified finalizer name"
        out.append(shown + (" including a path (/)" if "." in finalizer else "")
                   + " to avoid accidental conflicts with other finalizer writers")
    return out

"""Discovery documents, built from the store's registry and cached per ``registry.generation``.

Legacy discovery (``APIVersions``, ``APIGroupList``, ``APIGroup``, ``APIResourceList``) is what every client
reads; ``x/status`` entries must be listed because kopf decides from them whether to patch ``/status``.
Aggregated discovery (KEP-3352, ``apidiscovery.k8s.io/v2``) is served only when the client offers exactly
``v=v2`` in its Accept header, and with that exact Content-Type, or kubectl silently ignores it.
"""

from __future__ import annotations

import base64
import hashlib
import threading
from collections.abc import Callable
from typing import Any

from fakekube.resources import Registry, ResourceType
from fakekube.server import encoding

AGGREGATED_CONTENT_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

# Resources whose objects are encoded in etcd at another version than the one served (kubernetes v1.37.2
# pkg/kubeapiserver/default_storage_factory_builder.go, a new GA version kept at beta for a release; the CRD's
# from apiextensions-apiserver): their storageVersionHash is that version's. Releases before 1.37 are given the same.
_STORAGE_VERSIONS = {
    ("apiextensions.k8s.io", "customresourcedefinitions"): "v1beta1",
    ("certificates.k8s.io", "clustertrustbundles"): "v1beta1",
    ("certificates.k8s.io", "podcertificaterequests"): "v1beta1",
    ("coordination.k8s.io", "leasecandidates"): "v1beta1",
    ("resource.k8s.io", "devicetaintrules"): "v1beta2",
    ("storagemigration.k8s.io", "storageversionmigrations"): "v1beta1",
}
# Served without storage behind them (kubernetes pkg/registry/core/{pod/storage BindingREST,componentstatus}).
_NOT_STORED = frozenset({("", "bindings"), ("", "componentstatuses")})


def version_info(minor: str, major: str = "1") -> dict[str, Any]:
    """``/version`` of a kube-apiserver of release major.minor (apimachinery ``version.Info``; 1.33+ also
    reports the emulated and minimum compatibility versions, KEP-4330).

    The gcloud kubectl dispatcher installed on many machines runs ``kubectl.1.<minor>`` when it has one and
    its own bundled client otherwise, so any minor keeps kubectl working; kubectl v1.32 warns about the
    version skew in ``kubectl version`` output only, as it would against a real cluster."""
    info: dict[str, Any] = {"major": major, "minor": minor}
    if (int(major), int(minor)) >= (1, 33):
        info.update(emulationMajor=major, emulationMinor=minor, minCompatibilityMajor=major,
                    minCompatibilityMinor=str(int(minor) - 1))
    info.update(gitVersion=f"v{major}.{minor}.0-fakekube", gitCommit="0" * 40, gitTreeState="clean",
                buildDate="2025-01-01T00:00:00Z", goVersion="go1.24", compiler="gc", platform="linux/amd64")
    return info


def wants_aggregated(accept: str | None) -> bool:
    """True when one media range of Accept is application/json with g=apidiscovery.k8s.io, v=v2,
    as=APIGroupDiscoveryList (kubectl 1.27-1.29 offer only v2beta1: they get legacy JSON)."""
    if not accept:
        return False
    for media_range in accept.split(","):
        parts = [p.strip() for p in media_range.split(";")]
        if parts[0].lower() != "application/json":
            continue
        params = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
        if (params.get("g") == "apidiscovery.k8s.io" and params.get("v") == "v2"
                and params.get("as") == "APIGroupDiscoveryList"):
            return True
    return False


class RegistryCache:
    """Serialised bodies that depend on a registry, dropped whenever it changes (``registry.generation``)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._lock = threading.Lock()
        self._generation = -1
        self._bodies: dict[Any, bytes] = {}

    def get(self, key: Any, build: Callable[[], bytes]) -> bytes:
        with self._lock:
            if self._generation != self.registry.generation:
                self._bodies.clear()
                self._generation = self.registry.generation
            body = self._bodies.get(key)
        if body is None:
            body = build()  # outside the lock: a large document does not hold up other requests
            with self._lock:
                self._bodies[key] = body
        return body


class Discovery:
    """Serialised discovery bodies; rebuilt whenever the registry changes (e.g. a CRD is created)."""

    def __init__(self, registry: Registry, *, server_address: str = "127.0.0.1", minor: str | None = None) -> None:
        self.registry = registry
        self.server_address = server_address
        emulated = registry.kubernetes_version
        if minor is None:
            minor = str(emulated.minor) if emulated is not None else "37"
        self.version = encoding.marshal_indent(version_info(minor))  # WriteRawJSON: indented, no newline
        self._cache = RegistryCache(registry)
        # Groups served beside the registry's, as the aggregator adds an APIService's (fakekube.server.metrics):
        # a function of the moment, whose answer is part of every cached document's key.
        self.extras: Callable[[], tuple[Any, ...]] = tuple

    def _cached(self, key: Any, build: Callable[[], Any]) -> bytes:
        return self._cache.get((key, self.extras()), lambda: encoding.encode(build()))

    def _extra(self, group: str) -> Any:
        return next((e for e in self.extras() if e.group == group), None)

    # -- lookups -----------------------------------------------------------------------------------------

    def _groups(self) -> dict[str, list[str]]:
        extras = self.extras()
        if not extras:
            return self.registry.groups()
        # an aggregated API's group comes after the built-in and custom resource groups (its APIService's
        # groupPriorityMinimum, 100 for metrics-server, is below theirs)
        return {**self.registry.groups(), **{e.group: [e.version] for e in extras}}

    def types(self, group: str, version: str) -> list[ResourceType]:
        return sorted((rt for rt in self.registry if rt.group == group and rt.version == version),
                      key=lambda rt: rt.plural)

    def has_group(self, group: str) -> bool:
        return group != "" and group in self._groups()

    def has_group_version(self, group: str, version: str) -> bool:
        return version in self._groups().get(group, ())

    # -- legacy documents -------------------------------------------------------------------------------

    def api_versions(self) -> bytes:
        return self._cached("api", lambda: {
            "kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": self.server_address}],
        })

    def _group_doc(self, group: str, versions: list[str]) -> dict[str, Any]:
        gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
        return {"name": group, "versions": gvs, "preferredVersion": gvs[0]}

    def api_group_list(self) -> bytes:
        # In the server's order: built-in groups by priority, then custom resource groups.
        return self._cached("apis", lambda: {
            "kind": "APIGroupList", "apiVersion": "v1",
            "groups": [self._group_doc(g, vs) for g, vs in self._groups().items() if g],
        })

    def api_group(self, group: str) -> bytes:
        return self._cached(("group", group), lambda: {
            "kind": "APIGroup", "apiVersion": "v1", **self._group_doc(group, self._groups()[group]),
        })

    def resource_list(self, group: str, version: str) -> bytes:
        def build() -> dict[str, Any]:
            resources: list[dict[str, Any]] = []
            extra = self._extra(group)
            if extra is not None:
                # A generic API server's list: no storageVersionHash, singularName "" (GetSingularName)
                resources = [{"name": r.name, "singularName": "", "namespaced": r.namespaced, "kind": r.kind,
                              "verbs": list(r.verbs)} for r in extra.resources]
                return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{group}/{version}",
                        "resources": resources}
            for rt in self.types(group, version):
                entry: dict[str, Any] = {
                    "name": rt.plural, "singularName": rt.singular, "namespaced": rt.namespaced,
                    "kind": rt.kind, "verbs": list(rt.verbs),
                }
                if rt.short_names:
                    entry["shortNames"] = list(rt.short_names)
                if rt.categories:
                    entry["categories"] = list(rt.categories)
                hashed = self.storage_version_hash(rt)
                if hashed is not None:
                    entry["storageVersionHash"] = hashed
                resources.append(entry)
                for sub in rt.discovery_subresources:
                    sub_entry: dict[str, Any] = {"name": f"{rt.plural}/{sub.name}", "singularName": "",
                                                 "namespaced": rt.namespaced, "kind": sub.kind,
                                                 "verbs": list(sub.verbs)}
                    if sub.group is not None:
                        sub_entry.update(group=sub.group, version=sub.version)
                    resources.append(sub_entry)
            if not group:
                # /api/v1 is written by the core group's codec, which sets no apiVersion on this meta type
                # (observed on kube-apiserver v1.37.2; apiserver pkg/endpoints/discovery/version.go)
                return {"kind": "APIResourceList", "groupVersion": version, "resources": resources}
            return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{group}/{version}",
                    "resources": resources}

        return self._cached(("gv", group, version), build)

    def storage_version_hash(self, rt: ResourceType) -> str | None:
        """apiserver ``discovery.StorageVersionHash``: the first 8 bytes of the SHA-256 of the storage version's
        ``group/version/kind``, base64; none for a resource without storage (reviews, bindings,
        componentstatuses: ``rest.StorageVersionProvider`` is not implemented)."""
        if rt.strategy.answers_create or (rt.group, rt.plural) in _NOT_STORED:
            return None
        try:
            stored = self.registry.storage_type(rt.storage)
        except KeyError:
            stored = rt
        version = _STORAGE_VERSIONS.get((stored.group, stored.plural), stored.version)
        gvk = f"{stored.group}/{version}/{stored.kind}"
        return base64.b64encode(hashlib.sha256(gvk.encode()).digest()[:8]).decode()

    # -- aggregated documents ---------------------------------------------------------------------------

    def aggregated(self, core: bool) -> bytes:
        def build() -> dict[str, Any]:
            groups = self._groups()
            names = [""] if core else [g for g in groups if g]
            items = [{"metadata": {"name": g},
                      "versions": [self._aggregated_version(g, v) for v in groups.get(g, [])]}
                     for g in names]
            return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
                    "metadata": {}, "items": items}

        return self._cached(("aggregated", core), build)

    def _aggregated_version(self, group: str, version: str) -> dict[str, Any]:
        resources = []
        extra = self._extra(group)
        if extra is not None:
            resources = [{"resource": r.name, "responseKind": {"group": "", "version": "", "kind": r.kind},
                          "scope": "Namespaced" if r.namespaced else "Cluster", "singularResource": "",
                          "verbs": list(r.verbs)} for r in extra.resources]
            return {"version": version, "freshness": "Current", "resources": resources}
        for rt in self.types(group, version):
            # As the server fills it (see the aggregated capture): group and version only when they differ.
            response_kind = {"group": "", "version": "", "kind": rt.kind}
            entry: dict[str, Any] = {
                "resource": rt.plural, "responseKind": response_kind,
                "scope": "Namespaced" if rt.namespaced else "Cluster",
                "singularResource": rt.singular, "verbs": list(rt.verbs),
            }
            if rt.short_names:
                entry["shortNames"] = list(rt.short_names)
            if rt.categories:
                entry["categories"] = list(rt.categories)
            subs = []
            for sub in rt.discovery_subresources:
                kind = {"group": sub.group or "", "version": sub.version or "", "kind": sub.kind}
                subs.append({"subresource": sub.name, "responseKind": kind, "verbs": list(sub.verbs)})
            if subs:
                entry["subresources"] = subs
            resources.append(entry)
        return {"version": version, "freshness": "Current", "resources": resources}

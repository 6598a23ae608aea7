"""Custom resource definitions: creating, updating or deleting a CRD object serves or retires its kinds."""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.records import (
    CRD_STORAGE,
)
from fakekube.resources import ResourceType, crd_resource_types, load_manifests

CRD_CLEANUP_ACTOR = "apiextensions-controller"


class CrdVerbs:
    """CRD bookkeeping and ``load_crds``."""

    def _crd_changed(self, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        """Serve (or stop serving) a CRD's kinds as soon as the CRD object is written.

        Deleting a CRD deletes its custom resources first, each an audited delete by the apiextensions
        controller (apiextensions-apiserver ``pkg/controller/finalizer/crd_finalizer.go``).
        """
        if new is not None:
            self.registry.register_crd(new)
            return
        assert old is not None
        name = old["metadata"]["name"]
        served = [t for t in self.registry if t.custom and f"{t.plural}.{t.group}" == name]
        if served:
            rt = served[0]
            bucket = self._bucket(rt)
            for key in list(self._sorted_keys(rt)):
                entry = self._begin("delete", rt, key[0] or None, key[1], None, CRD_CLEANUP_ACTOR)
                self._commit(rt, key, None, bucket[key], entry)
                entry.code = 200
                self._follow_ups.append(entry)
            self._data.pop(rt.storage, None)
        self.registry.unregister_crd(name)

    def _check_crd(self, obj: dict[str, Any]) -> None:
        types = crd_resource_types(obj)
        expected = f"{types[0].plural}.{types[0].group}" if types else ""
        if types and obj["metadata"].get("name") != expected:
            raise errors.Invalid("CustomResourceDefinition", "apiextensions.k8s.io", obj["metadata"].get("name", ""),
                                 [errors.invalid("metadata.name", obj["metadata"].get("name", ""),
                                                 "must be spec.names.plural+\".\"+spec.group")])
        names = (obj.get("spec") or {}).get("names") or {}
        obj["status"] = {
            "acceptedNames": {k: v for k, v in names.items()},
            "conditions": [
                {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                 "message": "no conflicts found", "lastTransitionTime": self._now()},
                {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                 "message": "the initial names have been accepted", "lastTransitionTime": self._now()},
            ],
            "storedVersions": [v["name"] for v in (obj.get("spec") or {}).get("versions") or [] if v.get("storage")],
        }

    def load_crds(self, source: str | Any, *, actor: str = "fakekube") -> list[ResourceType]:
        """Register custom resources from CRD manifests (dict, YAML text or file) by creating the CRD objects."""
        registered: list[ResourceType] = []
        for doc in load_manifests(source):
            if doc.get("kind") != "CustomResourceDefinition":
                continue
            name = (doc.get("metadata") or {}).get("name", "")
            record = self._data.get(CRD_STORAGE, {}).get(("", name))
            if record is None:
                self.create("customresourcedefinitions", doc, actor=actor)
            else:
                self.update("customresourcedefinitions",
                            {**doc, "metadata": {**doc["metadata"], "resourceVersion": record.rv}}, actor=actor)
            registered.extend(t for t in self.registry if t.custom and f"{t.plural}.{t.group}" == name)
        return registered

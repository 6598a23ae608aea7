"""Custom resource definitions: creating, updating or deleting a CRD object serves or retires its kinds."""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.records import (
    CRD_STORAGE,
)
from fakekube.resources import ResourceType, load_manifests

CRD_CLEANUP_ACTOR = "apiextensions-controller"


class CrdVerbs:
    """CRD bookkeeping and ``load_crds``."""

    def _crd_changed(self, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        """Serve (or stop serving) a CRD's kinds as soon as the CRD object is written.

        Deleting a CRD deletes its custom resources first, each an audited delete by the apiextensions
        controller (apiextensions-apiserver ``pkg/controller/finalizer/crd_finalizer.go``).
        """
        name = (new or old or {}).get("metadata", {}).get("name", "")
        self.crd_controllers.observe(name)
        if new is not None:
            if old is None or new.get("spec") != old.get("spec"):  # (status writes serve the same kinds)
                self.registry.register_crd(new)
            return
        assert old is not None
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

    def _custom_resource_gone(self, rt: ResourceType) -> None:
        """A terminating CRD's finalizer waits for its instances: it looks again when one goes."""
        name = f"{rt.plural}.{rt.group}"
        crd = self._data.get(CRD_STORAGE, {}).get(("", name))
        if crd is not None and crd.obj["metadata"].get("deletionTimestamp"):
            self.crd_controllers.observe(name)

    def _refuse_create_while_terminating(self, rt: ResourceType, name: str) -> None:
        """The custom resource handler's forbidCreateAdmission (apiextensions-apiserver
        pkg/apiserver/customresource_handler.go): no creates once the CRD is being deleted."""
        crd = self._data.get(CRD_STORAGE, {}).get(("", f"{rt.plural}.{rt.group}"))
        if crd is None:
            return
        meta = crd.obj["metadata"]
        terminating = any(isinstance(c, dict) and c.get("type") == "Terminating" and c.get("status") == "True"
                          for c in (crd.obj.get("status") or {}).get("conditions") or ())
        if meta.get("deletionTimestamp") or terminating:
            resource = errors.qualified(rt.plural, rt.group)
            prefix = f'{resource} "{name}"' if name else resource
            raise errors.Forbidden(f"{prefix} is forbidden: create not allowed while custom resource definition is "
                                   "terminating", {"name": name, "group": rt.group, "kind": rt.plural})

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

"""``POST pods/<name>/binding``: how a scheduler assigns a pod to a node.

kubernetes ``pkg/registry/core/pod/storage/storage.go`` (``BindingREST.Create``, ``setPodNodeAndMetadata``):
the write goes straight to storage, past the pod strategy — it is the one way ``spec.nodeName`` changes — and
sets the ``PodScheduled=True`` condition in the same revision. A pod that is being deleted, already bound or
still gated cannot be bound (409). The answer is a ``Success`` Status (201).
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.audit import AuditEntry
from fakekube.records import record_key


class BindingVerbs:
    """``bind``."""

    def bind(self, name: str, node: str, namespace: str | None = None, *, annotations: dict[str, str] | None = None,
             uid: str | None = None, actor: str = "fakekube", dry_run: bool = False) -> dict[str, Any]:
        """Bind pod ``name`` to ``node`` (a ``v1.Binding`` whose target is the node); ``uid`` is a precondition."""
        rt = self.resolve("pods")

        def serve(entry: AuditEntry) -> dict[str, Any]:
            record = self._lookup(rt, namespace, name)
            entry.rv_before = record.rv
            pod = record.obj
            meta, spec = pod["metadata"], pod.get("spec") or {}
            entry.uid = meta["uid"]
            if uid and uid != meta["uid"]:
                raise errors.Conflict("pods/binding", "", name,
                                      f"Precondition failed: UID in precondition: {uid}, UID in object meta: "
                                      f"{meta['uid']}")
            if not node:
                raise errors.Invalid("Binding", "", name, [errors.required("target.name", "")])
            reason = None
            if meta.get("deletionTimestamp"):
                reason = f"pod {name} is being deleted, cannot be assigned to a host"
            elif spec.get("nodeName"):
                reason = f'pod {name} is already assigned to node "{spec["nodeName"]}"'
            elif spec.get("schedulingGates"):
                reason = f"pod {name} has non-empty .spec.schedulingGates"
            if reason:
                raise errors.Conflict("pods/binding", "", name, reason)
            new = record.copy()
            new["spec"]["nodeName"] = node
            if annotations:
                new["metadata"].setdefault("annotations", {}).update(annotations)
            status = new.setdefault("status", {})
            conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
            scheduled = next((c for c in conditions if c.get("type") == "PodScheduled"), None)
            now = self._now()
            if scheduled is None:
                conditions.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                                   "lastTransitionTime": now})
            elif scheduled.get("status") != "True":
                scheduled.update({"status": "True", "lastTransitionTime": now})
                scheduled.pop("reason", None)
                scheduled.pop("message", None)
            status["conditions"] = conditions
            entry.code = 201
            if not dry_run:
                self._commit(rt, record_key(rt, pod), new, record, entry)
            return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}

        return self._run(lambda: self._begin("create", rt, namespace, name, "binding", actor, dry_run=dry_run),
                         serve)

"""``POST pods/<name>/binding``: how the scheduler assigns a pod to a node.

kube-apiserver's ``BindingREST`` (kubernetes ``pkg/registry/core/pod/storage/storage.go``) is not the generic
update path: it decodes a ``Binding``, validates it (``ValidatePodBinding``), then rewrites the stored pod
directly in storage (``GuaranteedUpdate`` with the binding's uid / resourceVersion as preconditions) — setting
``spec.nodeName``, merging the binding's annotations and making the ``PodScheduled`` condition True. No
strategy, no admission of the pod, no managedFields entry, no generation bump. A pod that is being deleted,
already has a node or still has scheduling gates is refused with a 409 on ``pods/binding``. The answer is a
``Status`` of Success with code 201.
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.audit import AuditEntry
from fakekube.jsonvalues import json_copy
from fakekube.records import record_key
from fakekube.resources import ResourceType


class BindingVerbs:
    """``bind``."""

    def bind(self, name: str, body: dict[str, Any], namespace: str | None = None, *, actor: str = "fakekube",
             dry_run: bool = False) -> dict[str, Any]:
        """POST pods/<name>/binding with a ``Binding`` body; returns the Success Status (201)."""
        rt = self.resolve("pods")
        return self._run(
            lambda: self._begin("create", rt, namespace, name, "binding", actor, dry_run=dry_run),
            lambda entry: self._bind(rt, namespace, name, body, entry, dry_run),
        )

    def _bind(self, rt: ResourceType, namespace: str | None, name: str, body: Any, entry: AuditEntry,
              dry_run: bool) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise errors.BadRequest(f"not a Binding object: {type(body).__name__}")
        if body.get("kind") not in (None, "Binding") or body.get("apiVersion") not in (None, "v1"):
            raise errors.BadRequest(f"not a Binding object: {body.get('apiVersion')}/{body.get('kind')}")
        meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
        if meta.get("name", name) != name:
            raise errors.BadRequest("name in URL does not match name in Binding object")
        target = body.get("target") if isinstance(body.get("target"), dict) else {}
        problems = []
        if target.get("kind") not in (None, "", "Node"):
            problems.append(f'target.kind: Unsupported value: "{target.get("kind")}": supported values: "Node"')
        if not target.get("name"):
            problems.append("target.name: Required value")
        if problems:
            # ValidatePodBinding's aggregate is returned as a plain error, which the server answers with 500.
            message = problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
            raise errors.ApiError(500, "Unknown", message)
        # pod/storage/storage.go BindingREST.Create: validating admission sees the Binding before the pod is read
        self._validating_admission(entry, "CREATE", rt, body, None, "binding", dry_run,
                                   request_kind=("", "v1", "Binding"), namespace=namespace)
        record = self._lookup(rt, namespace, name)
        pod = record.obj
        pod_meta = pod["metadata"]
        entry.rv_before = record.rv
        entry.uid = pod_meta["uid"]
        uid, rv = meta.get("uid"), meta.get("resourceVersion")
        if (uid and uid != pod_meta["uid"]) or (rv and str(rv) != record.rv):
            what = (f"UID in precondition: {uid}, UID in object meta: {pod_meta['uid']}" if uid and uid != pod_meta["uid"]
                    else f"ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {record.rv}")
            raise errors.Conflict(rt.plural, rt.group, name,
                                  f"StorageError: invalid object, Code: 4, Key: /registry/pods/{namespace}/{name}, "
                                  f"ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: {what}")
        spec = pod.get("spec") or {}
        refusal = None
        if pod_meta.get("deletionTimestamp"):
            refusal = f"pod {name} is being deleted, cannot be assigned to a host"
        elif spec.get("nodeName"):
            refusal = f'pod {name} is already assigned to node "{spec["nodeName"]}"'
        elif spec.get("schedulingGates"):
            refusal = f"pod {name} has non-empty .spec.schedulingGates"
        if refusal is not None:
            raise errors.Conflict("pods/binding", "", name, refusal)
        new = json_copy(pod)
        new["spec"]["nodeName"] = target["name"]
        annotations = meta.get("annotations") or {}
        if annotations:
            new["metadata"].setdefault("annotations", {}).update(annotations)
        _set_pod_scheduled(new, self._now())
        entry.code = 201
        if not dry_run:
            self._commit(rt, record_key(rt, pod), new, record, entry)
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def _set_pod_scheduled(pod: dict[str, Any], now: str) -> None:
    """``podutil.UpdatePodCondition`` with PodScheduled=True: the transition time moves only on a change."""
    conditions = pod.setdefault("status", {}).setdefault("conditions", [])
    for condition in conditions:
        if condition.get("type") == "PodScheduled":
            if condition.get("status") != "True":
                condition["lastTransitionTime"] = now
            condition["status"] = "True"
            condition.pop("reason", None)
            condition.pop("message", None)
            condition["lastProbeTime"] = None
            return
    conditions.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": now})

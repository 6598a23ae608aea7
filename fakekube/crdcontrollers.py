"""The controllers inside kube-apiserver that write a CustomResourceDefinition's status (apiextensions-apiserver
v0.37.2 ``pkg/controller``): naming (``status/naming_controller.go``), establishing
(``establish/establishing_controller.go``) and the cleanup finalizer (``finalizer/crd_finalizer.go``).

- naming: when ``spec.names`` differ from ``status.acceptedNames``, accepts the names no other CRD of the group
  holds and sets ``NamesAccepted`` (and ``Established`` False "Installing" until established);
- establishing: once the names are accepted, ``Established`` True;
- finalizer: a deleting CRD (the registry marks it ``Terminating``) has its custom resources deleted, then its
  ``customresourcecleanup.apiextensions.k8s.io`` finalizer removed, which removes it.

Each write is a ``/status`` update by the field manager ``kube-apiserver``. Upstream they run on informers
and work queues; here they run after the request that gave them work (like fakekube.gc), so a create's answer
has the status the registry wrote and a read after it the controllers' work.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.clock import rfc3339
from fakekube.records import CRD_STORAGE
from fakekube.syncqueue import NameQueue

if TYPE_CHECKING:
    from fakekube.store import Store

ACTOR = "apiextensions-controller"
MANAGER = "kube-apiserver"
CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"
_NAME_ORDER = ("plural", "singular", "shortNames", "kind", "listKind", "categories")


def set_condition(status: dict[str, Any], condition: dict[str, Any], now: str) -> None:
    """SetCRDCondition: replaces the condition of its type (its lastTransitionTime moves with its status) or
    appends it."""
    conditions = status.get("conditions")
    if not isinstance(conditions, list):
        conditions = status["conditions"] = []
    for existing in conditions:
        if isinstance(existing, dict) and existing.get("type") == condition["type"]:
            if existing.get("status") != condition["status"] or not existing.get("lastTransitionTime"):
                existing["lastTransitionTime"] = now
            existing.update(status=condition["status"], reason=condition["reason"], message=condition["message"])
            return
    conditions.append({"type": condition["type"], "status": condition["status"], "lastTransitionTime": now,
                       "reason": condition["reason"], "message": condition["message"]})


def condition(crd: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for c in (crd.get("status") or {}).get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == kind:
            return c
    return None


def is_true(crd: dict[str, Any], kind: str) -> bool:
    found = condition(crd, kind)
    return found is not None and found.get("status") == "True"


def _names(value: Any) -> dict[str, Any]:
    """CustomResourceDefinitionNames as it serialises (plural and kind always, the rest when not empty)."""
    value = value if isinstance(value, dict) else {}
    return {k: value.get(k) or "" if k in ("plural", "kind") else value[k]
            for k in _NAME_ORDER if k in ("plural", "kind") or value.get(k)}


class CrdControllers(NameQueue):
    def __init__(self, store: Store) -> None:
        super().__init__()
        self._store = store

    def observe(self, name: str) -> None:
        self._queue.add(name)

    def collect(self, max_rounds: int = 100) -> int:
        return super().collect(max_rounds)

    def _current(self, name: str) -> dict[str, Any] | None:
        return self._store.stored_object(CRD_STORAGE, ("", name))

    def _write(self, crd: dict[str, Any]) -> bool:
        try:
            self._store.update("customresourcedefinitions", crd, name=crd["metadata"]["name"], subresource="status",
                               actor=ACTOR, field_manager=MANAGER)
        except errors.ApiError:  # gone or changed meanwhile: upstream drops it too and looks again on change
            return False
        return True

    def _now(self) -> str:
        return rfc3339(self._store.clock.now())

    def _sync(self, name: str) -> int:
        crd = self._current(name)
        if crd is None:
            return 0
        if crd["metadata"].get("deletionTimestamp"):
            return self._finalize(crd)
        return self._name(crd) + self._establish(name)

    def _name(self, crd: dict[str, Any]) -> int:
        spec_names = _names((crd.get("spec") or {}).get("names"))
        status = dict(crd.get("status") or {})
        accepted = _names(status.get("acceptedNames"))
        if spec_names == accepted:
            return 0
        new_names, names_condition = self._calculate(crd, spec_names, accepted)
        old = condition(crd, "NamesAccepted")
        if new_names == accepted and old is not None and all(
                old.get(k) == names_condition[k] for k in ("status", "reason", "message")):
            return 0
        established = dict(condition(crd, "Established") or {
            "type": "Established", "status": "False", "reason": "NotAccepted", "message": "not all names are accepted"})
        if established.get("status") != "True" and names_condition["status"] == "True":
            established = {"type": "Established", "status": "False", "reason": "Installing",
                           "message": "the initial names have been accepted"}
        body = {**crd, "status": {**status, "acceptedNames": new_names,
                                  "conditions": [dict(c) for c in status.get("conditions") or ()]}}
        now = self._now()
        set_condition(body["status"], names_condition, now)
        set_condition(body["status"], established, now)
        return int(self._write(body))

    def _calculate(self, crd: dict[str, Any], requested: dict[str, Any],
                   accepted: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """calculateNamesAndConditions: a name another CRD of the group has accepted is a conflict."""
        group = (crd.get("spec") or {}).get("group")
        resources: set[str] = set()
        kinds: set[str] = set()
        for _, other in self._store.objects_of(CRD_STORAGE):
            if (other.get("spec") or {}).get("group") != group:
                continue
            names = _names((other.get("status") or {}).get("acceptedNames"))
            resources |= {names.get("plural", ""), names.get("singular", "")} | set(names.get("shortNames") or ())
            kinds |= {names.get("kind", ""), names.get("listKind", "")}
        new = dict(accepted)
        failed: tuple[str, str] | None = None
        for key, used, reason in (("plural", resources, "PluralConflict"), ("singular", resources, "SingularConflict")):
            if requested.get(key, "") != accepted.get(key, "") and requested.get(key, "") in used:
                failed = (reason, f'"{requested.get(key, "")}" is already in use')
            else:
                new[key] = requested.get(key, "")
        if requested.get("shortNames") != accepted.get("shortNames"):
            known = set(accepted.get("shortNames") or ())
            clashes = [f'"{short}" is already in use' for short in requested.get("shortNames") or ()
                       if short not in known and short in resources]
            if clashes:
                failed = ("ShortNamesConflict", clashes[0] if len(clashes) == 1 else "[" + ", ".join(clashes) + "]")
            else:
                new["shortNames"] = requested.get("shortNames")
        for key, reason in (("kind", "KindConflict"), ("listKind", "ListKindConflict")):
            if requested.get(key, "") != accepted.get(key, "") and requested.get(key, "") in kinds:
                failed = (reason, f'"{requested.get(key, "")}" is already in use')
            else:
                new[key] = requested.get(key, "")
        new["categories"] = requested.get("categories")
        cond = ({"type": "NamesAccepted", "status": "False", "reason": failed[0], "message": failed[1]} if failed
                else {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                      "message": "no conflicts found"})
        return _names(new), cond

    def _establish(self, name: str) -> int:
        crd = self._current(name)
        if crd is None or not is_true(crd, "NamesAccepted") or is_true(crd, "Established"):
            return 0
        status = dict(crd.get("status") or {})
        body = {**crd, "status": {**status, "conditions": [dict(c) for c in status.get("conditions") or ()]}}
        set_condition(body["status"], {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                                       "message": "the initial names have been accepted"}, self._now())
        return int(self._write(body))

    def _finalize(self, crd: dict[str, Any]) -> int:
        """CRDFinalizer.sync: Terminating in progress, the custom resources deleted, then the finalizer gone."""
        if CLEANUP_FINALIZER not in (crd["metadata"].get("finalizers") or ()):
            return 0
        store = self._store
        status = dict(crd.get("status") or {})
        body = {**crd, "status": {**status, "conditions": [dict(c) for c in status.get("conditions") or ()]}}
        set_condition(body["status"], {"type": "Terminating", "status": "True", "reason": "InstanceDeletionInProgress",
                                       "message": "CustomResource deletion is in progress"}, self._now())
        made = 0
        if condition(crd, "Terminating") != condition(body, "Terminating"):
            if not self._write(body):
                return 0
            made += 1
        crd = self._current(crd["metadata"]["name"])
        if crd is None:
            return made
        status = dict(crd.get("status") or {})
        body = {**crd, "status": {**status, "conditions": [dict(c) for c in status.get("conditions") or ()]}}
        if is_true(crd, "Established"):
            types = store.served_types_of_crd(crd["metadata"]["name"])
            for namespace in sorted({key[0] for rt in types[:1] for key, _ in store.objects_of(rt.storage)}):
                with contextlib.suppress(errors.ApiError):
                    store.delete_collection(types[0], namespace or None, actor=ACTOR)
                    made += 1
            if types and store.objects_of(types[0].storage):
                return made  # instances held by finalizers: looked at again when one goes
            done = {"type": "Terminating", "status": "False", "reason": "InstanceDeletionCompleted",
                    "message": "removed all instances"}
        else:
            done = {"type": "Terminating", "status": "False", "reason": "NeverEstablished",
                    "message": "resource was never established"}
        set_condition(body["status"], done, self._now())
        body["metadata"] = {**crd["metadata"], "finalizers": [f for f in crd["metadata"].get("finalizers") or ()
                                                              if f != CLEANUP_FINALIZER] or None}
        return made + int(self._write(body))

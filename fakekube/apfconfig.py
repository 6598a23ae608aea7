"""kube-apiserver's API Priority and Fairness config consumer, as far as clients see it: the ``Dangling``
condition it keeps on every FlowSchema (apiserver v0.37.2 ``pkg/util/flowcontrol/apf_controller.go``,
``presyncFlowSchemaStatus`` and ``apply``).

A FlowSchema whose ``spec.priorityLevelConfiguration.name`` names no PriorityLevelConfiguration gets
``Dangling`` True (reason ``NotFound``), one whose level exists gets it False (reason ``Found``). The controller
writes only when the condition's status, reason or message differ from what is stored, as a server-side apply of
``status.conditions`` on ``/status`` by the field manager ``api-priority-and-fairness-config-consumer-v1``,
forced, with a new ``lastTransitionTime``: a write with a resourceVersion of its own. Upstream it runs on
informers after the request; here it runs after the request that gave it work (like fakekube.crdcontrollers),
so a create's answer has no condition and a read after it has the controller's.

Not emulated: its rate limit (a FlowSchema written more than a few times a minute waits 30-75 s) and the
priority levels it imagines while the mandatory ``exempt``/``catch-all`` objects are missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.clock import rfc3339
from fakekube.syncqueue import NameQueue

if TYPE_CHECKING:
    from fakekube.store import Store

FLOW_SCHEMAS = "flowcontrol.apiserver.k8s.io/flowschemas"
PRIORITY_LEVELS = "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations"
FIELD_MANAGER = "api-priority-and-fairness-config-consumer-v1"
ACTOR = "system:apiserver"
API_VERSION = "flowcontrol.apiserver.k8s.io/v1"
APF_STORAGES = frozenset({FLOW_SCHEMAS, PRIORITY_LEVELS})


def dangling_condition(level: str, found: bool) -> dict[str, str]:
    """The condition ``presyncFlowSchemaStatus`` wants (without its time)."""
    if found:
        return {"type": "Dangling", "status": "False", "reason": "Found",
                "message": f'This FlowSchema references the PriorityLevelConfiguration object named "{level}" '
                           "and it exists"}
    return {"type": "Dangling", "status": "True", "reason": "NotFound",
            "message": f'This FlowSchema references the PriorityLevelConfiguration object named "{level}" but '
                       "there is no such object"}


def _stored_condition(schema: dict[str, Any]) -> dict[str, Any]:
    for c in (schema.get("status") or {}).get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "Dangling":
            return c
    return {}


class ApfConfigConsumer(NameQueue):
    """Queues the FlowSchemas a write may have left with a wrong ``Dangling`` condition, and fixes them."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self._store = store
        self.enabled = True

    def observe(self, storage: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        """A FlowSchema written (not deleted) is looked at again; a priority level created or deleted makes every
        FlowSchema naming it be looked at again."""
        if not self.enabled:
            return
        if storage == FLOW_SCHEMAS:
            if new is not None:
                self._queue.add(new["metadata"]["name"])
            return
        if (new is None) == (old is None):
            return  # an update of a level changes no reference's existence
        level = (new or old or {})["metadata"]["name"]
        for key, schema in self._store.objects_of(FLOW_SCHEMAS):
            if ((schema.get("spec") or {}).get("priorityLevelConfiguration") or {}).get("name") == level:
                self._queue.add(key[1])

    def collect(self, max_rounds: int = 10) -> int:
        return super().collect(max_rounds)

    def _sync(self, name: str) -> int:
        schema = self._store.stored_object(FLOW_SCHEMAS, ("", name))
        if schema is None:
            return 0
        level = str(((schema.get("spec") or {}).get("priorityLevelConfiguration") or {}).get("name") or "")
        found = self._store.stored_object(PRIORITY_LEVELS, ("", level)) is not None
        wanted = dangling_condition(level, found)
        stored = _stored_condition(schema)
        if all(stored.get(k) == wanted[k] for k in ("status", "reason", "message")):
            return 0
        condition = {**wanted, "lastTransitionTime": rfc3339(self._store.clock.now())}
        body = {"apiVersion": API_VERSION, "kind": "FlowSchema", "metadata": {"name": name},
                "status": {"conditions": [condition]}}
        try:
            self._store.patch("flowschemas", name, body, patch_type="application/apply-patch+yaml",
                              subresource="status", actor=ACTOR, field_manager=FIELD_MANAGER, force=True)
        except errors.ApiError:  # deleted meanwhile: the deletion's notification needs nothing more
            return 0
        return 1

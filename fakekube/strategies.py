"""Per-kind write rules: what create, update and a status write may change, and when generation moves.

Each class mirrors one upstream ``RESTCreateStrategy``/``RESTUpdateStrategy`` (sources in
docs/semantics.md). Strategies work on private copies the store hands them; they mutate ``new`` in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from fakekube.identity import ANONYMOUS, UserInfo

if TYPE_CHECKING:
    from fakekube.errors import FieldError

_NO_STATUS = object()


def _without_metadata(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != "metadata"}


def _keep_stored(new: dict[str, Any], old: dict[str, Any], *keys: str) -> None:
    """What the request sent for ``keys`` is replaced by the stored values (absent stays absent)."""
    for key in keys:
        if key in old:
            new[key] = old[key]
        else:
            new.pop(key, None)


def _reset_status(new: dict[str, Any], old: dict[str, Any]) -> None:
    _keep_stored(new, old, "status")


def _bump_generation_if(new: dict[str, Any], old: dict[str, Any], changed: bool) -> None:
    generation = old["metadata"].get("generation")
    if generation is None:
        return
    new["metadata"]["generation"] = generation + 1 if changed else generation


@dataclass(frozen=True, slots=True)
class CreateRequest:
    """What an answered create (``Strategy.answers_create``) knows besides its body: the store, the request's
    namespace, the name of the object a subresource create is addressed to, the requesting user."""

    store: Any  # the fakekube.store.Store serving the request (not imported: strategies sit below the store)
    namespace: str | None = None
    name: str | None = None
    user: UserInfo = ANONYMOUS
    dry_run: bool = False


class Strategy:
    """Defaults: no generation, status untouched, unconditional updates allowed (most built-ins).

    The store calls, in the order kube-apiserver does (decode, mutating admission, ``BeforeCreate`` /
    ``BeforeUpdate``): :meth:`default` on every decoded body (a PUT's body, a patch's result, a create's
    body); :meth:`admit` for the mutating admission plugins of the kind; ``prepare_for_*``; then
    :meth:`validate` (create) or :meth:`validate_update` (update, status included), whose field errors
    become one 422 ``Invalid`` together with the metadata errors.
    """

    tracks_generation = False
    allow_unconditional_update = True
    graceful_delete = False
    has_status = False
    # DELETE answers with the deleted object (the registry's ReturnDeletedObject) instead of a Status.
    returns_deleted_object = False
    # A create the kind answers instead of storing (upstream: a ``rest.Creater`` with no storage behind it, as
    # SubjectAccessReview and TokenReview are): the store decodes the body, checks its apiVersion and kind and
    # runs ``default``, then returns ``answer(obj, request)`` with 201. Nothing is stored: no resourceVersion,
    # no watch event, no managedFields; the audit log records the create.
    answers_create = False
    # Creates on a subresource of this kind's objects, each answered by its own strategy
    # (POST .../serviceaccounts/<name>/token); its ``body_api_version``/``body_kind`` name the body's type.
    create_subresources: Mapping[str, Strategy] = MappingProxyType({})
    body_api_version = ""
    body_kind = ""

    def default(self, obj: dict[str, Any]) -> None:
        """Scheme defaulting (the kind's ``SetDefaults_*`` functions), applied in place."""

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        """Mutating admission plugins for this kind (``old`` is None on create), applied in place."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """Field errors (``errors.required`` ...) of a new object, beyond its metadata."""
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        """Field errors of an update (immutable fields included); ``subresource`` is ``"status"`` for
        ``ValidateStatusUpdate``."""
        return []

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.tracks_generation:
            obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """A write to the main resource."""

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """A write to ``/status``: by default only ``status`` persists and metadata resets
        (``metav1.ResetObjectMetaForStatus``)."""
        status = new.get("status", _NO_STATUS)
        metadata = new["metadata"]
        kept = {k: metadata[k] for k in ("resourceVersion", "managedFields") if k in metadata}
        new.clear()
        new.update({k: v for k, v in old.items() if k != "metadata"})
        new["metadata"] = {**old["metadata"], **kept}
        if "managedFields" not in kept:
            new["metadata"].pop("managedFields", None)
        if status is _NO_STATUS:
            new.pop("status", None)
        else:
            new["status"] = status

    def grace_period(self, obj: dict[str, Any], requested: int | None) -> int:
        return 0

    def answer(self, obj: dict[str, Any], request: CreateRequest) -> dict[str, Any]:
        """The response to a create of ``obj`` when ``answers_create`` (errors are raised as ApiErrors)."""
        raise NotImplementedError(f"{type(self).__name__} does not answer creates")


class StatusStrategy(Strategy):
    """Built-ins with a status subresource whose main writes keep the stored status (Service, PVC, Namespace)."""

    has_status = True

    def __init__(self, initial_status: dict[str, Any] | None = None) -> None:
        self._initial_status = initial_status or {}

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj.pop("status", None)
        if self._initial_status:
            obj["status"] = dict(self._initial_status)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _reset_status(new, old)
        if self.tracks_generation:
            _bump_generation_if(new, old, new.get("spec") != old.get("spec"))


class GenerationStrategy(Strategy):
    """Kinds without status that track generation on spec changes (NetworkPolicy)."""

    tracks_generation = True

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _bump_generation_if(new, old, new.get("spec") != old.get("spec"))


class NamespaceStrategy(StatusStrategy):
    def __init__(self) -> None:
        super().__init__({"phase": "Active"})

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj.setdefault("spec", {})["finalizers"] = ["kubernetes"]
        obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = obj["metadata"].get("name", "")

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        # spec.finalizers only change through /finalize; the name label is re-asserted.
        new["spec"] = old.get("spec") or {}
        new["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = old["metadata"]["name"]


class PodStrategy(Strategy):
    """kubernetes pkg/registry/core/pod/strategy.go: generation on spec changes; /status keeps
    label and annotation changes but not ownerReferences; graceful deletion."""

    tracks_generation = True
    graceful_delete = True
    has_status = True

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj["status"] = {"phase": "Pending", "qosClass": _qos_class(obj.get("spec") or {})}

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _reset_status(new, old)
        _bump_generation_if(new, old, new.get("spec") != old.get("spec"))

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _keep_stored(new, old, "spec")
        _keep_stored(new["metadata"], old["metadata"], "ownerReferences", "deletionTimestamp",
                     "deletionGracePeriodSeconds", "generation", "finalizers")
        status = new.get("status")
        old_status = old.get("status") or {}
        if isinstance(status, dict) and "observedGeneration" not in status and "observedGeneration" in old_status:
            status["observedGeneration"] = old_status["observedGeneration"]

    def grace_period(self, obj: dict[str, Any], requested: int | None) -> int:
        spec = obj.get("spec") or {}
        phase = (obj.get("status") or {}).get("phase")
        if not spec.get("nodeName") or phase in ("Succeeded", "Failed"):
            return 0
        if requested is not None:
            return max(requested, 0)
        grace = spec.get("terminationGracePeriodSeconds", 30)
        return grace if isinstance(grace, int) and grace >= 0 else 30


def _qos_class(spec: dict[str, Any]) -> str:
    containers = (spec.get("containers") or []) + (spec.get("initContainers") or [])
    requests_set = limits_set = False
    guaranteed = bool(containers)
    for container in containers:
        resources = container.get("resources") or {} if isinstance(container, dict) else {}
        requests = resources.get("requests") or {}
        limits = resources.get("limits") or {}
        requests_set = requests_set or bool(requests) or bool(limits)
        limits_set = limits_set or bool(limits)
        for name in ("cpu", "memory"):
            if name not in limits or requests.get(name, limits[name]) != limits[name]:
                guaranteed = False
    if guaranteed and limits_set:
        return "Guaranteed"
    return "Burstable" if requests_set else "BestEffort"


class DeploymentStrategy(Strategy):
    """kubernetes pkg/registry/apps/deployment/strategy.go: generation on spec or annotation changes;
    /status keeps spec and labels from the stored object (annotations written via /status persist)."""

    tracks_generation = True
    has_status = True

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj.pop("status", None)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _reset_status(new, old)
        changed = new.get("spec") != old.get("spec") or new["metadata"].get("annotations") != old[
            "metadata"
        ].get("annotations")
        _bump_generation_if(new, old, changed)

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _keep_stored(new, old, "spec")
        _keep_stored(new["metadata"], old["metadata"], "labels", "ownerReferences", "finalizers",
                     "deletionTimestamp", "generation")


class CustomResourceStrategy(Strategy):
    """apiextensions-apiserver pkg/registry/customresource/{strategy,status_strategy}.go."""

    tracks_generation = True
    allow_unconditional_update = False

    def __init__(self, status_subresource: bool) -> None:
        self.has_status = status_subresource

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.has_status:
            obj.pop("status", None)
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        if self.has_status:
            _reset_status(new, old)
        _bump_generation_if(new, old, _without_metadata(new) != _without_metadata(old))

    # prepare_for_status_update: the default (the whole stored object, only status from the request).

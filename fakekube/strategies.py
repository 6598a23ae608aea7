"""Per-kind write rules: what create, update and a status write may change, and when generation moves.

Each class mirrors one upstream ``RESTCreateStrategy``/``RESTUpdateStrategy`` (sources in
docs/semantics.md). Strategies work on private copies the store hands them; they mutate ``new`` in place
(a kind that sets ``patch_shares_stored`` may get, from a patch, a copy of the top two levels only).
They are stateless and shared by every Store of one version: what is per store (allocators, the objects
admission plugins read) comes in a :class:`fakekube.kinds.context.WriteContext`.

:class:`BuiltinStrategy` is the shape nearly every built-in registry has, configured by class attributes
(the status a create starts from, what bumps generation, what a ``/status`` write keeps from the stored
object); the kinds in ``fakekube.kinds`` subclass it and add defaulting, admission and validation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from fakekube.identity import ANONYMOUS, UserInfo
from fakekube.jsonvalues import json_copy
from fakekube.strategywarnings import CreateWarnings, UpdateWarnings, custom_finalizer_warnings

if TYPE_CHECKING:
    from fakekube.errors import FieldError
    from fakekube.kinds.context import WriteContext

_NO_STATUS = object()

# metav1.ResetObjectMetaForStatus: a /status write cannot change these (deletionTimestamp and generation are
# the store's own, see rest.BeforeUpdate).
RESET_META_FOR_STATUS = ("labels", "annotations", "finalizers", "ownerReferences")
# Generation bumps when anything but metadata (and status) changes.
ALL_BUT_METADATA = "*"


def _without_metadata(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != "metadata"}


def _keep_stored(new: dict[str, Any], old: dict[str, Any], *keys: str) -> None:
    """What the request sent for ``keys`` is replaced by the stored values (absent stays absent)."""
    for key in keys:
        if key in old:
            new[key] = old[key]
        else:
            new.pop(key, None)


def reset_status(new: dict[str, Any], old: dict[str, Any]) -> None:
    _keep_stored(new, old, "status")


def _holds_empty_list(value: Any) -> bool:
    if isinstance(value, list):
        return not value or any(_holds_empty_list(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_empty_list(item) for item in value.values())
    return False


def bump_generation_if(new: dict[str, Any], old: dict[str, Any], changed: bool) -> None:
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

    The store calls, in the order kube-apiserver does (decode, mutating admission, the registry's
    ``BeginCreate``/``BeginUpdate``, ``BeforeCreate``/``BeforeUpdate``): :meth:`default` on every decoded body
    (a PUT's body, a patch's result, a create's body); :meth:`admit` for the mutating admission plugins of the
    kind; :meth:`begin_create`/:meth:`begin_update` (allocations, undone through the context when the write
    fails); ``prepare_for_*``; then :meth:`validate` (create) or :meth:`validate_update` (update, status
    included), whose field errors become one 422 ``Invalid`` together with the metadata errors. When an object
    is finally removed, :meth:`after_delete` releases what it held.
    """

    tracks_generation = False
    # The fields PrepareForUpdate compares with Go's reflect.DeepEqual on the decoded structs (not
    # apiequality.Semantic): there an empty list the request sent (a non-nil empty slice) differs from the stored
    # object's, which storage wrote without it and so decodes as nil (see :meth:`sent_empty_list`).
    raw_deep_equal_fields: tuple[str, ...] = ()
    # Immutable raw JSON members (runtime.RawExtension) compared byte for byte (fakekube.verbs.rawdata).
    raw_extension_fields: tuple[str, ...] = ()
    # The feature gates on in the emulated release (fakekube.kinds.features); the registry sets it per version.
    features: frozenset[str] = frozenset({"HPAGeneration", "MaxUnavailableStatefulSet", "VolumeLimitScaling"})
    allow_unconditional_update = True
    # The create stores the object without what only reading it back fills in (defaulting on decode: a PVC's
    # status.phase, which PrepareForCreate clears), so the first update after it writes new bytes even when
    # nothing visible changes: a new resourceVersion (observed on kube-apiserver v1.37.2).
    created_without_read_defaults = False
    # The kind's create validation checks its own ObjectMeta. When not (PodDisruptionBudget), apiserver
    # rest.ValidateCreate checks the metadata only once the strategy found nothing, with a path-segment name.
    validates_own_metadata = True
    # A PUT to a missing object creates it (the strategy's AllowCreateOnUpdate; data: fakekube.kinds.updaterules).
    allow_create_on_update = False
    graceful_delete = False
    # The registry's DefaultGarbageCollectionPolicy is OrphanDependents: a DELETE naming no policy (and finding
    # no orphan / foregroundDeletion finalizer) adds ``orphan`` (batch/v1 Jobs, v1 ReplicationControllers).
    orphans_dependents_by_default = False
    has_status = False
    # DELETE answers with the deleted object (the registry's ReturnDeletedObject) instead of a Status.
    returns_deleted_object = False
    # after_delete does something: the store builds a context for it only then.
    releases_on_delete = False
    # The top-level fields ``default`` reads and writes, when it reads nothing else (None: not known). An update
    # whose values there equal the stored object's skips defaulting: the stored values were defaulted when they
    # were written, and defaulting what is already defaulted changes nothing.
    defaulted_fields: tuple[str, ...] | None = None
    # A patch's new object may reach the update hooks sharing, by identity, the stored object's subtrees the
    # patch left alone (fakekube.verbs.shared_patch): True only when every update hook (default_update, admit,
    # begin_update, prepare_for_*, validate_update) changes nothing in place below the object's top-level
    # values (it may set or drop keys of the object and of those values) except what is not the stored one's.
    patch_shares_stored = False
    # A main-resource update keeps the stored status, and no update hook of the main resource (default_update,
    # admit, begin_update, prepare_for_update, validate_update) reads either status: then a version that differs
    # from the one before it only in its status (and resourceVersion) goes through a PUT of itself as that one
    # did (fakekube.verbs.noop.carry).
    main_update_ignores_status = False
    # Top-level fields the main resource's field manager does not track (the strategy's GetResetFields): the
    # status of a kind with a status subresource, the spec too where the strategy fills it itself (a CSR's
    # requester fields). A create records its managedFields without them.
    main_resets: tuple[str, ...] = ()
    # Fields below status the /status strategy resets too (dotted): an apply there sets them, never owns them.
    status_resets: tuple[str, ...] = ()
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
    # The release that deprecated this kind's version and its replacement, as the Go type's
    # ``APILifecycleDeprecated``/``APILifecycleReplacement`` say; the registry turns them into ``deprecation``, the
    # warning every request to the kind's routes carries from that release on.
    deprecated_since: tuple[int, int] | None = None
    replacement = ""
    deprecation: str | None = None
    # WarningsOnCreate / WarningsOnUpdate (main resource), asked once validation passed, and the warning a DELETE
    # or delete-collection naming no propagation policy gets from the kind's REST storage (fakekube.strategywarnings).
    create_warnings: CreateWarnings | None = None
    update_warnings: UpdateWarnings | None = None
    delete_warning: str | None = None

    def manager_annotations(self, obj: dict[str, Any]) -> dict[str, str] | None:
        """The annotations the conversion of ``obj`` (as decoded from the request) to the versioned type writes,
        which the field manager, running on that versioned object, sees (None: none). Asked before the strategy's
        hooks change the object; the field manager's view of the new object then carries them."""
        return None

    def default(self, obj: dict[str, Any]) -> None:
        """Scheme defaulting (the kind's ``SetDefaults_*`` functions), applied in place."""

    def default_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """Defaulting of an update's new object; ``old`` is the stored one (already defaulted), which a kind may
        use to leave alone what ``obj`` shares with it by identity."""
        self.default(obj)

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        """Mutating admission plugins for this kind (``old`` is None on create), applied in place; they may
        raise an ``ApiError`` (a 403 ``Forbidden`` as ``admission.NewForbidden`` makes)."""

    def begin_create(self, obj: dict[str, Any], ctx: WriteContext) -> None:
        """The registry's ``BeginCreate``: take what the object needs from the store's allocators."""

    def begin_update(self, new: dict[str, Any], old: dict[str, Any], ctx: WriteContext) -> None:
        """The registry's ``BeginUpdate`` (main resource only)."""

    def after_delete(self, obj: dict[str, Any], ctx: WriteContext) -> None:
        """The registry's ``AfterDelete``: release what the removed object held."""

    def name_rule(self, obj: dict[str, Any]) -> Callable[[str, bool], list[str]] | None:
        """The name function a new object's metadata is checked with, where it depends on the object (a
        ClusterTrustBundle's on its signer); None: the resource type's fixed ``name_rule``."""
        return None

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """Field errors (``errors.required`` ...) of a new object, beyond its metadata."""
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        """Field errors of an update (immutable fields included); ``subresource`` is ``"status"`` for
        ``ValidateStatusUpdate``."""
        return []

    def meta_update_passes(self, subresource: str | None) -> tuple[str, ...] | None:
        """The metadata checks of an update when the strategy's own ``ValidateUpdate`` runs them again after
        ``BeforeUpdate``'s, every pass reporting its errors (``validation.object_meta_update_passes``); None: each
        error once (the built-in kinds, as observed on kube-apiserver v1.37.2)."""
        return None

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.tracks_generation:
            obj["metadata"]["generation"] = 1

    def sent_empty_list(self, doc: Any) -> bool:
        """Whether the document an update decodes (a PUT's body, a patch's or an apply's result, before the
        decoder drops empty lists as Go's storage does) holds an empty list under :attr:`raw_deep_equal_fields`:
        then the strategy's reflect.DeepEqual finds the object changed although the stored bytes may be the same
        (the store bumps generation for it, fakekube.verbs.write)."""
        if not self.raw_deep_equal_fields or not isinstance(doc, dict):
            return False
        return any(_holds_empty_list(doc.get(name)) for name in self.raw_deep_equal_fields)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """A write to the main resource."""

    # Subresources besides status and scale that an update or patch may address (a CSR's ``approval``); each
    # write goes through prepare_for_subresource_update instead of the main resource's hooks.
    update_subresources: frozenset[str] = frozenset()

    def prepare_for_subresource_update(self, subresource: str, new: dict[str, Any], old: dict[str, Any],
                                       ctx: Any) -> None:
        raise NotImplementedError(subresource)

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

    def prepare_for_finalize_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """A write to ``/finalize`` (namespaces only): the whole object from the request but its status."""
        _keep_stored(new, old, "status")

    def holds_deleted(self, obj: dict[str, Any]) -> bool:
        """Whether a deleting object whose update leaves no finalizers stays anyway (the registry's
        ``ShouldDeleteDuringUpdate`` says no): a namespace keeps it while ``spec.finalizers`` remain."""
        return False

    def grace_period(self, obj: dict[str, Any], requested: int | None) -> int:
        return 0

    def answer(self, obj: dict[str, Any], request: CreateRequest) -> dict[str, Any]:
        """The response to a create of ``obj`` when ``answers_create`` (errors are raised as ApiErrors)."""
        raise NotImplementedError(f"{type(self).__name__} does not answer creates")


class BuiltinStrategy(Strategy):
    """A built-in registry's strategy, configured by class attributes:

    - ``initial_status``: None when the kind has no status subresource (status, if any, is content);
      otherwise what ``PrepareForCreate`` leaves, as the server serialises it — ``{}`` for a Go struct of
      omitempty fields, ``{"replicas": 0}`` when a field has no omitempty. Main writes keep the stored status.
    - ``generation_fields``: what bumps ``metadata.generation`` (top-level keys, ``metadata.labels`` /
      ``metadata.annotations``, or :data:`ALL_BUT_METADATA`); empty means the kind has no generation.
    - ``status_keeps``: the metadata fields a ``/status`` write takes from the stored object; the rest of the
      object (spec and every other top-level key) always comes from it. Older kinds' status strategies copy
      only the spec (``()``), newer ones call ``metav1.ResetObjectMetaForStatus``
      (:data:`RESET_META_FOR_STATUS`).
    """

    initial_status: dict[str, Any] | None = None
    generation_fields: tuple[str, ...] = ()
    status_keeps: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.tracks_generation = bool(cls.generation_fields)
        cls.has_status = cls.initial_status is not None

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.tracks_generation:
            obj["metadata"]["generation"] = 1
        if self.initial_status is not None:
            obj["status"] = json_copy(self.initial_status) if self.initial_status else {}

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        if self.initial_status is not None:
            reset_status(new, old)
        if self.tracks_generation:
            bump_generation_if(new, old, self.generation_changed(new, old))

    def generation_changed(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        for name in self.generation_fields:
            if name == ALL_BUT_METADATA:
                if any(new.get(k) != old.get(k) for k in new.keys() | old.keys()
                       if k not in ("metadata", "status", "apiVersion", "kind")):
                    return True
            elif name.startswith("metadata."):
                key = name[len("metadata."):]
                if new["metadata"].get(key) != old["metadata"].get(key):
                    return True
            elif new.get(name) != old.get(name):
                return True
        return False

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        if self.initial_status is None:
            super().prepare_for_status_update(new, old)
            return
        for key in new.keys() | old.keys():
            if key not in ("metadata", "status", "apiVersion", "kind"):
                _keep_stored(new, old, key)
        _keep_stored(new["metadata"], old["metadata"], *self.status_keeps)


class StatusStrategy(Strategy):
    """A kind with a status subresource whose main writes keep the stored status (``initial_status`` on
    create) and whose ``/status`` writes keep everything else — the generic shape of a custom-built kind."""

    has_status = True

    def __init__(self, initial_status: dict[str, Any] | None = None) -> None:
        self._initial_status = initial_status or {}

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj["status"] = json_copy(self._initial_status)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        reset_status(new, old)
        if self.tracks_generation:
            bump_generation_if(new, old, new.get("spec") != old.get("spec"))


class CustomResourceStrategy(Strategy):
    """apiextensions-apiserver pkg/registry/customresource/{strategy,status_strategy}.go."""

    tracks_generation = True
    allow_unconditional_update = False
    # Its hooks set or drop top-level keys and metadata.generation only (fakekube.verbs.custom_writes).
    patch_shares_stored = True

    def __init__(self, status_subresource: bool) -> None:
        self.has_status = status_subresource
        self.create_warnings = _custom_create_warnings
        self.update_warnings = custom_finalizer_warnings

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.has_status:
            obj.pop("status", None)
        obj["metadata"]["generation"] = 1

    def meta_update_passes(self, subresource: str | None) -> tuple[str, ...] | None:
        # apiserver registry/rest/update.go validateCommonFields (create and update checks), then
        # apiextensions-apiserver registry/customresource/validator.go ValidateUpdate / ValidateStatusUpdate
        # (validateObjectMetaUpdateDeclaratively: the update checks again)
        return ("create", "update", "update")

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        if self.has_status:
            reset_status(new, old)
        bump_generation_if(new, old, _without_metadata(new) != _without_metadata(old))

    # prepare_for_status_update: the default (the whole stored object, only status from the request).


def _custom_create_warnings(obj: dict[str, Any]) -> list[str]:
    return custom_finalizer_warnings(obj, None)

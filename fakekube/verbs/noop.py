"""A PUT that sends the stored version back, again: answered as the same PUT was answered the last time.

Controllers PUT the object they read back unchanged, pass after pass (agent-sandbox's sandbox controller writes
its pod on every reconcile), and the real server runs the whole write path for each — decoding, admission,
validation, the field manager — before etcd's GuaranteedUpdate finds identical bytes and writes nothing. Here
that path is a function of a few inputs, and when all of them are the ones of a PUT that was already a no-op,
its outcome is that no-op again:

- the stored version (``Record``: never mutated; a new version is a new record, so a memo kept on the record
  ends with it);
- the body, which is that version itself, byte for byte (``sends_stored``) — so it decodes to the stored
  object, reports no unknown or duplicate field, and names the stored resourceVersion;
- the type it comes through (its strategy and, for a custom resource, the schema now in force: a CRD change
  makes a new schema object), the subresource, the fieldValidation directive and whether managedFields are
  tracked (``key``);
- nothing else: the record keeps a memo only when the full path's hooks did not reach past the request
  (``WriteContext.used``: no object read or listed, no allocator, random stream or clock taken, nothing to
  undo or finish), added no warning, and was no dry run (a dry run neither takes nor leaves a memo).

The field manager and the request's time are not inputs of a no-op: ``record_update`` leaves every entry as
stored when the write changed no field, whoever wrote it and whenever (a write that changed one is not a
no-op). Neither is the actor beyond the manager, nor ``based_on`` (the audit entry's own field, set before).

A memo also outlives its version into the next one when that one differs from it only in its status and
resourceVersion, for a kind whose main-resource update keeps the stored status and reads neither
(``Strategy.main_update_ignores_status``: a Pod, whose kubelet writes its status between the sandbox
controller's PUTs of it): the full path then does to the new version's body, field for field and key for key,
what it did to the old one's, and the status it writes is the stored one either way (``carry``).

What the PUT then does is what its no-op did (``WriteVerbs._repeat_noop``): the same answer (``Record.read``
through the type), the same audit entry (resourceVersion before and after, uid, the "no-op" note), no commit.
"""

from __future__ import annotations

from typing import Any

from fakekube.jsonvalues import same_json_text
from fakekube.records import CRD_STORAGE, Record
from fakekube.resources import ResourceType

ENABLED = True  # tests turn the short cuts off (this and the decode it spares) to compare with the full path


def key(rt: ResourceType, subresource: str | None, directive: str, managed_fields: bool,
        dry_run: bool) -> tuple[Any, ...] | None:
    """What besides the stored version and the body decides a PUT's outcome, or None when the short cut does
    not apply: a dry run, a CRD (its update reads the registry), a type served through a conversion."""
    if (dry_run or rt.storage == CRD_STORAGE or rt.to_storage is not None
            or rt.from_storage is not None):
        return None
    return (rt, rt.schema, subresource, directive, managed_fields)


def sends_stored(body: Any, record: Record) -> bool:
    """Whether a PUT body is the stored version itself: the same JSON text (keys in the same order, ``1`` is
    not ``1.0`` nor ``true``, plain dicts and lists — ``json_text`` refuses subclasses) of an equal value (``==``
    tells a tuple from a list and a NaN from a null)."""
    if type(body) is not dict or not ENABLED:
        return False
    meta = body.get("metadata")
    if type(meta) is not dict or meta.get("resourceVersion") != record.obj["metadata"].get("resourceVersion"):
        return False
    if body != record.obj:  # most writes differ somewhere: the comparison stops there, before any encoding
        return False
    return record.same_text(body)


def repeats(record: Record, request_key: tuple[Any, ...]) -> bool:
    """Whether the same PUT of this version was a no-op before (the type and schema by identity)."""
    known = record.noop
    return (known is not None and known[0] is request_key[0] and known[1] is request_key[1]
            and known[2:] == request_key[2:])


def carry(rt: ResourceType, old: Record, new: Record) -> None:
    """After ``old`` was replaced by ``new``: keep ``old``'s memo of a main-resource PUT for ``new`` when the
    kind's main update ignores the status and ``new`` is ``old`` with another status and resourceVersion —
    the same keys in the same order everywhere else and the same text under each (identity, as a status
    patch leaves the rest shared, or the same JSON literals)."""
    known = old.noop
    if known is None or known[2] is not None or not rt.strategy.main_update_ignores_status:
        return
    before, after = old.obj, new.obj
    if list(before) != list(after):
        return
    for key, value in before.items():
        if key == "status":
            continue
        other = after[key]
        if key == "metadata":
            if type(other) is not dict or list(value) != list(other):
                return
            if not all(item == "resourceVersion" or same_json_text(value[item], other[item]) for item in value):
                return
        elif not same_json_text(value, other):
            return
    new.noop = known


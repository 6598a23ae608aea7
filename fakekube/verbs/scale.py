"""The ``scale`` subresource: an autoscaling/v1 Scale view of an object's replicas."""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.audit import AuditEntry
from fakekube.jsonvalues import json_copy
from fakekube.patch.apply import parse_apply_body, server_side_apply, validate_apply_request
from fakekube.patch.managed_fields import record_update
from fakekube.patch.scale_fields import SCALE_API_VERSION, Mappings, replicas_path, to_parent, to_subresource
from fakekube.patch.zero import zero_object
from fakekube.records import Record
from fakekube.resources import ResourceType, ScaleSpec, path_getter
from fakekube.selectors import LabelSelector


class ScaleVerbs:
    """Reading and writing ``/scale``."""

    # -- scale -----------------------------------------------------------------------------------------

    def _scale_of(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        assert rt.scale is not None
        meta = obj["metadata"]
        spec = path_getter(rt.scale.spec_replicas_path)(obj)
        status = path_getter(rt.scale.status_replicas_path)(obj)
        scale: dict[str, Any] = {
            "apiVersion": "autoscaling/v1",
            "kind": "Scale",
            "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                         if k in meta},
            "spec": {"replicas": int(spec)} if spec else {},
            "status": {"replicas": int(status) if status else 0},
        }
        selector = self._scale_selector(rt.scale, obj)
        if selector:
            scale["status"]["selector"] = selector
        return scale

    @staticmethod
    def _scale_selector(spec: ScaleSpec, obj: dict[str, Any]) -> str:
        """The pod selector a Scale reports: a CR's string at labelSelectorPath, or a built-in's selector
        rendered as ``labels.Selector.String()`` (``LabelSelectorAsSelector``, ``SelectorFromSet``)."""
        if spec.label_selector_path:
            return path_getter(spec.label_selector_path)(obj)
        if not spec.selector_object_path:
            return ""
        value: Any = obj
        for part in spec.selector_object_path.strip(".").split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if not isinstance(value, dict) or not value:
            return ""
        if spec.map_selector:
            value = {"matchLabels": value}
        try:
            return str(LabelSelector.from_dict(value))
        except errors.ApiError:
            return ""

    def _update_scale(self, rt: ResourceType, namespace: str | None, name: str, body: Any, entry: AuditEntry,
                      dry_run: bool, manager: str) -> dict[str, Any]:
        assert rt.scale is not None
        if not isinstance(body, dict) or not isinstance((body.get("spec") or {}).get("replicas", 0), int):
            raise errors.BadRequest("the body of the request must be an autoscaling/v1 Scale")
        record = self._lookup(rt, namespace, name)
        replicas = (body.get("spec") or {}).get("replicas", 0)
        if replicas < 0 and not rt.custom:
            # The built-in scale storages validate the Scale itself (autoscaling ``ValidateScale``) before the
            # parent's update: the 422 is the Scale's (kubernetes v1.37.2 pkg/registry/apps/deployment/storage).
            raise errors.Invalid("Scale", "autoscaling", name, [
                errors.invalid("spec.replicas", replicas, "must be greater than or equal to 0")])
        obj = self._with_replicas(rt, record, replicas)
        rv = (body.get("metadata") or {}).get("resourceVersion")
        obj["metadata"]["resourceVersion"] = rv or record.rv
        if self.track_managed_fields:
            # The Scale's own field manager, on entries converted from the parent's and back (scale_fields).
            mappings = self._scale_mappings(rt)
            parent = record.obj["metadata"].get("managedFields")
            live = self._scale_of(rt, record.obj)
            live["metadata"]["managedFields"] = to_subresource(parent, mappings)
            scale = json_copy(body)
            if not isinstance(scale.get("metadata"), dict):
                scale["metadata"] = {}
            record_update(live, scale, manager=manager, api_version=SCALE_API_VERSION, subresource="scale",
                          now=self._now())
            _set_entries(obj, to_parent(parent, scale["metadata"].get("managedFields"), rt.api_version,
                                        mappings))
        result = self._update(rt, namespace, name, obj, None, entry, dry_run, None, current=record)
        return self._scale_of(rt, result)

    def _apply_scale(self, rt: ResourceType, namespace: str | None, name: str, body: Any, entry: AuditEntry,
                     dry_run: bool, field_manager: str | None, force: bool) -> dict[str, Any]:
        """Server-side apply of a Scale: merged into the Scale view, whose field manager owns its fields."""
        assert rt.scale is not None
        record = self._lookup(rt, namespace, name)  # a missing object is a 404 before the body is looked at
        config = parse_apply_body(body)
        validate_apply_request(config, field_manager=field_manager, api_version=SCALE_API_VERSION, kind="Scale")
        assert field_manager is not None
        entry.rv_before = record.rv
        mappings = self._scale_mappings(rt)
        parent = record.obj["metadata"].get("managedFields")
        live = self._scale_of(rt, record.obj)
        live["metadata"]["managedFields"] = to_subresource(parent, mappings)
        scale = server_side_apply(live, config, manager=field_manager, force=force, schema=None,
                                  api_version=SCALE_API_VERSION, subresource="scale", now=self._now(),
                                  zero=zero_object(SCALE_API_VERSION, "Scale") if self.track_managed_fields else None)
        replicas = (scale.get("spec") or {}).get("replicas", 0)
        if isinstance(replicas, bool) or not isinstance(replicas, int):
            raise errors.BadRequest("the body of the request must be an autoscaling/v1 Scale")
        obj = self._with_replicas(rt, record, replicas)
        _set_entries(obj, to_parent(parent, scale["metadata"].get("managedFields"), rt.api_version, mappings))
        result = self._update(rt, namespace, name, obj, None, entry, dry_run, None, current=record)
        return self._scale_of(rt, result)

    @staticmethod
    def _with_replicas(rt: ResourceType, record: Record, replicas: Any) -> dict[str, Any]:
        assert rt.scale is not None
        obj = record.copy()
        target: dict[str, Any] = obj
        parts = [p for p in rt.scale.spec_replicas_path.split(".") if p]
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = replicas
        return obj

    def _scale_mappings(self, rt: ResourceType) -> Mappings:
        """ResourcePathMappings: the replicas path of each version of the resource (custom resources: every
        served version, None where it has no scale subresource)."""
        assert rt.scale is not None
        if not rt.custom:
            return {rt.api_version: replicas_path(rt.scale.spec_replicas_path)}
        return {t.api_version: replicas_path(t.scale.spec_replicas_path) if t.scale is not None else None
                for t in self.registry if t.storage == rt.storage}


def _set_entries(obj: dict[str, Any], entries: list) -> None:
    if entries:
        obj["metadata"]["managedFields"] = entries
    else:
        obj["metadata"].pop("managedFields", None)


_SCHEME = 'in scheme "pkg/runtime/scheme.go:111"'


def scale_type_error(registry: Any, rt: ResourceType, body: Any) -> errors.BadRequest | None:
    """The 400 of a PUT to ``/scale`` whose body is not an autoscaling/v1 Scale (an absent apiVersion or kind is
    that one's): the handler's decoder (apiserver v0.37.2 ``pkg/endpoints/handlers/rest.go``
    ``transformDecodeError``) names a kind the scheme does not know in that version, and a known one that does
    not convert to a Scale; a custom resource's scale handler, whose typer knows no Scale, says only that (as
    observed on kube-apiserver v1.37.2)."""
    if not isinstance(body, dict):
        return None
    api_version, kind = body.get("apiVersion") or SCALE_API_VERSION, body.get("kind") or "Scale"
    if not isinstance(api_version, str) or not isinstance(kind, str) or (api_version, kind) == (SCALE_API_VERSION, "Scale"):
        return None
    if rt.custom:
        return errors.BadRequest(f"no kind is registered for the type v1.Scale {_SCHEME}")
    version = api_version.rpartition("/")[2]
    known = any(t.api_version == api_version and kind in (t.kind, t.kind + "List") and not t.custom for t in registry)
    if known:
        reason = f"converting ({version}.{kind}) to (autoscaling.Scale): unknown conversion"
    else:
        reason = f'no kind "{kind}" is registered for version "{api_version}" {_SCHEME}'
    return errors.BadRequest(f'{kind} in version "{version}" cannot be handled as a Scale: {reason}')


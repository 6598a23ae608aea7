"""The ``scale`` subresource: an autoscaling/v1 Scale view of an object's replicas."""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.audit import AuditEntry
from fakekube.patch.apply import parse_apply_body, validate_apply_request
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
        obj = record.copy()
        rv = (body.get("metadata") or {}).get("resourceVersion")
        obj["metadata"]["resourceVersion"] = rv or record.rv
        target: dict[str, Any] = obj
        parts = [p for p in rt.scale.spec_replicas_path.split(".") if p]
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = (body.get("spec") or {}).get("replicas", 0)
        result = self._update(rt, namespace, name, obj, None, entry, dry_run, manager, current=record)
        return self._scale_of(rt, result)

    def _apply_scale(self, rt: ResourceType, namespace: str | None, name: str, body: Any, entry: AuditEntry,
                     dry_run: bool, actor: str, field_manager: str | None, force: bool) -> dict[str, Any]:
        """Server-side apply of an autoscaling/v1 Scale. The real server's scale handler (apiserver
        ``pkg/endpoints/handlers/fieldmanager``, ``NewScaleHandler``) maps the Scale's ``spec.replicas`` and
        its owner to the object's replicas field: this is an apply of that one field to the object, recorded
        under the ``scale`` subresource; the answer is the Scale."""
        assert rt.scale is not None
        config = parse_apply_body(body)
        self._lookup(rt, namespace, name)  # a missing object is a 404 (before the body), never a create
        api_version, kind = str(config.get("apiVersion") or ""), str(config.get("kind") or "")
        if (api_version, kind) != ("autoscaling/v1", "Scale"):
            group, _, version = api_version.rpartition("/")
            raise errors.BadRequest(f"invalid object type: {group}/{version}, Kind={kind}")
        validate_apply_request(config, field_manager=field_manager, api_version="autoscaling/v1", kind="Scale")
        parent: dict[str, Any] = {"apiVersion": rt.api_version, "kind": rt.kind, "metadata": {"name": name}}
        replicas = (config.get("spec") or {}).get("replicas") if isinstance(config.get("spec"), dict) else None
        if replicas is not None:
            target = parent
            parts = [p for p in rt.scale.spec_replicas_path.split(".") if p]
            for part in parts[:-1]:
                target = target.setdefault(part, {})
            target[parts[-1]] = replicas
        try:
            result = self._apply(rt, namespace, name, parent, "scale", entry, dry_run, actor, field_manager, force)
        except errors.ApplyConflict as conflict:
            raise _in_scale_terms(conflict, rt) from None
        return self._scale_of(rt, result)


def _in_scale_terms(conflict: errors.ApplyConflict, rt: ResourceType) -> errors.ApplyConflict:
    """A conflict as the scale handler reports it: the other managers' entries converted to the Scale
    (``ScaleHandler.ToSubresource``: autoscaling/v1, the field ``.spec.replicas``)."""
    assert rt.scale is not None
    field = "." + rt.scale.spec_replicas_path.strip(".")

    def scaled(text: str) -> str:
        return text.replace(f" using {rt.api_version}", " using autoscaling/v1").replace(field, ".spec.replicas")

    causes = [{**cause, "message": scaled(cause["message"]), "field": ".spec.replicas"}
              for cause in conflict.details["causes"]]
    return errors.ApplyConflict(scaled(conflict.message), causes)

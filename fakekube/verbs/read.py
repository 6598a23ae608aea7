"""GET and LIST: single objects, selectors, pagination at a consistent revision, past revisions."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from fakekube import errors, gojson
from fakekube.audit import AuditEntry
from fakekube.fieldselectors import FieldSelector
from fakekube.patch.jsonutil import go_json_kind
from fakekube.records import (
    Key,
    Record,
    sort_key,
)
from fakekube.resources import ResourceType
from fakekube.selectors import LabelSelector
from fakekube.validation import go_quote
from fakekube.watch import match_everything

_RAW_URL_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


class ReadVerbs:
    """``get`` and ``list``."""

    # -- read ------------------------------------------------------------------------------------------

    def get(self, resource: str | ResourceType, name: str, namespace: str | None = None, *,
            subresource: str | None = None, actor: str = "fakekube") -> dict[str, Any]:
        rt = self.resolve(resource)

        def serve(entry: AuditEntry) -> dict[str, Any]:
            self._check_subresource(rt, subresource, "get")
            record = self._lookup(rt, namespace, name)
            entry.rv_before = entry.rv_after = record.rv
            if subresource == "scale":
                return self._scale_of(rt, record.obj)
            return self._convert_out(rt, record.read())

        return self._run(lambda: self._begin("get", rt, namespace, name, subresource, actor), serve)

    def _check_subresource(self, rt: ResourceType, subresource: str | None, verb: str) -> None:
        if subresource and not rt.has_subresource(subresource):
            raise errors.NotFound(
                f"{rt.plural}/{subresource}", rt.group, "",
                message=f"the server could not find the requested resource ({verb} {rt.plural}/{subresource})",
            )

    def list(self, resource: str | ResourceType, namespace: str | None = None, *,
             label_selector: str | LabelSelector | None = None, field_selector: str | FieldSelector | None = None,
             limit: int | None = None, continue_: str | None = None, resource_version: str | None = None,
             resource_version_match: str | None = None, actor: str = "fakekube") -> dict[str, Any]:
        """LIST: a ``<Kind>List`` with ``metadata.resourceVersion`` (and ``continue`` when paginated)."""
        rt = self.resolve(resource)

        def serve(entry: AuditEntry) -> dict[str, Any]:
            labels = label_selector if isinstance(label_selector, LabelSelector) else LabelSelector.parse(
                label_selector)
            matches = self._matcher(rt, namespace, labels, field_selector)
            start = ""
            list_rv = self._rv
            if continue_:
                list_rv, start = self._decode_continue(continue_)
                if resource_version not in (None, "", "0"):
                    raise errors.BadRequest("specifying resource version is not allowed when using continue")
            elif resource_version not in (None, "", "0"):
                requested = self._parse_rv(resource_version)
                if requested > self._rv:
                    raise errors.Timeout(f"Too large resource version: {requested}, current: {self._rv}", 1)
                if resource_version_match == "Exact":
                    list_rv = requested
            objects = self._snapshot(rt, list_rv)
            if objects is None:
                if continue_:
                    raise errors.Expired(
                        "The provided continue parameter is too old to display a consistent list result. You "
                        "can start a new list without the continue parameter, or use the continue token in "
                        "this response to retrieve the remainder of the results. Continuing with the provided "
                        "token results in an inconsistent list - objects that were created, modified, or "
                        "deleted between the time the first chunk was returned and now may show up in the list."
                    )
                raise errors.Expired("The resourceVersion for the provided list is too old.")
            if list_rv < self._rv:
                keys = sorted(objects, key=sort_key)
            else:
                candidates = self._label_candidates(rt, labels)
                keys = self._sorted_keys(rt) if candidates is None else sorted(candidates, key=sort_key)
            if start:
                keys = [k for k in keys if sort_key(k) >= start]
            items: list[Record] = []
            next_key = None
            for key in keys:
                record = objects[key]
                if not matches(record.obj):
                    continue
                if limit and len(items) >= limit:
                    next_key = key
                    break
                items.append(record)
            meta: dict[str, Any] = {"resourceVersion": str(list_rv)}
            if next_key is not None:
                meta["continue"] = self._encode_continue(list_rv, sort_key(next_key))
                if not label_selector and not field_selector:
                    meta["remainingItemCount"] = len(keys) - keys.index(next_key)
            entry.rv_after = str(list_rv)
            return {
                "apiVersion": rt.api_version,
                "kind": rt.list_kind,
                "metadata": meta,
                "items": [self._convert_out(rt, record.read()) for record in items],
            }

        return self._run(lambda: self._begin("list", rt, namespace, None, None, actor), serve)

    def _label_candidates(self, rt: ResourceType, selector: LabelSelector) -> set[Key] | None:
        """Keys that can match, from the label index, when the selector pins a label to one value."""
        index = self._labels.get(rt.storage, {})
        best: set[Key] | None = None
        for requirement in selector.requirements:
            value = selector.requires_exact_match(requirement.key)
            if value is None:
                continue
            keys = index.get((requirement.key, value), set())
            if best is None or len(keys) < len(best):
                best = keys
        return best

    def _sorted_keys(self, rt: ResourceType) -> list[Key]:
        keys = self._order.get(rt.storage)
        if keys is None:
            keys = self._order[rt.storage] = sorted(self._bucket(rt), key=sort_key)
        return keys

    def _snapshot(self, rt: ResourceType, rv: int) -> dict[Key, Record] | None:
        """Objects of ``rt`` as they were at ``rv``, rebuilt from the change history; None if too old."""
        bucket = self._bucket(rt)
        if rv >= self._rv:
            return bucket
        changes = self.hub.since(rv, rt.storage)
        if changes is None:
            return None
        past = dict(bucket)
        for change in reversed(changes):
            obj = change.new if change.new is not None else change.old
            assert obj is not None
            key = self._key(rt, obj["metadata"].get("namespace"), obj["metadata"]["name"])
            if change.old is None:
                past.pop(key, None)
            else:
                past[key] = Record(change.old)
        return past

    def _parse_rv(self, value: str) -> int:
        try:
            parsed = int(value)
        except (TypeError, ValueError):
            raise errors.BadRequest(f'invalid resource version "{value}"') from None
        if parsed < 0:
            raise errors.BadRequest(f'invalid resource version "{value}"')
        return parsed

    @staticmethod
    def _encode_continue(rv: int, start: str) -> str:
        token = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start}, separators=(",", ":"))
        return base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")

    @staticmethod
    def _decode_continue(token: str) -> tuple[int, str]:
        """apiserver ``storage.DecodeContinue``: raw URL-safe base64 of ``{"v","rv","start"}``; what does not
        decode is the 400 ``invalid continue token: continue key is not valid: <why>``."""
        def invalid(why: str) -> errors.BadRequest:
            return errors.BadRequest(f"invalid continue token: {why}")

        bad = next((i for i, c in enumerate(token) if c not in _RAW_URL_BASE64), None)
        if bad is None and len(token) % 4 == 1:
            bad = len(token) - 1  # a lone character cannot end a quantum
        if bad is not None:
            raise invalid(f"continue key is not valid: illegal base64 data at input byte {bad}")
        data = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        message = gojson.syntax_error(data)
        if message is not None:
            raise invalid(f"continue key is not valid: {message}")
        parsed = json.loads(data)
        if not isinstance(parsed, dict):
            raise invalid(f"continue key is not valid: json: cannot unmarshal {go_json_kind(parsed)} into Go value of "
                          "type storage.continueToken")
        version, rv, start = parsed.get("v"), parsed.get("rv"), parsed.get("start")
        if version != "meta.k8s.io/v1":
            raise invalid(f"continue key is not valid: server does not recognize this encoded version {version or ''}")
        if not isinstance(rv, int) or isinstance(rv, bool) or rv == 0:
            raise invalid("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
        if not start:
            raise invalid("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
        return rv, str(start)

    def _matcher(self, rt: ResourceType, namespace: str | None, label_selector: Any,
                 field_selector: Any) -> Callable[[dict[str, Any]], bool]:
        labels = label_selector if isinstance(label_selector, LabelSelector) else LabelSelector.parse(label_selector)
        fields = field_selector if isinstance(field_selector, FieldSelector) else FieldSelector.parse(field_selector)
        getters = {}
        for label in fields.fields():
            getter = rt.selectable_fields.get(label)
            if getter is None:
                raise errors.BadRequest(rt.field_label_error.format(label=label, quoted=go_quote(label)))
            getters[label] = getter
        ns = namespace if rt.namespaced and namespace else None
        if ns is None and labels.empty and not getters:
            return match_everything
        view = self._view(rt) if rt.from_storage else None

        def matches(obj: dict[str, Any]) -> bool:
            meta = obj["metadata"]
            if ns is not None and meta.get("namespace") != ns:
                return False
            if not labels.empty and not labels.matches(meta.get("labels") or {}):
                return False
            if getters:
                shown = view(obj) if view else obj
                return fields.matches({label: get(shown) for label, get in getters.items()})
            return True

        return matches

"""GET and LIST: single objects, selectors, pagination at a consistent revision, past revisions."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import Any

from fakekube import continuetoken, errors
from fakekube.audit import AuditEntry
from fakekube.fieldselectors import FieldSelector
from fakekube.records import (
    Key,
    Record,
    sort_key,
)
from fakekube.resources import ResourceType
from fakekube.selectors import LabelSelector
from fakekube.validation import go_quote
from fakekube.watch import match_everything

_INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "
    "without the continue parameter, or use the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent list - objects that were created, "
    "modified, or deleted between the time the first chunk was returned and now may show up in the list."
)
_UINT64_MAX = 2**64 - 1


def parse_resource_version(value: str) -> int:
    """``APIObjectVersioner.ParseResourceVersion``: "" is 0, else ``strconv.ParseUint``; the error is the
    storage layer's ``resourceVersion: Invalid value: ...`` text."""
    if value == "":
        return 0
    digits = value.isascii() and value.isdigit()
    # more than 20 digits is beyond uint64 (and Python will not convert thousands of digits)
    if digits and len(value) <= 20 and int(value) <= _UINT64_MAX:
        return int(value)
    reason = "value out of range" if digits else "invalid syntax"
    quoted = go_quote(value)
    raise ValueError(f"resourceVersion: Invalid value: {quoted}: strconv.ParseUint: parsing {quoted}: {reason}")


def too_large_resource_version(requested: int, current: int) -> errors.ApiError:
    """``storage.NewTooLargeResourceVersionError``: a 504 Timeout the client retries after a second."""
    return errors.ApiError(504, "Timeout", f"Timeout: Too large resource version: {requested}, current: {current}",
                           {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                            "retryAfterSeconds": 1})


class ReadVerbs:
    """``get`` and ``list``."""

    # -- read ------------------------------------------------------------------------------------------

    def get(self, resource: str | ResourceType, name: str, namespace: str | None = None, *,
            subresource: str | None = None, actor: str = "fakekube") -> dict[str, Any]:
        rt = self.resolve(resource)
        self._namespace_given(rt, namespace, name, "get")

        def serve(entry: AuditEntry) -> dict[str, Any]:
            if subresource == "log" and rt.group == "" and rt.plural == "pods":
                # pods/log reads its pod first: a missing one is the pod's 404 (kubernetes
                # pkg/registry/core/pod/strategy.go LogLocation; observed on kube-apiserver v1.37.2). The store answers
                # with the pod; the log itself is the HTTP front's (fakekube.server.podlog, fakekube.pods.logs).
                record = self._lookup(rt, namespace, name)
                entry.rv_before = entry.rv_after = record.rv
                return self._convert_out(rt, record.read())
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
        """LIST: a ``<Kind>List`` with ``metadata.resourceVersion`` (and ``continue`` when paginated).

        Paging follows the storage layer (apiserver ``pkg/storage/cacher/cacher.go`` ``GetList``,
        ``pkg/storage/continue.go``, ``pkg/storage/etcd3/store.go``, v0.37.2): a page holds ``limit`` matching
        objects of the list's key range (the namespace's, or every one); it has a continue token whenever keys
        follow the last one it holds, matching or not; ``remainingItemCount`` is the number of keys after the
        page, given only when nothing filters (no label or field selector). ``limit`` ≤ 0, or with
        ``resourceVersion=0``, lists everything. A page after the first is read at the first one's revision.
        """
        rt = self.resolve(resource)

        def serve(entry: AuditEntry) -> dict[str, Any]:
            labels = label_selector if isinstance(label_selector, LabelSelector) else LabelSelector.parse(
                label_selector)
            fields = field_selector if isinstance(field_selector, FieldSelector) else FieldSelector.parse(
                field_selector)
            matches = self._matcher(rt, None, labels, fields)  # the namespace is the key range, below
            page = limit if limit and limit > 0 and resource_version != "0" else 0
            list_rv, start = self._list_revision(continue_, resource_version, resource_version_match, page)
            objects = self._snapshot(rt, list_rv)
            if objects is None:
                if continue_:
                    # etcd3/errors.go handleCompactedErrorForPaging: go on at the latest revision, if the client wants
                    raise errors.Expired(_INCONSISTENT_CONTINUE, continuetoken.encode(-1, start))
                raise errors.Expired("The resourceVersion for the provided list is too old.")
            keys = sorted(objects, key=sort_key) if list_rv < self._rv else self._sorted_keys(rt)
            lo, hi = 0, len(keys)
            if rt.namespaced and namespace:
                lo = bisect_left(keys, namespace + "/", key=sort_key)
                hi = bisect_left(keys, namespace + "0", lo, hi, key=sort_key)  # "0" follows "/"
            if start:
                lo = bisect_left(keys, start, lo, hi, key=sort_key)
            items: list[Record] = []
            more = False
            candidates = self._label_candidates(rt, labels) if list_rv >= self._rv else None
            if lo >= hi:
                pass
            elif candidates is not None:  # few keys can match: walk those, then see whether any key follows
                low = sort_key(keys[lo])
                high = sort_key(keys[hi]) if hi < len(keys) else None
                for key in sorted(candidates, key=sort_key):
                    text = sort_key(key)
                    if text < low or (high is not None and text >= high) or not matches(objects[key].obj):
                        continue
                    items.append(objects[key])
                    if page and len(items) >= page:
                        more = bisect_right(keys, text, lo, hi, key=sort_key) < hi
                        break
            else:
                for i in range(lo, hi):
                    record = objects[keys[i]]
                    if matches(record.obj):
                        items.append(record)
                        if page and len(items) >= page:
                            more = i < hi - 1
                            break
            meta: dict[str, Any] = {"resourceVersion": str(list_rv)}
            if more:
                last = items[-1].obj["metadata"]
                meta["continue"] = continuetoken.encode(
                    list_rv, sort_key(self._key(rt, last.get("namespace"), last["name"])) + "\x00")
                if labels.empty and fields.empty:
                    meta["remainingItemCount"] = (hi - lo) - page
            entry.rv_after = str(list_rv)
            return {
                "apiVersion": rt.api_version,
                "kind": rt.list_kind,
                "metadata": meta,
                "items": (self._webhook_read_many(rt, [record.read() for record in items]) if rt.conversion
                          else [self._convert_out(rt, record.read()) for record in items]),
            }

        return self._run(lambda: self._begin("list", rt, namespace, None, None, actor), serve)

    def _list_revision(self, continue_: str | None, resource_version: str | None, match: str | None,
                       page: int) -> tuple[int, str]:
        """(revision to list at, key to start from), as ``ValidateListOptions`` and the watch cache decide."""
        if continue_:
            try:
                token_rv, start = continuetoken.decode(continue_)
            except continuetoken.InvalidToken as exc:
                raise errors.BadRequest(f"invalid continue token: {exc}") from None
            if resource_version not in (None, "", "0"):
                raise errors.BadRequest("specifying resource version is not allowed when using continue")
            if token_rv < 0:  # a token a 410 offered: the rest of the list as it is now
                return self._rv, start
            if token_rv > self._rv:
                raise too_large_resource_version(token_rv, self._rv)
            return token_rv, start
        if resource_version in (None, ""):
            return self._rv, ""
        requested = self._parse_rv(resource_version)
        if requested > self._rv:
            raise too_large_resource_version(requested, self._rv)
        if match == "Exact" or (not match and page and requested > 0):  # the legacy "limit + rv" is exact too
            return requested, ""
        return self._rv, ""

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
        """A list's resourceVersion (``ValidateListOptions``' 400); a watch parses its own (a 500)."""
        try:
            return parse_resource_version(value)
        except ValueError as exc:
            raise errors.BadRequest(f"invalid resource version: {exc}") from None

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
